/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * jobs.c: what an attempt computes, and what each worker is told.
 *
 * choose_instances draws every seed and instance of the attempt (step 3 of
 * attempt.c): correctness trials with their variants, the shape probe, the
 * determinism repeat, the checks of timed calls (from a secret of this
 * process: timed_checks.c) and a final fresh trial. job_json writes the
 * job of the oracle, the measure worker or the timer; the measure worker's
 * never says which timed calls are checked.
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <stdlib.h>

#include "run/run-internal.h"

static const char *seed_str(uint64_t v, char *buf)
{
	snprintf(buf, 24, "%llu", (unsigned long long)v);
	return buf;
}

static int add_instance(struct attempt *a, int probe, unsigned variant, int copy, uint64_t seed,
			int64_t sample)
{
	if (a->n_inst >= MAX_INSTANCES)
		NODUS_BUG("too many instances");
	nodus_instance *in = &a->inst[a->n_inst];
	in->id = a->n_inst;
	in->probe = probe;
	in->variant = variant;
	in->copy = copy;
	in->seed = seed;
	in->sample = sample;
	return a->n_inst++;
}

static unsigned variant_of_trial(const nodus_task *t, const nodus_workload *w, int trial)
{
	static const unsigned order[] = {0, NODUS_VARIANT_NEGATE, NODUS_VARIANT_SCALE_3,
					 NODUS_VARIANT_SCALE_001};
	unsigned allowed = 0;
	for (int i = 0; i < t->n_inputs; i++)
		allowed |= nodus_judge_input_variants(
			t->inputs[i].variants, w->has_init[i] ? &w->init_override[i] : &t->inputs[i].init);
	unsigned v = order[trial % 4];
	return (v & allowed) ? v : 0;
}

/* Step 3: every seed and instance of the attempt. */
void choose_instances(struct run_ctx *x, struct attempt *a)
{
	const nodus_judge *j = x->judge;
	uint64_t s = a->stream;
	for (int t = 0; t < j->trials && a->n_trials < 14; t++)
		a->trial_ids[a->n_trials++] = add_instance(
			a, 0, variant_of_trial(a->task, a->wl, t), -1,
			nodus_judge_trial_seed(j->seed, s, (uint64_t)t), -1);
	/* the shape probe: a fast path valid only for the benchmarked shape fails here */
	a->trial_ids[a->n_trials++] =
		add_instance(a, 1, 0, -1, nodus_judge_trial_seed(j->seed, s, 100), -1);
	a->det_id = (j->determinism && a->task->deterministic) ? a->trial_ids[0] : -1;
	a->copy_seed = nodus_judge_trial_seed(j->seed, s, 200);
	a->perturb_seed = nodus_judge_trial_seed(j->seed, s, 201);
	a->order_seed = nodus_judge_trial_seed(j->seed, s, 202);
	/* Checks of timed calls: drawn from a secret of this process, not from
	 * the judge's seed, so nothing the candidate could know (the plan, the
	 * job, its own memory) says which calls are checked. The oracle gets
	 * each check's instance: its copy under its perturbation. */
	a->timing_copies = nodus__timing_copies(a->task, a->wl,
						x->c->target.backend == NODUS_BACKEND_CUDA,
						j->min_sample_ns, j->input_copies);
	int64_t guaranteed = (int64_t)j->min_rounds * j->samples_per_round;
	int64_t most = (int64_t)max_rounds_any(j) * j->samples_per_round;
	nodus_preset_protocol pp; /* a preset takes every sample of its schedule */
	if (nodus_judge_preset_protocol(x->cond->judge_preset, &pp) == 0)
		guaranteed = most = (int64_t)pp.timing_trials * pp.timed_calls;
	a->timed_plan_ok = nodus_timed_plan_init(&a->timed, a->timing_copies,
						 nodus__timed_checks_for(a->task, a->wl, j->recheck_reps),
						 guaranteed, most) == 0;
	uint64_t copy0_seed = nodus_judge_trial_seed(a->copy_seed, 0xc0b1e5, 0);
	for (int r = 0; a->timed_plan_ok && r < a->timed.n_checks; r++) {
		nodus_timed_check *c = &a->timed.check[r];
		/* a fresh sample's copy is drawn from its own seed, as copy 0 is
		 * (no rotation, no perturbation); any other's is copy 0 rotated
		 * and perturbed */
		if (c->fresh)
			c->instance = add_instance(
				a, 0, 0, 0, nodus__fresh_seed(a->copy_seed, c->copy, c->perturbation), -1);
		else
			c->instance =
				add_instance(a, 0, 0, c->copy, copy0_seed, (int64_t)c->perturbation);
		a->inst[c->instance].copy_base = a->copy_seed;
		a->inst[c->instance].timed_check = 1;
	}
	a->final_id = add_instance(a, 0, 0, -1, nodus_judge_trial_seed(j->seed, s, 300), -1);
	for (int i = 0; i < a->n_inst; i++)
		a->inst[i].perturb_seed = a->perturb_seed;
}

static json_t *ids_json(const int *ids, int n)
{
	json_t *arr = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(ids[i]));
	return arr;
}

/* {input name: hex of its bytes} for the workload's file inputs, or NULL
 * when it has none. */
static json_t *file_inputs_json(const nodus_task *t, const nodus_workload *w)
{
	static const char digits[] = "0123456789abcdef";
	json_t *o = NULL;
	for (int i = 0; i < t->n_inputs; i++) {
		const nodus_dist *d = &w->init_override[i];
		if (!nodus_workload_file_input(w, i) || !d->data)
			continue;
		size_t n = (size_t)d->bytes;
		char *hex = malloc(2 * n + 1);
		if (!hex)
			return o;
		for (size_t k = 0; k < n; k++) {
			unsigned char c = ((const unsigned char *)d->data)[k];
			hex[2 * k] = digits[c >> 4];
			hex[2 * k + 1] = digits[c & 15];
		}
		hex[2 * n] = 0;
		if (!o)
			o = json_object();
		json_object_set_new(o, t->inputs[i].name, json_stringn_nocheck(hex, 2 * n));
		free(hex);
	}
	return o;
}

/* A worker's job. Each worker loads one solution: the oracle and the
 * timer the reference, the measure worker the candidate. */
json_t *job_json(struct run_ctx *x, struct attempt *a, enum job_role role)
{
	static const char *const names[] = {"oracle", "measure", "timer"};
	const nodus_judge *j = x->judge;
	char b1[24], b2[24], b3[24];
	json_t *inst = json_array();
	for (int i = 0; role != JOB_TIMER && i < a->n_inst; i++) {
		char sb[24], pb[24], cb[24];
		if (role == JOB_MEASURE && a->inst[i].timed_check) {
			/* the candidate's worker must not learn what is checked:
			 * its instance list keeps the ids and holds nothing here */
			json_array_append_new(inst, json_pack("{s:i}", "copy", -1));
			continue;
		}
		json_array_append_new(
			inst, json_pack("{s:i,s:i,s:i,s:s,s:I,s:s,s:s}", "probe", a->inst[i].probe,
					"variant", (int)a->inst[i].variant, "copy", a->inst[i].copy,
					"seed", seed_str(a->inst[i].seed, sb), "sample",
					(json_int_t)a->inst[i].sample, "perturb_seed",
					seed_str(a->inst[i].perturb_seed, pb), "copy_base",
					seed_str(a->inst[i].copy_base, cb)));
	}
	json_t *job = json_pack(
		"{s:s,s:s,s:O,s:O,s:o,s:s,s:s,s:i,s:i}", "role", names[role], "backend",
		x->c->target.backend == NODUS_BACKEND_CUDA ? "cuda" : "cpu", "task", a->task->json,
		"workload", a->wl->json, "instances", inst, "perturb_seed",
		seed_str(a->perturb_seed, b1), "order_seed", seed_str(a->order_seed, b2),
		"determinism", a->det_id, "lockdown", x->c->target.backend == NODUS_BACKEND_CPU);
	if (x->c->target.backend == NODUS_BACKEND_CUDA && !cuda_sandbox_off())
		json_object_set_new(job, "cuda_sandbox", json_integer(1));
	/* file inputs' values: a worker reads no file of the campaign (it is
	 * confined), so they travel in the job, hex-encoded */
	json_t *files = file_inputs_json(a->task, a->wl);
	if (files)
		json_object_set_new(job, "files", files);
	/* "adapter": the shared object is nodus's own Python adapter, whose
	 * hooks the worker honours (worker.c, adapter_hooks) */
	if (role == JOB_MEASURE)
		json_object_set_new(job, "candidate",
				    json_pack("{s:s,s:s,s:b}", "so", a->cand_so, "entry", a->cand->entry,
					      "adapter", a->cand->language == NODUS_LANG_PYTHON));
	else
		json_object_set_new(job, "reference",
				    json_pack("{s:s,s:s,s:b}", "so", a->ref_so, "entry", a->ref->entry,
					      "adapter", a->ref->language == NODUS_LANG_PYTHON));
	if (role == JOB_ORACLE) {
		int all[MAX_INSTANCES];
		for (int i = 0; i < a->n_inst; i++)
			all[i] = i;
		json_object_set_new(job, "oracle", ids_json(all, a->n_inst));
		return job;
	}
	if (role == JOB_MEASURE) {
		json_object_set_new(job, "trials", ids_json(a->trial_ids, a->n_trials));
		json_object_set_new(job, "final", ids_json(&a->final_id, 1));
	}
	if (x->cond->kind == NODUS_COND_STREAMS) {
		/* the GPU loads call the compute load "fma" */
		const char *load = x->cond->load == NODUS_LOAD_COMPUTE ? "fma"
								       : nodus_load_name(x->cond->load);
		json_object_set_new(job, "streams",
				    json_pack("{s:i,s:s,s:f}", "n", x->cond->tenants, "load", load,
					      "duty", x->cond->duty_cycle > 0 ? x->cond->duty_cycle : 1.0));
	}
	json_object_set_new(
		job, "timing",
		json_pack("{s:i,s:f,s:i,s:i,s:i,s:i,s:I,s:s,s:i}", "warmup_calls", j->warmup_calls,
			  "warmup_ms", j->warmup_ms, "samples_per_round", j->samples_per_round,
			  "max_rounds", max_rounds_any(j), "input_copies", j->input_copies, "flush",
			  j->flush_cache, "min_sample_ns", (json_int_t)j->min_sample_ns, "copy_seed",
			  seed_str(a->copy_seed, b3), "copies", a->timing_copies));
	return job;
}
