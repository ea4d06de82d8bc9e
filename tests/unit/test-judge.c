/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-judge.c: unit tests of src/judge/: Philox known answers, seed
 * derivation, the input generator (determinism, the published mapping,
 * moments and bounds of every distribution, variants), float16/bfloat16
 * conversions, poison, the comparison guards and their order, and the
 * checksum's bit-flip sensitivity.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "judge/judge-internal.h"
#include "judge/judge.h"
#include "measure/stats.h"

#define assert_near(got, want, eps)                                                          \
	do {                                                                                 \
		double got_ = (got), want_ = (want);                                         \
		if (!(fabs(got_ - want_) <= (eps)))                                          \
			fail_msg("%s = %.17g, expected %.17g within %g", #got, got_, want_,   \
				 (double)(eps));                                             \
	} while (0)

static nodus_dist dist_of(int kind, double a, double b)
{
	nodus_dist d = {kind, a, b, -1, NULL, 0};
	return d;
}

static nodus_tolerance tol_of(double atol, double rtol, double ratio, double cap)
{
	nodus_tolerance t = {atol, rtol, ratio, cap};
	return t;
}

/* ---- 1. Philox and seeds ---- */

static void philox_kat(const uint32_t ctr[4], const uint32_t key[2], const uint32_t want[4])
{
	uint32_t got[4];
	nodus_philox4x32_10(ctr, key, got);
	for (int k = 0; k < 4; k++)
		assert_int_equal(got[k], want[k]);
}

static void test_philox_known_answers(void **state)
{
	(void)state;
	const uint32_t zero_ctr[4] = {0, 0, 0, 0}, zero_key[2] = {0, 0};
	const uint32_t want0[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
	philox_kat(zero_ctr, zero_key, want0);

	const uint32_t ones_ctr[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
	const uint32_t ones_key[2] = {0xffffffff, 0xffffffff};
	const uint32_t want1[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
	philox_kat(ones_ctr, ones_key, want1);

	const uint32_t pi_ctr[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
	const uint32_t pi_key[2] = {0xa4093822, 0x299f31d0};
	const uint32_t want2[4] = {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
	philox_kat(pi_ctr, pi_key, want2);
}

static void test_stream_id_and_trial_seed(void **state)
{
	(void)state;
	/* FNV-1a 64 published values: "" and "a". */
	assert_int_equal(nodus_judge_stream_id(""), 0xcbf29ce484222325ull);
	assert_int_equal(nodus_judge_stream_id("a"), 0xaf63dc4c8601ec8cull);
	assert_int_equal(nodus_judge_stream_id(NULL), nodus_judge_stream_id(""));
	uint64_t s1 = nodus_judge_stream_id("vector_scale/n4m/unrolled");
	uint64_t s2 = nodus_judge_stream_id("vector_scale/n4m/unrolleD");
	assert_true(s1 != s2);

	assert_int_equal(nodus_judge_trial_seed(1, s1, 0), nodus_judge_trial_seed(1, s1, 0));
	uint64_t seeds[64];
	for (int t = 0; t < 64; t++) {
		seeds[t] = nodus_judge_trial_seed(20261130, s1, (uint64_t)t);
		for (int u = 0; u < t; u++)
			assert_true(seeds[t] != seeds[u]);
	}
	assert_true(nodus_judge_trial_seed(20261130, s1, 0) != nodus_judge_trial_seed(20261130, s2, 0));
	assert_true(nodus_judge_trial_seed(20261130, s1, 0) != nodus_judge_trial_seed(20261131, s1, 0));
	/* stream and trial do not commute */
	assert_true(nodus_judge_trial_seed(0, 1, 2) != nodus_judge_trial_seed(0, 2, 1));
}

/* ---- 2. generator ---- */

static void test_fill_deterministic_and_separated(void **state)
{
	(void)state;
	enum { N = 1003 };
	static float a[N], b[N], c[N], d[N], prefix[10];
	nodus_dist dist = dist_of(NODUS_DIST_NORMAL, 0.0, 1.0);
	assert_int_equal(nodus_judge_fill(a, NODUS_DTYPE_FLOAT32, N, &dist, NULL, 0, 42, 0), 0);
	assert_int_equal(nodus_judge_fill(b, NODUS_DTYPE_FLOAT32, N, &dist, NULL, 0, 42, 0), 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(nodus_judge_fill(c, NODUS_DTYPE_FLOAT32, N, &dist, NULL, 0, 43, 0), 0);
	assert_int_equal(nodus_judge_fill(d, NODUS_DTYPE_FLOAT32, N, &dist, NULL, 0, 42, 1), 0);
	int same_seed = 0, same_tensor = 0;
	for (int i = 0; i < N; i++) {
		same_seed += a[i] == c[i];
		same_tensor += a[i] == d[i];
	}
	assert_true(same_seed < 5);
	assert_true(same_tensor < 5);
	/* element i does not depend on the tensor's length */
	assert_int_equal(nodus_judge_fill(prefix, NODUS_DTYPE_FLOAT32, 10, &dist, NULL,
					  0, 42, 0),
			 0);
	assert_memory_equal(prefix, a, sizeof(prefix));
	/* a seed differing only in its high word gives a different stream */
	uint64_t high_seed = 42 | 1ull << 40;
	assert_int_equal(nodus_judge_fill(c, NODUS_DTYPE_FLOAT32, N, &dist, NULL,
					  0, high_seed, 0),
			 0);
	assert_true(memcmp(a, c, sizeof(a)) != 0);
}

/* Element i of tensor t, draw d, computed the way docs/judge.md states. */
static uint32_t doc_word(uint64_t seed, uint32_t t, uint64_t i, uint32_t d)
{
	uint32_t ctr[4] = {(uint32_t)(i / 4), (uint32_t)((i / 4) >> 32), t, 0x6e6f6475u + d};
	uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
	uint32_t out[4];
	nodus_philox4x32_10(ctr, key, out);
	return out[i % 4];
}

static double doc_uniform(uint32_t hi, uint32_t lo)
{
	return (double)(((uint64_t)hi << 21) | (lo >> 11)) * 0x1p-53;
}

static void test_fill_matches_documented_mapping(void **state)
{
	(void)state;
	enum { N = 11 };
	double u[N], z[N], s[N];
	int64_t r[N];
	uint64_t seed = 0x0123456789abcdefull;
	nodus_dist du = dist_of(NODUS_DIST_UNIFORM, -2.0, 6.0);
	nodus_dist dn = dist_of(NODUS_DIST_NORMAL, 1.0, 2.0);
	nodus_dist ds = dist_of(NODUS_DIST_AFFINE_SCALE, 0.5, 0.0);
	nodus_dist dr = dist_of(NODUS_DIST_INT_RANGE, -5.0, 1000.0);
	assert_int_equal(nodus_judge_fill(u, NODUS_DTYPE_FLOAT64, N, &du, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(z, NODUS_DTYPE_FLOAT64, N, &dn, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(s, NODUS_DTYPE_FLOAT64, N, &ds, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(r, NODUS_DTYPE_INT64, N, &dr, NULL, 0, seed, 3), 0);
	for (uint64_t i = 0; i < N; i++) {
		uint32_t w0 = doc_word(seed, 3, i, 0), w1 = doc_word(seed, 3, i, 1);
		uint32_t w2 = doc_word(seed, 3, i, 2), w3 = doc_word(seed, 3, i, 3);
		double u0 = doc_uniform(w0, w1), u1 = doc_uniform(w2, w3);
		assert_true(u[i] == -2.0 + 8.0 * u0);
		double normal = sqrt(-2.0 * log(1.0 - u0)) * cos(6.283185307179586 * u1);
		assert_true(z[i] == 1.0 + 2.0 * normal);
		double sign = (w1 & 1u) ? -1.0 : 1.0;
		assert_true(s[i] == 1.0 + sign * 0.5 * (0.1 + 0.9 * u0));
		uint64_t x = (uint64_t)w0 << 32 | w1;
		assert_int_equal(r[i], -5 + (int64_t)(x % 1006));
	}
}

/* The test vector printed in docs/judge.md section 2.5. */
static void test_fill_documented_vector(void **state)
{
	(void)state;
	static const double want_u[3] = {0.5548922769517839, 2.77366990416673, -1.7528021363366015};
	static const double want_z[3] = {2.283189133657218, -1.4128036035728497, 1.327605175814417};
	static const double want_s[3] = {0.8062873094214622, 1.3185189321093786, 1.0639048798310662};
	static const int64_t want_r[3] = {574, 757, 901};
	static const uint16_t want_h[3] = {0x4091, 0xbda7, 0x3d4f};
	uint64_t seed = 0x0123456789abcdefull;
	double u[3], z[3], s[3];
	int64_t r[3];
	uint16_t h[3];
	nodus_dist du = dist_of(NODUS_DIST_UNIFORM, -2.0, 6.0);
	nodus_dist dn = dist_of(NODUS_DIST_NORMAL, 1.0, 2.0);
	nodus_dist ds = dist_of(NODUS_DIST_AFFINE_SCALE, 0.5, 0.0);
	nodus_dist dr = dist_of(NODUS_DIST_INT_RANGE, -5.0, 1000.0);
	assert_int_equal(nodus_judge_fill(u, NODUS_DTYPE_FLOAT64, 3, &du, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(z, NODUS_DTYPE_FLOAT64, 3, &dn, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(s, NODUS_DTYPE_FLOAT64, 3, &ds, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(r, NODUS_DTYPE_INT64, 3, &dr, NULL, 0, seed, 3), 0);
	assert_int_equal(nodus_judge_fill(h, NODUS_DTYPE_FLOAT16, 3, &dn, NULL, 0, seed, 3), 0);
	for (int i = 0; i < 3; i++) {
		assert_true(u[i] == want_u[i]);
		assert_near(z[i], want_z[i], 1e-14); /* libm may differ in the last place */
		assert_true(s[i] == want_s[i]);
		assert_int_equal(r[i], want_r[i]);
		assert_int_equal(h[i], want_h[i]);
	}
}

static void test_normal_moments(void **state)
{
	(void)state;
	enum { N = 1000000 };
	double *x = malloc(N * sizeof(*x));
	assert_non_null(x);
	nodus_dist dist = dist_of(NODUS_DIST_NORMAL, 0.0, 1.0);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, N, &dist, NULL, 0, 7, 0), 0);
	double sum = 0, sum2 = 0, sum4 = 0;
	int64_t beyond_2sd = 0;
	for (int i = 0; i < N; i++) {
		sum += x[i];
		sum2 += x[i] * x[i];
		sum4 += x[i] * x[i] * x[i] * x[i];
		beyond_2sd += fabs(x[i]) > 1.959963984540054;
	}
	double mean = sum / N, var = sum2 / N - mean * mean;
	/* standard errors: mean 0.001, std about 0.0007, kurtosis about 0.005 */
	assert_near(mean, 0.0, 0.005);
	assert_near(sqrt(var), 1.0, 0.005);
	assert_near(sum4 / N, 3.0, 0.03);
	assert_near((double)beyond_2sd / N, 0.05, 0.002);

	nodus_dist shifted = dist_of(NODUS_DIST_NORMAL, 2.0, 3.0);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, N, &shifted, NULL, 0, 8, 0), 0);
	sum = sum2 = 0;
	for (int i = 0; i < N; i++) {
		sum += x[i];
		sum2 += x[i] * x[i];
	}
	mean = sum / N;
	assert_near(mean, 2.0, 0.015);
	assert_near(sqrt(sum2 / N - mean * mean), 3.0, 0.015);
	free(x);
}

static void test_uniform_and_positive_bounds(void **state)
{
	(void)state;
	enum { N = 200000 };
	static float f[N];
	static uint16_t h[N];
	nodus_dist dist = dist_of(NODUS_DIST_UNIFORM, -4.0, 4.0);
	assert_int_equal(nodus_judge_fill(f, NODUS_DTYPE_FLOAT32, N, &dist, NULL, 0, 1, 0), 0);
	double lo = 1e9, hi = -1e9, sum = 0;
	for (int i = 0; i < N; i++) {
		assert_true(f[i] >= -4.0f && f[i] < 4.0f);
		lo = fmin(lo, f[i]);
		hi = fmax(hi, f[i]);
		sum += f[i];
	}
	assert_true(lo < -3.999 && hi > 3.999);
	assert_near(sum / N, 0.0, 0.03);

	/* float16 [0, 1): draws above 1 - 2^-12 round to 1.0 and must be
	 * pulled back below the open bound */
	dist = dist_of(NODUS_DIST_UNIFORM, 0.0, 1.0);
	assert_int_equal(nodus_judge_fill(h, NODUS_DTYPE_FLOAT16, N, &dist, NULL, 0, 2, 0), 0);
	int top = 0;
	for (int i = 0; i < N; i++) {
		double v = nodus_judge_load(h, NODUS_DTYPE_FLOAT16, i);
		assert_true(v >= 0.0 && v < 1.0);
		top += v == 1.0 - 0x1p-11;
	}
	assert_true(top > 0);

	dist = dist_of(NODUS_DIST_POSITIVE, 1e-9, 1e-3);
	assert_int_equal(nodus_judge_fill(h, NODUS_DTYPE_FLOAT16, N, &dist, NULL, 0, 3, 0), 0);
	for (int i = 0; i < N; i++)
		assert_true(nodus_judge_load(h, NODUS_DTYPE_FLOAT16, i) > 0.0);
}

/* Checks an affine fill of dtype: never equal to `never`, within spread of
 * it, and both sides present. */
static void check_affine(int dtype, int kind, double spread, double never, int exact_bounds)
{
	enum { N = 100000 };
	static char buf[N * 8];
	nodus_dist dist = dist_of(kind, spread, 0.0);
	assert_int_equal(nodus_judge_fill(buf, dtype, N, &dist, NULL, 0, 99, 0), 0);
	int above = 0, below = 0;
	for (int i = 0; i < N; i++) {
		double v = nodus_judge_load(buf, dtype, i);
		if (v == never)
			fail_msg("element %d equals %g (dtype %d, spread %g)", i, never, dtype, spread);
		above += v > never;
		below += v < never;
		if (exact_bounds) {
			double u = fabs(v - never);
			if (!(u >= 0.1 * spread * (1 - 1e-6) && u <= spread * (1 + 1e-6)))
				fail_msg("element %d = %.9g outside the spread %g", i, v, spread);
		}
	}
	assert_true(above > N / 3 && below > N / 3);
}

static void test_affine_never_identity(void **state)
{
	(void)state;
	check_affine(NODUS_DTYPE_FLOAT64, NODUS_DIST_AFFINE_SCALE, 0.1, 1.0, 1);
	check_affine(NODUS_DTYPE_FLOAT32, NODUS_DIST_AFFINE_SCALE, 0.1, 1.0, 1);
	check_affine(NODUS_DTYPE_FLOAT16, NODUS_DIST_AFFINE_SCALE, 0.1, 1.0, 0);
	check_affine(NODUS_DTYPE_BFLOAT16, NODUS_DIST_AFFINE_SCALE, 0.1, 1.0, 0);
	/* spreads below half an ulp of 1: every draw rounds to 1 and must be nudged */
	check_affine(NODUS_DTYPE_FLOAT32, NODUS_DIST_AFFINE_SCALE, 1e-8, 1.0, 0);
	check_affine(NODUS_DTYPE_FLOAT16, NODUS_DIST_AFFINE_SCALE, 1e-4, 1.0, 0);
	check_affine(NODUS_DTYPE_BFLOAT16, NODUS_DIST_AFFINE_SCALE, 1e-3, 1.0, 0);
	check_affine(NODUS_DTYPE_FLOAT32, NODUS_DIST_AFFINE_SHIFT, 0.5, 0.0, 1);
	/* below float16's smallest subnormal: nudged off zero */
	check_affine(NODUS_DTYPE_FLOAT16, NODUS_DIST_AFFINE_SHIFT, 1e-9, 0.0, 0);
}

/* Scales are drawn with both signs: nodus_judge_input_variants adds negate
 * for affine_scale (declared or not) and for nothing else, and a negated
 * scale is negative, within the spread of -1 and never the identity 1, so
 * |w|, max(w, -w) and w*w/|w| meet w < 0 on the negate trial. */
static void test_affine_scale_both_signs(void **state)
{
	(void)state;
	nodus_dist scale = dist_of(NODUS_DIST_AFFINE_SCALE, 0.5, 0.0);
	nodus_dist shift = dist_of(NODUS_DIST_AFFINE_SHIFT, 0.5, 0.0);
	nodus_dist normal = dist_of(NODUS_DIST_NORMAL, 0.0, 1.0);
	assert_int_equal(nodus_judge_input_variants(0, &scale), NODUS_VARIANT_NEGATE);
	assert_int_equal(nodus_judge_input_variants(NODUS_VARIANT_SCALE_3, &scale),
			 NODUS_VARIANT_SCALE_3 | NODUS_VARIANT_NEGATE);
	assert_int_equal(nodus_judge_input_variants(0, &shift), 0);
	assert_int_equal(nodus_judge_input_variants(NODUS_VARIANT_SCALE_001, &normal),
			 NODUS_VARIANT_SCALE_001);
	assert_int_equal(nodus_judge_input_variants(0, NULL), 0);
	enum { N = 20000 };
	static char buf[N * 8];
	const int dtypes[] = {NODUS_DTYPE_FLOAT64, NODUS_DTYPE_FLOAT32, NODUS_DTYPE_FLOAT16,
			      NODUS_DTYPE_BFLOAT16};
	for (size_t d = 0; d < sizeof(dtypes) / sizeof(dtypes[0]); d++) {
		assert_int_equal(nodus_judge_fill(buf, dtypes[d], N, &scale, NULL,
						  NODUS_VARIANT_NEGATE, 31, 0),
				 0);
		int far = 0, near = 0;
		for (int i = 0; i < N; i++) {
			double v = nodus_judge_load(buf, dtypes[d], i);
			assert_true(v < 0.0 && v != 1.0 && v >= -1.5 * (1 + 1e-2) &&
				    v <= -0.5 * (1 - 1e-2));
			far += v < -1.0;
			near += v > -1.0;
		}
		assert_true(far > N / 3 && near > N / 3); /* both sides of -1 */
	}
}

static void test_int_range_and_index(void **state)
{
	(void)state;
	enum { N = 10000 };
	static int32_t v[N];
	static int64_t w[N];
	static uint8_t b[N];
	int seen[7] = {0};
	nodus_dist dist = dist_of(NODUS_DIST_INT_RANGE, -3.0, 3.0);
	assert_int_equal(nodus_judge_fill(v, NODUS_DTYPE_INT32, N, &dist, NULL, 0, 5, 0), 0);
	for (int i = 0; i < N; i++) {
		assert_in_range(v[i] + 3, 0, 6);
		seen[v[i] + 3]++;
	}
	for (int k = 0; k < 7; k++)
		assert_true(seen[k] > N / 7 - 200 && seen[k] < N / 7 + 200);

	dist = dist_of(NODUS_DIST_INT_RANGE, -9223372036854775808.0, 9223372036854774784.0);
	assert_int_equal(nodus_judge_fill(w, NODUS_DTYPE_INT64, N, &dist, NULL, 0, 5, 0), 0);
	int negative = 0;
	for (int i = 0; i < N; i++)
		negative += w[i] < 0;
	assert_true(negative > N / 3 && negative < 2 * N / 3);

	int64_t axes[3] = {4, 37, 1};
	nodus_dist index = {NODUS_DIST_INDEX, 0.0, 0.0, 1, NULL, 0};
	int hit[37] = {0};
	assert_int_equal(nodus_judge_fill(b, NODUS_DTYPE_UINT8, N, &index, axes, 0, 6, 0), 0);
	for (int i = 0; i < N; i++) {
		assert_in_range(b[i], 0, 36);
		hit[b[i]] = 1;
	}
	for (int k = 0; k < 37; k++)
		assert_true(hit[k]);
	index.axis = 2; /* axis of value 1: only index 0 */
	assert_int_equal(nodus_judge_fill(w, NODUS_DTYPE_INT64, N, &index, axes, 0, 6, 0), 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(w[i], 0);
}

/* One element on its own (the host's value the worker writes over a device
 * draw) is the same bits as that element of a whole fill, for every dtype
 * and a variant; and only float32 float distributions go to the device. */
static void test_fill_at_and_device_spec(void **state)
{
	(void)state;
	static const struct {
		int dtype;
		nodus_dist dist;
		unsigned variant;
	} cases[] = {
		{NODUS_DTYPE_FLOAT32, {NODUS_DIST_NORMAL, 1.0, 2.0, -1, NULL, 0}, NODUS_VARIANT_SCALE_001},
		{NODUS_DTYPE_FLOAT64, {NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0}, NODUS_VARIANT_NEGATE},
		{NODUS_DTYPE_BFLOAT16, {NODUS_DIST_AFFINE_SCALE, 0.5, 0.0, -1, NULL, 0}, 0},
		{NODUS_DTYPE_FLOAT32, {NODUS_DIST_POSITIVE, 0.5, 2.0, -1, NULL, 0}, NODUS_VARIANT_NEGATE},
		{NODUS_DTYPE_INT32, {NODUS_DIST_INT_RANGE, -5.0, 5.0, -1, NULL, 0}, NODUS_VARIANT_NEGATE},
		{NODUS_DTYPE_INT64, {NODUS_DIST_INT_RANGE, 0.0, 1e12, -1, NULL, 0}, 0},
	};
	enum { N = 1027 };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		unsigned char whole[N * 8], one[8];
		size_t es = nodus_dtype_size(cases[c].dtype);
		assert_int_equal(nodus_judge_fill(whole, cases[c].dtype, N, &cases[c].dist, NULL,
						  cases[c].variant, 99 + c, 2),
				 0);
		for (int64_t i = 0; i < N; i += 37) {
			memset(one, 0, sizeof one);
			assert_int_equal(nodus_judge_fill_at(one, cases[c].dtype, i, &cases[c].dist,
							     NULL, cases[c].variant, 99 + c, 2),
					 0);
			assert_memory_equal(one, whole + (size_t)i * es, es);
		}
		nodus_fill_spec spec;
		int rc = nodus_judge_fill_spec(cases[c].dtype, &cases[c].dist, NULL, cases[c].variant,
					       99 + c, 2, &spec);
		int device = cases[c].dtype == NODUS_DTYPE_FLOAT32;
		assert_int_equal(rc, device ? 0 : NODUS_EUNAVAILABLE);
		if (device) {
			assert_int_equal(spec.tensor, 2);
			assert_int_equal(spec.key[0], (uint32_t)(99 + c));
			assert_int_equal(spec.n_draws, cases[c].dist.kind == NODUS_DIST_NORMAL ? 4 : 2);
			assert_int_equal(spec.variant, cases[c].variant == NODUS_VARIANT_NEGATE
							       ? NODUS_FILL_NEGATE
							       : NODUS_FILL_SCALE_001);
		}
	}
	/* what the host refuses, the device spec refuses the same way */
	nodus_dist bad = {NODUS_DIST_NORMAL, 0.0, -1.0, -1, NULL, 0};
	nodus_fill_spec spec;
	assert_int_equal(nodus_judge_fill_spec(NODUS_DTYPE_FLOAT32, &bad, NULL, 0, 1, 0, &spec),
			 NODUS_EINVAL);
}

static void test_fill_rejects_bad_pairs(void **state)
{
	(void)state;
	double x[4];
	int32_t k[4];
	int64_t axes[2] = {0, 5};
	nodus_dist normal = dist_of(NODUS_DIST_NORMAL, 0.0, 1.0);
	nodus_dist range = dist_of(NODUS_DIST_INT_RANGE, 0.0, 9.0);
	nodus_dist index = {NODUS_DIST_INDEX, 0, 0, 0, NULL, 0};
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_INT32, 4, &normal, NULL, 0, 1, 0), NODUS_EINVAL);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, 4, &range, NULL, 0, 1, 0), NODUS_EINVAL);
	assert_int_equal(nodus_judge_fill(x, 99, 4, &normal, NULL, 0, 1, 0), NODUS_EINVAL);
	nodus_dist bad = dist_of(NODUS_DIST_NORMAL, 0.0, 0.0);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, 4, &bad, NULL, 0, 1, 0), NODUS_EINVAL);
	bad = dist_of(NODUS_DIST_UNIFORM, 1.0, 1.0);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, 4, &bad, NULL, 0, 1, 0), NODUS_EINVAL);
	bad = dist_of(NODUS_DIST_AFFINE_SCALE, 1.0, 0.0);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, 4, &bad, NULL, 0, 1, 0), NODUS_EINVAL);
	bad = dist_of(NODUS_DIST_INT_RANGE, 0.5, 3.0);
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_INT32, 4, &bad, NULL, 0, 1, 0), NODUS_EINVAL);
	bad = dist_of(NODUS_DIST_INT_RANGE, 0.0, 256.0);
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_UINT8, 4, &bad, NULL, 0, 1, 0), NODUS_EINVAL);
	/* index: no axis values, an axis of 0, an axis out of range */
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_INT32, 4, &index, NULL, 0, 1, 0), NODUS_EINVAL);
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_INT32, 4, &index, axes, 0, 1, 0), NODUS_EINVAL);
	index.axis = -1;
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_INT32, 4, &index, axes, 0, 1, 0), NODUS_EINVAL);
	index.axis = 1;
	assert_int_equal(nodus_judge_fill(k, NODUS_DTYPE_INT32, 4, &index, axes, 0, 1, 0), 0);
	assert_int_equal(nodus_judge_fill(x, NODUS_DTYPE_FLOAT64, -1, &normal, NULL, 0, 1, 0),
			 NODUS_EINVAL);
	assert_int_equal(nodus_judge_fill(NULL, NODUS_DTYPE_FLOAT64, 0, &normal, NULL, 0, 1, 0), 0);
}

static void test_variants(void **state)
{
	(void)state;
	enum { N = 1000 };
	static float base[N], x3[N], x001[N], neg[N];
	nodus_dist dist = dist_of(NODUS_DIST_UNIFORM, 0.5, 2.0);
	assert_int_equal(nodus_judge_fill(base, NODUS_DTYPE_FLOAT32, N, &dist, NULL, 0, 11, 2), 0);
	assert_int_equal(nodus_judge_fill(x3, NODUS_DTYPE_FLOAT32, N, &dist, NULL,
					  NODUS_VARIANT_SCALE_3, 11, 2),
			 0);
	assert_int_equal(nodus_judge_fill(x001, NODUS_DTYPE_FLOAT32, N, &dist, NULL,
					  NODUS_VARIANT_SCALE_001, 11, 2),
			 0);
	assert_int_equal(nodus_judge_fill(neg, NODUS_DTYPE_FLOAT32, N, &dist, NULL,
					  NODUS_VARIANT_NEGATE, 11, 2),
			 0);
	for (int i = 0; i < N; i++) {
		assert_true(x3[i] == (float)(3.0 * base[i]));
		assert_true(x001[i] == (float)(0.01 * base[i]));
		assert_true(neg[i] == -base[i]);
	}

	static int32_t ib[N], ineg[N], iscale[N];
	static uint8_t ub[N], uneg[N];
	nodus_dist range = dist_of(NODUS_DIST_INT_RANGE, -50.0, 100.0);
	assert_int_equal(nodus_judge_fill(ib, NODUS_DTYPE_INT32, N, &range, NULL, 0, 12, 0), 0);
	assert_int_equal(nodus_judge_fill(ineg, NODUS_DTYPE_INT32, N, &range, NULL,
					  NODUS_VARIANT_NEGATE, 12, 0),
			 0);
	assert_int_equal(nodus_judge_fill(iscale, NODUS_DTYPE_INT32, N, &range, NULL,
					  NODUS_VARIANT_SCALE_3 | NODUS_VARIANT_SCALE_001, 12, 0),
			 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(ineg[i], -ib[i]);
		assert_int_equal(iscale[i], ib[i]); /* scaling is ignored for integers */
	}
	/* negation is ignored for unsigned bytes and for indices */
	range = dist_of(NODUS_DIST_INT_RANGE, 0.0, 255.0);
	assert_int_equal(nodus_judge_fill(ub, NODUS_DTYPE_UINT8, N, &range, NULL, 0, 13, 0), 0);
	assert_int_equal(nodus_judge_fill(uneg, NODUS_DTYPE_UINT8, N, &range, NULL,
					  NODUS_VARIANT_NEGATE, 13, 0),
			 0);
	assert_memory_equal(ub, uneg, sizeof(ub));
	int64_t axes[1] = {10};
	nodus_dist index = {NODUS_DIST_INDEX, 0, 0, 0, NULL, 0};
	assert_int_equal(nodus_judge_fill(ineg, NODUS_DTYPE_INT32, N, &index, axes,
					  NODUS_VARIANT_NEGATE, 14, 0),
			 0);
	for (int i = 0; i < N; i++)
		assert_in_range(ineg[i], 0, 9);
}

static void test_affine_variants_keep_promise(void **state)
{
	(void)state;
	enum { N = 20000 };
	static uint16_t h[N];
	/* 3 * (1 + u) = 1 needs u = -2/3: spread 0.7 reaches it in float16 */
	nodus_dist dist = dist_of(NODUS_DIST_AFFINE_SCALE, 0.7, 0.0);
	for (unsigned variant = 0; variant < 8; variant++) {
		assert_int_equal(nodus_judge_fill(h, NODUS_DTYPE_FLOAT16, N, &dist, NULL,
					  variant, 21, 0),
			 0);
		for (int i = 0; i < N; i++)
			assert_true(nodus_judge_load(h, NODUS_DTYPE_FLOAT16, i) != 1.0);
	}
	dist = dist_of(NODUS_DIST_AFFINE_SHIFT, 1e-6, 0.0);
	assert_int_equal(nodus_judge_fill(h, NODUS_DTYPE_FLOAT16, N, &dist, NULL,
					  NODUS_VARIANT_SCALE_001, 22, 0),
			 0);
	for (int i = 0; i < N; i++)
		assert_true(nodus_judge_load(h, NODUS_DTYPE_FLOAT16, i) != 0.0);
}

/* ---- 3. conversions ---- */

static void test_float16_conversions(void **state)
{
	(void)state;
	for (uint32_t bits = 0; bits < 0x10000; bits++) {
		double v = nodus__judge_f16_to_double((uint16_t)bits);
		if (isnan(v)) {
			assert_true(isnan(nodus__judge_f16_to_double(nodus__judge_f16_from_double(v))));
			continue;
		}
		assert_int_equal(nodus__judge_f16_from_double(v), bits);
	}
	assert_int_equal(nodus__judge_f16_from_double(1.0), 0x3c00);
	assert_int_equal(nodus__judge_f16_from_double(-0.0), 0x8000);
	assert_int_equal(nodus__judge_f16_from_double(65504.0), 0x7bff);
	assert_int_equal(nodus__judge_f16_from_double(65519.99), 0x7bff);
	assert_int_equal(nodus__judge_f16_from_double(65520.0), 0x7c00);
	assert_int_equal(nodus__judge_f16_from_double(-1e300), 0xfc00);
	assert_int_equal(nodus__judge_f16_from_double(0x1p-24), 0x0001);
	assert_int_equal(nodus__judge_f16_from_double(0x1p-25), 0x0000);      /* tie to even */
	assert_int_equal(nodus__judge_f16_from_double(0x1.8p-24), 0x0002);    /* tie to even */
	assert_int_equal(nodus__judge_f16_from_double(1.0 + 0x1p-11), 0x3c00); /* tie to even */
	assert_int_equal(nodus__judge_f16_from_double(1.0 + 0x3p-11), 0x3c02);
	/* just above a tie: a detour through float would round twice to 1.0 */
	assert_int_equal(nodus__judge_f16_from_double(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
	assert_int_equal(nodus__judge_f16_from_double(NAN) & 0x7e00, 0x7e00);
#if defined(__FLT16_MAX__) && defined(__x86_64__)
	/* the compiler's own conversion as an oracle */
	uint64_t x = 12345;
	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		double v = ldexp((double)(x >> 11) * 0x1p-53, (int)(x % 50) - 30) * ((x & 1) ? -1 : 1);
		_Float16 ref = (_Float16)v;
		uint16_t ref_bits;
		memcpy(&ref_bits, &ref, 2);
		if (nodus__judge_f16_from_double(v) != ref_bits)
			fail_msg("%.17g: got %#x, expected %#x", v, nodus__judge_f16_from_double(v), ref_bits);
	}
#endif
}

/* bfloat16 of a float by the usual bit trick, as an oracle. */
static uint16_t bf16_of_float(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static void test_bfloat16_conversions(void **state)
{
	(void)state;
	for (uint32_t bits = 0; bits < 0x10000; bits++) {
		double v = nodus__judge_bf16_to_double((uint16_t)bits);
		float f;
		uint32_t u = bits << 16;
		memcpy(&f, &u, 4);
		if (isnan(v)) {
			assert_true(isnan(f));
			continue;
		}
		assert_true(v == (double)f);
		assert_int_equal(nodus__judge_bf16_from_double(v), bits);
	}
	assert_int_equal(nodus__judge_bf16_from_double(1.0), 0x3f80);
	assert_int_equal(nodus__judge_bf16_from_double(1.0 + 0x1p-8), 0x3f80);
	assert_int_equal(nodus__judge_bf16_from_double(1.0 + 0x3p-8), 0x3f82);
	assert_int_equal(nodus__judge_bf16_from_double(3.4028234663852886e38), 0x7f80);
	assert_int_equal(nodus__judge_bf16_from_double(0x1.fep127), 0x7f7f);
	assert_int_equal(nodus__judge_bf16_from_double(0x1p-133), 0x0001);
	uint64_t x = 777;
	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t u = (uint32_t)(x >> 32);
		float f;
		memcpy(&f, &u, 4);
		if (isnan(f))
			continue;
		if (nodus__judge_bf16_from_double(f) != bf16_of_float(f))
			fail_msg("%a: got %#x, expected %#x", (double)f, nodus__judge_bf16_from_double(f),
				 bf16_of_float(f));
	}
}

static void test_load_store(void **state)
{
	(void)state;
	int32_t i32[3];
	uint8_t u8[3];
	int64_t i64[2];
	uint16_t h[1];
	nodus_judge_store(i32, NODUS_DTYPE_INT32, 0, 2.5);  /* ties to even */
	nodus_judge_store(i32, NODUS_DTYPE_INT32, 1, 1e12); /* saturates */
	nodus_judge_store(i32, NODUS_DTYPE_INT32, 2, -3.5);
	assert_int_equal(i32[0], 2);
	assert_int_equal(i32[1], INT32_MAX);
	assert_int_equal(i32[2], -4);
	nodus_judge_store(u8, NODUS_DTYPE_UINT8, 0, -7.0);
	nodus_judge_store(u8, NODUS_DTYPE_UINT8, 1, 300.0);
	nodus_judge_store(u8, NODUS_DTYPE_UINT8, 2, NAN);
	assert_int_equal(u8[0], 0);
	assert_int_equal(u8[1], 255);
	assert_int_equal(u8[2], 0);
	nodus_judge_store(i64, NODUS_DTYPE_INT64, 0, 1e30);
	nodus_judge_store(i64, NODUS_DTYPE_INT64, 1, -1e30);
	assert_true(i64[0] == INT64_MAX && i64[1] == INT64_MIN);
	nodus_judge_store(h, NODUS_DTYPE_FLOAT16, 0, 0.1);
	assert_int_equal(h[0], 0x2e66);
	assert_near(nodus_judge_load(h, NODUS_DTYPE_FLOAT16, 0), 0.0999755859375, 0.0);
	assert_true(nodus__judge_step(NODUS_DTYPE_FLOAT16, 1.0, 1) == 1.0 + 0x1p-10);
	assert_true(nodus__judge_step(NODUS_DTYPE_FLOAT16, 1.0, 0) == 1.0 - 0x1p-11);
	assert_true(nodus__judge_step(NODUS_DTYPE_BFLOAT16, 0.0, 0) == -0x1p-133);
	assert_true(nodus__judge_step(NODUS_DTYPE_FLOAT32, 1.0, 1) == 1.0 + 0x1p-23);
}

static void test_poison_patterns(void **state)
{
	(void)state;
	uint32_t f[3];
	uint64_t d[2];
	uint16_t h[2];
	int32_t k[2];
	uint8_t b[3];
	nodus_judge_poison(f, NODUS_DTYPE_FLOAT32, 3);
	nodus_judge_poison(d, NODUS_DTYPE_FLOAT64, 2);
	nodus_judge_poison(h, NODUS_DTYPE_BFLOAT16, 2);
	nodus_judge_poison(k, NODUS_DTYPE_INT32, 2);
	nodus_judge_poison(b, NODUS_DTYPE_UINT8, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(f[i], 0x7fa5a5a5u);
	assert_true(isnan(nodus_judge_load(f, NODUS_DTYPE_FLOAT32, 0)));
	assert_true(d[0] == NODUS_POISON_F64 && d[1] == NODUS_POISON_F64);
	assert_true(isnan(nodus_judge_load(d, NODUS_DTYPE_FLOAT64, 1)));
	assert_true(h[0] == 0xa5a5 && h[1] == 0xa5a5);
	assert_true((uint32_t)k[1] == 0xa5a5a5a5u);
	assert_true(b[0] == 0xa5 && b[2] == 0xa5);
}

/* ---- 4. compare ---- */

enum { CN = 1000 };

static void ramp(double *ref, int n)
{
	for (int i = 0; i < n; i++)
		ref[i] = 0.25 + (double)i / 64.0;
}

static void test_compare_exact_match(void **state)
{
	(void)state;
	static double ref[CN], out[CN];
	ramp(ref, CN);
	memcpy(out, ref, sizeof(out));
	nodus_tolerance tol = tol_of(0.0, 0.0, 1.0, -1.0);
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, CN, &tol, &res),
			 NODUS_STATUS_OK);
	assert_string_equal(res.guard, "");
	assert_true(res.max_abs_err == 0.0 && res.matched_ratio == 1.0);
	assert_true(res.n_bad == 0 && res.n_unwritten == 0 && res.first_bad == -1);
}

static void test_compare_unwritten(void **state)
{
	(void)state;
	static float ref[CN], out[CN];
	for (int i = 0; i < CN; i++)
		ref[i] = (float)i;
	memcpy(out, ref, sizeof(out));
	nodus_judge_poison(out + 17, NODUS_DTYPE_FLOAT32, 1);
	nodus_tolerance tol = tol_of(1e3, 1.0, 0.5, -1.0); /* loose: must not matter */
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &tol, &res),
			 NODUS_STATUS_INCORRECT_SHAPE);
	assert_string_equal(res.guard, "unwritten_output");
	assert_int_equal(res.n_unwritten, 1);
	assert_int_equal(res.first_bad, 17);
	assert_non_null(strstr(res.detail, "y[17]"));

	/* uint8: 165 is the poison byte but also a legal value; matching the
	 * reference it counts as written */
	uint8_t ub[4] = {1, 165, 3, 4}, uo[4] = {1, 165, 3, 4};
	assert_int_equal(nodus_judge_compare("q", uo, ub, NODUS_DTYPE_UINT8, 4, &tol, &res),
			 NODUS_STATUS_OK);
	nodus_judge_poison(uo + 2, NODUS_DTYPE_UINT8, 1);
	assert_int_equal(nodus_judge_compare("q", uo, ub, NODUS_DTYPE_UINT8, 4, &tol, &res),
			 NODUS_STATUS_INCORRECT_SHAPE);
	assert_int_equal(res.first_bad, 2);

	/* a float32 reference still holding the poison is the oracle's fault */
	nodus_judge_poison(ref + 3, NODUS_DTYPE_FLOAT32, 1);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &tol, &res),
			 NODUS_STATUS_INVALID_REFERENCE);
	assert_string_equal(res.guard, "reference_unwritten");
}

/* What the orchestrator checks of each oracle output as it arrives: the
 * count and first index of elements still poisoned, float32/64 only. */
static void test_reference_unwritten(void **state)
{
	(void)state;
	float f[64];
	double d[8];
	int64_t first = 0;
	for (int i = 0; i < 64; i++)
		f[i] = (float)i - 20.0f;
	assert_int_equal(nodus_judge_reference_unwritten(f, NODUS_DTYPE_FLOAT32, 64, &first), 0);
	assert_int_equal(first, -1);
	nodus_judge_poison(f + 40, NODUS_DTYPE_FLOAT32, 3);
	nodus_judge_poison(f + 9, NODUS_DTYPE_FLOAT32, 1);
	assert_int_equal(nodus_judge_reference_unwritten(f, NODUS_DTYPE_FLOAT32, 64, &first), 4);
	assert_int_equal(first, 9);
	f[9] = NAN; /* an ordinary NaN is a written value */
	assert_int_equal(nodus_judge_reference_unwritten(f, NODUS_DTYPE_FLOAT32, 64, &first), 3);
	assert_int_equal(first, 40);
	nodus_judge_poison(d, NODUS_DTYPE_FLOAT64, 8);
	assert_int_equal(nodus_judge_reference_unwritten(d, NODUS_DTYPE_FLOAT64, 8, &first), 8);
	assert_int_equal(first, 0);
	/* uint8's poison byte is a legal value: never counted */
	uint8_t u[4];
	nodus_judge_poison(u, NODUS_DTYPE_UINT8, 4);
	assert_int_equal(nodus_judge_reference_unwritten(u, NODUS_DTYPE_UINT8, 4, &first), 0);
	assert_int_equal(first, -1);

	/* large enough to be split over threads: the count is the total and
	 * the first is the lowest index whichever range found it */
	int64_t big = ((int64_t)1 << 21) * 5 + 7;
	float *g = malloc((size_t)big * sizeof(float));
	assert_non_null(g);
	for (int64_t i = 0; i < big; i++)
		g[i] = (float)(i % 1000);
	assert_int_equal(nodus_judge_reference_unwritten(g, NODUS_DTYPE_FLOAT32, big, &first), 0);
	assert_int_equal(first, -1);
	int64_t at[] = {big - 1, ((int64_t)1 << 21) * 3 + 1, ((int64_t)1 << 21) * 3 + 2,
			((int64_t)1 << 21) + 5};
	for (int k = 0; k < 4; k++)
		nodus_judge_poison(g + at[k], NODUS_DTYPE_FLOAT32, 1);
	assert_int_equal(nodus_judge_reference_unwritten(g, NODUS_DTYPE_FLOAT32, big, &first), 4);
	assert_int_equal(first, ((int64_t)1 << 21) + 5);
	/* the same bytes one float off alignment: the bytewise path agrees */
	char *raw = malloc((size_t)(big + 1) * sizeof(float));
	assert_non_null(raw);
	memcpy(raw + 1, g, (size_t)big * sizeof(float));
	assert_int_equal(nodus_judge_reference_unwritten(raw + 1, NODUS_DTYPE_FLOAT32, big, &first),
			 4);
	assert_int_equal(first, ((int64_t)1 << 21) + 5);
	free(raw);
	free(g);
}

/* float32 has its own scan (no dtype switch per element, exact pairs
 * skip the arithmetic); it must decide exactly as the generic scan does on
 * the same values held as float64. Mixed exact, close, far, NaN, +-Inf
 * and signed-zero elements, large enough to be split over threads. */
static void test_compare_f32_matches_generic(void **state)
{
	(void)state;
	enum { N = 3 * (1 << 20) + 77 };
	float *o32 = malloc(N * sizeof(float)), *r32 = malloc(N * sizeof(float));
	double *o64 = malloc(N * sizeof(double)), *r64 = malloc(N * sizeof(double));
	assert_non_null(o32);
	assert_non_null(r32);
	assert_non_null(o64);
	assert_non_null(r64);
	nodus_rng rng;
	for (int trial = 0; trial < 6; trial++) {
		nodus_rng_seed(&rng, 0xf32f32u + (uint64_t)trial);
		for (int i = 0; i < N; i++) {
			float r = (float)((double)nodus_rng_below(&rng, 2000001) * 1e-3 - 1000.0);
			float o = r;
			switch (nodus_rng_below(&rng, trial < 3 ? 40 : 200000)) {
			case 0: o = r * (1.0f + 1e-7f); break;
			case 1: o = r + 0.5f; break;
			case 2: o = NAN; break;
			case 3: o = INFINITY; r = INFINITY; break;
			case 4: o = -INFINITY; r = INFINITY; break;
			case 5: o = -0.0f; r = 0.0f; break;
			case 6: o = NAN; r = NAN; break;
			default: break;
			}
			o32[i] = o, r32[i] = r;
			o64[i] = o, r64[i] = r;
		}
		if (trial == 5) /* a constant output against a varying reference */
			for (int i = 0; i < N; i++)
				o32[i] = 2.5f, o64[i] = 2.5;
		double caps[] = {-1.0, 0.25};
		nodus_tolerance tol = tol_of(1e-4, 1e-5, trial % 2 ? 0.9 : 1.0, caps[trial % 2]);
		nodus_check a, b;
		int sa = nodus_judge_compare("y", o32, r32, NODUS_DTYPE_FLOAT32, N, &tol, &a);
		int sb = nodus_judge_compare("y", o64, r64, NODUS_DTYPE_FLOAT64, N, &tol, &b);
		assert_int_equal(sa, sb);
		assert_string_equal(a.guard, b.guard);
		assert_int_equal(a.n_bad, b.n_bad);
		assert_int_equal(a.first_bad, b.first_bad);
		assert_true(a.max_abs_err == b.max_abs_err);
		assert_true(a.max_rel_err == b.max_rel_err);
		assert_true(a.matched_ratio == b.matched_ratio);
	}
	free(o32);
	free(r32);
	free(o64);
	free(r64);
}

static void test_compare_nan_inf(void **state)
{
	(void)state;
	double ref[4] = {1.0, NAN, INFINITY, -2.0};
	double out[4] = {1.0, NAN, INFINITY, -2.0};
	nodus_tolerance tol = tol_of(1e-6, 1e-6, 1.0, -1.0);
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, 4, &tol, &res),
			 NODUS_STATUS_OK);
	out[2] = -INFINITY;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, 4, &tol, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.guard, "nan_inf_mismatch");
	assert_int_equal(res.first_bad, 2);
	out[2] = INFINITY;
	out[1] = 5.0; /* a number where the reference is NaN */
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, 4, &tol, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.guard, "nan_inf_mismatch");
	out[1] = NAN;
	out[3] = NAN; /* NaN where the reference is a number, with a tolerance allowing misses */
	tol.matched_ratio = 0.5;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, 4, &tol, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.guard, "nan_inf_mismatch");
	assert_int_equal(res.first_bad, 3);
	assert_string_equal(res.detail, "y[3]: got nan, expected -2; 1 NaN/Inf mismatches");
}

static void test_compare_tolerance_boundary(void **state)
{
	(void)state;
	static double ref[CN], out[CN];
	ramp(ref, CN);
	nodus_tolerance tol = tol_of(1e-3, 1e-2, 1.0, -1.0);
	nodus_check res;
	for (int i = 0; i < CN; i++)
		out[i] = ref[i] + 0.999 * (1e-3 + 1e-2 * ref[i]);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, CN, &tol, &res),
			 NODUS_STATUS_OK);
	assert_true(res.max_abs_err > 0.0);
	out[500] = ref[500] - 1.001 * (1e-3 + 1e-2 * ref[500]);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, CN, &tol, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.guard, "tolerance");
	assert_int_equal(res.first_bad, 500);
	assert_int_equal(res.n_bad, 1);
	assert_non_null(strstr(res.detail, "y[500]: got "));

	/* integers: distinct int64 above 2^53 that a double cannot tell apart */
	int64_t ri[2] = {(1ll << 60) + 1, 3}, oi[2] = {1ll << 60, 3};
	nodus_tolerance exact = tol_of(0.0, 0.0, 1.0, -1.0);
	assert_int_equal(nodus_judge_compare("n", oi, ri, NODUS_DTYPE_INT64, 2, &exact, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.detail, "n[0]: got 1152921504606846976, expected 1152921504606846977; "
					"1 of 2 elements outside atol 0 + rtol 0*|ref|, matched ratio 0.5 < 1");
}

static void test_compare_matched_ratio(void **state)
{
	(void)state;
	static double ref[CN], out[CN];
	ramp(ref, CN);
	memcpy(out, ref, sizeof(out));
	for (int i = 0; i < 10; i++)
		out[i * 97] += 1.0;
	nodus_tolerance tol = tol_of(1e-6, 0.0, 0.99, -1.0);
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, CN, &tol, &res),
			 NODUS_STATUS_OK);
	assert_int_equal(res.n_bad, 10);
	assert_near(res.matched_ratio, 0.99, 1e-12);
	assert_int_equal(res.first_bad, 0);
	out[999] += 1.0;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT64, CN, &tol, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.guard, "tolerance");
	assert_int_equal(res.n_bad, 11);
}

static void test_compare_cap(void **state)
{
	(void)state;
	static float ref[CN], out[CN];
	for (int i = 0; i < CN; i++)
		ref[i] = out[i] = (float)i * 0.5f;
	out[42] += 1.0f;
	nodus_tolerance tol = tol_of(1e-6, 0.0, 0.99, 0.5);
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &tol, &res),
			 NODUS_STATUS_INCORRECT_NUMERICAL);
	assert_string_equal(res.guard, "max_error_cap");
	assert_int_equal(res.first_bad, 42);
	assert_string_equal(res.detail, "y[42]: got 22, expected 21; 1 elements differ by more than "
					"max_error_cap 0.5");
	tol.max_error_cap = 2.0;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &tol, &res),
			 NODUS_STATUS_OK);
	tol.max_error_cap = -1.0; /* no cap */
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &tol, &res),
			 NODUS_STATUS_OK);
	assert_near(res.max_abs_err, 1.0, 0.0);
}

static void test_compare_constant_output(void **state)
{
	(void)state;
	static float ref[CN], out[CN];
	for (int i = 0; i < CN; i++) {
		ref[i] = 0.5f + (float)(i % 7) * 1e-3f;
		out[i] = 0.5f;
	}
	/* a loose tolerance that the constant passes: still caught */
	nodus_tolerance loose = tol_of(1.0, 0.0, 1.0, -1.0);
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &loose, &res),
			 NODUS_STATUS_REWARD_HACK);
	assert_string_equal(res.guard, "constant_output");
	assert_int_equal(res.first_bad, 1); /* out[0] == ref[0]; ref first changes at 1 */
	assert_string_equal(res.detail, "y[1]: got 0.5, expected 0.501; the output is constant "
					"while the reference varies");

	memset(out, 0, sizeof(out)); /* all zeros */
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &loose, &res),
			 NODUS_STATUS_REWARD_HACK);
	assert_int_equal(res.first_bad, 0);

	/* a constant reference matched by a constant output is fine, and so
	 * is a single element */
	for (int i = 0; i < CN; i++)
		ref[i] = out[i] = 3.0f;
	nodus_tolerance exact = tol_of(0.0, 0.0, 1.0, -1.0);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, CN, &exact, &res),
			 NODUS_STATUS_OK);
	ref[0] = 2.0f;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, 1, &loose, &res),
			 NODUS_STATUS_OK);

	int32_t ri[3] = {1, 2, 3}, oi[3] = {7, 7, 7};
	nodus_tolerance wide = tol_of(100.0, 0.0, 1.0, -1.0);
	assert_int_equal(nodus_judge_compare("k", oi, ri, NODUS_DTYPE_INT32, 3, &wide, &res),
			 NODUS_STATUS_REWARD_HACK);
}

/* A tensor large enough to be scanned in several chunks by several
 * threads gives what one pass gives: summed counts, the first offender in
 * index order, the largest errors, and a constant output only when every
 * chunk is constant against element 0. */
static void test_compare_large_chunks_merge(void **state)
{
	(void)state;
	const int64_t n = ((int64_t)1 << 20) * 5 + 123; /* five chunks, uneven */
	float *ref = malloc((size_t)n * sizeof(float));
	float *out = malloc((size_t)n * sizeof(float));
	assert_non_null(ref);
	assert_non_null(out);
	for (int64_t i = 0; i < n; i++)
		ref[i] = out[i] = 1.0f + (float)(i % 1000) * 1e-3f;
	nodus_tolerance tol = tol_of(1e-3, 0.0, 0.5, -1.0);
	nodus_check res;
	/* errors only in later chunks: the first must be the lowest index */
	const int64_t bad[] = {n - 1, 4200000, 3100000, 2100001};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		out[bad[k]] += 0.5f * (float)(k + 1);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, n, &tol, &res),
			 NODUS_STATUS_OK);
	assert_int_equal(res.n_bad, 4);
	assert_int_equal(res.first_bad, 2100001);
	assert_true(fabs(res.max_abs_err - 2.0) < 1e-6); /* the one at n - 1 */

	/* unwritten elements in two chunks: counted in both, first is first */
	nodus_judge_poison(out + 3500000, NODUS_DTYPE_FLOAT32, 2);
	nodus_judge_poison(out + 1500000, NODUS_DTYPE_FLOAT32, 1);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, n, &tol, &res),
			 NODUS_STATUS_INCORRECT_SHAPE);
	assert_int_equal(res.n_unwritten, 3);
	assert_int_equal(res.first_bad, 1500000);

	/* constant in every chunk but the last: not constant */
	for (int64_t i = 0; i < n; i++)
		out[i] = 1.0f;
	out[n - 2] = 2.0f;
	nodus_tolerance loose = tol_of(10.0, 0.0, 1.0, -1.0);
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, n, &loose, &res),
			 NODUS_STATUS_OK);
	out[n - 2] = 1.0f;
	assert_int_equal(nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, n, &loose, &res),
			 NODUS_STATUS_REWARD_HACK);
	assert_string_equal(res.guard, "constant_output");
	free(ref);
	free(out);
}

/* ---- input_independent_output (follow.c) ---- */

#define FN 8192 /* rows of a row-mean-like output: above NODUS_FOLLOW_SAMPLES */

/* Reference outputs of instance `seed`: N(0, 0.125^2), the mean of 64
 * standard normals, as float32. */
static void follow_ref(float *r, int64_t n, uint64_t seed)
{
	nodus_dist d = {NODUS_DIST_NORMAL, 0.0, 0.125, -1, NULL, 0};
	assert_int_equal(nodus_judge_fill(r, NODUS_DTYPE_FLOAT32, n, &d, NULL, 0, seed, 0), 0);
}

/* The three dithers of the adversarial suite, none of which reads an
 * input beyond a few elements: by an address, by a call counter, by a
 * hash of three inputs. */
static void dithered(float *c, int64_t n, int how, uint64_t call, const float *r)
{
	uint32_t h = 2166136261u;
	for (int k = 0; k < 3; k++) {
		uint32_t w;
		memcpy(&w, &r[k * 97], 4);
		h = (h ^ w) * 16777619u;
	}
	uintptr_t addr = (uintptr_t)c + (uintptr_t)call * 4096u;
	for (int64_t i = 0; i < n; i++) {
		uint32_t v = how == 0 ? (uint32_t)(addr >> 4) + (uint32_t)i * 2654435761u
			     : how == 1 ? (uint32_t)call * 40503u + (uint32_t)i * 2654435761u
					: h + (uint32_t)i * 2654435761u;
		c[i] = (float)((double)(v >> 8) * 0x1p-24 * 1e-4);
	}
}

/* Each dithered constant passes nodus_judge_compare on its own (the
 * tolerance is 3 sigma, 99% must match; the dither defeats
 * constant_output) and fails the follow check against an earlier
 * instance; the honest output passes both. */
static void test_follow_dithered_constant(void **state)
{
	(void)state;
	float *r1 = malloc(FN * 4), *r2 = malloc(FN * 4), *c1 = malloc(FN * 4), *c2 = malloc(FN * 4);
	assert_true(r1 && r2 && c1 && c2);
	follow_ref(r1, FN, 11);
	follow_ref(r2, FN, 12);
	nodus_tolerance tol = tol_of(0.375, 0.0, 0.99, -1.0);
	nodus_check res;
	for (int how = 0; how < 3; how++) {
		nodus_follow f = {0};
		dithered(c1, FN, how, 1, r1);
		dithered(c2, FN, how, 2, r2);
		assert_int_equal(nodus_judge_compare("y", c1, r1, NODUS_DTYPE_FLOAT32, FN, &tol, &res),
				 NODUS_STATUS_OK);
		assert_int_equal(nodus_judge_compare("y", c2, r2, NODUS_DTYPE_FLOAT32, FN, &tol, &res),
				 NODUS_STATUS_OK);
		assert_true(memcmp(c1, c2, FN * 4) != 0); /* bit-different per call */
		assert_int_equal(nodus_judge_follow_keep(&f, c1, r1, NODUS_DTYPE_FLOAT32, FN, 99, 3), 0);
		assert_int_equal(f.n, NODUS_FOLLOW_SAMPLES);
		assert_int_equal(nodus_judge_follow_check(&f, "y", c2, r2, NODUS_DTYPE_FLOAT32, FN,
							  &tol, &res),
				 NODUS_STATUS_REWARD_HACK);
		assert_string_equal(res.guard, "input_independent_output");
		assert_non_null(strstr(res.detail, "y does not follow its inputs"));
		assert_non_null(strstr(res.detail, "since instance 3"));
		assert_non_null(strstr(res.detail, "moved with it at 0 "));
		nodus_judge_follow_release(&f);
		assert_null(f.index);
	}
	/* honest: float32 rounding of a double computation */
	nodus_follow f = {0};
	for (int64_t i = 0; i < FN; i++) {
		c1[i] = (float)((double)r1[i] * (1.0 + 1e-7));
		c2[i] = (float)((double)r2[i] * (1.0 - 1e-7));
	}
	assert_int_equal(nodus_judge_follow_keep(&f, c1, r1, NODUS_DTYPE_FLOAT32, FN, 99, 0), 0);
	assert_int_equal(nodus_judge_follow_check(&f, "y", c2, r2, NODUS_DTYPE_FLOAT32, FN, &tol,
						  &res),
			 NODUS_STATUS_OK);
	assert_string_equal(res.guard, "");
	/* a candidate right on a strided subset (every 16th element) and
	 * constant elsewhere: the sample is drawn from the seed, not a
	 * stride, so most of it still misses */
	for (int64_t i = 0; i < FN; i++) {
		c1[i] = i % 16 ? 1e-4f * (float)(i % 5) : r1[i];
		c2[i] = i % 16 ? 1e-4f * (float)(i % 7) : r2[i];
	}
	assert_int_equal(nodus_judge_follow_keep(&f, c1, r1, NODUS_DTYPE_FLOAT32, FN, 5, 0), 0);
	assert_int_equal(nodus_judge_follow_check(&f, "y", c2, r2, NODUS_DTYPE_FLOAT32, FN, &tol,
						  &res),
			 NODUS_STATUS_REWARD_HACK);
	nodus_judge_follow_release(&f);
	free(r1);
	free(r2);
	free(c1);
	free(c2);
	/* right exactly where a stride of numel / NODUS_FOLLOW_SAMPLES would
	 * sample (every 8th of 8 * 4096 elements), a dither elsewhere */
	const int64_t n = 8 * (int64_t)NODUS_FOLLOW_SAMPLES;
	float *s1 = malloc((size_t)n * 4), *s2 = malloc((size_t)n * 4);
	float *d1 = malloc((size_t)n * 4), *d2 = malloc((size_t)n * 4);
	assert_true(s1 && s2 && d1 && d2);
	follow_ref(s1, n, 21);
	follow_ref(s2, n, 22);
	for (int64_t i = 0; i < n; i++) {
		d1[i] = i % 8 ? 1e-4f * (float)(i % 5) : s1[i];
		d2[i] = i % 8 ? 1e-4f * (float)(i % 7) : s2[i];
	}
	assert_int_equal(nodus_judge_follow_keep(&f, d1, s1, NODUS_DTYPE_FLOAT32, n, 6, 0), 0);
	assert_int_equal(nodus_judge_follow_check(&f, "y", d2, s2, NODUS_DTYPE_FLOAT32, n, &tol,
						  &res),
			 NODUS_STATUS_REWARD_HACK);
	nodus_judge_follow_release(&f);
	free(s1);
	free(s2);
	free(d1);
	free(d2);
}

/* The guard's margin: honest errors anywhere in the tolerance band, drawn
 * independently per instance, never make half the changed elements miss;
 * an output that moves half as far as the reference is the boundary. */
static void test_follow_honest_margin(void **state)
{
	(void)state;
	enum { n = 4096 };
	static double r1[n], r2[n], c1[n], c2[n], e[2 * n];
	nodus_dist ref = {NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0};
	nodus_dist band = {NODUS_DIST_UNIFORM, -1.0, 1.0, -1, NULL, 0};
	nodus_tolerance tol = tol_of(0.5, 0.01, 1.0, -1.0);
	int64_t changed, followed, missed;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		nodus_judge_fill(r1, NODUS_DTYPE_FLOAT64, n, &ref, NULL, 0, seed, 0);
		nodus_judge_fill(r2, NODUS_DTYPE_FLOAT64, n, &ref, NULL, 0, seed, 1);
		nodus_judge_fill(e, NODUS_DTYPE_FLOAT64, 2 * n, &band, NULL, 0, seed, 2);
		for (int k = 0; k < n; k++) {
			c1[k] = r1[k] + e[k] * (tol.atol + tol.rtol * fabs(r1[k]));
			c2[k] = r2[k] + e[n + k] * (tol.atol + tol.rtol * fabs(r2[k]));
		}
		nodus_judge_follow_count(c1, r1, c2, r2, n, &tol, &changed, &followed, &missed);
		assert_true(changed > 1000);
		assert_true(2 * followed >= changed);
		assert_true((double)followed / (double)changed > 0.65); /* about 0.72 at worst */
	}
	/* moved exactly half-way: followed; a little less: missed */
	double a1[1] = {0.0}, a2[1] = {2.0}, h1[1] = {0.5}, h2[1] = {1.5};
	nodus_tolerance t1 = tol_of(1.0, 0.0, 1.0, -1.0);
	nodus_judge_follow_count(h1, a1, h2, a2, 1, &t1, &changed, &followed, &missed);
	assert_int_equal(changed, 1);
	assert_int_equal(followed, 1);
	h2[0] = 1.49;
	nodus_judge_follow_count(h1, a1, h2, a2, 1, &t1, &changed, &followed, &missed);
	assert_int_equal(followed, 0);
	assert_int_equal(missed, 0);
	/* the reference moved by no more than the tolerance: not a change */
	a2[0] = 1.0;
	nodus_judge_follow_count(h1, a1, h2, a2, 1, &t1, &changed, &followed, &missed);
	assert_int_equal(changed, 0);
	/* outside the tolerance in one instance (a matched_ratio miss) or not
	 * finite: left out, the comparison has judged it */
	a2[0] = 2.0;
	h2[0] = 3.5;
	nodus_judge_follow_count(h1, a1, h2, a2, 1, &t1, &changed, &followed, &missed);
	assert_int_equal(changed, 0);
	h2[0] = NAN;
	a2[0] = NAN;
	nodus_judge_follow_count(h1, a1, h2, a2, 1, &t1, &changed, &followed, &missed);
	assert_int_equal(changed, 0);
}

/* Where the guard cannot judge: a reference that never moves beyond the
 * tolerance (softmax_wide: every probability within atol), fewer than
 * NODUS_FOLLOW_MIN_CHANGED changed elements, a small output kept whole,
 * and calls without a kept instance of the shape. */
static void test_follow_limits(void **state)
{
	(void)state;
	enum { n = 64 };
	float r1[n], r2[n], c[n];
	nodus_tolerance tol = tol_of(0.5, 0.0, 1.0, -1.0);
	nodus_check res;
	nodus_follow f = {0};
	for (int i = 0; i < n; i++) {
		r1[i] = 0.01f * (float)(i % 9);
		r2[i] = 0.01f * (float)((i + 4) % 9);
		c[i] = 1e-3f * (float)(i % 3);
	}
	assert_int_equal(nodus_judge_follow_keep(&f, c, r1, NODUS_DTYPE_FLOAT32, n, 1, 0), 0);
	assert_int_equal(f.n, n); /* kept whole */
	for (int i = 0; i < n; i++)
		assert_int_equal(f.index[i], i);
	assert_int_equal(nodus_judge_follow_check(&f, "y", c, r2, NODUS_DTYPE_FLOAT32, n, &tol,
						  &res),
			 NODUS_STATUS_OK);
	/* NODUS_FOLLOW_MIN_CHANGED - 1 elements moved from -0.3 to 0.3 (by more
	 * than atol, each within atol of the output) and not followed: too few */
	for (int i = 0; i < NODUS_FOLLOW_MIN_CHANGED; i++)
		r1[i] = -0.3f;
	assert_int_equal(nodus_judge_follow_keep(&f, c, r1, NODUS_DTYPE_FLOAT32, n, 1, 0), 0);
	for (int i = 0; i < NODUS_FOLLOW_MIN_CHANGED - 1; i++)
		r2[i] = 0.3f;
	assert_int_equal(nodus_judge_follow_check(&f, "y", c, r2, NODUS_DTYPE_FLOAT32, n, &tol,
						  &res),
			 NODUS_STATUS_OK);
	r2[NODUS_FOLLOW_MIN_CHANGED - 1] = 0.3f;
	assert_int_equal(nodus_judge_follow_check(&f, "y", c, r2, NODUS_DTYPE_FLOAT32, n, &tol,
						  &res),
			 NODUS_STATUS_REWARD_HACK);
	assert_int_equal(res.first_bad, 0);
	/* another shape or dtype, or nothing kept: refused, not judged */
	assert_int_equal(nodus_judge_follow_check(&f, "y", c, r2, NODUS_DTYPE_FLOAT32, n - 1, &tol,
						  &res),
			 NODUS_EINVAL);
	assert_int_equal(nodus_judge_follow_check(&f, "y", c, r2, NODUS_DTYPE_INT32, n, &tol, &res),
			 NODUS_EINVAL);
	nodus_judge_follow_release(&f);
	assert_int_equal(nodus_judge_follow_check(&f, "y", c, r2, NODUS_DTYPE_FLOAT32, n, &tol,
						  &res),
			 NODUS_EINVAL);
	assert_int_equal(nodus_judge_follow_keep(&f, c, r1, NODUS_DTYPE_FLOAT32, 0, 1, 0),
			 NODUS_EINVAL);
	nodus_judge_follow_release(NULL);
	/* integers: an argmax-like output that stays put */
	int32_t i1[n], i2[n], ic[n];
	for (int i = 0; i < n; i++) {
		i1[i] = i;
		i2[i] = (i * 7) % n;
		ic[i] = i % 2;
	}
	nodus_tolerance exact = tol_of(100.0, 0.0, 1.0, -1.0);
	assert_int_equal(nodus_judge_follow_keep(&f, ic, i1, NODUS_DTYPE_INT32, n, 1, 0), 0);
	assert_int_equal(nodus_judge_follow_check(&f, "k", ic, i2, NODUS_DTYPE_INT32, n, &exact,
						  &res),
			 NODUS_STATUS_OK); /* every move within the wide tolerance */
	exact = tol_of(5.0, 0.0, 1.0, -1.0);
	for (int i = 0; i < n; i++)
		ic[i] = i % 2 + 20;
	for (int i = 0; i < n; i++) {
		i1[i] = 20 + (i % 9) - 4;
		i2[i] = 20 - (i % 9) + 4;
	}
	assert_int_equal(nodus_judge_follow_keep(&f, ic, i1, NODUS_DTYPE_INT32, n, 1, 0), 0);
	assert_int_equal(nodus_judge_follow_check(&f, "k", ic, i2, NODUS_DTYPE_INT32, n, &exact,
						  &res),
			 NODUS_STATUS_REWARD_HACK); /* moves of 6 and 8 around 20, never followed */
	nodus_judge_follow_release(&f);
}

static void test_compare_bad_arguments(void **state)
{
	(void)state;
	double a[2] = {1, 2};
	nodus_tolerance tol = tol_of(0.0, 0.0, 1.0, -1.0);
	nodus_check res;
	assert_int_equal(nodus_judge_compare("y", a, a, 99, 2, &tol, &res), NODUS_EINVAL);
	assert_int_equal(res.status, NODUS_EINVAL);
	assert_string_equal(res.guard, "invalid_arguments");
	assert_int_equal(nodus_judge_compare("y", a, NULL, NODUS_DTYPE_FLOAT64, 2, &tol, &res),
			 NODUS_EINVAL);
	tol.matched_ratio = 0.0;
	assert_int_equal(nodus_judge_compare("y", a, a, NODUS_DTYPE_FLOAT64, 2, &tol, &res), NODUS_EINVAL);
	tol.matched_ratio = 1.0;
	assert_int_equal(nodus_judge_compare(NULL, a, a, NODUS_DTYPE_FLOAT64, 0, &tol, &res),
			 NODUS_STATUS_OK);
}

/* ---- 5. checksum ---- */

static void test_checksum_bit_flips(void **state)
{
	(void)state;
	enum { NB = 1003 };
	static unsigned char buf[NB + 1];
	for (int i = 0; i < NB; i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	uint64_t h = nodus_judge_checksum(buf, NB);
	assert_int_equal(nodus_judge_checksum(buf, NB), h);
	for (int i = 0; i < NB; i++) {
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (unsigned char)(1u << bit);
			if (nodus_judge_checksum(buf, NB) == h)
				fail_msg("flipping bit %d of byte %d left the checksum unchanged", bit, i);
			buf[i] ^= (unsigned char)(1u << bit);
		}
	}
	assert_int_equal(nodus_judge_checksum(buf, NB), h);
	buf[NB] = 0;
	assert_true(nodus_judge_checksum(buf, NB + 1) != h); /* a trailing zero byte counts */
	assert_true(nodus_judge_checksum(buf, 0) != nodus_judge_checksum(buf, 1) || buf[0] != 0);
	/* swapping two words changes it too (lanes are ordered) */
	unsigned char tmp[8];
	memcpy(tmp, buf, 8);
	memcpy(buf, buf + 8, 8);
	memcpy(buf + 8, tmp, 8);
	assert_true(nodus_judge_checksum(buf, NB) != h);
}

/* Scans in the calling thread only (the cpu audit process forbids thread
 * creation) give what the threaded scan gives. Changes process state:
 * runs last. */
static void test_compare_single_threaded(void **state)
{
	(void)state;
	const int64_t n = ((int64_t)1 << 20) * 3 + 17;
	float *ref = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
	assert_true(ref && out);
	for (int64_t i = 0; i < n; i++)
		ref[i] = out[i] = (float)(i % 977) * 1e-3f;
	out[2500000] += 1.0f;
	out[100] += 0.5f;
	nodus_judge_poison(ref + 3000000, NODUS_DTYPE_FLOAT32, 1);
	nodus_tolerance tol = tol_of(1e-3, 0.0, 0.5, -1.0);
	nodus_check a, b;
	int64_t fa, fb;
	int sa = nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, n, &tol, &a);
	int64_t ua = nodus_judge_reference_unwritten(ref, NODUS_DTYPE_FLOAT32, n, &fa);
	nodus_judge_single_threaded();
	int sb = nodus_judge_compare("y", out, ref, NODUS_DTYPE_FLOAT32, n, &tol, &b);
	int64_t ub = nodus_judge_reference_unwritten(ref, NODUS_DTYPE_FLOAT32, n, &fb);
	assert_int_equal(sa, sb);
	assert_int_equal(sa, NODUS_STATUS_INVALID_REFERENCE);
	assert_int_equal(a.first_bad, b.first_bad);
	assert_int_equal(a.n_bad, b.n_bad);
	assert_true(a.max_abs_err == b.max_abs_err);
	assert_string_equal(a.detail, b.detail);
	assert_int_equal(ua, 1);
	assert_int_equal(ub, 1);
	assert_int_equal(fa, 3000000);
	assert_int_equal(fb, 3000000);
	free(ref);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_philox_known_answers),
		cmocka_unit_test(test_stream_id_and_trial_seed),
		cmocka_unit_test(test_fill_deterministic_and_separated),
		cmocka_unit_test(test_fill_matches_documented_mapping),
		cmocka_unit_test(test_fill_documented_vector),
		cmocka_unit_test(test_normal_moments),
		cmocka_unit_test(test_uniform_and_positive_bounds),
		cmocka_unit_test(test_affine_never_identity),
		cmocka_unit_test(test_affine_scale_both_signs),
		cmocka_unit_test(test_int_range_and_index),
		cmocka_unit_test(test_fill_rejects_bad_pairs),
		cmocka_unit_test(test_fill_at_and_device_spec),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_affine_variants_keep_promise),
		cmocka_unit_test(test_float16_conversions),
		cmocka_unit_test(test_bfloat16_conversions),
		cmocka_unit_test(test_load_store),
		cmocka_unit_test(test_poison_patterns),
		cmocka_unit_test(test_compare_exact_match),
		cmocka_unit_test(test_compare_unwritten),
		cmocka_unit_test(test_reference_unwritten),
		cmocka_unit_test(test_compare_f32_matches_generic),
		cmocka_unit_test(test_compare_nan_inf),
		cmocka_unit_test(test_compare_tolerance_boundary),
		cmocka_unit_test(test_compare_matched_ratio),
		cmocka_unit_test(test_compare_cap),
		cmocka_unit_test(test_compare_constant_output),
		cmocka_unit_test(test_compare_large_chunks_merge),
		cmocka_unit_test(test_compare_bad_arguments),
		cmocka_unit_test(test_follow_dithered_constant),
		cmocka_unit_test(test_follow_honest_margin),
		cmocka_unit_test(test_follow_limits),
		cmocka_unit_test(test_checksum_bit_flips),
		cmocka_unit_test(test_compare_single_threaded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
