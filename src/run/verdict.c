/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * verdict.c: the binary verdict of a condition judged by a preset, another
 * harness's protocol (docs/protocol.md, "Presets").
 *
 * drive.c times the preset's schedule (drive_preset) and pushes every
 * sample as under nodus's own judge; this file reduces them as that
 * harness does and says "faster" or not. Nothing here is an interval:
 * the record keeps the ratio as its speedup, no bounds and no label, and
 * its verdict in a column of its own (store, migration 3).
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "run/run-internal.h"

/* x rounded to 3 significant digits, as KernelBench's get_timing_stats
 * writes its figures (float(f"{x:.3g}")). */
static double round_3sig(double x)
{
	char text[32];
	snprintf(text, sizeof(text), "%.3g", x);
	return strtod(text, NULL);
}

static int cmp_double(const void *p, const void *q)
{
	double a = *(const double *)p, b = *(const double *)q;
	return (a > b) - (a < b);
}

/* The preset's statistic of one side's samples, in ns per call; NAN when
 * a trial has none. Trial t's samples are those of round t. */
static double side_statistic(const struct attempt *a, int role, const nodus_preset_protocol *pp)
{
	double *v = malloc(sizeof(double) * (size_t)(a->n_samples + 1));
	if (!v)
		return NAN;
	double sum_of_stats = 0;
	int trials = 0;
	for (int t = 0; t < pp->timing_trials; t++) {
		int n = 0;
		for (int i = 0; i < a->n_samples; i++)
			if (a->samples[i].role == role && a->samples[i].round == t)
				v[n++] = (double)a->samples[i].ns;
		if (n == 0)
			break;
		double stat;
		if (pp->statistic == NODUS_PRESET_MEAN_OF_MEDIANS) {
			qsort(v, (size_t)n, sizeof(double), cmp_double);
			stat = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
		} else {
			double s = 0;
			for (int i = 0; i < n; i++)
				s += v[i];
			stat = s / n;
		}
		sum_of_stats += stat;
		trials++;
	}
	free(v);
	if (trials < pp->timing_trials)
		return NAN;
	double stat = sum_of_stats / trials;
	return pp->statistic == NODUS_PRESET_MEAN_3SIG ? round_3sig(stat) : stat;
}

int decide_preset(struct attempt *a, const nodus_preset_protocol *pp)
{
	double ref = side_statistic(a, NODUS_ROLE_REFERENCE, pp);
	double cand = side_statistic(a, NODUS_ROLE_CANDIDATE, pp);
	a->label = NODUS_LABEL_NONE;
	a->ci.lo = a->ci.hi = NAN;
	if (!(ref > 0) || !(cand > 0)) {
		a->ci.estimate = NAN;
		return -1;
	}
	a->ci.estimate = ref / cand;
	/* strict, as fast_p counts speedup > p */
	a->verdict = a->ci.estimate > pp->faster_above ? NODUS_VERDICT_BINARY_FASTER
						       : NODUS_VERDICT_BINARY_NOT_FASTER;
	json_object_set_new(a->detail, "preset",
			    json_pack("{s:s,s:f,s:f,s:f,s:i,s:i,s:i}", "statistic",
				      pp->statistic == NODUS_PRESET_MEAN_3SIG
					      ? "mean, 3 significant digits"
					      : "mean over trials of the median",
				      "reference_ns", ref, "candidate_ns", cand, "faster_above",
				      pp->faster_above, "trials", pp->timing_trials, "warmup_calls",
				      pp->warmup_calls, "timed_calls", pp->timed_calls));
	return 0;
}
