/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * timed_checks.c: see timed_checks.h.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "run/protocol.h"
#include "run/timed_checks.h"

/* The clock cross-check's allowance: an honest batch's gap between the
 * orchestrator's clock and the worker's is pipe latency and scheduling,
 * the same for both sides; a side whose gap exceeds the other's by more
 * than this (plus a share of its own batch time) bent its time. Honest
 * medians differed by at most 12.8 us on the H200 (a 429 ms batch against
 * a 1.2 ms one: the gap grows a little with the batch) and 5.9 us on the
 * 2-core cpu machine. It was 50 us and 5% until a candidate that patched
 * its worker's clock_gettime to drop 4% of each call and 50 us of each
 * batch went under it and was labelled FASTER 1.10 (session 19): now a
 * bend of 15 us is caught in a 1 ms batch (1.5%, the smallest margin a
 * bundled campaign declares) and of 10 us in a short one. */
#define CLOCK_SLACK_NS 10000.0
#define CLOCK_SLACK_SHARE 0.005
#define CLOCK_MIN_BATCHES 3
#define CLOCK_Z 4.75

/* The fresh samples: exactly m of the guaranteed ones, so that every
 * attempt has enough for the memoization test however early it decides,
 * and one in FRESH_LATER of the later ones. Each costs a draw of its
 * window's inputs outside the timed region, so they stay a minority. */
#define FRESH_SHARE 6
#define FRESH_LATER 8

static int draw_fresh(nodus_timed_plan *p, int64_t guaranteed, int64_t max_samples)
{
	int64_t n = max_samples > guaranteed ? max_samples : guaranteed;
	p->n_samples = n > 0 ? n : 0;
	p->fresh = calloc((size_t)(n > 0 ? n : 1), 1);
	if (!p->fresh)
		return -1;
	int64_t m = guaranteed / FRESH_SHARE;
	if (m < NODUS_FRESH_MIN)
		m = NODUS_FRESH_MIN;
	if (m > guaranteed / 2)
		m = guaranteed / 2;
	for (int64_t got = 0; got < m;) {
		int64_t k = (int64_t)nodus_rng_below(&p->rng, (uint64_t)guaranteed);
		got += !p->fresh[k];
		p->fresh[k] = 1;
	}
	for (int64_t k = guaranteed > 0 ? guaranteed : 0; k < n; k++)
		p->fresh[k] = nodus_rng_below(&p->rng, FRESH_LATER) == 0;
	return 0;
}

int32_t nodus_timed_plan_warm_window(nodus_timed_plan *p, int role, int calls)
{
	if (role < 0 || role > 1 || p->copies < 1)
		return 0;
	int n = calls > 0 && calls < p->batch ? calls : p->batch > 0 ? p->batch : 1;
	int32_t first = p->warm_next[role] % p->copies;
	if (role == NODUS_ROLE_CANDIDATE && !p->warmed)
		p->warmed = calloc((size_t)p->copies, 1); /* out of memory: none marked */
	for (int i = 0; role == NODUS_ROLE_CANDIDATE && p->warmed && i < n; i++)
		p->warmed[(first + i) % p->copies] = 1;
	p->warm_next[role] = (first + n) % p->copies;
	return first;
}

int nodus_timed_plan_fresh(const nodus_timed_plan *p, int64_t k)
{
	return p->fresh && k >= 0 && k < p->n_samples && p->fresh[k];
}

int nodus_timed_plan_init(nodus_timed_plan *p, int copies, int n_checks, int64_t guaranteed,
			  int64_t max_samples)
{
	memset(p, 0, sizeof(*p));
	p->copies = copies < 1 ? 1 : copies;
	p->next_k = -1;
	uint64_t secret;
	if (getrandom(&secret, sizeof(secret), 0) != (ssize_t)sizeof(secret))
		return -1;
	nodus_rng_seed(&p->rng, secret);
	if (draw_fresh(p, guaranteed, max_samples))
		return -1;
	if (n_checks > NODUS_TIMED_CHECKS_MAX)
		n_checks = NODUS_TIMED_CHECKS_MAX;
	/* the first half among the samples every attempt takes, so that they
	 * are made however early the attempt decides (with only the first
	 * there, a candidate skipping 30% of its timed calls went unchecked in
	 * most attempts, FASTER in 7 of 11: session 19); the rest among all it
	 * may take, so that no late sample is safe from a check */
	int first_half = (n_checks + 1) / 2;
	for (int r = 0; r < n_checks && guaranteed > 0; r++) {
		int64_t range = r < first_half || max_samples < guaranteed ? guaranteed : max_samples;
		nodus_timed_check *c = &p->check[p->n_checks++];
		c->sample = (int64_t)nodus_rng_below(&p->rng, (uint64_t)range);
		c->copy = (int32_t)nodus_rng_below(&p->rng, (uint64_t)p->copies);
		c->perturbation = nodus_rng_next(&p->rng) & (uint64_t)INT64_MAX;
		c->fresh = nodus_timed_plan_fresh(p, c->sample);
		c->instance = -1;
	}
	/* and one more on a fresh sample every attempt takes: a candidate can
	 * tell a fresh sample (its inputs differ everywhere) and could skip
	 * its work there alone, fast everywhere and so unseen by the
	 * memoization test, wrong only where a uniform check seldom lands
	 * (adv_memo_fresh_only). Within the fresh samples it is as uniform as
	 * any other check, so the checked call is still not known; where the
	 * checks are all taken it is the first of them. */
	int64_t n_fresh = 0;
	for (int64_t k = 0; k < guaranteed && k < p->n_samples; k++)
		n_fresh += p->fresh[k];
	if (p->n_checks > 0 && n_fresh > 0) {
		nodus_timed_check *c = p->n_checks < NODUS_TIMED_CHECKS_MAX ? &p->check[p->n_checks++]
									     : &p->check[0];
		int64_t nth = (int64_t)nodus_rng_below(&p->rng, (uint64_t)n_fresh);
		for (int64_t k = 0; k < guaranteed && k < p->n_samples; k++)
			if (p->fresh[k] && nth-- == 0) {
				c->sample = k;
				break;
			}
		c->copy = (int32_t)nodus_rng_below(&p->rng, (uint64_t)p->copies);
		c->perturbation = nodus_rng_next(&p->rng) & (uint64_t)INT64_MAX;
		c->fresh = 1;
		c->instance = -1;
	}
	return 0;
}

void nodus_timed_plan_release(nodus_timed_plan *p)
{
	for (int r = 0; r < 2; r++) {
		free(p->gap_ns[r]);
		free(p->host_ns[r]);
	}
	free(p->fresh);
	free(p->warmed);
	memset(p, 0, sizeof(*p));
}

int nodus_timed_plan_sized(nodus_timed_plan *p, int batch, int copies)
{
	if (p->batch || batch < 1 || batch > p->copies || copies != p->copies)
		return -1;
	p->batch = batch;
	return 0;
}

static nodus_timed_check *check_of(nodus_timed_plan *p, int64_t k)
{
	for (int r = 0; r < p->n_checks; r++)
		if (p->check[r].sample == k && !p->check[r].sent && p->check[r].instance >= 0)
			return &p->check[r];
	return NULL;
}

void nodus_timed_plan_sample(nodus_timed_plan *p, int64_t k, int32_t *window, uint64_t *q)
{
	if (p->next_k != k) {
		nodus_timed_check *c = check_of(p, k);
		int batch = p->batch > 0 ? p->batch : 1;
		if (c) {
			/* the checked copy at a uniform position: with the copy
			 * itself uniform, the window's start is uniform too */
			int32_t pos = (int32_t)nodus_rng_below(&p->rng, (uint64_t)batch);
			p->next_window = (c->copy - pos + p->copies) % p->copies;
			p->next_q = c->perturbation;
		} else {
			p->next_window = (int32_t)nodus_rng_below(&p->rng, (uint64_t)p->copies);
			p->next_q = nodus_rng_next(&p->rng) & (uint64_t)INT64_MAX;
		}
		p->next_k = k;
	}
	*window = p->next_window;
	*q = p->next_q;
}

nodus_timed_check *nodus_timed_plan_check_at(nodus_timed_plan *p, int64_t k)
{
	return check_of(p, k);
}

void nodus_timed_plan_start(nodus_timed_plan *p, int64_t k, int role, uint64_t now_ns)
{
	p->started = 1;
	p->start_sample = k;
	p->start_role = role;
	p->start_ns = now_ns;
}

int nodus_timed_plan_batch(nodus_timed_plan *p, int64_t k, int role, int64_t host_ns,
			   uint64_t now_ns)
{
	if (!p->started || p->start_sample != k || p->start_role != role || role < 0 || role > 1)
		return -1;
	p->started = 0;
	if (p->n_batches[role] == p->cap_batches[role]) {
		int cap = p->cap_batches[role] ? p->cap_batches[role] * 2 : 64;
		double *g = realloc(p->gap_ns[role], (size_t)cap * sizeof(*g));
		if (g)
			p->gap_ns[role] = g;
		double *h = realloc(p->host_ns[role], (size_t)cap * sizeof(*h));
		if (h)
			p->host_ns[role] = h;
		if (!g || !h)
			return 0; /* out of memory: this batch goes unchecked */
		p->cap_batches[role] = cap;
	}
	int n = p->n_batches[role]++;
	p->gap_ns[role][n] = (double)(now_ns - p->start_ns) - (double)host_ns;
	p->host_ns[role][n] = (double)host_ns;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile (0..1, nearest rank) of n values. */
static double quantile_of(const double *v, int n, double q)
{
	double *c = malloc((size_t)n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	int i = (int)(q * (double)(n - 1) + 0.5);
	double m = c[i];
	free(c);
	return m;
}

/* Mann-Whitney's U for "a's values are larger than b's", as a z score
 * (normal approximation with the tie correction; n of 3 or more each). */
static double rank_z(const double *a, int na, const double *b, int nb)
{
	int n = na + nb;
	struct ranked {
		double v;
		int from_a;
	} *r = malloc((size_t)n * sizeof(*r));
	if (!r)
		return 0;
	for (int i = 0; i < na; i++)
		r[i] = (struct ranked){a[i], 1};
	for (int i = 0; i < nb; i++)
		r[na + i] = (struct ranked){b[i], 0};
	/* insertion sort keeps this file free of a second comparator; n is a
	 * few hundred at most (2 x rounds x samples per round) */
	for (int i = 1; i < n; i++) {
		struct ranked x = r[i];
		int j = i - 1;
		for (; j >= 0 && r[j].v > x.v; j--)
			r[j + 1] = r[j];
		r[j + 1] = x;
	}
	double rank_sum_a = 0, ties = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		double mid = 0.5 * (double)(i + j) + 1.0, t = (double)(j - i + 1);
		for (int k = i; k <= j; k++)
			if (r[k].from_a)
				rank_sum_a += mid;
		ties += t * t * t - t;
		i = j + 1;
	}
	free(r);
	double u = rank_sum_a - (double)na * (na + 1) / 2.0;
	double mean = (double)na * nb / 2.0;
	double var = (double)na * nb / 12.0 * ((double)(n + 1) - ties / ((double)n * (n - 1)));
	return var > 0 ? (u - mean) / sqrt(var) : 0;
}

int nodus_timed_plan_clock_view(const nodus_timed_plan *p, nodus_clock_view *v)
{
	memset(v, 0, sizeof(*v));
	for (int role = 0; role < 2; role++) {
		int n = v->n[role] = p->n_batches[role];
		if (n < CLOCK_MIN_BATCHES)
			return -1;
		v->gap_med[role] = quantile_of(p->gap_ns[role], n, 0.5);
		v->host_med[role] = quantile_of(p->host_ns[role], n, 0.5);
		v->gap_iqr[role] = quantile_of(p->gap_ns[role], n, 0.75) -
				   quantile_of(p->gap_ns[role], n, 0.25);
		if (isnan(v->gap_med[role]) || isnan(v->host_med[role]) || isnan(v->gap_iqr[role]))
			return -1;
	}
	const int C = NODUS_ROLE_CANDIDATE, R = NODUS_ROLE_REFERENCE;
	v->z = rank_z(p->gap_ns[C], v->n[C], p->gap_ns[R], v->n[R]);
	v->allow = CLOCK_SLACK_NS + CLOCK_SLACK_SHARE * v->host_med[C];
	return 0;
}

/* The orchestrator's view of a batch is the kernel's: the times at which
 * the worker sent its START and BATCH marks (protocol.h, the clock
 * socket), against the worker's own clock between the two sends. Reading
 * the marks when the orchestrator got round to it made a long batch look
 * short on a busy machine (START read only after the batch ended), and
 * honest candidates were called bent. The worker reads its clock before
 * it sends START (a send wakes the orchestrator, which may take the
 * worker's CPU before the send returns: read after it, that wait put 20-50
 * us into honest gaps, more on one side than the other, and A/A pairs
 * under single-call presets were called bent on the 2-core machine). What
 * is left is a few us of the sends themselves, on either side alike
 * (honest medians -12 to +3 us there, interquartile ranges 2-6 us). A side that reports less than it took moves its whole
 * distribution. So a side is called bent only when its gaps are larger
 * than the other side's beyond doubt (a rank test at z > CLOCK_Z, about
 * one honest pair in a million) and by more than the allowance (medians).
 * On a machine so busy that preemptions swamp the gaps, the test loses its
 * power, not its false-alarm rate. */
int nodus_timed_plan_clock_bent(const nodus_timed_plan *p, char *msg, size_t msg_size)
{
	const int C = NODUS_ROLE_CANDIDATE, R = NODUS_ROLE_REFERENCE;
	nodus_clock_view v;
	if (nodus_timed_plan_clock_view(p, &v))
		return 0;
	double gc = v.gap_med[C], gr = v.gap_med[R];
	double allow_r = CLOCK_SLACK_NS + CLOCK_SLACK_SHARE * v.host_med[R];
	if (v.z > CLOCK_Z && gc - gr > v.allow) {
		snprintf(msg, msg_size,
			 "by the orchestrator's clock the candidate's timed batches took %.0f us more "
			 "than it reported, the reference's %.0f us (medians of %d and %d batches; "
			 "allowed %.0f us; rank test z = %.1f): the candidate's time was bent",
			 gc * 1e-3, gr * 1e-3, v.n[C], v.n[R], v.allow * 1e-3, v.z);
		return 1;
	}
	if (v.z > CLOCK_Z && gr < -allow_r && gc - gr > allow_r) {
		snprintf(msg, msg_size,
			 "by the orchestrator's clock the reference's timed batches took %.0f us less "
			 "than reported (median of %d batches; the candidate's gap %.0f us; allowed "
			 "%.0f us; rank test z = %.1f): the reference's time was bent",
			 -gr * 1e-3, v.n[R], gc * 1e-3, allow_r * 1e-3, v.z);
		return 1;
	}
	return 0;
}

/* An honest call costs the same on a fresh sample as on any other (the
 * inputs come from the same distribution, the cache is flushed before
 * either, and both sides of a sample are of one kind): its fresh and other
 * log-ratios are one distribution. Memoization moves the fresh ones far
 * (adv_memo_diff: by 1.5-4.2 in log, 4-70 times), so the test asks for
 * three things at once: a gap of MEMO_GAP (2%), MEMO_T robust standard
 * errors (the median's, from the pooled median absolute deviation: a
 * preempted sample moves it little), and the rank test at MEMO_Z (p of
 * 0.006 alone), which holds the false-alarm rate where the noise is not
 * normal. With 8 fresh samples against 13-25 others the rank test alone
 * could not pass 3.8-4.6 even when every fresh one is the slowest, so it
 * is the sanity check, not the measure. The draw itself can cost an
 * honest call on a fresh sample (its inputs written just before it), so
 * the gap asked for is the larger of MEMO_GAP and the caller's draw_gap.
 * A gain below the gap, or within the noise of the pair, is not seen. */
#define MEMO_GAP 0.02
#define MEMO_T 5.0
#define MEMO_Z 2.5
/* An alarm is confirmed by another attempt (run.c) at a lower bar: the
 * gap as before, 2.5 standard errors and the rank test at z 2.0, which an
 * honest attempt passes about 1 time in 50 on its own. At the first bar
 * the confirmation squared a memoizer's catch rate: adv_memo_rows, 4 to 7
 * times slower on its fresh samples, was FASTER on a loaded machine where
 * the confirming attempt reached only t 4.x (session 21). */
#define MEMO_T_CONFIRM 2.5
#define MEMO_Z_CONFIRM 2.0

int nodus_timed_memo_view(const double *fresh_r, int n_fresh, const double *other_r, int n_other,
			  nodus_memo_view *v)
{
	memset(v, 0, sizeof(*v));
	v->n_fresh = n_fresh;
	v->n_other = n_other;
	if (n_fresh < NODUS_MEMO_MIN || n_other < NODUS_MEMO_MIN)
		return -1;
	double mf = quantile_of(fresh_r, n_fresh, 0.5), mo = quantile_of(other_r, n_other, 0.5);
	double *dev = malloc((size_t)(n_fresh + n_other) * sizeof(*dev));
	if (!dev || isnan(mf) || isnan(mo)) {
		free(dev);
		return -1;
	}
	/* the pooled MAD: each set's deviations from its own median */
	for (int i = 0; i < n_fresh; i++)
		dev[i] = fabs(fresh_r[i] - mf);
	for (int i = 0; i < n_other; i++)
		dev[n_fresh + i] = fabs(other_r[i] - mo);
	double mad = quantile_of(dev, n_fresh + n_other, 0.5);
	free(dev);
	v->gap = mf - mo;
	v->z = rank_z(fresh_r, n_fresh, other_r, n_other);
	/* the sd of a normal is 1.4826 MADs; a median's se is 1.2533 sd / sqrt(n) */
	double se = 1.2533 * 1.4826 * mad * sqrt(1.0 / n_fresh + 1.0 / n_other);
	v->t = se > 0 ? v->gap / se : (v->gap > 0 ? INFINITY : 0);
	return 0;
}

int nodus_timed_memo_found(const nodus_memo_view *v, char *msg, size_t msg_size)
{
	double min_gap = v->draw_gap > MEMO_GAP ? v->draw_gap : MEMO_GAP;
	double min_t = v->confirming ? MEMO_T_CONFIRM : MEMO_T;
	double min_z = v->confirming ? MEMO_Z_CONFIRM : MEMO_Z;
	if (v->n_fresh < NODUS_MEMO_MIN || v->n_other < NODUS_MEMO_MIN || !(v->gap > min_gap) ||
	    !(v->t > min_t) || !(v->z > min_z))
		return 0;
	snprintf(msg, msg_size,
		 "the candidate was %.3g times slower against the reference on the %d samples "
		 "whose inputs were drawn afresh than on %d whose inputs changed in a few "
		 "elements (%.1f standard errors; rank test z = %.1f; drawing them afresh "
		 "accounts for at most %.3g times): it reuses work from earlier calls instead "
		 "of computing each call",
		 exp(v->gap), v->n_fresh, v->n_other, v->t, v->z, exp(min_gap));
	return 1;
}
