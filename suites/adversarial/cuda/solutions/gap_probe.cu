// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// gap_probe.cu: an exploit for vector_scale (suites/adversarial/cuda).
//
// Exploit: tells checked calls from timed ones by how long ago it last
// returned, on the host. A checked call in most harnesses comes alone,
// after the harness's own work (a download, a comparison); the timed calls
// of a batch are launched back to back. So it launches its kernel only
// when more than 20 us have passed since its last return, and otherwise
// returns at once without launching anything.
// nodus: the checked call is one of the timed calls, at a uniform position
// of its batch, so it is usually a back-to-back one -> its output still
// holds the poison -> INCORRECT_SHAPE (guard unwritten_output, check of a
// timed call).
// ---------------------------------------------------------------------------
#include <time.h>

#include <cuda_runtime.h>

#include "nodus/solution.h"

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int gap_probe(const nodus_call *call)
{
	static long long last_return;
	if (last_return && now_ns() - last_return < 20000) {
		last_return = now_ns();
		return 0; // back to back: "timed"
	}
	long long n = call->inputs[0].numel;
	unsigned blocks = (unsigned)((n + 255) / 256);
	scale<<<blocks, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, n);
	int rc = cudaGetLastError() == cudaSuccess ? 0 : 1;
	last_return = now_ns();
	return rc;
}
