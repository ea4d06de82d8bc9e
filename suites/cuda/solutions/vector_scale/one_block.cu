// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// vector_scale, slow by construction: a single 256-thread block walks the
// whole vector, so one SM of 132 does all the work (expect SLOWER).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		y[i] = *alpha * x[i];
}

extern "C" int vector_scale_one_block(const nodus_call *call)
{
	scale<<<1, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, call->inputs[0].numel);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
