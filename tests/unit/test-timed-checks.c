/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-timed-checks.c: src/run/timed_checks.h, what the protocol's claims
 * rest on:
 *
 * 1. Checks land where they may: the first among the samples every attempt
 *    takes, the others among all it may take, each on one of the worker's
 *    copies; a sample's window and perturbation are the same however often
 *    they are asked for.
 * 2. A checked sample cannot be told from another: its window holds the
 *    checked copy at a position inside the batch, and the windows of
 *    checked samples start anywhere, as unchecked ones do.
 * 3. SIZED frames: a batch larger than the copies, or a second SIZED, is
 *    refused.
 * 4. The clock cross-check: honest batches (small gaps, the same on both
 *    sides, with occasional scheduling delays on either) pass; a candidate
 *    reporting 30% less than it took, or a reference reporting more, is
 *    caught; a BATCH without its START is refused.
 * 5. Fresh samples: exactly max(8, a sixth) of the guaranteed ones, about
 *    one in eight later, and a check as likely on a fresh sample as any
 *    sample is (so a fresh sample says nothing of checks); the warm-up
 *    windows walk over every copy.
 * 6. The memoization test: honest log-ratios (normal or heavy-tailed
 *    noise, fresh and others alike) pass in 2000 of 2000 draws; a gain of
 *    25% on the others only is caught in every draw, one of 10% in most
 *    (a fifth of the samples here have a heavy tail of +-30%), one of 1%
 *    in none (below the gap).
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "run/protocol.h"
#include "run/timed_checks.h"

static void test_checks_land_where_they_may(void **state)
{
	(void)state;
	for (int rep = 0; rep < 200; rep++) {
		nodus_timed_plan p;
		assert_int_equal(nodus_timed_plan_init(&p, 37, 4, 30, 90), 0);
		assert_int_equal(p.n_checks, 5); /* and the one on a fresh sample */
		assert_true(p.check[4].fresh && p.check[4].sample < 30);
		/* the first half among the guaranteed samples */
		assert_true(p.check[0].sample >= 0 && p.check[0].sample < 30);
		assert_true(p.check[1].sample >= 0 && p.check[1].sample < 30);
		for (int r = 0; r < p.n_checks; r++) {
			assert_true(p.check[r].sample >= 0 && p.check[r].sample < 90);
			assert_true(p.check[r].copy >= 0 && p.check[r].copy < 37);
			assert_true(p.check[r].perturbation <= (uint64_t)INT64_MAX);
		}
		int32_t w1, w2;
		uint64_t q1, q2;
		nodus_timed_plan_sample(&p, 5, &w1, &q1);
		nodus_timed_plan_sample(&p, 5, &w2, &q2);
		assert_int_equal(w1, w2);
		assert_true(q1 == q2);
		nodus_timed_plan_release(&p);
	}
}

static void test_checked_sample_looks_like_any(void **state)
{
	(void)state;
	int starts_checked[16] = {0}, starts_other[16] = {0};
	for (int rep = 0; rep < 4000; rep++) {
		nodus_timed_plan p;
		assert_int_equal(nodus_timed_plan_init(&p, 16, 1, 10, 10), 0);
		assert_int_equal(nodus_timed_plan_sized(&p, 6, 16), 0);
		nodus_timed_check *c = &p.check[0];
		c->instance = 3;
		for (int64_t k = 0; k < 10; k++) {
			int32_t w;
			uint64_t q;
			nodus_timed_plan_sample(&p, k, &w, &q);
			assert_true(w >= 0 && w < 16);
			if (k == c->sample) {
				int pos = (c->copy - w + 16) % 16;
				assert_true(pos < 6); /* the checked copy is in the batch */
				assert_true(q == c->perturbation);
				starts_checked[w]++;
				assert_ptr_equal(nodus_timed_plan_check_at(&p, k), c);
			} else {
				assert_null(nodus_timed_plan_check_at(&p, k));
				starts_other[w]++;
			}
		}
		nodus_timed_plan_release(&p);
	}
	/* every start is as likely for a checked sample as for another: 4000
	 * checked samples over 16 starts (250 each), 36000 others (2250 each) */
	for (int w = 0; w < 16; w++) {
		assert_true(starts_checked[w] > 170 && starts_checked[w] < 330);
		assert_true(starts_other[w] > 2000 && starts_other[w] < 2500);
	}
}

static void test_sized_refused(void **state)
{
	(void)state;
	nodus_timed_plan p;
	assert_int_equal(nodus_timed_plan_init(&p, 8, 2, 10, 20), 0);
	assert_int_equal(nodus_timed_plan_sized(&p, 9, 8), -1);
	assert_int_equal(nodus_timed_plan_sized(&p, 0, 8), -1);
	assert_int_equal(nodus_timed_plan_sized(&p, 4, 7), -1);
	assert_int_equal(nodus_timed_plan_sized(&p, 8, 8), 0);
	assert_int_equal(nodus_timed_plan_sized(&p, 8, 8), -1);
	nodus_timed_plan_release(&p);
}

/* Feeds n batches per side: each lasts took_ns, is reported as reported
 * times took_ns, and its frames arrive gap_ns late, with every seventh
 * batch of either side delayed by a further 3 ms (a busy machine). */
static int bent(double cand_report, double ref_report, int n)
{
	nodus_timed_plan p;
	assert_int_equal(nodus_timed_plan_init(&p, 4, 0, 10, 10), 0);
	uint64_t now = 1000000000ull;
	for (int i = 0; i < n; i++) {
		for (int role = 0; role < 2; role++) {
			double took = role == NODUS_ROLE_CANDIDATE ? 400000.0 : 1000000.0;
			double report = role == NODUS_ROLE_CANDIDATE ? cand_report : ref_report;
			uint64_t late = (i % 7 == role) ? 3000000 : 0;
			nodus_timed_plan_start(&p, i, role, now + (i % 5 == 2 ? late : 0));
			now += (uint64_t)took + 20000 + (i % 5 == 2 ? 0 : late);
			assert_int_equal(nodus_timed_plan_batch(&p, i, role, (int64_t)(took * report), now),
					 0);
			now += 100000;
		}
	}
	char msg[400];
	int r = nodus_timed_plan_clock_bent(&p, msg, sizeof(msg));
	nodus_timed_plan_release(&p);
	return r;
}

static void test_clock_crosscheck(void **state)
{
	(void)state;
	assert_int_equal(bent(1.0, 1.0, 60), 0);  /* honest */
	assert_int_equal(bent(0.7, 1.0, 60), 1);  /* the candidate's clock slowed */
	assert_int_equal(bent(1.0, 1.5, 60), 1);  /* the reference's clock sped up */
	assert_int_equal(bent(0.7, 1.0, 2), 0);   /* too few batches to say */
	/* the allowance, 10 us + 0.5% of the candidate's 400 us batch = 12 us:
	 * a bend of 5% (20 us) is caught, which 50 us + 5% let through and a
	 * Python candidate used (FASTER 1.10, session 19); 1% (4 us) is not */
	assert_int_equal(bent(0.95, 1.0, 60), 1);
	assert_int_equal(bent(0.99, 1.0, 60), 0);
	nodus_timed_plan p;
	assert_int_equal(nodus_timed_plan_init(&p, 4, 0, 10, 10), 0);
	assert_int_equal(nodus_timed_plan_batch(&p, 0, NODUS_ROLE_CANDIDATE, 10, 20), -1);
	nodus_timed_plan_start(&p, 0, NODUS_ROLE_CANDIDATE, 5);
	assert_int_equal(nodus_timed_plan_batch(&p, 0, NODUS_ROLE_REFERENCE, 10, 20), -1);
	nodus_timed_plan_release(&p);
}

static void test_fresh_samples(void **state)
{
	(void)state;
	int checks = 0, checks_fresh = 0;
	int64_t later = 0, later_fresh = 0;
	for (int rep = 0; rep < 500; rep++) {
		nodus_timed_plan p;
		assert_int_equal(nodus_timed_plan_init(&p, 16, 8, 30, 120), 0);
		int guaranteed_fresh = 0;
		for (int64_t k = 0; k < 30; k++)
			guaranteed_fresh += nodus_timed_plan_fresh(&p, k);
		assert_int_equal(guaranteed_fresh, NODUS_FRESH_MIN); /* 30 / 6 < 8 */
		for (int64_t k = 30; k < 120; k++, later++)
			later_fresh += nodus_timed_plan_fresh(&p, k);
		assert_int_equal(nodus_timed_plan_fresh(&p, 120), 0);
		assert_int_equal(nodus_timed_plan_fresh(&p, -1), 0);
		assert_int_equal(p.n_checks, 9);            /* 8 and one more */
		assert_int_equal(p.check[8].fresh, 1);      /* always on a fresh sample */
		assert_true(p.check[8].sample < 30);        /* that every attempt takes */
		for (int r = 0; r < p.n_checks; r++) {
			assert_int_equal(p.check[r].fresh, nodus_timed_plan_fresh(&p, p.check[r].sample));
			checks++;
			checks_fresh += p.check[r].fresh;
		}
		nodus_timed_plan_release(&p);
	}
	/* later: 45000 samples at 1/8 (5625); checks: 4500, of which the
	 * guaranteed half land on a fresh sample at 8/30, the rest at
	 * (8 + 90/8) / 120, and the one more always: 2000 * 0.267 + 2000 *
	 * 0.16 + 500, about 1354 */
	assert_true(later_fresh > 5300 && later_fresh < 5950);
	print_message("fresh: later %lld of 45000, checks on fresh %d of %d\n", (long long)later_fresh,
		      checks_fresh, checks);
	assert_true(checks_fresh > 1250 && checks_fresh < 1460);
	assert_true(checks == 4500);

	nodus_timed_plan p;
	assert_int_equal(nodus_timed_plan_init(&p, 100, 0, 600, 600), 0);
	int64_t n = 0;
	for (int64_t k = 0; k < 600; k++)
		n += nodus_timed_plan_fresh(&p, k);
	assert_int_equal(n, 100); /* a sixth of 600 */
	nodus_timed_plan_release(&p);
	/* few guaranteed samples: at most half of them */
	assert_int_equal(nodus_timed_plan_init(&p, 4, 0, 6, 6), 0);
	n = 0;
	for (int64_t k = 0; k < 6; k++)
		n += nodus_timed_plan_fresh(&p, k);
	assert_int_equal(n, 3);
	nodus_timed_plan_release(&p);
}

static void test_warm_windows_walk(void **state)
{
	(void)state;
	nodus_timed_plan p;
	assert_int_equal(nodus_timed_plan_init(&p, 10, 0, 30, 30), 0);
	assert_int_equal(nodus_timed_plan_sized(&p, 4, 10), 0);
	assert_int_equal(nodus_timed_plan_warm_window(&p, NODUS_ROLE_CANDIDATE, 0), 0);
	assert_int_equal(nodus_timed_plan_warm_window(&p, NODUS_ROLE_REFERENCE, 0), 0);
	assert_int_equal(nodus_timed_plan_warm_window(&p, NODUS_ROLE_CANDIDATE, 0), 4);
	assert_int_equal(nodus_timed_plan_warm_window(&p, NODUS_ROLE_CANDIDATE, 1), 8);
	for (int j = 0; j < 10; j++)
		assert_int_equal(p.warmed[j], j < 9);
	assert_int_equal(nodus_timed_plan_warm_window(&p, NODUS_ROLE_CANDIDATE, 0), 9);
	for (int j = 0; j < 10; j++)
		assert_int_equal(p.warmed[j], 1);
	nodus_timed_plan_release(&p);
}

/* Draws n log-ratios: noise of sd 0.02 (every fifth sample of a heavy
 * tail: a preemption of up to 30% on either side), plus shift. */
static void draw_ratios(nodus_rng *rng, double *r, int n, double shift)
{
	for (int i = 0; i < n; i++) {
		double u1 = nodus_rng_uniform(rng) + 1e-12, u2 = nodus_rng_uniform(rng);
		double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
		r[i] = shift + 0.02 * z;
		if (i % 5 == 4)
			r[i] += (nodus_rng_uniform(rng) - 0.5) * 0.6;
	}
}

static void test_memo_test(void **state)
{
	(void)state;
	nodus_rng rng;
	nodus_rng_seed(&rng, 20261204);
	double f[40], o[40];
	char msg[512];
	nodus_memo_view v;
	int honest_flagged = 0, caught = 0, small_caught = 0, big_caught = 0, honest_confirmed = 0;
	for (int rep = 0; rep < 2000; rep++) {
		int nf = 6 + rep % 7, no = 6 + rep % 29;
		draw_ratios(&rng, f, nf, 0);
		draw_ratios(&rng, o, no, 0);
		assert_int_equal(nodus_timed_memo_view(f, nf, o, no, &v), 0);
		honest_flagged += nodus_timed_memo_found(&v, msg, sizeof(msg));
		v.confirming = 1; /* the lower bar of a confirmation */
		honest_confirmed += nodus_timed_memo_found(&v, msg, sizeof(msg));
	}
	/* honest and spread wide (a loaded machine: uniform over +-0.6 in
	 * log, every fifth sample a further +-0.5): none of 2000 with this
	 * seed, 3 with another (a path that let a gap of 0.4 in log pass at
	 * 3 standard errors flagged 7 to 9 of those 2000: not taken) */
	int honest_wide = 0;
	nodus_rng wide; /* its own stream: the draws below stay as they were */
	nodus_rng_seed(&wide, 20261205);
	for (int rep = 0; rep < 2000; rep++) {
		int nf = 6 + rep % 7, no = 6 + rep % 29;
		for (int i = 0; i < nf || i < no; i++) {
			double a = 1.2 * (nodus_rng_uniform(&wide) - 0.5), b = 1.2 * (nodus_rng_uniform(&wide) - 0.5);
			if (i % 5 == 4)
				a += nodus_rng_uniform(&wide) - 0.5, b += nodus_rng_uniform(&wide) - 0.5;
			if (i < nf)
				f[i] = a;
			if (i < no)
				o[i] = b;
		}
		assert_int_equal(nodus_timed_memo_view(f, nf, o, no, &v), 0);
		honest_wide += nodus_timed_memo_found(&v, msg, sizeof(msg));
	}
	print_message("memo test: honest and spread wide, flagged %d of 2000\n", honest_wide);
	assert_true(honest_wide <= 6);
	/* an honest attempt passes the confirmation's bar about 1 time in 50
	 * at most, so a false first alarm rarely stands */
	print_message("memo test: honest attempts past the confirmation's bar: %d of 2000\n",
		      honest_confirmed);
	assert_true(honest_confirmed < 60);
	for (int rep = 0; rep < 200; rep++) {
		draw_ratios(&rng, f, 8, 0);
		draw_ratios(&rng, o, 20, -0.10); /* 10% faster where little changed */
		assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
		caught += nodus_timed_memo_found(&v, msg, sizeof(msg));
		draw_ratios(&rng, f, 8, 0);
		draw_ratios(&rng, o, 20, -0.25);
		assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
		big_caught += nodus_timed_memo_found(&v, msg, sizeof(msg));
		draw_ratios(&rng, f, 8, 0);
		draw_ratios(&rng, o, 20, -0.01);
		assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
		small_caught += nodus_timed_memo_found(&v, msg, sizeof(msg));
	}
	print_message("memo test: honest flagged %d of 2000; caught of 200: 10%% %d, 25%% %d, 1%% %d\n",
		      honest_flagged, caught, big_caught, small_caught);
	assert_int_equal(honest_flagged, 0);
	assert_true(caught >= 150); /* 170 with this seed */
	assert_int_equal(big_caught, 200);
	assert_int_equal(small_caught, 0);
	draw_ratios(&rng, f, 8, 0.5);
	draw_ratios(&rng, o, 20, 0);
	assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
	assert_int_equal(nodus_timed_memo_found(&v, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "drawn afresh"));
	/* the draw's own cost: an honest call that mostly reads inputs just
	 * written is slower on its fresh samples (the H200's torch
	 * vector_scale: 11%, its draw 23% of its call); 0.3 in log here, a
	 * memo by the gap alone (its others hold outliers as large), is not
	 * one where the draw allows 0.35, and is a memo again once the gap
	 * exceeds that */
	draw_ratios(&rng, f, 8, 0.3);
	draw_ratios(&rng, o, 20, 0);
	assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
	assert_int_equal(nodus_timed_memo_found(&v, msg, sizeof(msg)), 1);
	v.draw_gap = 0.35;
	assert_int_equal(nodus_timed_memo_found(&v, msg, sizeof(msg)), 0);
	draw_ratios(&rng, f, 8, 0.7);
	assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
	v.draw_gap = 0.35;
	assert_int_equal(nodus_timed_memo_found(&v, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "accounts for at most 1.42 times"));
	/* a memo 20% faster where little changed, its others noisy: short of
	 * the first bar, past the confirmation's */
	int first_bar = 0, confirm_bar = 0;
	for (int rep = 0; rep < 200; rep++) {
		draw_ratios(&rng, f, 8, 0.2);
		for (int i = 0; i < 20; i++) /* a loaded machine: every sample spread */
			o[i] = 0.12 * (nodus_rng_uniform(&rng) - 0.5) * 2;
		assert_int_equal(nodus_timed_memo_view(f, 8, o, 20, &v), 0);
		first_bar += nodus_timed_memo_found(&v, msg, sizeof(msg));
		v.confirming = 1;
		confirm_bar += nodus_timed_memo_found(&v, msg, sizeof(msg));
	}
	print_message("memo test: a noisy 20%% memo past the first bar %d, the confirmation's %d of 200\n",
		      first_bar, confirm_bar);
	assert_true(confirm_bar > first_bar);
	assert_true(confirm_bar >= 180);
	/* too few of either kind: no view */
	assert_int_equal(nodus_timed_memo_view(f, 5, o, 20, &v), -1);
	assert_int_equal(nodus_timed_memo_found(&v, msg, sizeof(msg)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_land_where_they_may),
		cmocka_unit_test(test_checked_sample_looks_like_any),
		cmocka_unit_test(test_sized_refused),
		cmocka_unit_test(test_clock_crosscheck),
		cmocka_unit_test(test_fresh_samples),
		cmocka_unit_test(test_warm_windows_walk),
		cmocka_unit_test(test_memo_test),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
