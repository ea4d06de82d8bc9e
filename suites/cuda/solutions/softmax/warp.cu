// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// softmax, one warp per row: coalesced loads, max and sum reduced with warp
// shuffles (expect FASTER than ref.cu by far more than 2x).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __device__ float warp_max(float v)
{
	for (int off = 16; off; off >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ float warp_sum(float v)
{
	for (int off = 16; off; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __global__ void softmax_warp(const float *x, float *y, long long rows, long long cols)
{
	long long r = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x & 31;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float *yr = y + r * cols;
	float m = -INFINITY, s = 0.0f;
	for (long long c = lane; c < cols; c += 32)
		m = fmaxf(m, xr[c]);
	m = warp_max(m);
	for (long long c = lane; c < cols; c += 32)
		s += expf(xr[c] - m);
	s = warp_sum(s);
	for (long long c = lane; c < cols; c += 32)
		yr[c] = expf(xr[c] - m) / s;
}

extern "C" int softmax_warp(const nodus_call *call)
{
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	softmax_warp<<<(unsigned)((rows + 7) / 8), 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (float *)call->outputs[0].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
