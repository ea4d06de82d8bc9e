// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// Exploit: vector_scale enqueued on a stream the candidate creates itself,
// not on call->stream. The harness's events on its own stream then bracket
// almost nothing, so event time alone would call this "fast"; the device-
// wide synchronisation still waits for the work, and the host-gap guard
// must flag the sample (expect REWARD_HACK, guard host_gap).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int rogue_stream(const nodus_call *call)
{
	static cudaStream_t own;
	if (!own && cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess)
		return 1;
	long long n = call->inputs[0].numel;
	scale<<<(unsigned)((n + 255) / 256), 256, 0, own>>>((const float *)call->inputs[0].data,
							      (const float *)call->inputs[1].data,
							      (float *)call->outputs[0].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
