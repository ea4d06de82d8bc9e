/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * looks.c: an attempt's samples and the looks that label it.
 *
 * drive.c pushes every timed sample (push_sample) and asks after each
 * round whether to go on (decide_after_round): at the looks of the
 * schedule (docs/statistics.md) the round medians are bootstrapped
 * (estimate) and the interval is labelled against the tie margin of the
 * attempt's duration class (short_call), which is fixed at the first look
 * so that the schedule never changes once a label has been read from it.
 * record.c reads the margin and most rounds that applied back from here.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>

#include "measure/stats_looks.h"
#include "run/run-internal.h"

/* The most rounds any attempt may take: the worker's own limit. */
int max_rounds_any(const nodus_judge *j)
{
	return j->max_rounds > j->max_rounds_short ? j->max_rounds : j->max_rounds_short;
}

int push_sample(struct attempt *a, const nodus_sample *smp)
{
	if (a->n_samples + 1 > a->cap_samples) {
		int cap = a->cap_samples ? a->cap_samples * 2 : 256;
		nodus_sample *p = realloc(a->samples, (size_t)cap * sizeof(*p));
		if (!p)
			return -1;
		a->samples = p;
		a->cap_samples = cap;
	}
	a->samples[a->n_samples++] = *smp;
	return 0;
}

/* The statistic of one round: the median of its paired log-ratios
 * log(ref/cand). A round is the independent unit; its samples share
 * state (caches, clocks, co-tenants), and the median keeps one disturbed
 * sample from moving the round. The round medians are bootstrapped. */
static int estimate(struct run_ctx *x, struct attempt *a, double conf, nodus_interval *ci)
{
	int rounds = a->rounds, spr = x->judge->samples_per_round;
	double *pairs = calloc((size_t)spr + 1, sizeof(double));
	double *medians = calloc((size_t)rounds + 1, sizeof(double));
	const double **per = calloc((size_t)rounds + 1, sizeof(*per));
	int *n = calloc((size_t)rounds + 1, sizeof(int));
	int rc = -1, used = 0;
	if (!pairs || !medians || !per || !n)
		goto out;
	for (int r = 0; r < rounds; r++) {
		int m = 0;
		for (int i = 0; i < a->n_samples && m < spr; i++) {
			const nodus_sample *c = &a->samples[i];
			if (c->role != NODUS_ROLE_CANDIDATE || c->round != r || c->ns <= 0)
				continue;
			for (int k = 0; k < a->n_samples; k++) {
				const nodus_sample *t = &a->samples[k];
				if (t->role == NODUS_ROLE_REFERENCE && t->round == r &&
				    t->seq / 2 == c->seq / 2 && t->ns > 0) {
					pairs[m++] = log((double)t->ns / (double)c->ns);
					break;
				}
			}
		}
		if (m == 0)
			continue;
		medians[used] = nodus_stats_median(pairs, m);
		per[used] = &medians[used];
		n[used] = 1;
		used++;
	}
	rc = nodus_stats_speedup_bootstrap(per, n, used, conf, x->judge->bootstrap_resamples,
					   a->stream ^ 0xb007, ci);
out:
	free(pairs);
	free(medians);
	free(per);
	free(n);
	return rc;
}

double median_of_role(const struct attempt *a, int role)
{
	double *v = malloc(sizeof(double) * ((size_t)a->n_samples + 1));
	int n = 0;
	for (int i = 0; v && i < a->n_samples; i++)
		if (a->samples[i].role == role)
			v[n++] = (double)a->samples[i].ns;
	double m = n ? nodus_stats_median(v, n) : NAN;
	free(v);
	return m;
}

/* A launch-bound call shorter than short_kernel_ns cannot be timed as
 * tightly as a long one (docs/protocol.md, the A/A noise floor per
 * duration class), so it gets its own margin and its own most rounds.
 * The class is fixed at the first look, from the reference samples of
 * the first min_rounds rounds: the look schedule, and so the per-look
 * confidence, must not change once a label has been read from it. */
static int short_call(const nodus_judge *j, struct attempt *a)
{
	if (a->short_call < 0) {
		double ref_ns = median_of_role(a, NODUS_ROLE_REFERENCE);
		a->short_call = ref_ns > 0 && ref_ns < (double)j->short_kernel_ns;
	}
	return a->short_call;
}

double tie_margin_for(const nodus_judge *j, struct attempt *a)
{
	const nodus_task_judge *tj = nodus_judge_task(j, a->task->name);
	if (tj && tj->tie_margin >= 0)
		return tj->tie_margin;
	return short_call(j, a) ? j->tie_margin_short : j->tie_margin;
}

/* The judge's process_sd, or the task's own (judge "tasks"). */
double process_sd_for(const nodus_judge *j, const struct attempt *a)
{
	const nodus_task_judge *tj = nodus_judge_task(j, a->task->name);
	return tj && tj->process_sd >= 0 ? tj->process_sd : j->process_sd;
}

/* Rounds at most for this attempt; before the first look, the larger of
 * the two (what the worker is told, so that it never stops first). */
int max_rounds_for(const nodus_judge *j, const struct attempt *a)
{
	if (a->short_call < 0)
		return max_rounds_any(j);
	return a->short_call ? j->max_rounds_short : j->max_rounds;
}

/* The round of the first look, fixed once min_rounds rounds are in. With
 * min_timed_s, the first look waits until the pair's measured kernel time
 * (both sides) reaches it, at the rate of those first rounds, within the
 * attempt's most rounds (NVBench's --min-time, for a reward that needs
 * more than a decision). It is fixed from times alone, before any label
 * is read, so the looks stay those the confidence is split over. */
static int first_look_for(const nodus_judge *j, struct attempt *a, int max)
{
	if (a->first_look >= 0)
		return a->first_look;
	int first = j->min_rounds;
	if (j->min_timed_s > 0 && a->rounds > 0) {
		double kernel_ns = 0;
		for (int i = 0; i < a->n_samples; i++)
			kernel_ns += (double)a->samples[i].ns * (double)a->samples[i].batch;
		double per_round = kernel_ns / a->rounds;
		double need = per_round > 0 ? ceil(j->min_timed_s * 1e9 / per_round) : first;
		/* onto the schedule's grid (min_rounds + k look_every): the looks
		 * are then a subset of the schedule K counts (decide_after_round), whichever
		 * round the times pick */
		if (need > first)
			need = first + ceil((need - first) / j->look_every) * j->look_every;
		if (!(need <= max)) /* NaN too */
			need = max;
		if (need > first)
			first = (int)need;
	}
	a->first_look = first;
	return first;
}

/* With process_sd, 1 when no speedup inside the rounds' own interval
 * (rounds, on the ratio scale) could be labelled however many rounds
 * followed: each would keep at least the process term, z sd on the log
 * scale, on either side, so TIED needs z sd within the band and FASTER or
 * SLOWER a speedup more than z sd beyond a margin. Stopping then is never
 * a wrong label (AMBIGUOUS claims nothing), and an A/A pair of host-bound
 * torch calls no longer takes every round of its schedule for nothing. */
static int undecidable(const nodus_interval *rounds, double sd, double conf, double delta)
{
	double zs = nodus_stats_normal_quantile(0.5 + conf / 2.0) * sd;
	double band = log1p(delta);
	if (!(zs > band)) /* TIED still possible */
		return 0;
	double lo = log(rounds->lo), hi = log(rounds->hi);
	return hi <= band + zs && lo >= -band - zs;
}

/* Decides after a round: 'c' continue or 's' stop (label decided or last
 * round). Looks at the first look (min_rounds, or later for min_timed_s),
 * every look_every after, and at the most rounds of the attempt's
 * duration class. */
char decide_after_round(struct run_ctx *x, struct attempt *a)
{
	const nodus_judge *j = x->judge;
	int r = a->rounds;
	if (r >= j->min_rounds)
		short_call(j, a);
	int max = max_rounds_for(j, a);
	int first = r >= j->min_rounds ? first_look_for(j, a, max) : j->min_rounds;
	if (!nodus_stats_is_look(r, first, max, j->look_every))
		return r >= max ? 's' : 'c';
	a->looks++;
	/* K counts the whole schedule from min_rounds, whatever first is: a
	 * later first look skips looks, and the union bound over the whole
	 * schedule still holds for the ones taken */
	int k = nodus_stats_look_count(j->min_rounds, max, j->look_every);
	double conf = nodus_stats_look_confidence(j->confidence, k);
	nodus_interval ci;
	if (estimate(x, a, conf, &ci))
		return r >= max ? 's' : 'c';
	/* the rounds' interval cannot see the offset between the two sides'
	 * processes; the judge's process_sd stands for it (docs/statistics.md) */
	double psd = process_sd_for(j, a);
	if (psd > 0) {
		a->ci_rounds = ci;
		if (nodus_stats_widen_for_processes(&a->ci_rounds, psd, conf, &ci))
			return r >= max ? 's' : 'c';
	}
	a->ci = ci;
	a->label = nodus_stats_label(&ci, tie_margin_for(j, a));
	if (a->label != NODUS_LABEL_AMBIGUOUS || r >= max)
		return 's';
	if (psd > 0 && undecidable(&a->ci_rounds, psd, conf, tie_margin_for(j, a))) {
		a->undecidable = 1;
		return 's';
	}
	return 'c';
}
