/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cpu_guard.h: the guarded buffers of the cpu backend (cpu_guard.c); only
 * cpu.c includes it.
 *
 * Every buffer the cpu backend hands out is its own mapping:
 *
 *   [ lead guard | slack | front canary | data | pad canary | trail guard ]
 *     PROT_NONE    (read/write pages, or read-only: protect)   PROT_NONE
 *
 * The data starts 64-byte aligned (solutions may use aligned vector
 * loads) and is followed by a pad of 64 to 127 canary bytes (up to the
 * next multiple of 64, then 64 more) that abuts the trailing guard, so a
 * write past the end lands either in the pad (a canary checked after each
 * call) or in the guard (a SIGSEGV the worker reports), and a read a
 * little past the end (a vector load at a loop's tail) never faults. The
 * 64 bytes before the data are a canary too; further before it, the lead
 * guard faults. The slack between the lead guard and the front canary
 * (less than a page) is neither.
 *
 * protect(1) makes the data pages shared memory mapped twice: read-only
 * where solutions see them, writable at an address only the backend keeps,
 * through which upload, copy and patch write (mprotect around every write
 * cost 17 us per call on the 2-core machine, 8 ms per sample of 64 copies).
 *
 * Call order: new; then alloc / release / name / protect / write / patch /
 * intact / fault in any order; free. Single-threaded, except fault, which
 * a signal handler may call at any moment: it only reads, and a slot is
 * published (live set) after its fields are written.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_CPU_GUARD_H
#define NODUS_CPU_GUARD_H

#include <stddef.h>

#include "backend/backend.h"

typedef struct nodus__cpu_guards nodus__cpu_guards;

/* Makes an empty registry (its table and random canary pattern); NULL on
 * failure. Call before lockdown: it reads getrandom. */
nodus__cpu_guards *nodus__cpu_guards_new(void);
void nodus__cpu_guards_free(nodus__cpu_guards *g);

/* A guarded, zero-filled buffer of bytes (at least 1), 64-byte aligned. */
int nodus__cpu_guards_alloc(nodus__cpu_guards *g, size_t bytes, void **ptr, nodus_error *err);
/* Unmaps a buffer alloc returned; NULL is a no-op. */
void nodus__cpu_guards_release(nodus__cpu_guards *g, void *ptr);
void nodus__cpu_guards_name(nodus__cpu_guards *g, const void *ptr, const char *what,
			    const char *name);
int nodus__cpu_guards_protect(nodus__cpu_guards *g, void *ptr, int read_only, nodus_error *err);

/* The harness's own writes: memcpy and patches that reach read-only
 * buffers too, through a second, writable mapping of their pages (made by
 * protect), so no write costs a system call. */
int nodus__cpu_guards_write(nodus__cpu_guards *g, void *dst, const void *src, size_t bytes,
			    nodus_error *err);
int nodus__cpu_guards_patch(nodus__cpu_guards *g, const nodus_patch *patches, int n,
			    nodus_error *err);

/* The canaries of every live buffer: *intact 0 and *hit filled for the
 * first broken one found. */
void nodus__cpu_guards_intact(nodus__cpu_guards *g, int *intact, nodus_guard_hit *hit);
/* Async-signal-safe: 1 and *hit filled (running left NULL) when addr is
 * in a guard page, a canary or the data of a read-only buffer. */
int nodus__cpu_guards_fault(const nodus__cpu_guards *g, const void *addr, nodus_guard_hit *hit);

#endif
