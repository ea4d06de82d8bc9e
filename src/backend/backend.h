/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * backend.h: what a worker needs from a device backend (cpu or cuda).
 *
 * The worker process (never the orchestrator) opens a backend, allocates
 * harness-owned buffers on it, copies inputs in and outputs out, loads
 * solution shared objects and times calls. The cpu backend is linked into
 * nodus; the cuda backend is a separate shared object (libnodus_cuda.so,
 * built only when the CUDA toolkit is found) that the worker dlopen()s and
 * whose one exported symbol, nodus_cuda_backend_get(), returns its ops. A
 * machine without a GPU or without that library gets NODUS_EUNAVAILABLE
 * with a message that says which.
 *
 * Call order: open; then alloc/upload/download/free, flush, time_batch in
 * any order; fingerprint any time after open; close.
 * All functions return 0 or a negative NODUS_E* code and fill err.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_BACKEND_H
#define NODUS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "nodus/nodus.h"
#include "nodus/solution.h"

/* One timed sample of `batch` back-to-back calls. */
typedef struct nodus_timing {
	int64_t event_ns;      /* device time for the batch (cuda events; cpu: monotonic clock) */
	int64_t host_ns;       /* host time around launch..device-wide sync (cuda); = event_ns on cpu */
	int32_t sm_clock_mhz;  /* SM clock measured on the device during the sample, 0 if unknown */
	int32_t call_status;   /* first non-zero return of the entry, else 0 */
} nodus_timing;

/* A few bytes to write at a device address (input perturbations). */
typedef struct nodus_patch {
	void *dst;             /* device address */
	uint32_t bytes;        /* 1 to 8 */
	unsigned char value[8];
} nodus_patch;

typedef struct nodus_backend_ops {
	const char *name;      /* "cpu" or "cuda" */
	int (*open)(void **ctx, nodus_error *err);
	void (*close)(void *ctx);
	int (*alloc)(void *ctx, size_t bytes, void **ptr, nodus_error *err);
	void (*free)(void *ctx, void *ptr);
	int (*upload)(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err);
	int (*download)(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err);
	/* Device to device, complete on return (the timing copies' rotations). */
	int (*copy)(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err);
	/* Writes n patches, complete on return. Their bytes must not overlap:
	 * they may be written in any order (cuda: one kernel launch for all of
	 * them, where one synchronous copy per element cost 5-10 us each). */
	int (*patch)(void *ctx, const nodus_patch *patches, int n, nodus_error *err);
	/* Evicts caches: cpu writes a buffer larger than the LLC; cuda memsets a
	 * 2x-L2 buffer and resets persisting L2 lines. */
	int (*flush)(void *ctx, nodus_error *err);
	/* The stream solutions must use (cuda) or NULL (cpu). */
	void *(*stream)(void *ctx);
	/* Calls fn(calls[i % n_calls]) batch times back to back and times it. */
	int (*time_batch)(void *ctx, nodus_entry_fn fn, const nodus_call *calls, int n_calls,
			  int batch, nodus_timing *out, nodus_error *err);
	/* Calls fn once and waits for completion (correctness runs). Returns the
	 * entry's return value in *call_status. Device faults are errors. */
	int (*call_sync)(void *ctx, nodus_entry_fn fn, const nodus_call *call, int *call_status,
			 nodus_error *err);
	/* Target fingerprint as a JSON object text, heap (caller frees). */
	int (*fingerprint)(void *ctx, char **json_out, nodus_error *err);
	/* What open cost, in seconds: starting the driver and creating the
	 * context, then the backend's own setup. Optional (NULL on cpu). */
	void (*open_cost)(void *ctx, double *context_s, double *setup_s);
} nodus_backend_ops;

const nodus_backend_ops *nodus_backend_cpu(void);

/* Loads the cuda backend (dlopen of libnodus_cuda.so next to the nodus
 * binary or in NODUS_CUDA_BACKEND). NODUS_EUNAVAILABLE when absent. */
int nodus_backend_cuda_load(const nodus_backend_ops **ops, nodus_error *err);

/* Another symbol of libnodus_cuda.so (the GPU loads of the sharing
 * conditions: nodus_cuda_stress_main, nodus_cuda_streams_start/stop). */
int nodus_backend_cuda_symbol(const char *name, void **sym, nodus_error *err);

/* The symbol libnodus_cuda.so exports. */
typedef const nodus_backend_ops *(*nodus_cuda_backend_get_fn)(void);
#define NODUS_CUDA_BACKEND_SYMBOL "nodus_cuda_backend_get"

#endif
