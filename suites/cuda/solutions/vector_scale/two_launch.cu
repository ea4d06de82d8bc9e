// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// vector_scale in two launches (first half, second half). On a vector of a
// few thousand elements the kernels last a few microseconds and the time is
// launch overhead, so two launches cost about twice one (expect SLOWER on
// the tiny workload). Checks that batching resolves sub-10-us kernels.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int vector_scale_two_launch(const nodus_call *call)
{
	cudaStream_t s = (cudaStream_t)call->stream;
	const float *x = (const float *)call->inputs[0].data;
	const float *alpha = (const float *)call->inputs[1].data;
	float *y = (float *)call->outputs[0].data;
	long long n = call->inputs[0].numel, half = n / 2;
	scale<<<(unsigned)((half + 255) / 256) + 1, 256, 0, s>>>(x, alpha, y, half);
	scale<<<(unsigned)((n - half + 255) / 256) + 1, 256, 0, s>>>(x + half, alpha, y + half,
								       n - half);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
