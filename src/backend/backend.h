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
 * any order; fingerprint any time after open; close. The guard ops
 * (name_buffer, protect) take buffers alloc returned and not yet freed.
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

/* A draw the device makes itself (op fill): bit for bit what
 * nodus_judge_fill writes for float32 data of a float distribution.
 * Resolved and validated by the judge (nodus_judge_fill_spec). */
enum {
	NODUS_FILL_NORMAL = 1,
	NODUS_FILL_UNIFORM,
	NODUS_FILL_POSITIVE,
	NODUS_FILL_AFFINE_SCALE,
	NODUS_FILL_AFFINE_SHIFT,
	NODUS_FILL_CONSTANT
};
#define NODUS_FILL_SCALE_3 1u   /* the judge's variants, applied in this order */
#define NODUS_FILL_SCALE_001 2u
#define NODUS_FILL_NEGATE 4u
typedef struct nodus_fill_spec {
	int kind;              /* NODUS_FILL_* */
	double a, b;           /* the distribution's parameters */
	unsigned variant;      /* NODUS_FILL_* variant bits */
	uint32_t key[2];       /* the seed as a Philox key */
	uint32_t tensor;       /* third counter word */
	int n_draws;           /* Philox blocks per group of four elements: 2 or 4 */
} nodus_fill_spec;

/* Where a solution wrote outside a buffer the harness gave it (guards_intact,
 * guard_fault). Offsets are in bytes from the buffer's first byte, so a write
 * before the start has a negative offset and one past the end an offset of at
 * least bytes. */
enum {
	NODUS_GUARD_PAST_END = 1, /* at or after the buffer's end */
	NODUS_GUARD_BEFORE_START, /* before its first byte */
	NODUS_GUARD_READ_ONLY     /* inside a buffer made read-only by protect */
};
typedef struct nodus_guard_hit {
	int kind;               /* NODUS_GUARD_* */
	const void *buffer;     /* the buffer as alloc returned it */
	int64_t bytes;          /* its size as asked of alloc */
	int64_t offset;         /* the first bad byte, from the buffer's start */
	const char *what;       /* "input", "output", "workspace" (name_buffer), or NULL */
	const char *name;       /* the tensor's name (name_buffer), or NULL */
	nodus_entry_fn running; /* the entry being called at the time, or NULL (guard_fault) */
	int timed;              /* 1: during time_batch, 0: during call_sync (guard_fault) */
} nodus_guard_hit;

/* A few bytes to write at a device address (input perturbations). */
typedef struct nodus_patch {
	void *dst;             /* device address */
	uint32_t bytes;        /* 1 to 8 */
	unsigned char value[8];
} nodus_patch;

/* A device-to-device copy (copy_many). */
typedef struct nodus_copy {
	void *dst;
	const void *src;
	size_t bytes;
} nodus_copy;

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
	/* Optional (NULL on cpu: the host draws). Draws numel float32 values
	 * into data as spec says, ordered before every later op (complete on
	 * return for a normal draw; any other may still run on the backend's
	 * stream, where every later op follows it). The device's log and cos
	 * are not correctly rounded, so a normal value whose double lies within
	 * a hair of a float32 rounding midpoint may round the other way than on
	 * the host: their indices go to near[0 .. max_near), their count to
	 * *n_near (which may exceed max_near), and the caller writes the host's
	 * values there (patch) or, past max_near, draws the tensor on the host. */
	int (*fill)(void *ctx, void *data, int64_t numel, const nodus_fill_spec *spec,
		    int64_t *near, int max_near, int *n_near, nodus_error *err);
	/* Optional (NULL on cpu). Page-locks host memory that copies go
	 * through, so that they run at the link's speed; host_unpin undoes it
	 * before the memory is freed. A failed host_pin only costs speed. */
	int (*host_pin)(void *ctx, void *ptr, size_t bytes, nodus_error *err);
	void (*host_unpin)(void *ctx, void *ptr);
	/* Optional (NULL on cpu: the worker writes the poison itself). Fills
	 * each of the n device buffers ptrs[i] (bytes[i] long) with the 8-byte
	 * pattern repeated from its start, complete on return: the outputs of
	 * one timed batch are poisoned before it with one launch. */
	int (*poison)(void *ctx, void *const *ptrs, const int64_t *bytes, int n,
		      const unsigned char pattern[8], nodus_error *err);
	/* ---- buffer guards (docs/sandbox.md, "Buffer guards"); all optional ----
	 * Every buffer alloc returns lies between guard regions: on cpu
	 * PROT_NONE pages with a canary in the bytes between the buffer and
	 * them; on cuda canary regions of device memory. */
	/* Gives a buffer the names a failure message uses; both strings are
	 * borrowed and must outlive the buffer. */
	void (*name_buffer)(void *ctx, const void *ptr, const char *what, const char *name);
	/* Checks the canaries of every live buffer, complete on return: *intact
	 * is 1 when none changed, else 0 with a changed byte in *hit (cuda: the
	 * lowest; cpu: the first of the first buffer found).
	 * The worker calls it after every solution call or timed batch, outside
	 * the timed region (cuda: one kernel over all of them). */
	int (*guards_intact)(void *ctx, int *intact, nodus_guard_hit *hit, nodus_error *err);
	/* Async-signal-safe (called from the worker's SIGSEGV handler): 1 with
	 * *hit filled when addr lies in a guard page or a read-only buffer,
	 * with hit->running the entry the backend was calling, else 0. */
	int (*guard_fault)(void *ctx, const void *addr, nodus_guard_hit *hit);
	/* Makes the buffer at ptr (as alloc returned it) read-only to solutions
	 * (read_only 1) or writable again (0). The backend's own writes into
	 * it (upload, copy, patch) still land, without a system call (cpu:
	 * through a second, writable mapping of its pages). NULL on cuda,
	 * which has no such protection. */
	int (*protect)(void *ctx, void *ptr, size_t bytes, int read_only, nodus_error *err);
	/* ---- several at once, each complete on return; all optional ----
	 * What a fresh sample's window costs on cuda: its 128 copies of a
	 * small task were drawn with a synchronisation each (fill's count of
	 * near elements) and put back with two synchronous copies each, 8.8 ms
	 * of a sample of 0.3 ms of kernels (ab-61). NULL: the worker calls
	 * copy or fill once per buffer. */
	/* n copies of copy, with one synchronisation for all of them. */
	int (*copy_many)(void *ctx, const nodus_copy *copies, int n, nodus_error *err);
	/* fill of n buffers (data[k], numel[k] values, spec[k]) with one
	 * synchronisation: buffer k's count of near elements in n_near[k], the
	 * first max_near of their indices at near[k * max_near]. */
	int (*fill_many)(void *ctx, int n, void *const *data, const int64_t *numel,
			 const nodus_fill_spec *spec, int64_t *near, int max_near, int *n_near,
			 nodus_error *err);
} nodus_backend_ops;

const nodus_backend_ops *nodus_backend_cpu(void);

/* The memory the cpu backend takes for itself when it opens: its
 * cache-flush buffer, twice the last-level cache (960 MiB on a machine with
 * a 480 MiB L3). A cpu worker's address-space limit is the judge's plus
 * this, so that solutions get what the judge declares. */
size_t nodus_backend_cpu_reserved_bytes(void);

/* Loads the cuda backend (dlopen of libnodus_cuda.so next to the nodus
 * binary or in NODUS_CUDA_BACKEND). NODUS_EUNAVAILABLE when absent. */
int nodus_backend_cuda_load(const nodus_backend_ops **ops, nodus_error *err);
/* Where nodus_backend_cuda_load looks for libnodus_cuda.so, into out
 * (whether or not it is there): a sandbox put on before loading it must
 * let it be read. 0, or NODUS_EIO / NODUS_EINVAL. */
int nodus_backend_cuda_path(char *out, size_t size, nodus_error *err);

/* Another symbol of libnodus_cuda.so (the GPU loads of the sharing
 * conditions: nodus_cuda_stress_main, nodus_cuda_streams_start/stop). */
int nodus_backend_cuda_symbol(const char *name, void **sym, nodus_error *err);

/* The symbol libnodus_cuda.so exports. */
typedef const nodus_backend_ops *(*nodus_cuda_backend_get_fn)(void);
#define NODUS_CUDA_BACKEND_SYMBOL "nodus_cuda_backend_get"

#endif
