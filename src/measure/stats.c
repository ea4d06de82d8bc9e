/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats.c: the random generator, descriptive statistics, Student's t
 * quantile and interval, and the label rule declared in stats.h. The
 * bootstraps live in stats_bootstrap.c, agreement and kappa in
 * stats_kappa.c, the sequential-look helpers in stats_looks.c.
 *
 * Random numbers: xoshiro256** (Blackman & Vigna) seeded through four
 * splitmix64 steps, so every seed gives a non-zero state and one seed
 * always gives the same stream on every platform. nodus_rng_below() uses
 * Lemire's multiply-shift with rejection, which is exactly unbiased.
 *
 * Student's t quantile: Newton's method on the t distribution function,
 * safeguarded by bisection inside a bracket, with the distribution function
 * from the regularised incomplete beta function (continued fraction,
 * modified Lentz). The solve works on whichever of the upper tail or the
 * central part P(0 < T <= t) is the smaller number, both of which are exact
 * functions of p in double precision (Sterbenz), so that neither p near 1/2
 * nor p near 1 loses digits. tests/oracle/ checks it against scipy to 1e-9
 * relative; in practice it agrees to about 1e-12 (1e-14 with mpmath).
 *
 * All functions here are pure (no global state, lgamma_r rather than
 * lgamma) and may be called from several threads.
 * ------------------------------------------------------------------------ */
#include "measure/stats.h"
#include "measure/stats_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/nodus.h"

/* ---- random numbers ---- */

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void nodus_rng_seed(nodus_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++) {
		uint64_t z = (x += UINT64_C(0x9e3779b97f4a7c15));
		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		r->s[i] = z ^ (z >> 31);
	}
}

uint64_t nodus_rng_next(nodus_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double nodus_rng_uniform(nodus_rng *r)
{
	/* The top 53 bits fill a double's mantissa exactly. */
	return (double)(nodus_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Lemire, "Fast random integer generation in an interval" (2019): the high
 * word of x*n is uniform on [0, n) once the low words below 2^64 mod n are
 * rejected. The modulo is only computed when a rejection is possible. */
uint64_t nodus_rng_below(nodus_rng *r, uint64_t n)
{
	unsigned __int128 m;
	uint64_t low;

	if (n == 0)
		return 0;
	m = (unsigned __int128)nodus_rng_next(r) * n;
	low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = (0 - n) % n;
		while (low < threshold) {
			m = (unsigned __int128)nodus_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* ---- descriptive statistics ---- */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

void nodus__stats_sort(double *x, int n)
{
	if (n > 1)
		qsort(x, (size_t)n, sizeof *x, cmp_double);
}

/* numpy's _lerp: the second form for t >= 1/2 keeps the result exact at
 * t = 1 and monotone in t; copying it makes results agree bit for bit. */
double nodus__stats_sorted_quantile(const double *sorted, int n, double q)
{
	double h = q * (double)(n - 1);
	double fl = floor(h);
	int i = (int)fl;
	double t = h - fl, a, b;

	if (i >= n - 1)
		return sorted[n - 1];
	a = sorted[i];
	b = sorted[i + 1];
	if (t >= 0.5)
		return b - (b - a) * (1.0 - t);
	return a + (b - a) * t;
}

/* Returns NAN for n <= 0, q outside [0, 1], NaN in x, or no memory. */
double nodus_stats_quantile(const double *x, int n, double q)
{
	double *copy, v;

	if (!x || n <= 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	for (int i = 0; i < n; i++)
		if (isnan(x[i]))
			return NAN;
	copy = malloc((size_t)n * sizeof *copy);
	if (!copy)
		return NAN;
	memcpy(copy, x, (size_t)n * sizeof *copy);
	nodus__stats_sort(copy, n);
	v = nodus__stats_sorted_quantile(copy, n, q);
	free(copy);
	return v;
}

double nodus_stats_median(const double *x, int n)
{
	return nodus_stats_quantile(x, n, 0.5);
}

/* Neumaier's compensated sum: a long run of similar timings would lose low
 * digits with a plain running sum. */
static double sum_compensated(const double *x, int n)
{
	double s = 0.0, c = 0.0;

	for (int i = 0; i < n; i++) {
		double t = s + x[i];
		if (fabs(s) >= fabs(x[i]))
			c += (s - t) + x[i];
		else
			c += (x[i] - t) + s;
		s = t;
	}
	return s + c;
}

/* NAN for n <= 0. */
double nodus_stats_mean(const double *x, int n)
{
	if (!x || n <= 0)
		return NAN;
	return sum_compensated(x, n) / n;
}

/* Two passes (mean, then squared deviations): no cancellation when the
 * spread is tiny next to the mean, as with repeated timings. */
double nodus_stats_stddev(const double *x, int n)
{
	double m, s = 0.0, c = 0.0;

	if (!x || n < 2)
		return 0.0;
	m = nodus_stats_mean(x, n);
	for (int i = 0; i < n; i++) {
		double d = x[i] - m;
		s += d * d;
		c += d;
	}
	/* c is the rounding residue of the mean; subtracting c*c/n is the
	 * corrected two-pass formula (Chan, Golub & LeVeque). */
	return sqrt((s - c * c / n) / (n - 1));
}

/* ---- Student's t ---- */

static double lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

/* Continued fraction of the incomplete beta function (Numerical Recipes'
 * betacf with modified Lentz); converges fast for x < (a+1)/(a+b+2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 3.0 * DBL_EPSILON;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

/* I_x(a, b) and its complement I_y(b, a), y = 1 - x. The caller passes x,
 * y and their logarithms computed without cancellation; the continued
 * fraction gives the smaller-side value directly and the other one by
 * subtraction, which loses nothing relative to a number near 1. */
static void inc_beta(double a, double b, double x, double y, double lx, double ly,
		     double *ix, double *iy)
{
	double front = exp(a * lx + b * ly - (lgam(a) + lgam(b) - lgam(a + b)));

	if (x < (a + 1.0) / (a + b + 2.0)) {
		*ix = front * beta_cf(a, b, x) / a;
		*iy = 1.0 - *ix;
	} else {
		*iy = front * beta_cf(b, a, y) / b;
		*ix = 1.0 - *iy;
	}
}

/* For t >= 0: upper = P(T > t), central = P(0 < T <= t); both accurate. */
static void t_parts(double t, double df, double *upper, double *central)
{
	double r = t * t / df, ix, iy;

	if (t <= 0.0) {
		*upper = 0.5;
		*central = 0.0;
		return;
	}
	/* x = df/(df+t^2) = 1/(1+r), y = r/(1+r) */
	inc_beta(df / 2.0, 0.5, 1.0 / (1.0 + r), r / (1.0 + r), -log1p(r), log(r) - log1p(r),
		 &ix, &iy);
	*upper = 0.5 * ix;
	*central = 0.5 * iy;
}

static double t_density(double t, double df)
{
	return exp(lgam((df + 1.0) / 2.0) - lgam(df / 2.0) - 0.5 * log(df * M_PI) -
		   (df + 1.0) / 2.0 * log1p(t * t / df));
}

/* Acklam's rational approximation of the normal quantile (relative error
 * about 1e-9), only used to start Newton's method. p in (0, 1). */
static double normal_quantile_rough(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00, 2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double q, r;

	if (p < 0.02425 || p > 1.0 - 0.02425) {
		q = sqrt(-2.0 * log(p < 0.5 ? p : 1.0 - p));
		r = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
		return p < 0.5 ? r : -r;
	}
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* Starting point: exact for df 1 and 2, Cornish-Fisher beyond. Any
 * positive value works; the bracket in t_solve() repairs a poor one. */
static double t_start(double p_upper, double df)
{
	double z = normal_quantile_rough(p_upper), z2 = z * z;

	if (df == 1.0)
		return tan(M_PI * (p_upper - 0.5));
	if (df == 2.0)
		return (2.0 * p_upper - 1.0) / sqrt(2.0 * p_upper * (1.0 - p_upper));
	return z + z * (z2 + 1.0) / (4.0 * df) +
	       z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * df * df);
}

/* Increasing residual whose root is the quantile: compares the central part
 * when the target is central, else the upper tail. */
static double t_residual(double t, double df, double tail, double central, int use_central)
{
	double up, ce;

	t_parts(t, df, &up, &ce);
	return use_central ? ce - central : tail - up;
}

/* Solves for t > 0 given the target tail = P(T > t) and central =
 * 1/2 - tail; p_upper = 1 - tail is only used for the starting point. */
static double t_solve(double tail, double central, double p_upper, double df)
{
	int use_central = tail >= 0.25;
	double lo = 0.0, hi, t = t_start(p_upper, df);

	if (!(t > 0.0) || !isfinite(t))
		t = 1.0;
	hi = t;
	while (t_residual(hi, df, tail, central, use_central) < 0.0) {
		lo = hi;
		hi *= 2.0;
		if (!isfinite(hi))
			return INFINITY;
	}
	for (int it = 0; it < 200; it++) {
		double f = t_residual(t, df, tail, central, use_central), next;

		if (f == 0.0)
			break;
		if (f < 0.0)
			lo = t > lo ? t : lo;
		else
			hi = t < hi ? t : hi;
		next = t - f / t_density(t, df);
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - t) <= 2.0 * DBL_EPSILON * t || next == t) {
			t = next;
			break;
		}
		t = next;
	}
	return t;
}

/* p <= 0 gives -inf, p >= 1 +inf; NAN for NaN p or df not finite and > 0. */
double nodus_stats_t_quantile(double p, double df)
{
	double tail, central;

	if (isnan(p) || !(df > 0.0) || !isfinite(df))
		return NAN;
	if (p <= 0.0)
		return -INFINITY;
	if (p >= 1.0)
		return INFINITY;
	if (p == 0.5)
		return 0.0;
	/* Both are exact: 1-p for p >= 1/2, and |p - 1/2| whenever it is used
	 * (only for tail >= 1/4, i.e. p in [1/4, 3/4]). */
	tail = p < 0.5 ? p : 1.0 - p;
	central = fabs(p - 0.5);
	if (p < 0.5)
		return -t_solve(tail, central, 1.0 - p, df);
	return t_solve(tail, central, p, df);
}

/* estimate = mean; bounds are mean -+ t * sd / sqrt(n) on the scale of x. */
int nodus_stats_t_interval(const double *x, int n, double conf, nodus_interval *out)
{
	double m, half;

	if (!x || !out || n < 2 || !(conf > 0.0 && conf < 1.0))
		return -1;
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -1;
	m = nodus_stats_mean(x, n);
	half = nodus_stats_t_quantile(0.5 + conf / 2.0, n - 1) * nodus_stats_stddev(x, n) /
	       sqrt((double)n);
	out->estimate = m;
	out->lo = m - half;
	out->hi = m + half;
	return 0;
}

/* ---- normal quantile, and the between-process term ---- */

/* The rough quantile (normal_quantile_rough), then one Halley step on
 * erfc, which brings it to the double's precision. */
double nodus_stats_normal_quantile(double p)
{
	if (isnan(p))
		return NAN;
	if (p <= 0.0)
		return -INFINITY;
	if (p >= 1.0)
		return INFINITY;
	double x = normal_quantile_rough(p);
	/* the upper tail through 1-p, so that p near 1 keeps its digits */
	double e = p < 0.5 ? 0.5 * erfc(-x / M_SQRT2) - p : (1.0 - p) - 0.5 * erfc(x / M_SQRT2);
	double u = e * sqrt(2.0 * M_PI) * exp(x * x / 2.0);
	return x - u / (1.0 + x * u / 2.0);
}

/* Each half-width on the log scale grows in quadrature by z * sd: the
 * interval of a sum of the rounds' error and an independent normal
 * offset with that sd, the offset two processes carry (docs/statistics.md,
 * "Between processes"). A percentile bootstrap's interval need not hold
 * its estimate (a few skewed rounds): a side the estimate lies beyond
 * counts as a half-width of 0, so the result still holds the whole input
 * interval. */
int nodus_stats_widen_for_processes(const nodus_interval *in, double sd, double conf,
				    nodus_interval *out)
{
	if (!in || !out || !(sd >= 0.0) || !isfinite(sd) || !(conf > 0.0 && conf < 1.0) ||
	    !(in->estimate > 0.0) || !isfinite(in->estimate) || !(in->lo > 0.0) ||
	    !(in->hi >= in->lo) || !isfinite(in->hi))
		return -1;
	double z = nodus_stats_normal_quantile(0.5 + conf / 2.0) * sd;
	double m = log(in->estimate);
	double down = fmax(0.0, m - log(in->lo)), up = fmax(0.0, log(in->hi) - m);
	out->estimate = in->estimate;
	out->lo = exp(m - sqrt(down * down + z * z));
	out->hi = exp(m + sqrt(up * up + z * z));
	return 0;
}

/* ---- label ---- */

/* Margins are 1 + delta and 1 / (1 + delta), computed exactly so; both
 * ends are inclusive for TIED and exclusive for FASTER and SLOWER, so an
 * interval touching a margin from outside is AMBIGUOUS, not decisive. */
int nodus_stats_label(const nodus_interval *ci, double delta)
{
	double up, down;

	if (!ci || !(delta >= 0.0) || !isfinite(delta) || isnan(ci->lo) || isnan(ci->hi) ||
	    ci->lo > ci->hi)
		return NODUS_LABEL_NONE;
	up = 1.0 + delta;
	down = 1.0 / (1.0 + delta);
	if (ci->lo >= down && ci->hi <= up)
		return NODUS_LABEL_TIED;
	if (ci->lo > up)
		return NODUS_LABEL_FASTER;
	if (ci->hi < down)
		return NODUS_LABEL_SLOWER;
	return NODUS_LABEL_AMBIGUOUS;
}
