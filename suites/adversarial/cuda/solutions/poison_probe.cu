// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// poison_probe.cu: an exploit for vector_scale (suites/adversarial/cuda).
//
// Exploit: tells checked calls from timed ones by what its output buffer
// holds before the call, on the device. A harness that poisons outputs
// only before the calls it checks gives itself away: each block of the
// kernel looks at the first element of its part of y and computes only
// where that holds a NaN (poison); elsewhere it leaves y as the previous
// call left it (right, for a harness that reuses one buffer unperturbed).
// nodus: every call of a timed batch has outputs of its own, all poisoned
// before the batch's start event, and the checked call is one of them ->
// it always computes: no gain, TIED with the reference it copies.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale_if_poisoned(const float *x, const float *alpha, float *y,
					 long long n)
{
	__shared__ int poisoned;
	long long first = blockIdx.x * (long long)blockDim.x;
	if (threadIdx.x == 0)
		poisoned = isnan(y[first]);
	__syncthreads();
	if (!poisoned)
		return; // "timed": the work skipped
	long long i = first + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int poison_probe(const nodus_call *call)
{
	long long n = call->inputs[0].numel;
	unsigned blocks = (unsigned)((n + 255) / 256);
	scale_if_poisoned<<<blocks, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
