/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-report.c: the report's arithmetic on synthetic records, without a
 * store. Six pairs over three tasks under an isolated baseline and one
 * shared condition; the expected agreement, kappa, false-fast list, costs
 * and A/A noise were worked out by hand from the table in fill_basic().
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define DIGEST "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define T1 "1111111111111111111111111111111111111111111111111111111111111111"
#define T2 "2222222222222222222222222222222222222222222222222222222222222222"

/* Pairs p1..p3 are task t1, p4..p5 task t2, p6 (an A/A pair) task t3. */
static const char plan_fmt[] =
	"{\"kind\":\"plan\",\"name\":\"synthetic\",\"digest\":\"" DIGEST "\","
	"\"pairs\":["
	"{\"id\":\"p1\",\"task\":\"t1\",\"workload\":\"w1\",\"candidate\":\"fast\",\"reference\":\"ref\",\"expect\":\"FASTER\"},"
	"{\"id\":\"p2\",\"task\":\"t1\",\"workload\":\"w1\",\"candidate\":\"same\",\"reference\":\"ref\",\"expect\":\"TIED\"},"
	"{\"id\":\"p3\",\"task\":\"t1\",\"workload\":\"w1\",\"candidate\":\"slow\",\"reference\":\"ref\",\"expect\":\"SLOWER\"},"
	"{\"id\":\"p4\",\"task\":\"t2\",\"workload\":\"w2\",\"candidate\":\"meh\",\"reference\":\"ref2\",\"expect\":null},"
	"{\"id\":\"p5\",\"task\":\"t2\",\"workload\":\"w2\",\"candidate\":\"boom\",\"reference\":\"ref2\",\"expect\":\"FAIL\"},"
	"{\"id\":\"p6\",\"task\":\"t3\",\"workload\":\"w3\",\"candidate\":\"ref3\",\"reference\":\"ref3\",\"expect\":\"TIED\"}],"
	"\"conditions\":[{\"name\":\"shared\",\"kind\":\"mps\",\"tenants\":2},"
	"{\"name\":\"isolated\",\"kind\":\"isolated\"}],"
	"\"target\":{\"backend\":\"cpu\",\"price_per_device_hour_usd\":%s}}";

struct fixture {
	nodus_report_data d;     /* the input, records owned by the fixture */
	nodus_record recs[32];   /* storage for d.records */
	char plan[4096];         /* storage for d.plan_json */
	char *th[2], *tj[2];     /* target fingerprints */
	json_t *rep;             /* the computed report */
};

static void add(struct fixture *f, const char *pair, const char *cond, int attempt, int final,
		int status, int label, double sp, double lo, double hi)
{
	nodus_record *r = &f->recs[f->d.n_records++];
	memset(r, 0, sizeof(*r));
	snprintf(r->plan_digest, sizeof(r->plan_digest), "%s", DIGEST);
	snprintf(r->pair_id, sizeof(r->pair_id), "%s", pair);
	snprintf(r->condition, sizeof(r->condition), "%s", cond);
	snprintf(r->target_hash, sizeof(r->target_hash), "%s", T1);
	r->attempt = attempt;
	r->final = final;
	r->status = status;
	r->label = label;
	r->speedup = sp;
	r->ci_lo = lo;
	r->ci_hi = hi;
	r->device_s = 100.0;
	r->charge_share = strcmp(cond, "shared") == 0 ? 0.5 : 1.0;
	r->compile_s = 2.0;
	r->validation_s = 0.5;
}

#define OK NODUS_STATUS_OK
#define NONE NODUS_LABEL_NONE

/*          isolated (baseline)          shared
 *   p1     FASTER 1.5 [1.4,1.6]         FASTER 1.45 [1.3,1.6]     agree
 *   p2     TIED   1.0 [0.99,1.01]       FASTER 1.2 [1.1,1.3]      false fast
 *   p3     SLOWER 0.5 [0.45,0.55]       SLOWER 0.6 [0.5,0.7]      agree
 *   p4     AMBIGUOUS 1.1 [0.9,1.3]      FASTER 1.3 [1.2,1.4]      false fast
 *   p5     TIMEOUT (retry), CRASH       CRASH                     left out
 *   p6     TIED 1.0 [0.98,1.0204]       TIED 1.0 [0.95,1.0526]    agree (A/A)
 * p5's baseline failed: it has no label to agree with, so it is left out of
 * the agreement (5 scored pairs). agreement 3/5; baseline margins F1 T2 S1
 * A1, shared F3 S1 T1: chance (1*3 + 2*1 + 1*1)/25 = 6/25, kappa
 * (15/25 - 6/25) / (1 - 6/25) = 9/19. */
static void fill_basic(struct fixture *f, const char *price)
{
	snprintf(f->plan, sizeof(f->plan), plan_fmt, price);
	f->d.plan_json = f->plan;
	snprintf(f->d.plan_digest, sizeof(f->d.plan_digest), "%s", DIGEST);
	f->d.records = f->recs;
	add(f, "p1", "isolated", 1, 1, OK, NODUS_LABEL_FASTER, 1.5, 1.4, 1.6);
	add(f, "p2", "isolated", 1, 1, OK, NODUS_LABEL_TIED, 1.0, 0.99, 1.01);
	add(f, "p3", "isolated", 1, 1, OK, NODUS_LABEL_SLOWER, 0.5, 0.45, 0.55);
	add(f, "p4", "isolated", 1, 1, OK, NODUS_LABEL_AMBIGUOUS, 1.1, 0.9, 1.3);
	add(f, "p5", "isolated", 1, 0, NODUS_STATUS_TIMEOUT, NONE, NAN, NAN, NAN);
	add(f, "p5", "isolated", 2, 1, NODUS_STATUS_CRASH, NONE, NAN, NAN, NAN);
	add(f, "p6", "isolated", 1, 1, OK, NODUS_LABEL_TIED, 1.0, 0.98, 1.0204);
	add(f, "p1", "shared", 1, 1, OK, NODUS_LABEL_FASTER, 1.45, 1.3, 1.6);
	add(f, "p2", "shared", 1, 1, OK, NODUS_LABEL_FASTER, 1.2, 1.1, 1.3);
	add(f, "p3", "shared", 1, 1, OK, NODUS_LABEL_SLOWER, 0.6, 0.5, 0.7);
	add(f, "p4", "shared", 1, 1, OK, NODUS_LABEL_FASTER, 1.3, 1.2, 1.4);
	add(f, "p5", "shared", 1, 1, NODUS_STATUS_CRASH, NONE, NAN, NAN, NAN);
	add(f, "p6", "shared", 1, 1, OK, NODUS_LABEL_TIED, 1.0, 0.95, 1.0526);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	nodus_report_data_init(&f->d);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	json_decref(f->rep);
	free(f);
	return 0;
}

static void compute(struct fixture *f, const char *baseline)
{
	nodus_error err = {0};
	nodus_report_options opt = {.baseline = baseline, .resamples = 500};
	int rc = nodus_report_compute(&f->d, &opt, &f->rep, &err);
	if (rc)
		fail_msg("compute: %s", err.message);
}

static json_t *condition(json_t *rep, const char *name)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(rep, "conditions"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
			return c;
	fail_msg("no condition %s in the report", name);
	return NULL;
}

static double getnum(json_t *o, const char *path1, const char *path2)
{
	json_t *x = json_object_get(o, path1);
	if (path2)
		x = json_object_get(x, path2);
	if (!json_is_number(x))
		fail_msg("%s.%s: expected a number", path1, path2 ? path2 : "");
	return json_number_value(x);
}

static int matrix_cell(json_t *c, const char *row, const char *col)
{
	json_t *m = json_object_get(c, "matrix"), *cats = json_object_get(m, "categories");
	int r = -1, k = -1;
	for (size_t i = 0; i < json_array_size(cats); i++) {
		const char *s = json_string_value(json_array_get(cats, i));
		if (strcmp(s, row) == 0)
			r = (int)i;
		if (strcmp(s, col) == 0)
			k = (int)i;
	}
	if (r < 0 || k < 0)
		return -1;
	return (int)json_integer_value(
		json_array_get(json_array_get(json_object_get(m, "counts"), (size_t)r), (size_t)k));
}

static void test_agreement_and_kappa(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "2.0");
	compute(f, NULL);
	assert_string_equal(json_string_value(json_object_get(f->rep, "baseline")), "isolated");
	json_t *c = condition(f->rep, "shared");
	assert_int_equal(json_integer_value(json_object_get(c, "pairs")), 6);
	assert_int_equal(json_integer_value(json_object_get(c, "scored")), 5);
	assert_int_equal(json_integer_value(json_object_get(c, "agreeing")), 3);
	double ag = getnum(c, "agreement", "estimate"), ka = getnum(c, "kappa", "estimate");
	assert_float_equal(ag, 3.0 / 5.0, 1e-12);
	assert_float_equal(ka, 9.0 / 19.0, 1e-12);
	assert_true(json_is_null(json_object_get(c, "not_enough_data")));
	json_t *lo = json_object_get(c, "left_out");
	assert_int_equal(json_array_size(lo), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(lo, 0), "baseline")),
			    "CRASH");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(lo, 0), "count")), 1);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(json_array_get(lo, 0), "pairs"), 0)), "p5");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(lo, 0), "reason")),
			       "ended CRASH: no label to agree with"));
	assert_true(getnum(c, "agreement", "lo") <= ag && ag <= getnum(c, "agreement", "hi"));
	assert_true(getnum(c, "kappa", "lo") <= ka && ka <= getnum(c, "kappa", "hi"));
	assert_true(getnum(c, "agreement", "lo") < getnum(c, "agreement", "hi"));
	/* matrix: failures and AMBIGUOUS are categories of their own */
	assert_int_equal(matrix_cell(c, "TIED", "FASTER"), 1);
	assert_int_equal(matrix_cell(c, "AMBIGUOUS", "FASTER"), 1);
	assert_int_equal(matrix_cell(c, "TIED", "TIED"), 1);
	assert_int_equal(matrix_cell(c, "CRASH", "CRASH"), 1);
	assert_int_equal(matrix_cell(c, "FASTER", "FASTER"), 1);
	assert_int_equal(matrix_cell(c, "SLOWER", "SLOWER"), 1);
	assert_int_equal(matrix_cell(c, "TIMEOUT", "TIMEOUT"), -1); /* retries are not items */
	/* the baseline against itself */
	json_t *b = condition(f->rep, "isolated");
	assert_true(json_is_true(json_object_get(b, "baseline")));
	assert_float_equal(getnum(b, "agreement", "estimate"), 1.0, 1e-12);
	/* pairs: outcome per condition, failures by status name */
	json_t *p5 = json_array_get(json_object_get(f->rep, "pairs"), 4);
	assert_string_equal(json_string_value(json_object_get(p5, "id")), "p5");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p5, "labels"),
							      "isolated")), "CRASH");
	assert_true(json_is_null(json_object_get(json_object_get(p5, "speedups"), "shared")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(f->rep, "pairs"),
								 3), "expect")));
}

static void test_reproducible(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	json_t *again = NULL;
	fill_basic(f, "2.0");
	compute(f, NULL);
	nodus_report_options opt = {.resamples = 500};
	assert_int_equal(nodus_report_compute(&f->d, &opt, &again, &err), 0);
	assert_true(json_equal(f->rep, again));
	json_decref(again);
}

static void test_false_fast(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "2.0");
	compute(f, NULL);
	json_t *ff = json_object_get(condition(f->rep, "shared"), "false_fast");
	assert_int_equal(json_array_size(ff), 2);
	json_t *a = json_array_get(ff, 0), *b = json_array_get(ff, 1);
	assert_string_equal(json_string_value(json_object_get(a, "pair")), "p2");
	assert_string_equal(json_string_value(json_object_get(a, "baseline")), "TIED");
	assert_float_equal(getnum(a, "speedup", "estimate"), 1.2, 1e-12);
	assert_float_equal(getnum(a, "speedup", "lo"), 1.1, 1e-12);
	assert_float_equal(getnum(a, "baseline_speedup", "hi"), 1.01, 1e-12);
	assert_string_equal(json_string_value(json_object_get(b, "pair")), "p4");
	assert_string_equal(json_string_value(json_object_get(b, "baseline")), "AMBIGUOUS");
	/* no pair is false-fast against itself */
	assert_int_equal(json_array_size(json_object_get(condition(f->rep, "isolated"),
							 "false_fast")), 0);
}

/* A pair FASTER under the condition whose baseline has no final record is
 * not called false-fast (nobody knows yet): it is listed as unchecked. */
static void test_fast_without_baseline_is_unchecked(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	fill_basic(f, "2.0");
	for (int i = 0; i < f->d.n_records; i++) /* drop p4's baseline record */
		if (strcmp(f->recs[i].pair_id, "p4") == 0 &&
		    strcmp(f->recs[i].condition, "isolated") == 0) {
			memmove(&f->recs[i], &f->recs[i + 1],
				(size_t)(f->d.n_records - i - 1) * sizeof(f->recs[0]));
			f->d.n_records--;
			break;
		}
	compute(f, NULL);
	json_t *c = condition(f->rep, "shared");
	json_t *ff = json_object_get(c, "false_fast"), *fu = json_object_get(c, "fast_unchecked");
	assert_int_equal(json_array_size(ff), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ff, 0), "pair")), "p2");
	assert_int_equal(json_array_size(fu), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fu, 0), "pair")), "p4");
	assert_string_equal(json_string_value(json_object_get(json_array_get(fu, 0), "baseline")),
			    "MISSING");
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "false fast (FASTER here, not in isolated): 1"));
	assert_non_null(strstr(b.data, "FASTER here with no label in isolated (unchecked): 1"));
	nodus_buf_release(&b);
}

static void test_cost_counts_failures_and_retries(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "2.0");
	compute(f, NULL);
	json_t *iso = json_object_get(condition(f->rep, "isolated"), "cost");
	assert_int_equal(json_integer_value(json_object_get(iso, "attempts")), 7);
	assert_int_equal(json_integer_value(json_object_get(iso, "retries")), 1);
	assert_int_equal(json_integer_value(json_object_get(iso, "failures")), 2);
	assert_float_equal(getnum(iso, "device_s", NULL), 700.0, 1e-9);
	assert_float_equal(getnum(iso, "compile_s", NULL), 14.0, 1e-9);
	assert_float_equal(getnum(iso, "validation_s", NULL), 3.5, 1e-9);
	assert_float_equal(getnum(iso, "usd", NULL), 700.0 / 3600.0 * 2.0, 1e-12);
	/* shared: 6 attempts at 100 s charged half */
	json_t *c = condition(f->rep, "shared"), *sh = json_object_get(c, "cost");
	assert_float_equal(getnum(sh, "device_s", NULL), 300.0, 1e-9);
	assert_float_equal(getnum(sh, "usd", NULL), 300.0 / 3600.0 * 2.0, 1e-12);
	assert_int_equal(json_integer_value(json_object_get(sh, "failures")), 1);
	assert_float_equal(getnum(c, "agreeing_per_usd", NULL), 3.0 / (300.0 / 3600.0 * 2.0), 1e-9);
	assert_true(json_is_null(json_object_get(c, "agreeing_per_usd_reason")));
}

static void test_unknown_price_is_null(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "null");
	compute(f, NULL);
	json_t *c = condition(f->rep, "shared"), *cost = json_object_get(c, "cost");
	assert_true(json_is_null(json_object_get(cost, "usd")));
	assert_non_null(strstr(json_string_value(json_object_get(cost, "usd_reason")), "null"));
	assert_true(json_is_null(json_object_get(c, "agreeing_per_usd")));
	assert_non_null(strstr(json_string_value(json_object_get(c, "agreeing_per_usd_reason")),
			       "price_per_device_hour_usd"));
	/* device time is still known */
	assert_float_equal(getnum(cost, "device_s", NULL), 300.0, 1e-9);
	/* a record with unknown device time makes the dollars unknown, not smaller */
	json_decref(f->rep);
	f->rep = NULL;
	memset(f->recs, 0, sizeof(f->recs));
	f->d.n_records = 0;
	fill_basic(f, "2.0");
	f->recs[8].device_s = NAN;
	compute(f, NULL);
	c = condition(f->rep, "shared");
	assert_true(json_is_null(json_object_get(json_object_get(c, "cost"), "usd")));
	assert_non_null(strstr(json_string_value(json_object_get(c, "agreeing_per_usd_reason")),
			       "unknown for 1 of 6"));
}

static void test_excluded_targets(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "2.0");
	/* p2's shared record ran on another driver: its FASTER is not compared */
	snprintf(f->recs[8].target_hash, sizeof(f->recs[8].target_hash), "%s", T2);
	f->th[0] = T1;
	f->tj[0] = "{\"cpu\":\"x\",\"driver\":\"1\",\"os\":\"l\"}";
	f->th[1] = T2;
	f->tj[1] = "{\"cpu\":\"x\",\"driver\":\"2\",\"os\":\"l\",\"mig\":\"1g\"}";
	f->d.target_hash = f->th;
	f->d.target_json = f->tj;
	f->d.n_targets = 2;
	compute(f, NULL);
	json_t *ex = json_object_get(f->rep, "excluded");
	assert_int_equal(json_array_size(ex), 1);
	json_t *e = json_array_get(ex, 0);
	assert_string_equal(json_string_value(json_object_get(e, "pair")), "p2");
	assert_string_equal(json_string_value(json_object_get(e, "condition")), "shared");
	assert_string_equal(json_string_value(json_object_get(e, "baseline_target")), T1);
	assert_string_equal(json_string_value(json_object_get(e, "target")), T2);
	json_t *fields = json_object_get(e, "differing_fields");
	assert_int_equal(json_array_size(fields), 2);
	assert_string_equal(json_string_value(json_array_get(fields, 0)), "driver");
	assert_string_equal(json_string_value(json_array_get(fields, 1)), "mig");
	assert_non_null(strstr(json_string_value(json_object_get(e, "reason")), "driver, mig"));
	json_t *c = condition(f->rep, "shared");
	assert_int_equal(json_integer_value(json_object_get(c, "pairs")), 5);
	assert_int_equal(json_integer_value(json_object_get(c, "excluded")), 1);
	/* p1, p3, p4, p6 scored (p5's baseline failed); p1, p3, p6 agree */
	assert_float_equal(getnum(c, "agreement", "estimate"), 3.0 / 4.0, 1e-12);
	assert_int_equal(json_array_size(json_object_get(c, "false_fast")), 1);
	/* pairs[].agrees, what the CSV and nodus export read: null where not
	 * scored (p2 excluded, p5's baseline CRASH), and its trues are the
	 * condition's agreeing count */
	{
		static const char *const want[] = {"true", "null", "true", "false", "null", "true"};
		int trues = 0;
		for (size_t i = 0; i < 6; i++) {
			json_t *p = json_array_get(json_object_get(f->rep, "pairs"), i);
			json_t *ag = json_object_get(json_object_get(p, "agrees"), "shared");
			const char *got = json_is_true(ag) ? "true" : json_is_false(ag) ? "false"
							       : json_is_null(ag) ? "null" : "?";
			assert_string_equal(got, want[i]);
			trues += json_is_true(ag);
			/* the baseline agrees with itself wherever it has a label */
			ag = json_object_get(json_object_get(p, "agrees"), "isolated");
			assert_true(i == 4 ? json_is_null(ag) : json_is_true(ag));
		}
		assert_int_equal(trues, json_integer_value(json_object_get(c, "agreeing")));
	}
	/* fingerprints unknown: still excluded, the reason says so */
	json_decref(f->rep);
	f->rep = NULL;
	f->d.n_targets = 0;
	compute(f, NULL);
	e = json_array_get(json_object_get(f->rep, "excluded"), 0);
	assert_true(json_is_null(json_object_get(e, "differing_fields")));
	assert_non_null(strstr(json_string_value(json_object_get(e, "reason")), "not both"));
}

static void test_missing_and_aa_noise(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "2.0");
	f->d.n_records--; /* drop p6's shared record */
	compute(f, NULL);
	json_t *c = condition(f->rep, "shared");
	assert_int_equal(matrix_cell(c, "TIED", "MISSING"), 1);
	json_t *p6 = json_array_get(json_object_get(f->rep, "pairs"), 5);
	assert_string_equal(json_string_value(json_object_get(json_object_get(p6, "labels"),
							      "shared")), "MISSING");
	json_t *aa = json_object_get(condition(f->rep, "isolated"), "aa_noise");
	assert_int_equal(json_integer_value(json_object_get(aa, "aa_pairs")), 1);
	assert_float_equal(getnum(aa, "median_log_half_width", NULL),
			   (log(1.0204) - log(0.98)) / 2.0, 1e-12);
	aa = json_object_get(c, "aa_noise");
	assert_true(json_is_null(json_object_get(aa, "median_log_half_width")));
}

static void test_baseline_choice(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	fill_basic(f, "2.0");
	compute(f, "shared");
	assert_string_equal(json_string_value(json_object_get(f->rep, "baseline")), "shared");
	json_t *ff = json_object_get(condition(f->rep, "isolated"), "false_fast");
	assert_int_equal(json_array_size(ff), 0); /* nothing FASTER in isolation that shared lacks */
	json_t *rep = NULL;
	nodus_report_options opt = {.baseline = "nope"};
	assert_int_equal(nodus_report_compute(&f->d, &opt, &rep, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "'nope'"));
	assert_null(rep);
	/* a plan without an isolated condition needs a named baseline */
	char *iso = strstr(f->plan, "\"kind\":\"isolated\"");
	memcpy(iso, "\"kind\":\"replay\"  ", strlen("\"kind\":\"replay\"  "));
	assert_int_equal(nodus_report_compute(&f->d, NULL, &rep, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "--baseline"));
}

static void test_render(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	fill_basic(f, "null");
	for (int i = 0; i < f->d.n_records; i++) /* p3 shared: labelled with a margin of its own */
		if (strcmp(f->recs[i].pair_id, "p3") == 0 && strcmp(f->recs[i].condition, "shared") == 0)
			f->recs[i].detail_json = "{\"tie_margin\": 0.05}";
	compute(f, NULL);
	json_t *p3 = NULL, *pair;
	size_t k;
	json_array_foreach(json_object_get(f->rep, "pairs"), k, pair)
		if (strcmp(json_string_value(json_object_get(pair, "id")), "p3") == 0)
			p3 = json_object_get(pair, "speedups");
	assert_non_null(p3);
	assert_true(json_real_value(json_object_get(json_object_get(p3, "shared"), "tie_margin")) ==
		    0.05);
	assert_true(json_is_null(json_object_get(json_object_get(p3, "isolated"), "tie_margin")));
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "SLOWER 0.6 [0.5, 0.7] d=5%"));
	assert_null(strstr(b.data, "SLOWER 0.5 [0.45, 0.55] d="));
	assert_non_null(strstr(b.data, "false fast (FASTER here, not in isolated): 2"));
	assert_non_null(strstr(b.data, "p2: FASTER 1.2 [1.1, 1.3]; isolated TIED"));
	assert_non_null(strstr(b.data, "dollars unknown"));
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_CSV, &b, &err), 0);
	int lines = 0;
	for (const char *p = b.data; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 6 * 2);
	assert_non_null(strstr(b.data, DIGEST ",p2,t1,same,ref,TIED,shared,mps,isolated,FASTER,"
				       "TIED,0,0,1,1,1,1.2,1.1,1.3,,,\n"));
	assert_non_null(strstr(b.data, DIGEST ",p3,t1,slow,ref,SLOWER,shared,mps,isolated,SLOWER,"
				       "SLOWER,1,0,0,1,1,0.6,0.5,0.7,0.05,,\n"));
	/* p5's baseline failed: neither agreeing nor disagreeing */
	assert_non_null(strstr(b.data, DIGEST ",p5,t2,boom,ref2,FAIL,shared,mps,isolated,CRASH,"
				       "CRASH,,0,0,1,1,,,,,,\n"));
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_JSON, &b, &err), 0);
	json_t *back = json_loads(b.data, 0, NULL);
	assert_non_null(back);
	assert_non_null(json_object_get(back, "conditions"));
	json_decref(back);
	/* HTML: disagreements marked, the matrix as a heatmap, the false-fast
	 * pairs with both intervals, the cost with the unknown said, A/A noise */
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_HTML, &b, &err), 0);
	/* p2: not the baseline's TIED, and not its declared TIED */
	assert_non_null(strstr(b.data, "<td class=\"f d\">&ne; <b class=\"m\" title=\"not as "
				       "declared: expect TIED\">&#10007;</b> FASTER 1.2 [1.1, 1.3]"));
	assert_non_null(strstr(b.data, "<td class=\"f\">FASTER 1.45 [1.3, 1.6]")); /* p1 agrees */
	assert_non_null(strstr(b.data, "<table class=\"hm\">"));
	assert_non_null(strstr(b.data, "background:rgba(200,40,40,")); /* a disagreeing cell */
	assert_non_null(strstr(b.data, "<h3>False fast: FASTER here, not FASTER in isolated (2)"));
	assert_non_null(strstr(b.data, "<td class=\"f\">FASTER 1.2 [1.1, 1.3]</td><td class=\"t\">"
				       "TIED 1 [0.99, 1.01]</td>"));
	assert_non_null(strstr(b.data, "<td>unknown (the plan's target.price_per_device_hour_usd is "
				       "null (unknown))</td>"));
	assert_non_null(strstr(b.data, "A/A noise: median half-width &plusmn;"));
	assert_null(strstr(b.data, "nan"));
	nodus_buf_release(&b);
}

static void drop_records(struct fixture *f, const char *pair, const char *cond)
{
	int k = 0;
	for (int i = 0; i < f->d.n_records; i++)
		if (strcmp(f->recs[i].pair_id, pair) != 0 ||
		    (cond && strcmp(f->recs[i].condition, cond) != 0))
			f->recs[k++] = f->recs[i];
	f->d.n_records = k;
}

/* The baseline's own failures (NOT_ISOLATED, INCORRECT_NUMERICAL) are not
 * agreement, not false-fast and buy no agreeing record. */
static void test_baseline_failures_left_out(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	fill_basic(f, "2.0");
	f->recs[1].status = NODUS_STATUS_NOT_ISOLATED; /* p2 isolated; shared FASTER */
	f->recs[1].label = NONE;
	f->recs[5].status = NODUS_STATUS_INCORRECT_NUMERICAL; /* p5 isolated, final */
	f->recs[11].status = NODUS_STATUS_INCORRECT_NUMERICAL; /* p5 shared */
	compute(f, NULL);
	json_t *c = condition(f->rep, "shared");
	/* scored: p1, p3, p4, p6; agreeing: p1, p3, p6 */
	assert_int_equal(json_integer_value(json_object_get(c, "scored")), 4);
	assert_int_equal(json_integer_value(json_object_get(c, "agreeing")), 3);
	assert_float_equal(getnum(c, "agreement", "estimate"), 3.0 / 4.0, 1e-12);
	assert_float_equal(getnum(c, "agreeing_per_usd", NULL), 3.0 / (300.0 / 3600.0 * 2.0), 1e-9);
	json_t *ff = json_object_get(c, "false_fast"), *fu = json_object_get(c, "fast_unchecked");
	assert_int_equal(json_array_size(ff), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ff, 0), "pair")), "p4");
	assert_int_equal(json_array_size(fu), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fu, 0), "baseline")),
			    "NOT_ISOLATED");
	json_t *lo = json_object_get(c, "left_out");
	assert_int_equal(json_array_size(lo), 2);
	/* the baseline condition too: its failures do not agree with themselves */
	json_t *base = condition(f->rep, "isolated");
	assert_int_equal(json_integer_value(json_object_get(base, "agreeing")), 4);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "left out of the agreement: 1 pair(s), the baseline isolated "
				       "ended INCORRECT_NUMERICAL: no label to agree with: p5"));
	assert_non_null(strstr(b.data, "left out of the agreement: 1 pair(s), the baseline isolated "
				       "ended NOT_ISOLATED"));
	nodus_buf_release(&b);
}

/* A plan with no records has nothing to agree: no estimate, no perfect 1. */
static void test_empty_is_not_enough_data(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	fill_basic(f, "2.0");
	f->d.n_records = 0;
	compute(f, NULL);
	json_t *c = condition(f->rep, "shared");
	assert_int_equal(json_integer_value(json_object_get(c, "scored")), 0);
	assert_true(json_is_null(json_object_get(json_object_get(c, "agreement"), "estimate")));
	assert_true(json_is_null(json_object_get(json_object_get(c, "kappa"), "estimate")));
	assert_non_null(strstr(json_string_value(json_object_get(c, "not_enough_data")),
			       "not enough data"));
	json_t *lo = json_array_get(json_object_get(c, "left_out"), 0);
	assert_string_equal(json_string_value(json_object_get(lo, "baseline")), "MISSING");
	assert_int_equal(json_integer_value(json_object_get(lo, "count")), 6);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "agreement and kappa: not enough data: no compared pair has "
				       "a label under the baseline isolated"));
	assert_null(strstr(b.data, "1.000"));
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_HTML, &b, &err), 0);
	assert_non_null(strstr(b.data, "not enough data"));
	assert_null(strstr(b.data, "nan"));
	nodus_buf_release(&b);
}

/* With one task the bootstrap over tasks has one cluster: a point, which
 * is shown without an interval and with the reason. */
static void test_one_task_has_no_interval(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	fill_basic(f, "2.0");
	drop_records(f, "p4", NULL);
	drop_records(f, "p5", NULL);
	drop_records(f, "p6", NULL);
	compute(f, NULL);
	json_t *c = condition(f->rep, "shared");
	assert_int_equal(json_integer_value(json_object_get(c, "scored")), 3);
	assert_float_equal(getnum(c, "agreement", "estimate"), 2.0 / 3.0, 1e-12);
	assert_true(json_is_null(json_object_get(json_object_get(c, "agreement"), "lo")));
	assert_true(json_is_null(json_object_get(json_object_get(c, "kappa"), "hi")));
	assert_non_null(strstr(json_string_value(json_object_get(c, "not_enough_data")),
			       "one task"));
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "agreement 0.667   kappa"));
	assert_non_null(strstr(b.data, "not enough data for an interval"));
	nodus_buf_release(&b);
}

/* A final record's message reaches every format whole, escaped for each. */
static void test_messages_in_every_format(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	static char msg[] = "signal 11 (SIGSEGV), \"x\" <b>&</b>\nline two, and more";
	fill_basic(f, "2.0");
	f->recs[11].message = msg; /* p5 shared, CRASH */
	snprintf(f->recs[11].guard, sizeof(f->recs[11].guard), "%s", "out_of_bounds_write");
	compute(f, NULL);
	json_t *p5 = json_array_get(json_object_get(f->rep, "pairs"), 4);
	assert_string_equal(json_string_value(json_object_get(json_object_get(p5, "messages"),
							      "shared")), msg);
	assert_string_equal(json_string_value(json_object_get(json_object_get(p5, "guards"),
							      "shared")), "out_of_bounds_write");
	assert_true(json_is_null(json_object_get(json_object_get(p5, "messages"), "isolated")));
	/* CSV: quoted, quotes doubled, the newline kept inside the field */
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_CSV, &b, &err), 0);
	assert_non_null(strstr(b.data, ",out_of_bounds_write,\"signal 11 (SIGSEGV), \"\"x\"\" "
				       "<b>&</b>\nline two, and more\"\n"));
	assert_non_null(strstr(b.data, "tie_margin,guard,message\n"));
	/* HTML: escaped, never markup */
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_HTML, &b, &err), 0);
	assert_non_null(strstr(b.data, "<pre>signal 11 (SIGSEGV), &quot;x&quot; &lt;b&gt;&amp;"
				       "&lt;/b&gt;\nline two, and more</pre>"));
	assert_null(strstr(b.data, "<b>&</b>"));
	/* text: whole, its second line indented under the record */
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "  p5 under shared: CRASH, guard out_of_bounds_write:\n"
				       "    signal 11 (SIGSEGV), \"x\" <b>&</b>\n    line two, and "
				       "more\n"));
	/* trace: the log carries status, guard and the message */
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_trace(&f->d, &b, NULL, &err), 0);
	assert_non_null(strstr(b.data, "\"log\":\"nodus CRASH, guard out_of_bounds_write: "
				       "signal 11 (SIGSEGV), \\\"x\\\" <b>&</b>\\nline two, "
				       "and more\""));
	nodus_buf_release(&b);
}

/* A pair-condition whose final NOT_ISOLATED record was retried by a
 * resumed run is decided by the later record, whichever order they come in. */
static void test_not_isolated_superseded(void **state)
{
	struct fixture *f = *state;
	fill_basic(f, "2.0");
	/* p1 isolated: attempt 1 FASTER stays, attempt 2 final NOT_ISOLATED
	 * (a merge may bring it), then p3: attempt 1 NOT_ISOLATED, 2 SLOWER */
	add(f, "p1", "isolated", 2, 1, NODUS_STATUS_NOT_ISOLATED, NONE, NAN, NAN, NAN);
	for (int i = 0; i < f->d.n_records; i++)
		if (strcmp(f->recs[i].pair_id, "p3") == 0 &&
		    strcmp(f->recs[i].condition, "isolated") == 0) {
			f->recs[i].attempt = 2;
			break;
		}
	add(f, "p3", "isolated", 1, 1, NODUS_STATUS_NOT_ISOLATED, NONE, NAN, NAN, NAN);
	compute(f, NULL);
	json_t *pairs = json_object_get(f->rep, "pairs");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
				    json_array_get(pairs, 0), "labels"), "isolated")), "FASTER");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
				    json_array_get(pairs, 2), "labels"), "isolated")), "SLOWER");
	/* while only NOT_ISOLATED exists, it is the outcome, with the knob named */
	json_decref(f->rep);
	f->rep = NULL;
	f->recs[1].status = NODUS_STATUS_NOT_ISOLATED; /* p2 isolated */
	f->recs[1].label = NONE;
	compute(f, NULL);
	json_t *lo = json_object_get(condition(f->rep, "shared"), "left_out");
	int seen = 0;
	for (size_t i = 0; i < json_array_size(lo); i++) {
		const char *why = json_string_value(json_object_get(json_array_get(lo, i), "reason"));
		seen |= strstr(why, "isolation_max_busy_cores") && strstr(why, "--resume");
	}
	assert_true(seen);
}

/* Whose fault a record is: a harness failure is no trace, the candidate's
 * own failure a RUNTIME_ERROR (trace.c's table). */
static void test_trace_status(void **state)
{
	(void)state;
	nodus_record r = {0};
	static char backend[] = "backend: cannot open libnodus_cuda.so", load[] = "load: SyntaxError",
		    job[] = "job: no job frame on stdin", sandbox[] = "sandbox: landlock refused";
	const struct {
		int status;
		const char *guard;
		char *message;
		const char *want; /* NULL: a harness failure */
	} cases[] = {
		{NODUS_STATUS_OK, "", NULL, "PASSED"},
		{NODUS_STATUS_TIMEOUT, "watchdog", NULL, "TIMEOUT"},
		{NODUS_STATUS_INCORRECT_NUMERICAL, "", NULL, "INCORRECT_NUMERICAL"},
		{NODUS_STATUS_REWARD_HACK, "host_gap", NULL, "RUNTIME_ERROR"},
		{NODUS_STATUS_INPUT_MUTATED, "", NULL, "RUNTIME_ERROR"},
		{NODUS_STATUS_OUT_OF_MEMORY, "memory_limit", NULL, "RUNTIME_ERROR"},
		{NODUS_STATUS_CRASH, "signal", NULL, "RUNTIME_ERROR"},
		{NODUS_STATUS_CRASH, "protocol", NULL, "RUNTIME_ERROR"},
		{NODUS_STATUS_LOAD_ERROR, "", load, "RUNTIME_ERROR"},
		{NODUS_STATUS_LOAD_ERROR, "", backend, NULL},
		{NODUS_STATUS_CRASH, "harness", NULL, NULL},
		{NODUS_STATUS_CRASH, "", job, NULL},
		{NODUS_STATUS_CRASH, "", sandbox, NULL},
		{NODUS_STATUS_NOT_ISOLATED, "isolation_before", NULL, NULL},
		{NODUS_STATUS_INVALID_REFERENCE, "oracle", NULL, NULL},
	};
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(cases); k++) {
		r.status = cases[k].status;
		snprintf(r.guard, sizeof(r.guard), "%s", cases[k].guard);
		r.message = cases[k].message;
		const char *got = nodus__trace_status(&r);
		if (cases[k].want)
			assert_string_equal(got, cases[k].want);
		else
			assert_null(got);
	}
}

/* The expect rule (docs/formats.md) as a table: 1 contradicts, 0 meets,
 * -1 nothing to check. */
static void test_expect_rule(void **state)
{
	(void)state;
	const struct {
		const char *expect, *outcome;
		int want;
	} cases[] = {
		{"FASTER", "FASTER", 0},         {"FASTER", "SLOWER", 1},
		{"FASTER", "AMBIGUOUS", 1},      {"FASTER", "CRASH", 1},
		{"TIED", "TIED", 0},             {"TIED", "AMBIGUOUS", 1},
		{"SLOWER", "NOT_ISOLATED", 1},   {"AMBIGUOUS", "AMBIGUOUS", 0},
		{"EQUIVALENT", "FASTER", 0},     {"EQUIVALENT", "AMBIGUOUS", 0},
		{"EQUIVALENT", "OK", 0},         {"EQUIVALENT", "INCORRECT_NUMERICAL", 1},
		{"OK", "SLOWER", 0},             {"OK", "OK", 0},
		{"OK", "TIMEOUT", 1},            {"FAIL", "CRASH", 0},
		{"FAIL", "INCORRECT_SHAPE", 0},  {"FAIL", "INVALID_REFERENCE", 0},
		{"FAIL", "TIED", 1},             {"FAIL", "OK", 1},
		{"FAIL", "NOT_ISOLATED", 1},     {"CRASH", "CRASH", 0},
		{"REWARD_HACK", "CRASH", 1},     {"REWARD_HACK", "FASTER", 1},
		{"NOT_ISOLATED", "NOT_ISOLATED", 0},
		{"FASTER", "MISSING", -1},       {"FAIL", "MISSING", -1},
		{"FASTER", "", -1},              {"FASTER", NULL, -1},
		{NULL, "FASTER", -1},            {"", "CRASH", -1},
	};
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(cases); k++) {
		int got = nodus__report_expect_missed(cases[k].expect, cases[k].outcome);
		if (got != cases[k].want)
			fail_msg("expect %s, outcome %s: expected %d, got %d",
				 cases[k].expect ? cases[k].expect : "(null)",
				 cases[k].outcome ? cases[k].outcome : "(null)", cases[k].want, got);
	}
}

/* p2 declares TIED: TIED in the baseline, FASTER shared. Every condition's
 * outcome is checked, so p2 contradicts its expect under shared only; p4
 * declares nothing and p5's FAIL is met by CRASH. Every format marks it,
 * and each shows the retry that decided p5's baseline. */
static void test_expect_in_every_format(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_buf b = NODUS_BUF_INIT;
	fill_basic(f, "2.0");
	compute(f, NULL);
	assert_int_equal(json_integer_value(json_object_get(f->rep, "expect_mismatches")), 1);
	json_t *pairs = json_object_get(f->rep, "pairs");
	json_t *m2 = json_object_get(json_array_get(pairs, 1), "expect_mismatch");
	json_t *m4 = json_object_get(json_array_get(pairs, 3), "expect_mismatch");
	json_t *m5 = json_object_get(json_array_get(pairs, 4), "expect_mismatch");
	assert_true(json_is_true(json_object_get(m2, "shared")));
	assert_true(json_is_false(json_object_get(m2, "isolated")));
	assert_true(json_is_null(json_object_get(m4, "shared")));
	assert_true(json_is_false(json_object_get(m5, "isolated")));
	json_t *sh = condition(f->rep, "shared"), *iso = condition(f->rep, "isolated");
	assert_int_equal(json_integer_value(json_object_get(sh, "expect_checked")), 5);
	assert_int_equal(json_integer_value(json_object_get(sh, "expect_mismatches")), 1);
	assert_int_equal(json_integer_value(json_object_get(iso, "expect_mismatches")), 0);
	/* a pair with no final record under a condition is not checked there */
	drop_records(f, "p2", "shared");
	json_decref(f->rep);
	compute(f, NULL);
	assert_int_equal(json_integer_value(json_object_get(f->rep, "expect_mismatches")), 0);
	assert_int_equal(json_integer_value(json_object_get(condition(f->rep, "shared"),
							    "expect_checked")), 4);
	json_decref(f->rep);
	f->d.n_records = 0;
	fill_basic(f, "2.0");
	compute(f, NULL);

	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_TEXT, &b, &err), 0);
	assert_non_null(strstr(b.data, "!FASTER 1.2 [1.1, 1.3]"));
	assert_null(strstr(b.data, "!TIED 1 [0.99, 1.01]")); /* p2's baseline meets it */
	assert_null(strstr(b.data, "!FASTER 1.45"));          /* p1 meets it */
	assert_non_null(strstr(b.data, "\n1 pair(s) contradict their expect (5 of 6 pairs declare "
				       "one):\n  p2: expect TIED; shared FASTER\n"));
	assert_non_null(strstr(b.data, "  contradict their expect: 1 of 5 pairs that declare one\n"));
	assert_non_null(strstr(b.data, "CRASH #2/2"));       /* p5 isolated: the retry decided */
	assert_non_null(strstr(b.data, "#A/N: decided by attempt A"));
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_CSV, &b, &err), 0);
	assert_non_null(strstr(b.data, ",excluded,expect_mismatch,attempt,attempts,speedup,"));
	assert_non_null(strstr(b.data, ",p2,t1,same,ref,TIED,isolated,isolated,isolated,TIED,TIED,"
				       "1,0,0,1,1,"));
	assert_non_null(strstr(b.data, ",p4,t2,meh,ref2,,shared,mps,isolated,FASTER,AMBIGUOUS,0,0,,"
				       "1,1,"));
	assert_non_null(strstr(b.data, ",p5,t2,boom,ref2,FAIL,isolated,isolated,isolated,CRASH,"
				       "CRASH,,0,0,2,2,"));
	nodus_buf_reset(&b);
	assert_int_equal(nodus_report_render(f->rep, NODUS_REPORT_HTML, &b, &err), 0);
	assert_non_null(strstr(b.data, "<p class=\"m\">1 pair(s) contradict their expect"));
	assert_non_null(strstr(b.data, "&ne; <b class=\"m\" title=\"not as declared: expect TIED\">"
				       "&#10007;</b> FASTER 1.2 [1.1, 1.3]"));
	/* only one outcome is marked, and p2's expect cell is not: its baseline meets it */
	const char *mark = strstr(b.data, "&#10007;</b> ");
	assert_null(strstr(mark + 1, "&#10007;</b> "));
	assert_null(strstr(b.data, "<td class=\"m\""));
	assert_non_null(strstr(b.data, "CRASH <span class=\"n\">attempt 2 of 2</span>"));
	assert_non_null(strstr(b.data, "contradicting their expect: 1 of 5"));
	nodus_buf_release(&b);
}

static void test_bad_plan(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	json_t *rep = NULL;
	f->d.plan_json = "{\"conditions\":[{\"name\":\"i\",\"kind\":\"isolated\"}]}";
	assert_int_equal(nodus_report_compute(&f->d, NULL, &rep, &err), NODUS_EPARSE);
	assert_string_equal(err.json_path, "$.pairs");
	f->d.plan_json = "[1]";
	assert_int_equal(nodus_report_compute(&f->d, NULL, &rep, &err), NODUS_EPARSE);
	assert_null(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_status),
		cmocka_unit_test(test_expect_rule),
		cmocka_unit_test_setup_teardown(test_expect_in_every_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agreement_and_kappa, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reproducible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_false_fast, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_without_baseline_is_unchecked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cost_counts_failures_and_retries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_price_is_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_excluded_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_aa_noise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_failures_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_is_not_enough_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_task_has_no_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages_in_every_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_isolated_superseded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_plan, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
