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
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/protocol.h"
#include "run/timed_checks.h"

static void test_checks_land_where_they_may(void **state)
{
	(void)state;
	for (int rep = 0; rep < 200; rep++) {
		nodus_timed_plan p;
		assert_int_equal(nodus_timed_plan_init(&p, 37, 4, 30, 90), 0);
		assert_int_equal(p.n_checks, 4);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_land_where_they_may),
		cmocka_unit_test(test_checked_sample_looks_like_any),
		cmocka_unit_test(test_sized_refused),
		cmocka_unit_test(test_clock_crosscheck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
