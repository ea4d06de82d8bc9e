// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// Fault: writes through a pointer far outside any allocation, which the
// GPU reports as cudaErrorIllegalAddress, a sticky error that poisons the
// context. The worker must report it and die; the record is a failure
// (expect FAIL: CRASH or RUNTIME_ERROR), and the campaign goes on.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scribble(float *p)
{
	p[threadIdx.x] = 1.0f;
}

extern "C" int illegal_address(const nodus_call *call)
{
	scribble<<<1, 32, 0, (cudaStream_t)call->stream>>>((float *)0x10);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
