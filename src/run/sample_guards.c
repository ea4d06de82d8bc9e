/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * sample_guards.c: the guards an attempt's samples answer once timing is over.
 *
 * Run by attempt.c after the measure worker's conversation, only when the
 * attempt is still OK: work outside the timed stream (host_gap: event time
 * far below the host-synchronised time, candidate only) and a candidate
 * faster than the roofline floor the target's declared ceilings give
 * (speed_of_light), and a candidate slower on fresh samples than on the
 * others (input_memo: it reuses work across calls). Each is REWARD_HACK.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run-internal.h"

#define HOST_GAP_SHARE 0.25

void check_host_gap(struct attempt *a)
{
	int cand = 0, cand_gap = 0, ref = 0, ref_gap = 0;
	for (int i = 0; i < a->n_samples; i++) {
		int gap = (a->samples[i].flags & NODUS_SAMPLE_HOST_GAP) != 0;
		if (a->samples[i].role == NODUS_ROLE_CANDIDATE) {
			cand++;
			cand_gap += gap;
		} else {
			ref++;
			ref_gap += gap;
		}
	}
	if (cand && cand_gap > HOST_GAP_SHARE * cand && ref_gap <= HOST_GAP_SHARE * ref)
		set_status(a, NODUS_STATUS_REWARD_HACK, "host_gap",
			   "%d of %d candidate samples: event time far below the host-synchronised "
			   "time (work outside the timed stream)",
			   cand_gap, cand);
}

/* Share of the roofline floor a measured time may undercut before it is
 * called impossible (declared ceilings are measurements, not limits). */
#define SPEED_OF_LIGHT_SLACK 0.9

/* The speed-of-light guard: where the task declares a roofline and the
 * target its measured ceilings, a candidate faster than the physical floor
 * (bytes over bandwidth, flops over arithmetic rate) has not been measured
 * doing the work, whatever its outputs say. */
void check_speed_of_light(struct run_ctx *x, struct attempt *a)
{
	const nodus_target *t = &x->c->target;
	if (t->ceiling_bytes_per_s <= 0 && t->ceiling_flops_per_s <= 0)
		return;
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(a->task, a->wl, 0, axes);
	double bytes = 0, flops = 0, floor_ns = 0;
	if (t->ceiling_bytes_per_s > 0 &&
	    !nodus_roofline_eval(a->task->roofline_bytes, a->task, axes, &bytes))
		floor_ns = fmax(floor_ns, bytes / t->ceiling_bytes_per_s * 1e9);
	if (t->ceiling_flops_per_s > 0 &&
	    !nodus_roofline_eval(a->task->roofline_flops, a->task, axes, &flops))
		floor_ns = fmax(floor_ns, flops / t->ceiling_flops_per_s * 1e9);
	if (floor_ns <= 0)
		return;
	double cand_ns = median_of_role(a, NODUS_ROLE_CANDIDATE);
	json_object_set_new(a->detail, "speed_of_light",
			    json_pack("{s:f,s:f,s:f,s:f}", "floor_ns", floor_ns, "bytes", bytes,
				      "flops", flops, "candidate_median_ns", cand_ns));
	if (cand_ns < floor_ns * SPEED_OF_LIGHT_SLACK)
		set_status(a, NODUS_STATUS_REWARD_HACK, "speed_of_light",
			   "candidate median %.0f ns per call is below the physical floor %.0f ns "
			   "(%.3g bytes at %.3g B/s, %.3g flops at %.3g flop/s)",
			   cand_ns, floor_ns, bytes, t->ceiling_bytes_per_s, flops,
			   t->ceiling_flops_per_s);
}

/* Sample k of a sample record: in rounds, samples_per_round pairs of
 * batches (seq 2s and 2s + 1 are sample s of the round); under a preset,
 * each side's seq-th call of a trial. */
static int64_t sample_k(const nodus_sample *smp, int spr, int preset_calls)
{
	return preset_calls > 0 ? (int64_t)smp->round * preset_calls + smp->seq
				: (int64_t)smp->round * spr + smp->seq / 2;
}

/* What drawing a call's inputs afresh may cost an honest candidate on a
 * fresh sample, as a gap in log: the time the draw takes at the backend's
 * near-peak bandwidth over the candidate's own time per call on the fresh
 * samples. A call that spends most of its time reading inputs just written
 * is moved most by the write: on the H200 an honest torch vector_scale
 * over 16M elements (its draw 13 us at 5 TB/s, 25% of its 52 us per call)
 * was 11% (0.10 in log) slower against a C reference on its fresh samples
 * and for a few after, with the SM clock steady (bench/results/h200/
 * torch-61); matmul 2048 (0.5%) shows nothing of the kind. The candidate's
 * fresh time is the one it has when it does all the work: a memoizer
 * cannot make it smaller without computing faster, and making it larger
 * only widens its gap. A memoization gains only where a call computes far
 * more than it reads, which is where this allowance is small; where it is
 * large (a call that does little but read) there is little to gain. */
static double fresh_draw_gap(struct run_ctx *x, struct attempt *a, double *draw_ns_out)
{
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(a->task, a->wl, 0, axes);
	double in_bytes = 0;
	for (int i = 0; i < a->task->n_inputs; i++)
		in_bytes += (double)nodus__tensor_numel(&a->task->inputs[i], axes) *
			    (double)nodus_dtype_size(a->task->inputs[i].dtype);
	double bps = x->c->target.backend == NODUS_BACKEND_CUDA ? 5e12 : 50e9;
	double draw_ns = in_bytes / bps * 1e9;
	*draw_ns_out = draw_ns;
	double *v = malloc(sizeof(double) * ((size_t)a->n_samples + 1));
	int n = 0;
	for (int i = 0; v && i < a->n_samples; i++)
		if (a->samples[i].role == NODUS_ROLE_CANDIDATE &&
		    (a->samples[i].flags & NODUS_SAMPLE_FRESH) && a->samples[i].ns > 0)
			v[n++] = (double)a->samples[i].ns;
	if (!v)
		return 0; /* out of memory: no allowance, never the guard off */
	double cand_ns = n ? nodus_stats_median(v, n) : NAN;
	free(v);
	return cand_ns > 0 ? draw_ns / cand_ns : INFINITY;
}

/* A number for the record: JSON has no infinity or NaN (json_real refuses
 * them, and a pack holding one is lost whole), so those are null. */
static json_t *json_number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The memoization guard (timed_checks.h, "fresh samples"): per sample
 * timed on both sides, log(candidate / reference), fresh samples against
 * the others. A sample whose window holds a copy last used by a fresh
 * sample is left out of the others: that copy was put back as it was
 * made, so a candidate that kept what it saw there last (the fresh draw)
 * finds it changed everywhere, and is slow there too (adv_memo_diff: z 3.1
 * with them in, the gap 4.8 times). Which samples these are follows from
 * the windows alone, never from a time, so an honest candidate's two sets
 * stay one distribution. So is a sample that holds a copy neither a
 * warm-up batch nor a timed sample used before (a candidate meets it for
 * the first time there: the warm-ups walk over every copy to make these
 * few). Kept in the record's detail whatever it finds. */
void check_input_memo(struct run_ctx *x, struct attempt *a)
{
	nodus_preset_protocol pp;
	int preset_calls = nodus_judge_preset_protocol(x->cond->judge_preset, &pp) == 0
				   ? pp.timed_calls
				   : 0;
	int spr = x->judge->samples_per_round > 0 ? x->judge->samples_per_round : 1;
	int copies = a->timing_copies > 0 ? a->timing_copies : 1;
	int64_t n_k = 0;
	for (int i = 0; i < a->n_samples; i++) {
		int64_t k = sample_k(&a->samples[i], spr, preset_calls);
		if (k + 1 > n_k)
			n_k = k + 1;
	}
	if (n_k <= 0)
		return;
	double *log_ns[2] = {calloc((size_t)n_k, sizeof(double)),
			     calloc((size_t)n_k, sizeof(double))};
	double *fresh_r = malloc((size_t)n_k * sizeof(double));
	double *other_r = malloc((size_t)n_k * sizeof(double));
	unsigned char *fresh = calloc((size_t)n_k, 1);
	int32_t *window = malloc((size_t)n_k * sizeof(int32_t));
	int32_t *batch = calloc((size_t)n_k, sizeof(int32_t));
	unsigned char *last_use = calloc((size_t)copies, 1); /* 0 none, 1 other, 2 fresh */
	if (!log_ns[0] || !log_ns[1] || !fresh_r || !other_r || !fresh || !window || !batch ||
	    !last_use)
		goto out;
	for (int64_t k = 0; k < n_k; k++)
		log_ns[0][k] = log_ns[1][k] = NAN; /* not timed */
	for (int j = 0; a->timed.warmed && j < copies && j < a->timed.copies; j++)
		last_use[j] = a->timed.warmed[j]; /* a warm-up is an "other" use */
	for (int i = 0; i < a->n_samples; i++) {
		const nodus_sample *smp = &a->samples[i];
		int64_t k = sample_k(smp, spr, preset_calls);
		if (k < 0 || smp->ns <= 0 || smp->role < 0 || smp->role > 1)
			continue;
		log_ns[smp->role][k] = log((double)smp->ns);
		fresh[k] = (smp->flags & NODUS_SAMPLE_FRESH) != 0;
		window[k] = smp->copy;
		batch[k] = smp->batch;
	}
	double *after_r = malloc((size_t)n_k * sizeof(double));
	int nf = 0, no = 0, after = 0;
	if (!after_r)
		goto out;
	for (int64_t k = 0; k < n_k; k++) {
		if (batch[k] <= 0)
			continue; /* neither side timed it */
		int touched = 0;
		for (int c = 0; c < batch[k] && c < copies; c++) {
			int j = (int)(((int64_t)window[k] + c) % copies);
			if (j < 0)
				continue;
			touched |= last_use[j] != 1;
			last_use[j] = fresh[k] ? 2 : 1;
		}
		if (isnan(log_ns[0][k]) || isnan(log_ns[1][k]))
			continue;
		double r = log_ns[NODUS_ROLE_CANDIDATE][k] - log_ns[NODUS_ROLE_REFERENCE][k];
		if (fresh[k])
			fresh_r[nf++] = r;
		else if (touched)
			after_r[after++] = r;
		else
			other_r[no++] = r;
	}
	/* too few others (a long walk of fresh draws over many copies): the
	 * left-out ones join them, which costs power, never a false alarm */
	if (no < NODUS_MEMO_MIN) {
		memcpy(other_r + no, after_r, (size_t)after * sizeof(double));
		no += after;
		after = 0;
	}
	free(after_r);
	nodus_memo_view v;
	int have = nodus_timed_memo_view(fresh_r, nf, other_r, no, &v) == 0;
	double draw_ns = 0;
	v.draw_gap = fresh_draw_gap(x, a, &draw_ns);
	v.confirming = a->memo_confirming;
	/* the detail holds its copy of the timing object by now */
	json_t *timing = json_object_get(a->detail, "timing");
	json_t *memo = json_pack("{s:i,s:i,s:i}", "fresh", have ? v.n_fresh : nf, "other",
				 have ? v.n_other : no, "left_out", after);
	if (have) {
		json_object_set_new(memo, "gap", json_number_or_null(v.gap));
		json_object_set_new(memo, "z", json_number_or_null(v.z));
		json_object_set_new(memo, "t", json_number_or_null(v.t)); /* no spread: inf */
	}
	json_object_set_new(memo, "draw_ns", json_number_or_null(draw_ns));
	/* null: no fresh candidate time, so no allowance known */
	json_object_set_new(memo, "draw_gap", json_number_or_null(v.draw_gap));
	if (v.confirming) /* the bar of a confirmation (timed_checks.c) */
		json_object_set_new(memo, "confirming", json_true());
	json_object_set_new(timing ? timing : a->timing, "input_memo", memo);
	char msg[640];
	if (have && nodus_timed_memo_found(&v, msg, sizeof(msg)))
		set_status(a, NODUS_STATUS_REWARD_HACK, "input_memo", "%s", msg);
	else if (a->attempt == 1 && test_list_names(x->test_memo_alarm_once, a->pair->id)) {
		/* NODUS_TEST_MEMO_ALARM_ONCE: a first alarm on an honest pair,
		 * so that a test sees another attempt decide; it can only raise
		 * the alarm, never silence one, and the record says it was forced */
		json_object_set_new(memo, "forced_by", json_string("NODUS_TEST_MEMO_ALARM_ONCE"));
		set_status(a, NODUS_STATUS_REWARD_HACK, "input_memo",
			   "forced by NODUS_TEST_MEMO_ALARM_ONCE on the pair's first attempt");
	}
out:
	free(log_ns[0]);
	free(log_ns[1]);
	free(fresh_r);
	free(other_r);
	free(fresh);
	free(window);
	free(batch);
	free(last_use);
}
