/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * contention.h: the conditions a pair is measured under on the cpu, and
 * the check that "isolated" really was.
 *
 * Stressors are separate processes (`nodus __stress`) started through
 * src/exec, each in its own process group, so that a killed orchestrator
 * takes them along (src/exec's live list) and none outlives the run. Each
 * reports what it actually achieved (bytes or flops per second) every 200
 * ms on its stdout; the orchestrator keeps the latest figure, so a record
 * shows the load that really ran beside it, not just the declared one.
 *
 * Call order: nodus_stressors_start(); any number of
 * nodus_stressors_poll(); nodus_stressors_stop().
 * ------------------------------------------------------------------------ */
#ifndef NODUS_CONTENTION_H
#define NODUS_CONTENTION_H

#include <jansson.h>

#include "common/common.h"
#include "exec/exec.h"
#include "spec/spec.h"

#define NODUS_MAX_STRESSORS 64

typedef struct nodus_stressors {
	int n;                                  /* stressors started */
	nodus_child child[NODUS_MAX_STRESSORS]; /* their processes */
	double rate[NODUS_MAX_STRESSORS];       /* latest reported rate, units per second */
	int alive[NODUS_MAX_STRESSORS];         /* 1 while its pipe is open */
	char unit[16];                          /* "bytes/s" or "flops/s" */
	char partial[NODUS_MAX_STRESSORS][64];  /* unterminated line being read */
} nodus_stressors;

/* Starts cond->tenants stressors of cond->load with cond->duty_cycle by
 * running `self_path __stress ...`. */
int nodus_stressors_start(nodus_stressors *s, const nodus_condition *cond, const char *self_path,
			  nodus_error *err);
/* Reads whatever rates the stressors reported since the last poll. */
void nodus_stressors_poll(nodus_stressors *s);
/* A JSON object: declared setting, stressors alive, achieved rates. */
json_t *nodus_stressors_describe(const nodus_stressors *s, const nodus_condition *cond);
/* Kills and reaps every stressor. Safe on a zeroed struct. */
void nodus_stressors_stop(nodus_stressors *s);

/* The body of `nodus __stress KIND DUTY`: runs until killed, printing its
 * achieved rate every 200 ms. */
int nodus_stress_main(const char *kind, double duty_cycle);

/* Busy cores of the whole machine measured over window_ms from
 * /proc/stat: (busy jiffies / total jiffies) x online cpus. Returns 0 or
 * NODUS_EIO (no /proc/stat). */
int nodus_cpu_busy_cores(int window_ms, double *busy_cores, nodus_error *err);

#endif
