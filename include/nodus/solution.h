/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * solution.h: the ABI between the nodus harness and a solution.
 *
 * A solution is a shared object the harness builds from its sources (cc for
 * the cpu backend, nvcc for cuda). It exports one entry function, named in
 * its solution file:
 *
 *     int ENTRY(const nodus_call *call);    0 = success, else runtime error
 *
 * and may export an optional setup function named ENTRY_setup with the same
 * signature, called once after loading and before any timed call (it may
 * allocate lookup tables; its time is not measured, but it is bounded by the
 * watchdog like everything else).
 *
 * It may also export ENTRY_load, a nodus_load_fn, called once right after
 * the object is loaded, under the same confinement as its ELF constructors
 * (docs/sandbox.md: before lockdown, no threads, no write-opens; the census
 * afterwards), and before setup. It returns 0, or nonzero with a message in
 * msg (at most msg_bytes, NUL-terminated), which makes the load a
 * LOAD_ERROR. nodus's torch adapter (torch_adapter.c) starts Python and
 * imports the solution's module there.
 *
 * And ENTRY_error, a nodus_error_fn: after ENTRY returned nonzero, the
 * harness may call it for a one-line reason (a string the solution owns,
 * valid until its next call, or NULL) and put it in the record; the
 * adapter returns the Python exception there.
 *
 * And ENTRY_defer, void (*)(int on), with ENTRY_deferred, int
 * (*)(nodus_deferred_copy *d, int max): the worker turns defer on around
 * each timed batch and off after it, then takes the copies the solution
 * left it (source, its output, bytes) and makes them itself, outside the
 * timed region, before the batch's outputs are looked at. The torch
 * adapter leaves it the outputs a module returns by value (their storage
 * stays alive until its next call), so that the copy into the harness's
 * output is not timed (docs/formats.md). This hook and ENTRY_prelock are
 * the adapter's alone: the worker never looks them up in a native
 * solution, and a candidate that exports one is a REWARD_HACK (guard
 * adapter_hook: its code would run outside the timed region or before
 * lockdown; docs/protocol.md, "The adapter's hooks").
 *
 * And ENTRY_prelock, int (*)(void), asked after loading: nonzero makes the
 * worker call ENTRY once per shape the job will use (the workload's and
 * the shape probe's) still before lockdown, under the load filter, on
 * buffers that are neither poisoned nor checked; the calls are neither
 * timed nor judged. The adapter asks for it for a Triton module on cuda,
 * whose kernels are loaded at their first call (docs/formats.md).
 *
 * And ENTRY_params, const char *(*)(void), asked by the audit only: the
 * torch adapter's list of a module's floating parameters and buffers as
 * built, which the audit compares with a reference's python.params
 * (docs/audit.md, "params").
 *
 * Destination-passing: the harness allocates every input, output and the
 * workspace, poisons outputs before every call and checks every element
 * afterwards. A solution must write all of its outputs, must not write its
 * inputs (they are checksummed), must not keep pointers across calls (inputs
 * move between calls) and, on cuda, must enqueue all its work on call->stream.
 *
 * Invariants: abi_version is the first member and never moves; the struct
 * only grows at its end, and struct_size tells a solution how much of it the
 * harness filled in. No bit-fields.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SOLUTION_H
#define NODUS_SOLUTION_H

#include <stdint.h>

#define NODUS_ABI_VERSION 1
#define NODUS_MAX_DIMS 8

/* Element types. Values are stored in records and never renumbered. */
typedef enum nodus_dtype {
	NODUS_DTYPE_FLOAT32 = 1,  /* IEEE binary32 */
	NODUS_DTYPE_FLOAT64 = 2,  /* IEEE binary64 */
	NODUS_DTYPE_FLOAT16 = 3,  /* IEEE binary16 */
	NODUS_DTYPE_BFLOAT16 = 4, /* bfloat16 (upper half of a binary32) */
	NODUS_DTYPE_INT32 = 5,    /* two's complement 32-bit */
	NODUS_DTYPE_INT64 = 6,    /* two's complement 64-bit */
	NODUS_DTYPE_UINT8 = 7     /* unsigned byte */
} nodus_dtype;

typedef struct nodus_tensor {
	void *data;                      /* device pointer on cuda, host pointer on cpu */
	int32_t dtype;                   /* a nodus_dtype */
	int32_t ndim;                    /* 0 for a scalar, at most NODUS_MAX_DIMS */
	int64_t shape[NODUS_MAX_DIMS];   /* extents, row-major and contiguous */
	int64_t numel;                   /* product of shape (1 for a scalar) */
	int64_t nbytes;                  /* numel times the element size */
	const char *name;                /* the name the task gives this tensor */
} nodus_tensor;

typedef struct nodus_call {
	uint32_t abi_version;            /* NODUS_ABI_VERSION; always first */
	uint32_t struct_size;            /* sizeof(nodus_call) as the harness built it */
	int32_t n_inputs;                /* entries in inputs, in the task's order */
	int32_t n_outputs;               /* entries in outputs, in the task's order */
	const nodus_tensor *inputs;      /* read-only for the solution */
	const nodus_tensor *outputs;     /* poisoned before each call; write every element */
	int32_t n_axes;                  /* entries in axis_names and axis_values */
	int32_t reserved0;               /* zero; keeps the next members aligned */
	const char *const *axis_names;   /* the task's axes in declaration order */
	const int64_t *axis_values;      /* the workload's values for them */
	void *stream;                    /* cudaStream_t on cuda (use it), NULL on cpu */
	void *workspace;                 /* harness-owned scratch, may be NULL */
	int64_t workspace_bytes;         /* size of workspace */
} nodus_call;

typedef int (*nodus_entry_fn)(const nodus_call *call);
typedef int (*nodus_load_fn)(char *msg, int64_t msg_bytes);

/* One copy a solution leaves the harness (ENTRY_deferred). */
typedef struct nodus_deferred_copy {
	const void *src;   /* the solution's storage (device on cuda) */
	void *dst;         /* one of the call's outputs */
	int64_t bytes;     /* that output's nbytes */
} nodus_deferred_copy;
#define NODUS_DEFER_MAX 4096 /* copies a batch may leave, at most */
typedef void (*nodus_defer_fn)(int on);
typedef int (*nodus_deferred_fn)(nodus_deferred_copy *d, int max);
typedef const char *(*nodus_error_fn)(void);

/* Looks up an axis value by name; returns -1 when the task has no such axis. */
static inline int64_t nodus_call_axis(const nodus_call *call, const char *name)
{
	for (int32_t i = 0; i < call->n_axes; i++) {
		const char *a = call->axis_names[i], *b = name;
		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (*a == *b)
			return call->axis_values[i];
	}
	return -1;
}

#endif
