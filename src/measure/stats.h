/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats.h: the statistics nodus computes itself. Every function here is
 * checked against an independent oracle (scipy / scikit-learn) by
 * tests/oracle/ on the same data.
 *
 * Units: timing statistics work on natural-log speedup ratios
 * log(reference_ns / candidate_ns); intervals are returned on the ratio
 * scale (exp applied). Rounds are the independent unit; samples inside a
 * round are not independent and are only resampled inside their round.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_STATS_H
#define NODUS_STATS_H

#include <stdint.h>

/* xoshiro256** seeded by splitmix64: deterministic resampling. */
typedef struct nodus_rng {
	uint64_t s[4];
} nodus_rng;
void nodus_rng_seed(nodus_rng *r, uint64_t seed);
uint64_t nodus_rng_next(nodus_rng *r);
double nodus_rng_uniform(nodus_rng *r);            /* [0, 1) */
uint64_t nodus_rng_below(nodus_rng *r, uint64_t n); /* [0, n), unbiased; n > 0 */

typedef struct nodus_interval {
	double estimate;   /* point estimate */
	double lo;         /* lower bound */
	double hi;         /* upper bound */
} nodus_interval;

/* Sorts a copy; quantile by linear interpolation (numpy's default, type 7).
 * n > 0. */
double nodus_stats_quantile(const double *x, int n, double q);
double nodus_stats_median(const double *x, int n);
double nodus_stats_mean(const double *x, int n);
double nodus_stats_stddev(const double *x, int n); /* sample sd (ddof=1); 0 if n < 2 */

/* Student t quantile: P(T <= t) = p with df degrees of freedom. */
double nodus_stats_t_quantile(double p, double df);

/* Standard normal quantile: P(Z <= z) = p (-inf at 0, inf at 1, NaN for NaN). */
double nodus_stats_normal_quantile(double p);

/* The interval *in (on the ratio scale) widened for an offset between
 * two processes: each half-width on the log scale becomes
 * sqrt(h^2 + (z sd)^2), z the normal quantile at (1+conf)/2, sd the
 * offset's standard deviation on the log scale (the judge's process_sd).
 * The estimate is unchanged; a side the estimate lies beyond (a bootstrap
 * interval need not hold its estimate) counts as a half-width of 0, so the
 * result holds the whole of *in; with the estimate inside, sd 0 returns
 * *in. Returns 0, or -1 for sd negative or not finite, conf outside
 * (0, 1), or not 0 < lo <= hi < inf and 0 < estimate < inf. */
int nodus_stats_widen_for_processes(const nodus_interval *in, double sd, double conf,
				    nodus_interval *out);

/* Two-sided t-interval for the mean of x at confidence conf. n >= 2.
 * On the scale of x (no exp): estimate is the mean. Returns 0, or -1 if
 * n < 2, conf is outside (0, 1) or a value is not finite. */
int nodus_stats_t_interval(const double *x, int n, double conf, nodus_interval *out);

/* Speedup with a two-level percentile bootstrap: resample rounds with
 * replacement, then the samples of each chosen round with replacement;
 * the statistic is exp(mean over rounds of the mean paired log-ratio of the
 * round). logr[i] holds n[i] paired log-ratios of round i. estimate is the
 * statistic on the data itself. Returns 0, or -1 if n_rounds < 2 (or a
 * round is empty, a value not finite, conf outside (0, 1), resamples < 1),
 * or NODUS_ENOMEM. */
int nodus_stats_speedup_bootstrap(const double *const *logr, const int *n, int n_rounds,
				  double conf, int resamples, uint64_t seed,
				  nodus_interval *out);

/* Confidence per look so that the error over at most max_looks looks stays
 * within 1 - conf (Bonferroni alpha spending: alpha/max_looks per look). */
double nodus_stats_look_confidence(double conf, int max_looks);

/* Label rule of DESIGN §6 with tie margin delta: returns a nodus_label. */
int nodus_stats_label(const nodus_interval *ci, double delta);

/* Cohen's kappa of two raters over n items with categories 0..k-1.
 * Returns NAN when undefined (expected agreement 1), which it reports as
 * kappa 1 if observed agreement is also 1. Expected agreement 1 means both
 * raters used one common category, so it always returns 1 there; NAN is
 * left for n <= 0 or a category outside 0..k-1. nodus_stats_agreement is
 * the fraction of equal labels, NAN for n <= 0. */
double nodus_stats_cohen_kappa(const int *a, const int *b, int n, int k);
double nodus_stats_agreement(const int *a, const int *b, int n);

/* Agreement and kappa with percentile intervals from a bootstrap over
 * clusters (tasks): cluster[i] in 0..n_clusters-1 for item i; every
 * cluster must hold an item. Either output may be NULL. Returns 0, -1 for
 * invalid arguments, or NODUS_ENOMEM. */
int nodus_stats_agreement_bootstrap(const int *a, const int *b, const int *cluster, int n,
				    int k, int n_clusters, double conf, int resamples,
				    uint64_t seed, nodus_interval *agreement,
				    nodus_interval *kappa);

#endif
