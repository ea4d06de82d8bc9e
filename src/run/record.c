/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * record.c: one attempt's record.
 *
 * The last step of an attempt (run.c calls it, final or to be retried):
 * the attempt's results, samples and detail (phases, start-ups, timing,
 * the condition achieved) go into the store in one transaction, and the
 * progress says what was decided (progress.c).
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run-internal.h"

int write_record(struct run_ctx *x, struct attempt *a, int final, double started,
		 nodus_error *err)
{
	nodus_record r;
	memset(&r, 0, sizeof(r));
	snprintf(r.plan_digest, sizeof(r.plan_digest), "%s", x->plan->digest);
	snprintf(r.pair_id, sizeof(r.pair_id), "%s", a->pair->id);
	snprintf(r.condition, sizeof(r.condition), "%s", x->cond->name);
	r.attempt = a->attempt;
	r.final = final;
	r.status = a->status;
	snprintf(r.guard, sizeof(r.guard), "%s", a->guard);
	int ok = a->status == NODUS_STATUS_OK;
	r.label = ok ? a->label : NODUS_LABEL_NONE;
	r.verdict = ok ? a->verdict : NODUS_VERDICT_NONE; /* a preset's, with no label */
	r.speedup = ok ? a->ci.estimate : NAN;
	r.ci_lo = ok ? a->ci.lo : NAN;
	r.ci_hi = ok ? a->ci.hi : NAN;
	r.rounds = a->rounds;
	r.looks = a->looks;
	r.cand_ns_median = median_of_role(a, NODUS_ROLE_CANDIDATE);
	r.ref_ns_median = median_of_role(a, NODUS_ROLE_REFERENCE);
	r.max_abs_err = a->max_abs_err;
	r.max_rel_err = a->max_rel_err;
	r.matched_ratio = a->matched_ratio;
	r.device_s = a->device_s;
	/* a replay co-tenant is useful work: each of the M pairs sharing the
	 * device pays 1/M of the time; synthetic stressors are charged in full */
	r.charge_share = x->cond->kind == NODUS_COND_REPLAY ? 1.0 / (x->cond->tenants + 1) : 1.0;
	r.compile_s = a->compile_s;
	r.compile_cache_hits = a->cache_hits;
	r.validation_s = a->validation_s;
	r.started_at = started;
	r.finished_at = nodus_wall_time_s();
	r.wall_s = r.finished_at - started;
	snprintf(r.target_hash, sizeof(r.target_hash), "%s", a->target_hash);
	r.message = a->message[0] ? a->message : NULL;
	if (x->stress.n) {
		nodus_stressors_poll(&x->stress);
		json_object_set_new(a->detail, "condition_achieved",
				    nodus_stressors_describe(&x->stress, x->cond));
	}
	if (x->cond->kind == NODUS_COND_MPS)
		json_object_set_new(a->detail, "mps", nodus_mps_describe(&x->mps));
	if (a->n_samples && x->cond->judge_preset != NODUS_PRESET_NODUS) {
		/* detail.preset (verdict.c) says how it was decided; no margin */
	} else if (a->n_samples) {
		json_object_set_new(a->detail, "tie_margin",
				    json_real(tie_margin_for(x->judge, a)));
		json_object_set_new(a->detail, "max_rounds",
				    json_integer(max_rounds_for(x->judge, a)));
		if (process_sd_for(x->judge, a) > 0 && a->ci_rounds.estimate > 0)
			json_object_set_new(
			    a->detail, "process_sd",
			    json_pack("{s:f,s:f,s:f,s:b}", "sd", process_sd_for(x->judge, a), "rounds_lo",
				      a->ci_rounds.lo, "rounds_hi", a->ci_rounds.hi, "undecidable",
				      a->undecidable));
		if (x->judge->min_timed_s > 0 && a->first_look >= 0)
			json_object_set_new(a->detail, "first_look", json_integer(a->first_look));
	}
	json_object_set_new(a->phases, "compare_s", json_real(a->compare_s));
	json_object_set_new(a->phases, "round_nvml_s", json_real(a->round_nvml_s));
	json_object_set_new(a->phases, "round_decide_s", json_real(a->round_decide_s));
	json_object_set_new(a->detail, "early_judged", json_integer(a->early_judged));
	json_object_set(a->detail, "phases", a->phases);
	if (json_object_size(a->startup))
		json_object_set(a->detail, "startup", a->startup);
	json_object_set_new(a->detail, "worker_schedule",
			    json_string(x->spares_during_timing ? "spares_during_timing"
								: "quiet_timing"));
	json_object_set_new(a->detail, "condition",
			    json_pack("{s:s,s:i,s:i,s:f}", "name", x->cond->name, "kind",
				      x->cond->kind, "tenants", x->cond->tenants, "duty_cycle",
				      x->cond->duty_cycle));
	if (x->cond->judge_preset != NODUS_PRESET_NODUS)
		json_object_set_new(json_object_get(a->detail, "condition"), "judge_preset",
				    json_string(nodus_judge_preset_name(x->cond->judge_preset)));
	json_object_set_new(a->detail, "run",
			    json_pack("{s:s,s:s}", "id", x->run_id, "host", x->host));
	char *detail = json_dumps(a->detail, JSON_COMPACT | JSON_SORT_KEYS);
	r.detail_json = detail;
	r.n_samples = a->n_samples;
	r.samples = a->samples;
	int rc = nodus_store_insert_record(x->store, &r, NULL, err);
	free(detail);
	if (!rc) {
		x->sum->records++;
		if (final && !ok)
			x->sum->failures++;
		if (final)
			x->cond_decided++;
		progress_record(x, a, final);
	}
	return rc;
}
