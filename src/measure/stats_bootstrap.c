/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats_bootstrap.c: the speedup estimate and its two-level percentile
 * bootstrap (declared in stats.h).
 *
 * Rounds are the independent unit: samples inside a round share clocks,
 * caches, co-tenants and thermal state. One replicate therefore draws
 * n_rounds rounds with replacement, and for each drawn round draws its own
 * n[i] paired log-ratios with replacement; the replicate statistic is the
 * mean over the drawn rounds of the mean of the drawn samples. Resampling
 * only the rounds would ignore the noise of the few samples per round;
 * resampling all samples in one pool would pretend they were independent
 * and give intervals far too narrow.
 *
 * The draws come from one nodus_rng seeded with the caller's seed, in a
 * fixed order (for each replicate: for each slot, the round, then its
 * samples; a round with one sample draws nothing for it), so a seed fixes
 * the interval on every platform. Cost: resamples x (n_rounds + total
 * samples) draws; 2000 x (40 + 400) takes a few milliseconds.
 * ------------------------------------------------------------------------ */
#include "measure/stats.h"
#include "measure/stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include "nodus/nodus.h"

/* The speedup on the data itself: mean over rounds of the round means. */
static double rounds_mean(const double *const *logr, const int *n, int n_rounds)
{
	double total = 0.0;

	for (int i = 0; i < n_rounds; i++)
		total += nodus_stats_mean(logr[i], n[i]);
	return total / n_rounds;
}

static int check_rounds(const double *const *logr, const int *n, int n_rounds)
{
	if (!logr || !n || n_rounds < 2)
		return -1;
	for (int i = 0; i < n_rounds; i++) {
		if (!logr[i] || n[i] < 1)
			return -1;
		for (int j = 0; j < n[i]; j++)
			if (!isfinite(logr[i][j]))
				return -1;
	}
	return 0;
}

/* One replicate of the two-level scheme. */
static double replicate(const double *const *logr, const int *n, int n_rounds, nodus_rng *rng)
{
	double total = 0.0;

	for (int r = 0; r < n_rounds; r++) {
		int i = (int)nodus_rng_below(rng, (uint64_t)n_rounds);
		const double *x = logr[i];
		int m = n[i];
		double s = 0.0;

		if (m == 1) {
			total += x[0];
			continue;
		}
		for (int j = 0; j < m; j++)
			s += x[nodus_rng_below(rng, (uint64_t)m)];
		total += s / m;
	}
	return total / n_rounds;
}

/* Fills out only on success. -1 for invalid arguments (n_rounds < 2, a
 * round without samples, a non-finite log-ratio, conf outside (0, 1),
 * resamples < 1), NODUS_ENOMEM when the replicates cannot be allocated.
 * The percentiles are taken on the log scale and then exponentiated. */
int nodus_stats_speedup_bootstrap(const double *const *logr, const int *n, int n_rounds,
				  double conf, int resamples, uint64_t seed,
				  nodus_interval *out)
{
	double *stat;
	nodus_rng rng;

	if (!out || check_rounds(logr, n, n_rounds) < 0 || !(conf > 0.0 && conf < 1.0) ||
	    resamples < 1)
		return -1;
	stat = malloc((size_t)resamples * sizeof *stat);
	if (!stat)
		return NODUS_ENOMEM;
	nodus_rng_seed(&rng, seed);
	for (int b = 0; b < resamples; b++)
		stat[b] = replicate(logr, n, n_rounds, &rng);
	nodus__stats_sort(stat, resamples);
	out->estimate = exp(rounds_mean(logr, n, n_rounds));
	out->lo = exp(nodus__stats_sorted_quantile(stat, resamples, (1.0 - conf) / 2.0));
	out->hi = exp(nodus__stats_sorted_quantile(stat, resamples, (1.0 + conf) / 2.0));
	free(stat);
	return 0;
}
