// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// vector_scale reference: y = alpha * x, one element per thread, 256-thread
// blocks covering n. The A/A pair times this file against itself.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int vector_scale_ref(const nodus_call *call)
{
	long long n = call->inputs[0].numel;
	unsigned blocks = (unsigned)((n + 255) / 256);
	scale<<<blocks, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
