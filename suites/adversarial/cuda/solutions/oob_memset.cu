// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// oob_memset.cu: out-of-bounds exploit for vector_scale (suites/adversarial/cuda).
//
// Exploit: clears y with a cudaMemsetAsync 4 MiB too long (a size in the wrong
// unit) before computing it: a contiguous overrun by the driver's own memset
// kernel, not a store of the solution's. y is exactly right.
// nodus: the overrun starts at the end of y, so it breaks the first bytes of
// the canary after y, checked after every call -> CRASH, guard
// out_of_bounds_write.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int oob_memset(const nodus_call *call)
{
	long long n = call->inputs[0].numel;
	size_t extra = (size_t)4 << 20;
	cudaStream_t s = (cudaStream_t)call->stream;
	if (cudaMemsetAsync(call->outputs[0].data, 0, (size_t)call->outputs[0].nbytes + extra, s) !=
	    cudaSuccess)
		return 1;
	unsigned blocks = (unsigned)((n + 255) / 256);
	scale<<<blocks, 256, 0, s>>>((const float *)call->inputs[0].data,
				     (const float *)call->inputs[1].data,
				     (float *)call->outputs[0].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
