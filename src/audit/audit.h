/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit.h: can a campaign's judge tell a right kernel from a wrong one?
 *
 * Per task and workload of a campaign, with the workload's reference (the
 * reference of its first pair), `nodus audit` checks (docs/audit.md):
 *   static  constant_input:IN      an input drawn as one value (a naive
 *                                  judge: weight = 1, bias = 0 ...)
 *   run     dead_input:IN          redrawing IN leaves the output in tolerance
 *           sign_restricted:IN     IN is drawn >= 0 although the reference
 *                                  gives finite outputs for its negation
 *           constant_output        another seed gives the same output
 *           output_below_atol      every output element is within atol of 0
 *           loose_tolerance        the output rounded to bfloat16 passes
 *           mutation:KIND:IN       the output of a wrong formula passes;
 *                                  KIND: drop (IN at its identity value),
 *                                  one_plus (1 + IN for IN), swap (scale
 *                                  and shift exchanged), bias_first (shift
 *                                  applied before the scale), each where
 *                                  the task's affine_scale / affine_shift
 *                                  inputs make it possible.
 * The run checks call the reference in a sandboxed process started through
 * src/exec (`nodus __audit`: Landlock before the reference loads, the
 * syscall filter before it is called, rlimits, its own temporary cwd and
 * environment; a crash, hang or forbidden call is a failed run, never the
 * caller's end); they are skipped, and say so, when the backend is not
 * available here.
 * A check the campaign waives for the task (audit.waive) is reported as
 * waived and does not fail the task.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_AUDIT_H
#define NODUS_AUDIT_H

#include <jansson.h>

#include "common/common.h"
#include "exec/exec.h"
#include "spec/spec.h"

typedef struct nodus_audit_opts {
	const char *cache_dir;   /* compiled references */
	const char *include_dir; /* directory of nodus/solution.h */
	int run_references;      /* 0: static checks only */
	const char *self_path;   /* the nodus binary (`nodus __audit`, `nodus __jail`);
				  * NULL = /proc/self/exe */
} nodus_audit_opts;

/* Audits every workload of c that a pair uses. *report gets
 * {"campaign", "verdict": "PASS"|"FAIL", "items": [{"task", "workload",
 * "reference", "verdict", "run": "ran"|"skipped: why", "findings":
 * [{"check", "passed", "waived", "detail"}]}]}; *failed the number of
 * items failing a check that is not waived. Returns 0, or an error code
 * when the harness itself failed (out of memory). */
int nodus_audit_campaign(const nodus_campaign *c, const nodus_audit_opts *o, json_t **report,
			 int *failed, nodus_error *err);

/* `nodus __audit CAMPAIGN WORKLOAD SOLUTION HASH OBJECT`, the sandboxed
 * process the run checks happen in (only nodus_audit_campaign starts it):
 * calls solution SOLUTION (index; its hash must be HASH) built at OBJECT
 * on workload WORKLOAD (index) of CAMPAIGN and answers on fd 3. Does not
 * return on success. */
int nodus_audit_worker_main(int argc, char **argv);

/* Internal (the audit process, and tests/unit/test-audit.c): confines
 * this process before it loads the reference object so_path. cpu: Landlock
 * reading so_path and the system libraries only (the syscall filter comes
 * later, at lockdown); cuda: the cuda workers' profile, as
 * nodus_sandbox_prepare puts it on with nodus_sandbox_opts_cuda (sb then
 * holds the census for nodus_sandbox_check_loaded; nothing when
 * NODUS_CUDA_SANDBOX=0). sb is initialised either way; release it with
 * nodus_sandbox_state_release. 0, or -1 with why filled. */
int nodus__audit_confine(nodus_sandbox_state *sb, int backend, const char *so_path,
			 int driver_confined, char *why, size_t size);
/* Internal, cuda, before the backend opens: Landlock while the process has
 * one thread (nodus_sandbox_before_driver, as a cuda worker does), with
 * so_path ("-" for none) and the backend's library readable. *confined: 1
 * when it holds (pass it to nodus__audit_confine). 0, or -1 with why. */
int nodus__audit_before_driver(const char *so_path, int *confined, char *why, size_t size);

/* The report as text, one block per task and workload. */
void nodus_audit_print(const json_t *report, FILE *f);

#endif
