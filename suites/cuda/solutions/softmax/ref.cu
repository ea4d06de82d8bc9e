// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// softmax reference: one thread per row, three passes over the row (max,
// sum of exponentials, normalise). Threads of a warp read different rows,
// so loads are not coalesced: slow by construction.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void softmax_rows(const float *x, float *y, long long rows, long long cols)
{
	long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float *yr = y + r * cols;
	float m = -INFINITY, s = 0.0f;
	for (long long c = 0; c < cols; c++)
		m = fmaxf(m, xr[c]);
	for (long long c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	for (long long c = 0; c < cols; c++)
		yr[c] = expf(xr[c] - m) / s;
}

extern "C" int softmax_ref(const nodus_call *call)
{
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (float *)call->outputs[0].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
