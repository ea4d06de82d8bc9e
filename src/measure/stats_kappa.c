/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats_kappa.c: agreement rate and Cohen's kappa of two label lists, and
 * their percentile intervals from a bootstrap over clusters (declared in
 * stats.h).
 *
 * Kappa is computed from integer counts, (n*agree - chance) / (n*n -
 * chance) with chance = sum over categories of count_a * count_b, in
 * 128-bit integers; so the undefined case (denominator exactly 0) is
 * detected exactly rather than by comparing a rounded p_e with 1. The
 * denominator is 0 only when both raters put every item in one and the
 * same category, in which case observed agreement is 1 too, and kappa is
 * reported as 1 (scikit-learn returns NaN there).
 *
 * Pairs of one task share its inputs and references, so they are not
 * independent; the bootstrap therefore draws whole clusters (tasks) with
 * replacement. Each cluster is first reduced to its counts (items, agreeing
 * items, per-category counts of each rater), so a replicate costs
 * n_clusters x (2k + 2) additions whatever the cluster sizes.
 * ------------------------------------------------------------------------ */
#include "measure/stats.h"
#include "measure/stats_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/nodus.h"

/* Per-cluster or total counts; ca and cb point into a caller's array. */
typedef struct tally {
	int64_t items;  /* items counted */
	int64_t agree;  /* items on which both raters gave the same category */
	int64_t *ca;    /* k counts: items rater a put in each category */
	int64_t *cb;    /* k counts: items rater b put in each category */
} tally;

static double tally_agreement(const tally *t)
{
	return t->items > 0 ? (double)t->agree / (double)t->items : NAN;
}

static double tally_kappa(const tally *t, int k)
{
	__int128 chance = 0, num, den;

	if (t->items <= 0)
		return NAN;
	for (int j = 0; j < k; j++)
		chance += (__int128)t->ca[j] * t->cb[j];
	num = (__int128)t->items * t->agree - chance;
	den = (__int128)t->items * t->items - chance;
	if (den == 0)
		return 1.0;
	return (double)num / (double)den;
}

static int labels_valid(const int *a, const int *b, int n, int k)
{
	if (!a || !b || n <= 0 || k <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (a[i] < 0 || a[i] >= k || b[i] < 0 || b[i] >= k)
			return 0;
	return 1;
}

/* NAN for n <= 0 or a NULL list. Categories need not be 0..k-1 here. */
double nodus_stats_agreement(const int *a, const int *b, int n)
{
	int agree = 0;

	if (!a || !b || n <= 0)
		return NAN;
	for (int i = 0; i < n; i++)
		agree += a[i] == b[i];
	return (double)agree / n;
}

/* NAN for n <= 0, k <= 0, a category outside 0..k-1 or no memory; 1 when
 * both raters used a single, common category (see the file header). */
double nodus_stats_cohen_kappa(const int *a, const int *b, int n, int k)
{
	int64_t *counts;
	tally t;
	double kappa;

	if (!labels_valid(a, b, n, k))
		return NAN;
	counts = calloc(2 * (size_t)k, sizeof *counts);
	if (!counts)
		return NAN;
	t.items = n;
	t.agree = 0;
	t.ca = counts;
	t.cb = counts + k;
	for (int i = 0; i < n; i++) {
		t.agree += a[i] == b[i];
		t.ca[a[i]]++;
		t.cb[b[i]]++;
	}
	kappa = tally_kappa(&t, k);
	free(counts);
	return kappa;
}

/* Sums the counts of items into one tally per cluster. counts holds
 * n_clusters * 2k zeroed int64s. Returns -1 if a cluster has no item. */
static int tally_clusters(const int *a, const int *b, const int *cluster, int n, int k,
			  int n_clusters, tally *per, int64_t *counts)
{
	for (int c = 0; c < n_clusters; c++) {
		per[c].items = per[c].agree = 0;
		per[c].ca = counts + (size_t)c * 2 * k;
		per[c].cb = per[c].ca + k;
	}
	for (int i = 0; i < n; i++) {
		tally *t = &per[cluster[i]];
		t->items++;
		t->agree += a[i] == b[i];
		t->ca[a[i]]++;
		t->cb[b[i]]++;
	}
	for (int c = 0; c < n_clusters; c++)
		if (per[c].items == 0)
			return -1;
	return 0;
}

static void tally_add(tally *sum, const tally *t, int k)
{
	sum->items += t->items;
	sum->agree += t->agree;
	for (int j = 0; j < k; j++) {
		sum->ca[j] += t->ca[j];
		sum->cb[j] += t->cb[j];
	}
}

static void tally_zero(tally *t, int k)
{
	t->items = t->agree = 0;
	memset(t->ca, 0, (size_t)k * sizeof *t->ca);
	memset(t->cb, 0, (size_t)k * sizeof *t->cb);
}

static void fill_interval(nodus_interval *out, double estimate, double *stat, int resamples,
			  double conf)
{
	if (!out)
		return;
	nodus__stats_sort(stat, resamples);
	out->estimate = estimate;
	out->lo = nodus__stats_sorted_quantile(stat, resamples, (1.0 - conf) / 2.0);
	out->hi = nodus__stats_sorted_quantile(stat, resamples, (1.0 + conf) / 2.0);
}

static int args_valid(const int *a, const int *b, const int *cluster, int n, int k,
		      int n_clusters, double conf, int resamples)
{
	if (!labels_valid(a, b, n, k) || !cluster || n_clusters < 1 ||
	    !(conf > 0.0 && conf < 1.0) || resamples < 1)
		return 0;
	for (int i = 0; i < n; i++)
		if (cluster[i] < 0 || cluster[i] >= n_clusters)
			return 0;
	return 1;
}

/* Either output may be NULL. -1 for invalid arguments (see args_valid, and
 * a cluster id without items), NODUS_ENOMEM when memory runs out. */
int nodus_stats_agreement_bootstrap(const int *a, const int *b, const int *cluster, int n,
				    int k, int n_clusters, double conf, int resamples,
				    uint64_t seed, nodus_interval *agreement,
				    nodus_interval *kappa)
{
	tally *per = NULL, sum;
	int64_t *counts = NULL;
	double *stat = NULL, est_agreement, est_kappa;
	nodus_rng rng;
	int rc = -1;

	if (!args_valid(a, b, cluster, n, k, n_clusters, conf, resamples))
		return -1;
	rc = NODUS_ENOMEM;
	per = malloc((size_t)n_clusters * sizeof *per);
	counts = calloc(((size_t)n_clusters + 1) * 2 * (size_t)k, sizeof *counts);
	stat = malloc(2 * (size_t)resamples * sizeof *stat);
	if (!per || !counts || !stat)
		goto out;
	rc = -1;
	if (tally_clusters(a, b, cluster, n, k, n_clusters, per, counts) < 0)
		goto out;
	sum.ca = counts + (size_t)n_clusters * 2 * k;
	sum.cb = sum.ca + k;
	tally_zero(&sum, k);
	for (int c = 0; c < n_clusters; c++)
		tally_add(&sum, &per[c], k);
	est_agreement = tally_agreement(&sum);
	est_kappa = tally_kappa(&sum, k);
	nodus_rng_seed(&rng, seed);
	for (int r = 0; r < resamples; r++) {
		tally_zero(&sum, k);
		for (int c = 0; c < n_clusters; c++)
			tally_add(&sum, &per[nodus_rng_below(&rng, (uint64_t)n_clusters)], k);
		stat[r] = tally_agreement(&sum);
		stat[resamples + r] = tally_kappa(&sum, k);
	}
	fill_interval(agreement, est_agreement, stat, resamples, conf);
	fill_interval(kappa, est_kappa, stat + resamples, resamples, conf);
	rc = 0;
out:
	free(stat);
	free(counts);
	free(per);
	return rc;
}
