/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * attempt.c: one attempt at one (pair, condition), top to bottom.
 *
 * In order (attempt_workers):
 *   1. build both solutions (content-addressed cache, build.c);
 *   2. choose the instances (jobs.c), every seed drawn here;
 *   3. form an oracle group with later pairs of the same reference
 *      (oracle_group.c);
 *   4. the oracle and the measure worker get their jobs at once (pool.c);
 *      the oracle's conversation computes the reference outputs while the
 *      candidate's frames are judged as they can be (early.c, outputs.c);
 *   5. the measure worker's conversation: once its trials pass, the gate -
 *      the timer gets its job and says READY, our workers are reaped or
 *      warm, the isolation check before (isolation.c) - then the timing
 *      (drive.c), the final trial and DONE;
 *   6. the guards read from the samples (sample_guards.c) and the
 *      isolation check after.
 * run.c then writes the record (record.c). The first failure decides the
 * status (set_status); worker deaths are classified in pool.c.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run-internal.h"

void set_status(struct attempt *a, int status, const char *guard, const char *fmt, ...)
{
	if (a->status != NODUS_STATUS_OK)
		return; /* the first failure decides */
	a->status = status;
	snprintf(a->guard, sizeof(a->guard), "%s", guard ? guard : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->message, sizeof(a->message), fmt, ap);
	va_end(ap);
}

void phase_since(struct attempt *a, const char *name, uint64_t t0)
{
	json_object_set_new(a->phases, name, json_real((double)(nodus_now_ns() - t0) * 1e-9));
}

void attempt_init(struct run_ctx *x, struct attempt *a, const nodus_pair_spec *p, int n)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < MAX_INSTANCES; i++)
		for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
			nodus_buf_init(&a->oracle[i][o].frame);
	for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
		nodus_buf_init(&a->cand_first[o]);
	a->pair = p;
	a->wl = &x->c->workloads[p->workload];
	a->task = &x->c->tasks[a->wl->task];
	a->cand = &x->c->solutions[p->candidate];
	a->ref = &x->c->solutions[p->reference];
	a->attempt = n;
	a->judge = x->judge;
	a->status = NODUS_STATUS_OK;
	a->label = NODUS_LABEL_NONE;
	a->short_call = -1;
	a->first_look = -1;
	a->ci.estimate = a->ci.lo = a->ci.hi = NAN;
	a->max_abs_err = a->max_rel_err = a->matched_ratio = NAN;
	a->det_id = -1;
	a->oracle_progress = -1;
	char key[512];
	snprintf(key, sizeof(key), "%s|%s|%d", p->id, x->cond->name, n);
	a->stream = nodus_judge_stream_id(key);
	a->detail = json_object();
	a->phases = json_object();
	a->startup = json_object();
	a->timing = json_object();
}

void attempt_release(struct attempt *a)
{
	for (int i = 0; i < MAX_INSTANCES; i++)
		for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
			kept_release(&a->oracle[i][o]);
	for (int o = 0; o < NODUS_MAX_OUTPUTS; o++) {
		nodus_buf_release(&a->cand_first[o]);
		nodus_judge_follow_release(&a->follow[o]);
	}
	free(a->samples);
	nodus_timed_plan_release(&a->timed);
	json_decref(a->detail);
	json_decref(a->phases);
	json_decref(a->startup);
	json_decref(a->timing);
}

/* The shapes a worker calls a solution with on this workload (the
 * workload's and the shape probe's), as nodus_build_warm takes them; NULL
 * when out of memory. */
static char *warm_calls(const nodus_task *t, const nodus_workload *w)
{
	json_t *calls = json_array();
	for (int probe = 0; probe < 2 && calls; probe++) {
		int64_t axes[NODUS_MAX_AXES];
		nodus__instance_axes(t, w, probe, axes);
		json_t *call = json_object(), *side[2] = {json_array(), json_array()};
		for (int o = 0; o < 2; o++) {
			int n = o ? t->n_outputs : t->n_inputs;
			for (int i = 0; i < n; i++) {
				const nodus_tensor_spec *ts = o ? &t->outputs[i] : &t->inputs[i];
				json_t *dims = json_array();
				for (int d = 0; d < ts->ndim; d++)
					json_array_append_new(dims, json_integer(axes[ts->axis[d]]));
				json_array_append_new(side[o],
						      json_pack("[s,o]", nodus_dtype_name(ts->dtype), dims));
			}
		}
		json_object_set_new(call, "inputs", side[0]);
		json_object_set_new(call, "outputs", side[1]);
		if (probe && json_equal(call, json_array_get(calls, 0)))
			json_decref(call); /* no variable axis: one shape */
		else
			json_array_append_new(calls, call);
	}
	json_t *doc = json_pack("{s:o}", "calls", calls);
	char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(doc);
	return text;
}

/* A python solution's Triton kernels for this workload (nodus_build_warm);
 * 0 with *ok telling whether the attempt goes on (else its status is set),
 * < 0 a harness failure. */
static int warm_one(struct run_ctx *x, struct attempt *a, const nodus_solution *s,
		    const nodus_build_result *built, int is_ref, int *ok, nodus_error *err)
{
	*ok = 1;
	if (s->language != NODUS_LANG_PYTHON || s->backend != NODUS_BACKEND_CUDA)
		return 0;
	char *calls = warm_calls(a->task, a->wl);
	if (!calls)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory warming '%s'", s->name);
	nodus_build_result w;
	int rc = nodus_build_warm(s, &x->bopts, built, calls, &w, err);
	free(calls);
	if (rc)
		return rc;
	a->compile_s += w.compile_s;
	if (w.ok)
		return 0;
	*ok = 0;
	int harness = strcmp(w.guard, "triton_warm_gpu") == 0;
	if (harness)
		set_status(a, NODUS_STATUS_LOAD_ERROR, w.guard,
			   "%s '%s': its Triton kernels could not be compiled at build time, "
			   "because nodus could not use the GPU there (not the solution's fault): %s",
			   is_ref ? "reference" : "candidate", s->name, w.log);
	else if (is_ref)
		set_status(a, NODUS_STATUS_INVALID_REFERENCE, w.guard,
			   "reference '%s' did not compile: %s", s->name, w.log);
	else
		set_status(a, NODUS_STATUS_COMPILE_ERROR, w.guard,
			   "candidate '%s' did not compile: %s", s->name, w.log);
	return 0;
}

int build_both(struct run_ctx *x, struct attempt *a, char *ref_so, char *cand_so,
	       nodus_error *err)
{
	nodus_build_result r;
	int ok, rc = nodus_build_solution(a->ref, &x->bopts, &r, err);
	if (rc)
		return rc;
	a->compile_s += r.compile_s;
	a->cache_hits += r.cache_hit;
	if (!r.ok) {
		set_status(a, NODUS_STATUS_INVALID_REFERENCE, r.guard[0] ? r.guard : "compile",
			   "reference '%s' did not compile: %s", a->ref->name, r.log);
		return 0;
	}
	if ((rc = warm_one(x, a, a->ref, &r, 1, &ok, err)) || !ok)
		return rc;
	snprintf(ref_so, 1024, "%s", r.so_path);
	rc = nodus_build_solution(a->cand, &x->bopts, &r, err);
	if (rc)
		return rc;
	a->compile_s += r.compile_s;
	a->cache_hits += r.cache_hit;
	if (r.ok && ((rc = warm_one(x, a, a->cand, &r, 0, &ok, err)) || !ok))
		return rc;
	if (!r.ok && r.hack) {
		/* it made the tool chain read what no solution may: not a mistake */
		set_status(a, NODUS_STATUS_REWARD_HACK, r.guard,
			   "candidate '%s' was refused at build: %s", a->cand->name, r.log);
		return 0;
	}
	if (!r.ok) {
		set_status(a, NODUS_STATUS_COMPILE_ERROR, r.guard[0] ? r.guard : "compile",
			   "candidate '%s' did not compile: %s", a->cand->name, r.log);
		return 0;
	}
	snprintf(cand_so, 1024, "%s", r.so_path);
	return 0;
}

/* Starts the attempt's timer, the reference's timing worker: at once,
 * with the others, so that its start-up is over before the gate. */
static int timer_start(struct run_ctx *x, struct attempt *a, struct worker_proc *wt,
		       nodus_error *err)
{
	json_t *job = job_json(x, a, JOB_TIMER);
	uint64_t t0 = nodus_now_ns();
	int rc = worker_start(x, wt, job, err);
	arena_close(wt); /* the oracle's only */
	phase_since(a, "timer_start_s", t0);
	json_decref(job);
	if (!rc)
		a->timer = wt;
	return rc;
}

/* Reads the timer's frames up to its READY (its WARM on the way). 0, or 1
 * when it failed or died first: the reference's fault, recorded. */
static int timer_ready(struct run_ctx *x, struct attempt *a)
{
	struct worker_proc *w = a->timer;
	nodus_buf payload = NODUS_BUF_INIT;
	int rc = 1;
	for (;;) {
		uint32_t type = 0;
		int r = nodus_ipc_read(w->child.result_fd, &type, &payload, w->deadline_ns);
		if (r) {
			worker_end(x, w, a, r == NODUS_ETIMEOUT, 0, "timer");
			break;
		}
		if (type == NODUS_MSG_WARM) {
			if (!w->startup[0])
				keep_startup(w, &payload);
			continue;
		}
		if (type == NODUS_MSG_READY) {
			on_ready(x, a, &payload);
			rc = 0;
			break;
		}
		if (type == NODUS_MSG_FAIL) {
			apply_fail_frame(a, &payload, 1);
			worker_end(x, w, a, 0, 1, "timer");
		} else {
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "timer worker sent frame %u before READY", type);
			worker_end(x, w, a, 1, 0, "timer");
		}
		break;
	}
	nodus_buf_release(&payload);
	return rc;
}

/* Stops a timer that still lives and did nothing wrong (the pair ended
 * before or without it); told to stop, it exits on its own. */
static void timer_stop(struct run_ctx *x, struct attempt *a)
{
	if (a->timer && a->timer->running) {
		send_cmd(a->timer, 's');
		worker_end(x, a->timer, a, 0, 1, "timer");
	}
	a->timer = NULL;
}

/* Reads frames until DONE, FAIL, death or timeout. For the oracle, side is
 * the measure worker, whose frames wait in q meanwhile; for the measure
 * worker, q's frames come first. The measure worker's conversation answers
 * the correctness gate and every round. */
static void converse(struct run_ctx *x, struct attempt *a, struct worker_proc *w, int measure,
		     struct worker_proc *side, struct early_queue *q)
{
	nodus_buf payload = NODUS_BUF_INIT;
	int expected_trial_frames = 0;
	if (measure)
		expected_trial_frames = (a->n_trials + (a->det_id >= 0)) * a->task->n_outputs +
					a->n_trials; /* outputs + checksums */
	int gate_open = 0, got_done = 0, timed_out = 0;
	const char *who = measure ? "measure" : "oracle";
	uint64_t t_start = nodus_now_ns(); /* measure: once the oracle is done */
	for (;;) {
		if (measure && !gate_open && a->trial_frames >= expected_trial_frames) {
			gate_open = 1;
			a->validation_s = (double)(nodus_now_ns() - a->validation_from_ns) * 1e-9;
			json_object_set_new(a->phases, "trials_s",
					    json_real((double)(nodus_now_ns() - t_start) * 1e-9));
			if (a->status != NODUS_STATUS_OK) {
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			/* The timer gets its job only now: its set-up (loading the
			 * reference, its buffers) beside the candidate's trials put two
			 * contexts to work on one GPU at once, which slowed the trials
			 * from 0.05 to 0.38 s on the H200 (bench/results/h200/ab-42).
			 * It is a spare already started, so it adds no process. */
			nodus_error terr;
			uint64_t t_timer = nodus_now_ns();
			if (timer_start(x, a, a->timer_slot, &terr)) {
				set_status(a, NODUS_STATUS_CRASH, "harness",
					   "cannot start the reference's timer: %s", terr.message);
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			/* its READY comes once its solution is loaded (a torch module's
			 * import is a second of CPU): the isolation check below must
			 * not see our own timer at work */
			if (timer_ready(x, a)) {
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			w->deadline_ns += nodus_now_ns() - t_timer;
			uint64_t t_quiet = nodus_now_ns();
			/* nothing of ours starts or ends while the pair is timed */
			exiting_reap(x);
			spares_wait_warm(x);
			int ok;
			isolation_check(x, "isolation_before", 2, a->detail, &ok);
			if (ok && test_refuses_isolation(x, a))
				ok = 0;
			uint64_t waited = nodus_now_ns() - t_quiet;
			phase_since(a, "quiesce_s", t_quiet);
			w->deadline_ns += waited; /* the harness's wait, not the worker's time */
			a->timer->deadline_ns += waited;
			if (!ok) {
				set_status(a, NODUS_STATUS_NOT_ISOLATED, "isolation_before",
					   "other load on the machine before the pair was timed (the "
					   "limit is judge.isolation_max_busy_cores on cpu, no other "
					   "process on the GPU on cuda; detail.isolation_before says what "
					   "was seen; nodus run --resume tries the pair again)");
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			if (x->spares_during_timing)
				spares_top_up(x);
			int end = drive_timing(x, a, w, a->timer);
			if (end == DRIVE_TIMEOUT) {
				timed_out = 1;
				break;
			}
			if (end == DRIVE_FAILED)
				got_done = 1;
			if (end == DRIVE_STOPPED)
				send_cmd(w, 's');
			if (end != DRIVE_OK)
				break; /* DRIVE_DEAD: worker_end says how it died */
		}
		uint32_t type = 0;
		int rc;
		if (measure && q->n > 0)
			rc = early_pop(q, &type, &payload);
		else if (!measure)
			rc = oracle_read(x, a, w, side, q, &type, &payload);
		else
			rc = nodus_ipc_read(w->child.result_fd, &type, &payload, w->deadline_ns);
		if (rc == NODUS_ETIMEOUT) {
			timed_out = 1;
			break;
		}
		if (rc)
			break; /* EOF or garbage: the worker died */
		/* read now: on_output takes an oracle output frame's buffer */
		int inst = frame_instance(type, &payload);
		if (type == NODUS_MSG_WARM) {
			/* the worker's own WARM is the first frame in its pipe; a
			 * later one can only come from the loaded solution */
			if (!w->startup[0])
				keep_startup(w, &payload);
			continue;
		} else if (type == NODUS_MSG_READY) {
			on_ready(x, a, &payload);
			if (!measure)
				a->oracle_ready = 1;
		} else if (is_trial_frame(type)) {
			on_trial_frame(a, type, &payload, !measure, w);
		} else if (type == NODUS_MSG_SIZED || type == NODUS_MSG_START ||
			   type == NODUS_MSG_BATCH) {
			/* timing frames are read by drive_timing, in their place */
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "%s worker sent a timing frame out of turn", who);
			break;
		} else if (type == NODUS_MSG_FAIL) {
			apply_fail_frame(a, &payload, !measure);
			got_done = 1;
			break;
		} else if (type == NODUS_MSG_DONE) {
			char bent[400];
			nodus_clock_view cv;
			if (measure && !nodus_timed_plan_clock_view(&a->timed, &cv))
				json_object_set_new(
					a->detail, "clock",
					json_pack("{s:[i,i],s:[f,f],s:[f,f],s:[f,f],s:f,s:f}", "batches",
						  cv.n[0], cv.n[1], "gap_median_us", cv.gap_med[0] * 1e-3,
						  cv.gap_med[1] * 1e-3, "gap_iqr_us", cv.gap_iqr[0] * 1e-3,
						  cv.gap_iqr[1] * 1e-3, "host_median_us",
						  cv.host_med[0] * 1e-3, cv.host_med[1] * 1e-3, "z", cv.z,
						  "allowed_us", cv.allow * 1e-3));
			if (measure && nodus_timed_plan_clock_bent(&a->timed, bent, sizeof(bent)))
				set_status(a, NODUS_STATUS_REWARD_HACK, "clock_crosscheck", "%s", bent);
			json_t *o = json_loadb(payload.data, payload.len, 0, NULL);
			json_t *timing = json_object_get(o, "timing");
			if (measure && json_is_object(timing)) {
				/* the worker's side, with what the orchestrator chose */
				json_object_update(timing, a->timing);
				json_object_set(a->detail, "timing", timing);
			}
			json_t *phases = json_object_get(o, "phases");
			if (phases)
				json_object_set(a->phases, who, phases);
			json_t *startup = json_loads(w->startup, 0, NULL);
			if (json_is_object(startup)) /* before the job: outside the wall time */
				json_object_set(a->startup, who, startup);
			json_decref(startup);
			json_decref(o);
			got_done = 1;
			break;
		} else {
			/* a frame no worker sends here: candidate code writing to
			 * the result pipe (a forged timing round, say) */
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "%s worker sent a frame of unknown type %u", who, type);
			break;
		}
		if (!measure && is_trial_frame(type)) {
			if (inst > a->oracle_progress && inst < a->n_inst)
				a->oracle_progress = inst;
			/* a group's oracle gets each later pair's time as it reaches
			 * that pair's instances, not before: a reference that hangs
			 * on the first pair is stopped after one timeout */
			while (a->followers_reached < a->n_followers &&
			       inst >= a->follower_first[a->followers_reached]) {
				w->deadline_ns += (uint64_t)(x->judge->timeout_s * 1e9);
				a->followers_reached++;
			}
			if (side)
				early_judge(x, a, side, q);
		}
		if (a->status != NODUS_STATUS_OK && !measure)
			break;
	}
	if (!measure)
		a->validation_s = (double)(nodus_now_ns() - a->validation_from_ns) * 1e-9;
	else if (!gate_open)
		a->validation_s = (double)(nodus_now_ns() - a->validation_from_ns) * 1e-9;
	if (!got_done && a->status != NODUS_STATUS_OK)
		timed_out = 1; /* we stop it ourselves */
	uint64_t t_end = nodus_now_ns();
	worker_end(x, w, a, timed_out, got_done, who);
	json_object_set_new(a->phases, measure ? "measure_s" : "oracle_s",
			    json_real((double)(t_end - t_start) * 1e-9));
	json_object_set_new(a->phases, measure ? "measure_exit_s" : "oracle_exit_s",
			    json_real((double)(nodus_now_ns() - t_end) * 1e-9));
	nodus_buf_release(&payload);
}

/* A follower's attempt: its reference outputs are ready, so only its
 * measure worker starts; its trials are judged as they come. */
static int run_prepared(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
			struct worker_proc *wt, nodus_error *err)
{
	a->validation_from_ns = nodus_now_ns();
	json_t *job = job_json(x, a, JOB_MEASURE);
	uint64_t t0 = nodus_now_ns();
	int rc = worker_start(x, wm, job, err);
	arena_close(wm); /* a measure worker closes its own: the oracle's only */
	phase_since(a, "measure_start_s", t0);
	json_decref(job);
	(void)wt; /* the timer starts at the gate (converse) */
	return rc;
}

/* The workers of one attempt, from the builds to the end of timing. */
static int attempt_workers(struct run_ctx *x, struct attempt *a, struct worker_proc *wt,
			   nodus_error *err)
{
	int ok, rc;
	spares_fill(x, a);
	a->timer_slot = wt;
	uint64_t t0;
	struct worker_proc wo, wm;
	struct early_queue q;
	memset(&wo, 0, sizeof(wo));
	memset(&wm, 0, sizeof(wm));
	memset(&q, 0, sizeof(q));
	if (a->oracle_prepared) {
		if ((rc = run_prepared(x, a, &wm, wt, err)))
			return rc;
		goto measure;
	}
	t0 = nodus_now_ns();
	rc = build_both(x, a, a->ref_so, a->cand_so, err);
	phase_since(a, "build_s", t0);
	if (rc || a->status != NODUS_STATUS_OK)
		return rc;
	choose_instances(x, a);

	/* the jobs at once: the candidate's trials overlap the oracle's */
	json_t *measure_job = job_json(x, a, JOB_MEASURE);
	t0 = nodus_now_ns();
	rc = oracle_group_form(x, a, err);
	phase_since(a, "group_s", t0);
	a->validation_from_ns = nodus_now_ns(); /* the later pairs' builds are not validation */
	if (rc) {
		json_decref(measure_job);
		oracle_group_dissolve(a);
		return rc;
	}
	json_t *job = job_json(x, a, JOB_ORACLE);
	t0 = nodus_now_ns();
	rc = worker_start(x, &wo, job, err);
	phase_since(a, "oracle_start_s", t0);
	json_decref(job);
	if (rc) {
		json_decref(measure_job);
		oracle_group_dissolve(a);
		return rc;
	}
	t0 = nodus_now_ns();
	rc = worker_start(x, &wm, measure_job, err);
	arena_close(&wm); /* a measure worker closes its own: the oracle's only */
	phase_since(a, "measure_start_s", t0);
	json_decref(measure_job);
	if (rc) {
		worker_end(x, &wo, a, 1, 0, "oracle");
		oracle_group_dissolve(a);
		return rc;
	}
	uint64_t t_oracle = nodus_now_ns();
	converse(x, a, &wo, 0, &wm, &q);
	nodus_buf_release(&q.recycled); /* frames read from here on use converse's own */
	for (int i = 0; a->status == NODUS_STATUS_OK && i < a->n_inst; i++)
		for (int o = 0; o < a->task->n_outputs; o++)
			if (!a->oracle[i][o].present)
				set_status(a, NODUS_STATUS_INVALID_REFERENCE, "oracle",
					   "the oracle sent no output %d for instance %d", o, i);
	if (a->status != NODUS_STATUS_OK && a->n_followers > 0) {
		worker_end(x, &wm, a, 1, 0, "measure");
		early_release(&q);
		oracle_group_dissolve(a);
		a->regroup = 1;
		return 0;
	}
	oracle_group_hand_over(x, a, (double)(nodus_now_ns() - t_oracle) * 1e-9);
	if (a->status != NODUS_STATUS_OK) {
		worker_end(x, &wm, a, 1, 0, "measure"); /* stopped: the reference failed */
		early_release(&q);
		return 0;
	}
	if (q.failed_status) /* found while the oracle worked */
		set_status(a, q.failed_status, q.failed_guard, "%s", q.failed_message);
	/* the timing workers waited on us while the oracle worked */
	wm.deadline_ns += nodus_now_ns() - t_oracle;
measure:
	converse(x, a, &wm, 1, NULL, &q);
	early_release(&q);
	timer_stop(x, a);
	if (a->status == NODUS_STATUS_OK) {
		check_host_gap(a);
		check_speed_of_light(x, a);
		check_input_memo(x, a);
		if (a->rounds == 0 || isnan(a->ci.estimate))
			set_status(a, NODUS_STATUS_CRASH, "timing", "no timing rounds completed");
	}
	if (a->rounds == 0)
		return 0; /* never timed: nothing to call isolated or not */
	if (a->isolation_after_checked) {
		ok = a->isolation_after_ok;
	} else { /* a worker ended during timing */
		t0 = nodus_now_ns();
		exiting_reap(x); /* the timing workers: the count of our processes is exact */
		isolation_check(x, "isolation_after", 0, a->detail, &ok);
		phase_since(a, "isolation_after_s", t0);
	}
	if (!ok)
		set_status(a, NODUS_STATUS_NOT_ISOLATED, "isolation_after",
			   "other load on the machine while the pair was timed (the limit is "
			   "judge.isolation_max_busy_cores on cpu, no other process on the GPU on "
			   "cuda; detail.isolation_after says what was seen; nodus run --resume "
			   "tries the pair again)");
	return 0;
}

int run_attempt(struct run_ctx *x, struct attempt *a, nodus_error *err)
{
	struct worker_proc wt;
	memset(&wt, 0, sizeof(wt));
	int rc = attempt_workers(x, a, &wt, err);
	timer_stop(x, a); /* on every path: nothing of the attempt outlives it */
	return rc;
}
