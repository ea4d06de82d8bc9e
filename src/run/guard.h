/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * guard.h: the worker's side of the buffer guards (docs/sandbox.md,
 * "Buffer guards"): the SIGSEGV handler that names a write into a guard
 * page or a read-only input, and the canary check after each call. Both
 * report a FAIL frame of their own on the result pipe:
 *
 *   a write past / before a buffer      CRASH, guard out_of_bounds_write
 *   (a read, where the cpu can tell)    CRASH, guard out_of_bounds_read
 *   a write into a read-only input      INPUT_MUTATED, guard input_read_only
 *
 * and INVALID_REFERENCE with the same guard when the reference did it.
 *
 * Call order: install (before any solution is loaded), solutions (once
 * both are loaded), then check after every solution call or timed batch.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_RUN_GUARD_H
#define NODUS_RUN_GUARD_H

#include "backend/backend.h"

/* Installs the SIGSEGV handler, on its own stack, for the backend's
 * buffers; failure frames go to result_fd. A backend without guard_fault
 * gets no handler (faults stay plain signal deaths). */
int nodus__guard_install(const nodus_backend_ops *ops, void *dev, int result_fd,
			 nodus_error *err);

/* Tells the handler whose entry is whose (candidate NULL in an oracle). */
void nodus__guard_solutions(nodus_entry_fn candidate, nodus_entry_fn reference);

/* After fn's call (timed 0) or timed batch (timed 1): checks every
 * buffer's canaries. 0 when intact (or the backend has none), 1 when one
 * is broken (the FAIL frame is sent), a negative error when the check
 * itself failed. */
int nodus__guard_check(const nodus_backend_ops *ops, void *dev, nodus_entry_fn fn, int timed,
		       nodus_error *err);

#endif
