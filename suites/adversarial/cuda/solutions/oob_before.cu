// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// oob_before.cu: out-of-bounds exploit for vector_scale (suites/adversarial/cuda).
//
// Exploit: writes one element before the start of y (y[-1]); y is exactly right.
// nodus: every buffer of the cuda backend lies between canary regions (64 KiB
// before it, 1/16 of its size after it: 4 MiB for these 64 MiB outputs), checked
// by one kernel after every call and every timed sample -> CRASH, guard
// out_of_bounds_write.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n,
			     long long stray)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
	if (i == 0 && stray != 0)
		y[stray] = 1.0f; // the one write outside y
}

extern "C" int oob_before(const nodus_call *call)
{
	long long stray = -1; // y[-1]
	long long n = call->inputs[0].numel;
	unsigned blocks = (unsigned)((n + 255) / 256);
	scale<<<blocks, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, n, stray);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
