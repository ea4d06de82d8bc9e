/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * isolation.c: the isolation checks of an isolated condition.
 *
 * Called twice per timed attempt, with nothing of ours starting or ending:
 * at the gate, once the timer is READY and before the first timed batch
 * (attempt.c, converse), and right after the last timed round while both
 * timing workers wait (drive.c, timing_over). On cpu the machine's busy
 * cores must stay under judge.isolation_max_busy_cores; on cuda NVML must
 * list no compute or MPS process beyond our own and no power or thermal
 * clocks-event reason. A failed check makes the attempt NOT_ISOLATED
 * (retried later: retry.c). What was seen goes into the record's detail.
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run/run-internal.h"

#define ISOLATION_WINDOW_MS 150

#define NVML_LAG_NS 1500000000ull /* NVML may list a context this long after it went */

/* cuda: no other compute or MPS process on the GPU and no power or
 * thermal clocks-event reason. NVML's process list lags a context that has
 * just gone (our previous worker's) by up to a few hundred ms, so a failed
 * check is asked again for up to a second before it counts. */
static void gpu_isolation(struct run_ctx *x, const char *when, int own_alive, json_t *detail,
			  int *ok)
{
	if (!x->nvml) {
		*ok = 0;
		json_object_set_new(detail, when, json_pack("{s:s}", "unverifiable", x->nvml_why));
		return;
	}
	int isolated = 0, others = 0;
	uint64_t reasons = 0;
	char why[256] = "";
	nodus_error err;
	/* ours: the spares (all WARM, so each holds a context), the worker
	 * of this attempt while it lives, and workers reaped a moment ago
	 * that NVML may still list */
	int recent = nodus_now_ns() - x->reaped_ns < NVML_LAG_NS ? x->reaped_n : 0;
	int own = x->n_spares + own_alive + recent;
	for (int i = 0; i < 5; i++) {
		if (nodus_nvml_isolation_check(x->nvml, own, &isolated, &others,
					       &reasons, why, sizeof(why), &err)) {
			snprintf(why, sizeof(why), "%.200s", err.message);
			isolated = 0;
			break;
		}
		if (isolated)
			break;
		struct timespec pause = {0, 250 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	char names[256];
	nodus_nvml_reasons_format(reasons, names, sizeof(names));
	json_object_set_new(detail, when,
			    json_pack("{s:i,s:i,s:s,s:s}", "other_processes", others, "own_allowed",
				      own, "clocks_event_reasons", names, "why", why));
	*ok = isolated;
}

/* NODUS_TEST_NOT_ISOLATED_ONCE: 1 when a's pair is listed and this is its
 * first attempt, so that a test can retry an attempt deterministically
 * (an oracle group's leader, say) on a machine of any load. It can only
 * refuse a pair, never accept one, and the record says it was forced. */
int test_list_names(const char *list, const char *pair_id)
{
	size_t n = strlen(pair_id);
	for (const char *p = list; list && (p = strstr(p, pair_id)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

int test_refuses_isolation(struct run_ctx *x, struct attempt *a)
{
	if (a->attempt != 1 || x->cond->kind != NODUS_COND_ISOLATED ||
	    !test_list_names(x->test_not_isolated_once, a->pair->id))
		return 0;
	json_t *before = json_object_get(a->detail, "isolation_before");
	if (!before)
		json_object_set_new(a->detail, "isolation_before", before = json_object());
	json_object_set_new(before, "forced_by", json_string("NODUS_TEST_NOT_ISOLATED_ONCE"));
	return 1;
}

/* own_alive: this attempt's workers alive during the check (the measure
 * worker and the timer, idle while it runs). Callers have reaped finished workers and waited for
 * the spares, so the count of our own processes is exact. */
int isolation_check(struct run_ctx *x, const char *when, int own_alive, json_t *detail,
		    int *ok)
{
	*ok = 1;
	if (x->cond->kind != NODUS_COND_ISOLATED)
		return 0;
	if (x->c->target.backend == NODUS_BACKEND_CUDA) {
		gpu_isolation(x, when, own_alive, detail, ok);
		return 0;
	}
	double busy = 0;
	nodus_error err;
	if (nodus_cpu_busy_cores(ISOLATION_WINDOW_MS, &busy, &err))
		return 0;
	json_object_set_new(detail, when, json_pack("{s:f,s:f}", "busy_cores", busy, "threshold",
						    x->judge->isolation_max_busy_cores));
	*ok = busy <= x->judge->isolation_max_busy_cores;
	return 0;
}
