/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * worker.h: the worker side of a pair evaluation (`nodus __worker`).
 *
 * A worker is a separate process started by the orchestrator. It reads one
 * JOB frame from fd 0, opens its backend, confines itself, loads the one
 * solution shared object its role names (cpu: then locks itself down), and
 * runs its role:
 *   oracle:  the reference, on every instance of the job; sends the
 *            outputs (and checks the reference writes all of them and is
 *            deterministic);
 *   measure: the candidate: correctness trials, then its side of the
 *            timing, one orchestrator command at a time (protocol.h; after
 *            a timed batch a command may ask for one of its calls'
 *            outputs: the check of a timed call), then the final fresh
 *            trials;
 *   timer:   the reference's side of the timing, commanded the same way,
 *            alternating with the measure worker batch by batch.
 * Everything it learns goes back as frames on fd 3 (protocol.h). It never
 * writes records; a crash, hang or kill of the worker is the orchestrator's
 * to classify.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_WORKER_H
#define NODUS_WORKER_H

/* Runs the worker; returns the process exit status (0 after DONE or FAIL).
 * preopen_backend ("cpu", "cuda" or NULL) opens the backend before the job
 * is read, for workers the orchestrator starts ahead of time. objects_dir
 * (cuda; NULL = none) is the compile cache the job's objects come from:
 * given, the worker puts Landlock on before the CUDA driver starts its
 * threads, with that directory readable (docs/sandbox.md). */
int nodus_worker_main(const char *preopen_backend, const char *objects_dir);

/* Exported names a solution must not define: defining one would interpose
 * on the harness's clocks or comparisons in a naive in-process harness. */
extern const char *const nodus_forbidden_exports[];

#endif
