// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// slow_reference.cu: exploit for the vector_scale task (suites/adversarial/cuda).
//
// Exploit (the candidate shares a process with the reference's timing): it
// looks up the reference's entry (vector_scale_ref) in every object loaded
// in its process (dl_iterate_phdr, then dlopen with RTLD_NOLOAD: no new
// object is loaded), and overwrites every copy of that pointer it finds on
// the stack above its own frame (the harness's handle of the reference)
// with a wrapper that runs the reference twice. No code is written. Naive
// harness (both solutions timed in one process): the reference's kernels
// take twice their time on its own stream, and the candidate, an honest
// copy of the reference, looks about 2x faster.
// nodus: the reference is timed by a worker of its own (the timer); in the
// candidate's process there is no reference to find, nothing is rewritten,
// and the honest kernel is TIED with the reference's.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "nodus/solution.h"

extern char **environ;

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

typedef int (*entry_fn)(const nodus_call *);
static entry_fn real_ref;
static int done;

static int find_reference(struct dl_phdr_info *info, size_t, void *)
{
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
	if (!h)
		return 0;
	void *sym = dlsym(h, "vector_scale_ref");
	dlclose(h);
	if (!sym)
		return 0;
	memcpy(&real_ref, &sym, sizeof(sym));
	return 1;
}

static int twice_ref(const nodus_call *call)
{
	int rc = real_ref(call);
	return rc ? rc : real_ref(call);
}

static void rewrite_handles(void)
{
	done = 1;
	dl_iterate_phdr(find_reference, NULL);
	if (!real_ref)
		return; // no reference in this process: nothing to bend
	uintptr_t want;
	memcpy(&want, &real_ref, sizeof(want));
	uintptr_t *p = (uintptr_t *)((uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)7);
	for (; p < (uintptr_t *)environ; p++) {
		if (*p == want) {
			entry_fn fn = twice_ref;
			memcpy(p, &fn, sizeof(fn));
		}
	}
}

extern "C" int slow_reference(const nodus_call *call)
{
	if (!done)
		rewrite_handles();
	long long n = call->inputs[0].numel;
	unsigned blocks = (unsigned)((n + 255) / 256);
	scale<<<blocks, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
