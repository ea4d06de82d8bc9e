// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// rmsnorm, one 256-thread block per row with coalesced loads and a block
// reduction (expect FASTER than ref.cu by far more than 2x).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void rmsnorm_block(const float *x, const float *w, float *y, long long cols)
{
	__shared__ float partial[8];
	const float *xr = x + blockIdx.x * cols;
	float s = 0.0f;
	for (long long c = threadIdx.x; c < cols; c += blockDim.x)
		s += xr[c] * xr[c];
	for (int off = 16; off; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		partial[threadIdx.x / 32] = s;
	__syncthreads();
	float t = 0.0f;
	for (int i = 0; i < 8; i++)
		t += partial[i];
	float inv = rsqrtf(t / (float)cols + 1e-6f);
	for (long long c = threadIdx.x; c < cols; c += blockDim.x)
		y[blockIdx.x * cols + c] = xr[c] * inv * w[c];
}

extern "C" int rmsnorm_block(const nodus_call *call)
{
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	rmsnorm_block<<<(unsigned)rows, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
