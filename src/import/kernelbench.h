/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * kernelbench.h: KernelBench-format problems and candidates as nodus
 * files (`nodus import kernelbench`, `nodus import kernelbench-candidate`;
 * docs/import.md).
 *
 * A KernelBench problem is one Python file defining class Model(nn.Module),
 * get_inputs() and get_init_inputs(). nodus learns its tensors by running
 * it once (nodus__kb_probe: the embedded kernelbench_probe.py, through
 * src/exec, with the user's interpreter, unconfined: it is the user's own
 * file, as KernelBench itself runs it) and turns the answer into a task,
 * a workload and a reference solution (nodus__kb_problem). The values
 * get_inputs() drew are never kept: every floating input is declared
 * normal(0, 1) with nodus's variants, every integer input int_range over
 * what get_inputs() produced, and the notes say so, input by input.
 *
 * Call order: nodus__kb_probe() for each file; nodus__kb_problem() on its
 * answer; the caller writes the three documents (and copies the file
 * beside the solution, whose `sources` names it by its base name).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_IMPORT_KERNELBENCH_H
#define NODUS_IMPORT_KERNELBENCH_H

#include <jansson.h>

#include "common/common.h"

#define NODUS_KB_NAME_MAX 56 /* a task name's length, so NAME_ref fits 63 */

/* Runs python (absolute path) on problem with the probe, its forward calls
 * on device ("cuda" where torch sees a GPU, else "cpu"), killing it after
 * timeout_ms. Returns 0 with *out the probe's answer (a new reference:
 * json_decref), or NODUS_EINVAL with err located in the problem (FILE:LINE
 * of the Python error, its last traceback line in the message),
 * NODUS_ETIMEOUT, NODUS_ECHILD (the interpreter could not run or died),
 * NODUS_EIO. */
int nodus__kb_probe(const char *python, const char *problem, const char *device, int timeout_ms,
		    json_t **out, nodus_error *err);

/* What nodus__kb_problem writes into a task. */
typedef struct nodus_kb_tolerance {
	double atol;               /* < 0: nodus's default for the outputs' dtype */
	double rtol;               /* < 0: nodus's default for the outputs' dtype */
} nodus_kb_tolerance;

/* Builds the task NAME, the workload NAME and the reference solution
 * NAME_ref (module style, entry Model, python.init from get_init_inputs(),
 * python.params from Model's parameters and buffers,
 * sources [source]) from a probe answer; problem is the file's path as the
 * user gave it (for the description and errors). Each *task, *workload and
 * *solution is a new reference. notes gets one line per decision the user
 * should know of (each input's draw). Returns 0 or NODUS_EINVAL (a size
 * nodus cannot hold, more than 16 distinct sizes) located in problem. */
int nodus__kb_problem(const char *name, const char *problem, const char *source,
		      const json_t *probe, const nodus_kb_tolerance *tol, json_t **task,
		      json_t **workload, json_t **solution, nodus_buf *notes, nodus_error *err);

/* The candidate solution NAME of task (module style, entry ModelNew,
 * sources [source], python.init and python.params copied from the
 * reference's, either of which may be NULL). A new reference, NULL when
 * out of memory. */
json_t *nodus__kb_candidate(const char *name, const char *task, const char *source,
			    const json_t *init, const json_t *params);

/* A nodus name from a file name: its base name without ".py", every
 * character outside [A-Za-z0-9_] made '_', "kb_" before a leading digit
 * (KernelBench's files start with their number), cut to
 * NODUS_KB_NAME_MAX. out holds at least NODUS_KB_NAME_MAX + 1 bytes. */
void nodus__kb_name(const char *path, char *out, size_t out_size);

#endif
