/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_slow_reference.c: exploit for the vector_poly task (suites/adversarial).
 *
 * Exploit (the candidate shares a process with the reference's timing):
 * it finds the reference's shared object among those loaded in its
 * process (dl_iterate_phdr reads the loader's list: no system call), then
 * overwrites every pointer into that object's code it finds on the stack
 * above its own frame - the harness's handle of the reference's entry -
 * with a pointer to a wrapper that runs the reference and then spins for
 * as long again. No code is written, so W^X and sealed code do not stop
 * it. Naive harness (both solutions timed in one process): the reference
 * takes twice its time, the candidate, which computes honestly, looks
 * about 2x faster.
 * nodus: the reference is timed in a process of its own (the timer); in
 * the candidate's there is no reference to find, nothing is rewritten,
 * and the honest computation it does is TIED with the reference's.
 * ------------------------------------------------------------------------ */
#define _GNU_SOURCE
#include <link.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "nodus/solution.h"

extern char **environ;

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int adv_slow_reference(const nodus_call *call);

static uintptr_t ref_lo, ref_hi; /* the reference's code, 0 when not found */
static int (*real_ref)(const nodus_call *);
static int done;

static int in_code(struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo &&
		    addr < lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The one loaded object that is neither the program, a system library,
 * the vDSO nor this candidate: the other solution. */
static int find_reference(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	const char *name = info->dlpi_name;
	if (!name || !name[0] || strncmp(name, "/lib", 4) == 0 || strncmp(name, "/usr", 4) == 0 ||
	    strstr(name, "vdso") || in_code(info, (uintptr_t)&adv_slow_reference))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			ref_lo = info->dlpi_addr + ph->p_vaddr;
			ref_hi = ref_lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The reference, then as long again of nothing. */
static int slow_ref(const nodus_call *call)
{
	double t0 = now_s();
	int rc = real_ref(call);
	double until = now_s() + (now_s() - t0);
	while (now_s() < until)
		;
	return rc;
}

static void rewrite_handles(void)
{
	done = 1;
	dl_iterate_phdr(find_reference, NULL);
	if (!ref_lo)
		return; /* no reference in this process: nothing to bend */
	uintptr_t *p = (uintptr_t *)((uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)7);
	uintptr_t *top = (uintptr_t *)environ; /* the environment sits at the stack's top */
	for (; p < top; p++) {
		if (*p >= ref_lo && *p < ref_hi) {
			if (!real_ref) {
				uintptr_t v = *p;
				memcpy(&real_ref, &v, sizeof(v));
			}
			int (*fn)(const nodus_call *) = slow_ref;
			memcpy(p, &fn, sizeof(fn));
		}
	}
}

int adv_slow_reference(const nodus_call *call)
{
	if (!done)
		rewrite_handles();
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
