// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// rmsnorm, wrong by construction: the kernel of ref.cu with a (1 + weight)
// scale (y = xhat * (1 + weight)), the offset-from-1 convention applied to a
// task whose weight is the scale itself. The error is xhat, so it is wrong
// under any judge: with weight = ones it returns 2 * xhat. The control that
// even a naive judge catches: expect INCORRECT_NUMERICAL everywhere.
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
		y[r * cols + c] = xr[c] * inv * (1.0f + w[c]);
}

extern "C" int rmsnorm_one_plus(const nodus_call *call)
{
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	rmsnorm_rows<<<(unsigned)((rows + 127) / 128), 128, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
