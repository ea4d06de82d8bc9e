// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// Fault: allocates device memory in 8 GiB blocks, keeping them, until
// cudaMalloc fails (about 139 GiB on an H200), then reports the failure
// as a solution must: a non-zero return. The record is RUNTIME_ERROR; the
// worker's exit frees the memory, and the next pair must run normally.
// Not yet run on the H200 (written after the session's device time).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

extern "C" int device_oom(const nodus_call *call)
{
	(void)call;
	void *blocks[64];
	int n = 0;
	while (n < 64 && cudaMalloc(&blocks[n], (size_t)8 << 30) == cudaSuccess)
		n++;
	cudaGetLastError(); /* cudaErrorMemoryAllocation is not sticky */
	return n < 64 ? -1 : 0;
}
