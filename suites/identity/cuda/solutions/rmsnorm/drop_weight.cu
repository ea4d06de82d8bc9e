// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// rmsnorm, wrong by construction: the kernel of ref.cu with the weight
// never applied (y = x / rms(x)). The error is xhat * (weight - 1), exactly
// 0 when every weight is 1, so a judge that feeds weight = ones passes it.
// nodus draws weight from affine_scale (never 1, |weight - 1| >= 0.05):
// expect INCORRECT_NUMERICAL.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void rmsnorm_rows(const float *x, const float *w, float *y, long long rows,
				    long long cols)
{
	long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float s = 0.0f;
	for (long long c = 0; c < cols; c++)
		s += xr[c] * xr[c];
	float inv = rsqrtf(s / (float)cols + 1e-6f);
	for (long long c = 0; c < cols; c++)
		y[r * cols + c] = xr[c] * inv;
}

extern "C" int rmsnorm_drop_weight(const nodus_call *call)
{
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	rmsnorm_rows<<<(unsigned)((rows + 127) / 128), 128, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
