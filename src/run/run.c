/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * run.c: the orchestrator (see run.h): the run, its conditions, their queues.
 *
 * nodus_run loads the verified plan, opens the store and runs each
 * condition (run_condition): a queue of (pair, attempt), each attempt run
 * (attempt.c) and recorded (record.c), a retry going to the back of the
 * queue. The rooms of the orchestrator, in the order one attempt meets
 * them (run-internal.h declares what they share):
 *   attempt.c       one attempt, top to bottom: builds, workers, gate, timing
 *   jobs.c          its instances and seeds, and each worker's job
 *   pool.c          worker processes: spares, job hand-over, how one ended
 *   oracle_group.c  one oracle for several pairs of one reference
 *   early.c         the candidate's trial frames judged while the oracle works
 *   outputs.c       trial frames: reference outputs kept, candidate's judged
 *   target.c        the record's target, from a worker's READY fingerprint
 *   isolation.c     the isolation checks before and after timing
 *   drive.c         the timing: two timing workers driven batch by batch
 *   looks.c         samples and the sequential looks that label a pair
 *   sample_guards.c host gap and speed of light, from the samples
 *   record.c        the attempt's record
 *   progress.c      what the run says while it runs (text or JSON lines)
 *   replay.c        the replay condition: orchestrators side by side
 * The worker's side of every conversation is worker.c (protocol.h).
 * ------------------------------------------------------------------------ */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "run/retry.h"
#include "run/run-internal.h"

static int run_condition(struct run_ctx *x, const nodus_condition *cond, nodus_error *err)
{
	if (cond->kind == NODUS_COND_REPLAY && x->o->shard_count == 0)
		return run_replay(x, cond, err);
	x->cond = cond;
	nodus_judge_for_preset(&x->c->judge, cond->judge_preset, &x->preset_judge);
	x->judge = &x->preset_judge;
	const nodus_judge *j = x->judge;
	int n = x->c->n_pairs;
	/* a queue of (pair, next attempt); retries go to the back ("later") */
	int *queue = malloc(sizeof(int) * (size_t)(n * (j->max_attempts + 1) + 1));
	int *next_attempt = calloc((size_t)n + 1, sizeof(int));
	struct attempt **prepared = calloc((size_t)n + 1, sizeof(*prepared));
	unsigned char *no_group = calloc((size_t)x->c->n_solutions + 1, 1);
	unsigned char *memo_alarm = calloc((size_t)n + 1, 1);
	if (!queue || !next_attempt || !prepared || !no_group || !memo_alarm) {
		free(queue);
		free(next_attempt);
		free(prepared);
		free(no_group);
		free(memo_alarm);
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	}
	int head = 0, tail = 0, rc = 0;
	for (int p = 0; p < n; p++) {
		int attempts = 0, has_final = 0;
		if (x->o->only_aa &&
		    strcmp(x->c->solutions[x->c->pairs[p].candidate].hash,
			   x->c->solutions[x->c->pairs[p].reference].hash) != 0)
			continue; /* A/A: the same code, under one name or two */
		if (x->o->shard_count > 0 && p % x->o->shard_count != x->o->shard_index)
			continue;
		rc = nodus_store_progress(x->store, x->plan->digest, x->c->pairs[p].id, cond->name,
					  &attempts, &has_final, err);
		if (rc)
			goto out;
		x->sum->pair_conditions++;
		if (has_final) {
			x->sum->skipped++;
			continue;
		}
		next_attempt[p] = attempts + 1;
		queue[tail++] = p;
	}
	if (tail == 0)
		goto out;
	if (cond->kind == NODUS_COND_MPS) {
		if ((rc = nodus_mps_start(&x->mps, cond->active_thread_pct, err)))
			goto out;
		x->worker_env = nodus_mps_env(&x->mps);
	}
	if ((cond->kind == NODUS_COND_CPU_STRESS || cond->kind == NODUS_COND_TIMESLICE ||
	     cond->kind == NODUS_COND_MPS) &&
	    (rc = nodus_stressors_start(&x->stress, cond, x->o->self_path, x->worker_env, err)))
		goto out;
	progress_condition_start(x, cond, tail);
	x->cond_pairs = tail;
	x->cond_decided = 0;
	x->cond_started_ns = nodus_now_ns();
	x->queue = queue;
	x->next_attempt = next_attempt;
	x->prepared = prepared;
	x->no_group = no_group;
	while (head < tail) {
		int p = queue[head++];
		x->queue_head = head;
		x->queue_tail = tail;
		struct attempt a;
		if (prepared[p]) {
			a = *prepared[p]; /* its reference outputs were computed with an earlier pair's */
			free(prepared[p]);
			prepared[p] = NULL;
		} else {
			attempt_init(x, &a, &x->c->pairs[p], next_attempt[p]);
		}
		a.memo_confirming = memo_alarm[p] != 0;
		double started = nodus_wall_time_s();
		rc = run_attempt(x, &a, err);
		if (!rc && a.regroup) {
			/* the group's oracle failed: again, with the pair's own oracle */
			int again = a.attempt;
			attempt_release(&a);
			attempt_init(x, &a, &x->c->pairs[p], again);
			a.memo_confirming = memo_alarm[p] != 0;
			json_object_set_new(a.detail, "oracle_group_failed", json_true());
			if (x->no_group) /* it failed once: its later pairs run alone */
				x->no_group[x->c->pairs[p].reference] = 1;
			x->group_off = 1;
			rc = run_attempt(x, &a, err);
			x->group_off = 0;
		}
		if (rc) {
			attempt_release(&a);
			goto out;
		}
		/* nothing of the attempt outlives it (orphans come to us: cli
		 * makes nodus run a child subreaper) */
		int strays = nodus_exec_reap_strays();
		if (strays)
			json_object_set_new(a.detail, "strays_killed", json_integer(strays));
		int retry = a.status != NODUS_STATUS_OK && (j->retry_on & (1u << a.status)) &&
			    a.attempt < j->max_attempts;
		/* input_memo is a statistical guard: its first alarm for a pair
		 * is confirmed by another attempt, final only if that one raises
		 * it too, at the lower bar of a confirmation (timed_checks.h): a
		 * memoizer does so every time, an honest pair moved by a loaded
		 * machine rarely twice. A candidate that memoizes on some
		 * attempts only gets its honest label at best. */
		if (a.status == NODUS_STATUS_REWARD_HACK && !strcmp(a.guard, "input_memo")) {
			if (memo_alarm[p])
				json_object_set_new(a.detail, "input_memo_confirms",
						    json_integer(memo_alarm[p]));
			else if (a.attempt < j->max_attempts) {
				memo_alarm[p] = (unsigned char)(a.attempt < 255 ? a.attempt : 255);
				retry = 1;
				json_object_set_new(a.detail, "input_memo_confirm",
						    json_string("a first input_memo alarm: another "
								"attempt decides"));
			}
		}
		rc = write_record(x, &a, !retry, started, err);
		attempt_release(&a);
		if (rc)
			goto out;
		if (retry) {
			next_attempt[p]++;
			queue[tail++] = p;
			if (a.status == NODUS_STATUS_NOT_ISOLATED) /* "later": the load may go */
				nodus__not_isolated_pause(a.attempt); /* retry.c */
		}
	}
	progress_condition_end(x, cond);
out:
	spare_drop(x); /* it was started in this condition's environment */
	nodus_stressors_stop(&x->stress);
	nodus_mps_stop(&x->mps);
	x->worker_env = NULL;
	for (int p = 0; p < n; p++) {
		if (prepared[p]) { /* the run stopped early: its turn never came */
			attempt_release(prepared[p]);
			free(prepared[p]);
		}
	}
	x->prepared = NULL;
	x->queue = NULL;
	x->next_attempt = NULL;
	x->no_group = NULL;
	free(no_group);
	free(memo_alarm);
	free(prepared);
	free(queue);
	free(next_attempt);
	return rc;
}

static int register_plan(struct run_ctx *x, nodus_error *err)
{
	char *text = json_dumps(x->plan->json, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	int rc = nodus_store_put_plan(x->store, x->plan->digest, x->c->name, text, err);
	free(text);
	for (int p = 0; !rc && p < x->c->n_pairs; p++) {
		const nodus_pair_spec *ps = &x->c->pairs[p];
		const nodus_solution *cs = &x->c->solutions[ps->candidate];
		const nodus_solution *rs = &x->c->solutions[ps->reference];
		const nodus_workload *w = &x->c->workloads[ps->workload];
		rc = nodus_store_put_pair(x->store, x->plan->digest, ps->id, x->c->tasks[w->task].name,
					  w->name, cs->name, rs->name, cs->hash, rs->hash, ps->expect,
					  err);
	}
	for (int i = 0; !rc && i < x->c->n_conditions; i++) {
		const nodus_condition *c = &x->c->conditions[i];
		char params[256];
		snprintf(params, sizeof(params),
			 "{\"tenants\":%d,\"load\":%d,\"duty_cycle\":%g,\"active_thread_pct\":%d}",
			 c->tenants, c->load, c->duty_cycle, c->active_thread_pct);
		rc = nodus_store_put_condition(x->store, x->plan->digest, c->name,
					       nodus_condition_kind_name(c->kind), params,
					       err);
	}
	return rc;
}

/* Names this invocation: 16 random bytes (the clock and pid stand in where
 * getrandom fails, which only weakens uniqueness, not correctness: merge
 * compares records by content, the run id is provenance) and the host. */
static void run_identity(struct run_ctx *x)
{
	unsigned char id[16];
	if (getrandom(id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
		uint64_t v = nodus_now_ns() ^ ((uint64_t)getpid() << 32);
		for (size_t i = 0; i < sizeof(id); i++) {
			v ^= v << 13, v ^= v >> 7, v ^= v << 17;
			id[i] = (unsigned char)v;
		}
	}
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(x->run_id + 2 * i, 3, "%02x", id[i]);
	if (gethostname(x->host, sizeof(x->host) - 1) != 0)
		x->host[0] = '\0';
}

int nodus_run(const nodus_run_opts *o, nodus_run_summary *sum, nodus_diags *diags,
	      nodus_error *err)
{
	struct run_ctx x;
	memset(&x, 0, sizeof(x));
	memset(sum, 0, sizeof(*sum));
	const char *overlap = getenv("NODUS_EXPERIMENT_SPARES_DURING_TIMING");
	if (overlap && *overlap && strcmp(overlap, "0") != 0 && strcmp(overlap, "1") != 0)
		return NODUS_ERR(err, NODUS_EUSAGE,
				 "NODUS_EXPERIMENT_SPARES_DURING_TIMING is '%.40s': expected 1 "
				 "(spares start during timing) or 0 (nodus's quiet schedule)",
				 overlap);
	x.spares_during_timing = overlap && strcmp(overlap, "1") == 0;
	x.test_not_isolated_once = getenv("NODUS_TEST_NOT_ISOLATED_ONCE");
	x.test_memo_alarm_once = getenv("NODUS_TEST_MEMO_ALARM_ONCE");
	x.o = o;
	x.sum = sum;
	run_identity(&x);
	int rc = nodus_plan_load(o->plan_path, &x.plan, diags);
	if (rc)
		return rc;
	x.c = x.plan->campaign;
	x.judge = &x.c->judge; /* until a condition's preset changes it */
	if (x.c->target.backend == NODUS_BACKEND_CUDA) {
		const nodus_backend_ops *ops;
		rc = nodus_backend_cuda_load(&ops, err);
		if (rc)
			goto out;
		nodus_mps_sweep_stale();
		nodus_error nerr;
		memset(&nerr, 0, sizeof(nerr));
		if (nodus_nvml_open(&x.nvml, NULL, NULL, &nerr))
			snprintf(x.nvml_why, sizeof(x.nvml_why), "NVML unavailable: %.200s", nerr.message);
	}
	rc = nodus_store_open(o->db_path, &x.store, err);
	if (rc)
		goto out;
	if (!o->resume && !o->only_aa) {
		int attempts = 0, has_final = 0;
		for (int p = 0; !rc && p < x.c->n_pairs; p++)
			for (int c = 0; !rc && c < x.c->n_conditions && !attempts; c++)
				rc = nodus_store_progress(x.store, x.plan->digest, x.c->pairs[p].id,
							  x.c->conditions[c].name, &attempts,
							  &has_final, err);
		if (!rc && attempts) {
			rc = NODUS_ERR(err, NODUS_EUSAGE,
				       "'%s' already holds records of this plan; use --resume to "
				       "continue it, or another database",
				       o->db_path);
			goto out;
		}
	}
	if (rc || (rc = register_plan(&x, err)))
		goto out;
	if (o->cache_dir) {
		snprintf(x.cache_dir, sizeof(x.cache_dir), "%s", o->cache_dir);
	} else {
		char tmp[1024];
		snprintf(tmp, sizeof(tmp), "%s", o->db_path);
		snprintf(x.cache_dir, sizeof(x.cache_dir), "%s/nodus-cache", dirname(tmp));
	}
	if (x.cache_dir[0] != '/') { /* workers run elsewhere: make it absolute */
		char cwd[512], rel[480];
		snprintf(rel, sizeof(rel), "%.479s", x.cache_dir);
		if (getcwd(cwd, sizeof(cwd)))
			snprintf(x.cache_dir, sizeof(x.cache_dir), "%s/%s", cwd, rel);
	}
	/* there before any worker: a cuda worker's Landlock, put on as it
	 * starts, grants nothing for a directory that does not exist yet (a
	 * failure is the first build's to report) */
	mkdir(x.cache_dir, 0755);
	nodus_build_include_dir(o->self_path, x.include_dir, sizeof(x.include_dir));
	x.bopts.cache_dir = x.cache_dir;
	x.bopts.include_dir = x.include_dir;
	x.bopts.self_path = o->self_path;
	x.bopts.cuda_arch = getenv("NODUS_CUDA_ARCH");
	x.bopts.python = x.c->target.python;
	int ran_any = 0;
	for (int i = 0; i < x.c->n_conditions; i++) {
		if (o->condition && strcmp(o->condition, x.c->conditions[i].name) != 0)
			continue;
		ran_any = 1;
		if ((rc = run_condition(&x, &x.c->conditions[i], err)))
			goto out;
	}
	if (!ran_any)
		rc = NODUS_ERR(err, NODUS_EUSAGE, "the plan has no condition named '%s'",
			       o->condition);
out:
	spare_drop(&x);
	nodus_nvml_close(x.nvml);
	nodus_store_close(x.store);
	nodus_plan_free(x.plan);
	return rc;
}
