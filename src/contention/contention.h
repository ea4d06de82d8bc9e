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
 * running `self_path __stress ...` (cpu-stress) or `self_path __gpustress
 * ...` (timeslice, mps: GPU co-tenant processes), with environment env
 * (NULL = inherit; the mps condition passes the MPS pipe directory). */
int nodus_stressors_start(nodus_stressors *s, const nodus_condition *cond, const char *self_path,
			  const char *const *env, nodus_error *err);
/* Reads whatever rates the stressors reported since the last poll. */
void nodus_stressors_poll(nodus_stressors *s);
/* A JSON object: declared setting, stressors alive, achieved rates. */
json_t *nodus_stressors_describe(const nodus_stressors *s, const nodus_condition *cond);
/* Kills and reaps every stressor. Safe on a zeroed struct. */
void nodus_stressors_stop(nodus_stressors *s);

/* ---- MPS ----
 * The mps condition needs an MPS control daemon. If one is already running
 * (its pipe directory from CUDA_MPS_PIPE_DIRECTORY, or /tmp/nvidia-mps,
 * holds a control socket) it is used and recorded as existing; otherwise
 * nodus starts `nvidia-cuda-mps-control -f` as its own child with a
 * private pipe and log directory, so that it is killed with the
 * orchestrator, and shuts it down ("quit") when the condition ends. */
typedef struct nodus_mps {
	int started;             /* 1: nodus started the daemon and must stop it */
	int existing;            /* 1: an existing daemon is used */
	nodus_child daemon;      /* the foreground control daemon when started */
	char dir[256];           /* private directory (pipe/ and log/) */
	char pipe_env[360];      /* "CUDA_MPS_PIPE_DIRECTORY=..." */
	char log_env[360];       /* "CUDA_MPS_LOG_DIRECTORY=..." */
	char thread_env[64];     /* "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=N" or "" */
	char **env;              /* environ plus the above, for children; heap */
} nodus_mps;

int nodus_mps_start(nodus_mps *m, int active_thread_pct, nodus_error *err);
/* The environment MPS clients must run with (valid until stop). */
const char *const *nodus_mps_env(const nodus_mps *m);
json_t *nodus_mps_describe(const nodus_mps *m);
/* Quits the daemons of private directories whose orchestrator is gone
 * (killed), and removes those directories. Called by every mps start and
 * at the start of every run on a cuda target. */
void nodus_mps_sweep_stale(void);
/* Quits and reaps a daemon nodus started; safe on a zeroed struct. */
void nodus_mps_stop(nodus_mps *m);

/* The body of `nodus __stress KIND DUTY`: runs until killed, printing its
 * achieved rate every 200 ms. */
int nodus_stress_main(const char *kind, double duty_cycle);

/* Busy cores of the whole machine measured over window_ms from
 * /proc/stat: (busy jiffies / total jiffies) x online cpus. Returns 0 or
 * NODUS_EIO (no /proc/stat). */
int nodus_cpu_busy_cores(int window_ms, double *busy_cores, nodus_error *err);

#endif
