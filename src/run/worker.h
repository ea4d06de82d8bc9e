/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * worker.h: the worker side of a pair evaluation (`nodus __worker`).
 *
 * A worker is a separate process started by the orchestrator. It reads one
 * JOB frame from fd 0, loads the solution shared objects named in it, opens
 * its backend, locks itself down (cpu: seccomp), and then runs its role:
 *   oracle:  the reference only, on every instance of the job; sends the
 *            outputs (and checks the reference writes all of them and is
 *            deterministic);
 *   measure: candidate correctness trials, the interleaved timing rounds
 *            (waiting for the orchestrator's word after the sizing, after
 *            every timed batch - which may ask for one of its calls'
 *            outputs: the check of a timed call - and after every round),
 *            and the final fresh trials.
 * Everything it learns goes back as frames on fd 3 (protocol.h). It never
 * writes records; a crash, hang or kill of the worker is the orchestrator's
 * to classify.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_WORKER_H
#define NODUS_WORKER_H

/* Runs the worker; returns the process exit status (0 after DONE or FAIL).
 * preopen_backend ("cpu", "cuda" or NULL) opens the backend before the job
 * is read, for workers the orchestrator starts ahead of time. */
int nodus_worker_main(const char *preopen_backend);

/* Exported names a solution must not define: defining one would interpose
 * on the harness's clocks or comparisons in a naive in-process harness. */
extern const char *const nodus_forbidden_exports[];

#endif
