/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_backend.h: state and helpers shared by the files of the CUDA
 * backend (libnodus_cuda.so); nothing outside src/backend/cuda/ sees it.
 *
 * Every CUDA runtime call goes through NODUS_CUDA_CALL, nvbench's cuda_call
 * idea: on failure it fills the nodus_error with NODUS_ECUDA, the call's
 * text, the error's name and description, and the file and line of the
 * call, and returns the code. The error name (cudaErrorIllegalAddress ...)
 * always appears in the message as "cuda error NAME", which is what workers
 * match to tell sticky device faults from other failures.
 *
 * The files are compiled as C++ by nvcc; the library's C headers are
 * included with C linkage, and every symbol but nodus_cuda_backend_get is
 * hidden (see CMakeLists.txt), so the copies of common.c and nvml.c linked
 * into this object never interpose on the nodus binary's own.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_CUDA_BACKEND_H
#define NODUS_CUDA_BACKEND_H

#include <cuda_runtime.h>

/* common.h declares nodus__bug with C11's _Noreturn, which C++ spells as
 * an attribute. */
#ifdef __cplusplus
#define _Noreturn [[noreturn]]
extern "C" {
#endif
#include "backend/backend.h"
#include "backend/nvml.h"
#include "common/common.h"
#ifdef __cplusplus
}
#undef _Noreturn
#endif

typedef struct nodus__cuda_guards nodus__cuda_guards;

/* What one opened backend owns. Created by open, released by close. */
typedef struct cuda_ctx {
	int device;                  /* CUDA device ordinal in use */
	cudaStream_t stream;         /* harness-owned non-blocking stream, given to solutions */
	cudaEvent_t start;           /* recorded on stream before a timed batch */
	cudaEvent_t stop;            /* recorded on stream after a timed batch */
	cudaEvent_t flushed;         /* recorded on stream after the L2 flush */
	int flush_pending;           /* 1 between flush and the next time_batch */
	void *flush_buf;             /* device buffer written by each flush */
	size_t flush_bytes;          /* 2 x l2_bytes */
	unsigned flush_count;        /* flushes so far; varies the fill byte */
	int l2_bytes;                /* L2 cache size */
	int sm_count;                /* multiprocessors */
	int persisting_l2_max_bytes; /* largest persisting-L2 set-aside, 0 if unsupported */
	long long *clock_dev;        /* 2 cycles/ns pairs written by the clock kernel */
	nodus_patch *patch_dev;      /* patch table on the device */
	nodus_patch *patch_host;     /* pinned staging for it */
	int patch_cap;               /* entries both hold */
	void *fill_near;             /* fill: counter and near indices (device), lazily made */
	void *fill_many_dev;         /* fill_many: counters, then near indices (device) */
	size_t fill_many_bytes;      /* what it holds */
	nodus__cuda_guards *guards;  /* cuda_guard.cu: every buffer alloc handed out */
	char pci_bus_id[32];         /* "0000:19:00.0" from cudaDeviceGetPCIBusId */
	char uuid[64];               /* "GPU-..." or "MIG-..." from cudaDeviceProp.uuid */
	double context_s;            /* open: driver start and context creation */
	double setup_s;              /* open: stream, events, buffers after it */
} cuda_ctx;

/* Checks a cudaError_t; on failure fills err (see the header comment). */
int nodus__cuda_check(cudaError_t rc, const char *call, const char *file, int line,
		      nodus_error *err);

#define NODUS_CUDA_CALL(err, call) nodus__cuda_check((call), #call, __FILE__, __LINE__, (err))

/* Measures the SM clock: launches the clock kernel on ctx->stream, waits
 * for it and returns the MHz in *mhz. About 25 us of device time. */
int nodus__cuda_sm_clock(cuda_ctx *ctx, int32_t *mhz, nodus_error *err);

/* The fill op (cuda_fill.cu): its buffer is made at open (init) and freed
 * at close (release). */
int nodus__cuda_fill_init(cuda_ctx *c, nodus_error *err);
int nodus__cuda_fill(void *ctx, void *data, int64_t numel, const nodus_fill_spec *spec,
		     int64_t *near, int max_near, int *n_near, nodus_error *err);
int nodus__cuda_fill_many(void *ctx, int n, void *const *data, const int64_t *numel,
			  const nodus_fill_spec *spec, int64_t *near, int max_near, int *n_near,
			  nodus_error *err);
void nodus__cuda_fill_release(cuda_ctx *c);

/* cuda_poison.cu: the backend's poison op (backend.h). */
int nodus__cuda_poison(void *ctx, void *const *ptrs, const int64_t *bytes, int n,
		       const unsigned char pattern[8], nodus_error *err);
/* The buffer guards (cuda_guard.cu): canaries around every buffer alloc
 * hands out, checked by one kernel. init at open, release at close;
 * guard_free returns 0 for a pointer that is not one of its buffers. */
int nodus__cuda_guard_init(cuda_ctx *c, nodus_error *err);
void nodus__cuda_guard_release(cuda_ctx *c);
int nodus__cuda_guard_alloc(cuda_ctx *c, size_t bytes, void **ptr, nodus_error *err);
int nodus__cuda_guard_free(cuda_ctx *c, void *ptr);
void nodus__cuda_guard_name(void *ctx, const void *ptr, const char *what, const char *name);
int nodus__cuda_guards_intact(void *ctx, int *intact, nodus_guard_hit *hit, nodus_error *err);

/* The fingerprint op (cuda_fingerprint.cu). */
int nodus__cuda_fingerprint(void *ctx, char **json_out, nodus_error *err);

#endif
