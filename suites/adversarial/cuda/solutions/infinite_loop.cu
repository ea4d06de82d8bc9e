// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// Hang: a kernel that never ends (the loop condition reads memory the
// compiler cannot prove constant). Only the watchdog can end the worker;
// the record must be TIMEOUT (expect FAIL). Killing the process frees the
// GPU: the driver tears the context down with it.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void spin_forever(volatile const float *alpha, float *y)
{
	while (*alpha == *alpha || *alpha != *alpha)
		;
	y[0] = 0.0f;
}

extern "C" int infinite_loop(const nodus_call *call)
{
	spin_forever<<<1, 1, 0, (cudaStream_t)call->stream>>>(
		(volatile const float *)call->inputs[1].data, (float *)call->outputs[0].data);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
