/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-export.c: nodus_report_export() on synthetic records, without a
 * store: the held-out FILE's grammar and its errors (located at line and
 * column), the split, trusted against a plan with ONE isolated condition
 * (the baseline has no recheck, so none of its rows is trusted; the shared
 * rows are held against it), a pair-condition without a final record, and
 * a directory that is not empty. tests/e2e/t4060 runs the command on a
 * real store with a second isolated condition.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

#define DIGEST "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
#define T1 "1111111111111111111111111111111111111111111111111111111111111111"

/* p1, p2 task t1; p3 task t2. */
static const char plan[] =
	"{\"kind\":\"plan\",\"name\":\"synthetic\",\"digest\":\"" DIGEST "\","
	"\"judge\":{\"seed\":7,\"tie_margin\":0.05},"
	"\"pairs\":["
	"{\"id\":\"p1\",\"task\":\"t1\",\"workload\":\"w1\",\"candidate\":\"a\",\"reference\":\"r\"},"
	"{\"id\":\"p2\",\"task\":\"t1\",\"workload\":\"w1\",\"candidate\":\"b\",\"reference\":\"r\"},"
	"{\"id\":\"p3\",\"task\":\"t2\",\"workload\":\"w2\",\"candidate\":\"c\",\"reference\":\"r2\"}],"
	"\"conditions\":[{\"name\":\"isolated\",\"kind\":\"isolated\"},"
	"{\"name\":\"shared\",\"kind\":\"cpu-stress\"}],"
	"\"target\":{\"backend\":\"cpu\",\"price_per_device_hour_usd\":null}}";

struct fixture {
	nodus_report_data d;     /* the input; records owned by the fixture */
	nodus_record recs[8];    /* storage for d.records */
	char dir[256];           /* a fresh temporary directory */
	char out[300];           /* dir/out: the export */
	char file[300];          /* dir/holdout.txt */
};

static void add(struct fixture *f, const char *pair, const char *cond, int status, int label)
{
	nodus_record *r = &f->recs[f->d.n_records++];
	memset(r, 0, sizeof(*r));
	snprintf(r->plan_digest, sizeof(r->plan_digest), "%s", DIGEST);
	snprintf(r->pair_id, sizeof(r->pair_id), "%s", pair);
	snprintf(r->condition, sizeof(r->condition), "%s", cond);
	snprintf(r->target_hash, sizeof(r->target_hash), "%s", T1);
	r->attempt = 1;
	r->final = 1;
	r->status = status;
	r->label = label;
	r->speedup = r->ci_lo = r->ci_hi = label >= 0 ? 1.0 : NAN;
	r->cand_ns_median = r->ref_ns_median = r->max_abs_err = r->max_rel_err = NAN;
	r->matched_ratio = r->device_s = r->charge_share = r->compile_s = NAN;
	r->validation_s = r->wall_s = r->started_at = r->finished_at = NAN;
}

/*        isolated   shared
 *   p1   FASTER     FASTER     shared agrees: trusted; isolated: no recheck
 *   p2   TIED       SLOWER     shared disagrees
 *   p3   CRASH      -          shared has no final record (missing) */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	nodus_report_data_init(&f->d);
	f->d.plan_json = (char *)plan;
	snprintf(f->d.plan_digest, sizeof(f->d.plan_digest), "%s", DIGEST);
	f->d.records = f->recs;
	add(f, "p1", "isolated", NODUS_STATUS_OK, NODUS_LABEL_FASTER);
	add(f, "p2", "isolated", NODUS_STATUS_OK, NODUS_LABEL_TIED);
	add(f, "p3", "isolated", NODUS_STATUS_CRASH, NODUS_LABEL_NONE);
	add(f, "p1", "shared", NODUS_STATUS_OK, NODUS_LABEL_FASTER);
	add(f, "p2", "shared", NODUS_STATUS_OK, NODUS_LABEL_SLOWER);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-export-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->out, sizeof(f->out), "%s/out", f->dir);
	snprintf(f->file, sizeof(f->file), "%s/holdout.txt", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void write_holdout(struct fixture *f, const char *text)
{
	FILE *fp = fopen(f->file, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int export(struct fixture *f, nodus_report_export_counts *n, nodus_error *err)
{
	nodus_report_export_options o = {.holdout_path = f->file, .db_path = "synthetic.db"};
	return nodus_report_export(&f->d, &o, f->out, n, err);
}

/* The rows of out/NAME, in order, as a JSON array (new reference). */
static json_t *rows(struct fixture *f, const char *name)
{
	char path[400], line[65536];
	json_t *list = json_array();
	snprintf(path, sizeof(path), "%s/%s", f->out, name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		json_error_t jerr;
		json_t *r = json_loads(line, 0, &jerr);
		if (!r)
			fail_msg("%s: %s", name, jerr.text);
		json_array_append_new(list, r);
	}
	fclose(fp);
	return list;
}

static const char *sget(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_split_and_trust(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_report_export_counts n;
	/* comments, blanks, a CRLF line end */
	write_holdout(f, "# held out\r\n\n   t2\t# the second task\r\n");
	int rc = export(f, &n, &err);
	if (rc)
		fail_msg("export: %s", err.message);
	assert_int_equal(n.train, 4);
	assert_int_equal(n.heldout, 1);
	assert_int_equal(n.missing, 1);
	assert_int_equal(n.trusted, 1);
	assert_int_equal(n.families, 2);
	assert_int_equal(n.heldout_families, 1);
	json_t *train = rows(f, "train.jsonl"), *held = rows(f, "heldout.jsonl");
	assert_int_equal(json_array_size(train), 4);
	assert_int_equal(json_array_size(held), 1);
	json_t *r = json_array_get(held, 0);
	assert_string_equal(sget(r, "pair_id"), "p3");
	assert_string_equal(sget(r, "family"), "t2");
	assert_string_equal(sget(r, "trusted_why"), "status CRASH: no label");
	/* train: p1 isolated, p1 shared, p2 isolated, p2 shared */
	static const char *const why[] = {
		"no isolated recheck: 'isolated' is the baseline and the plan has no second "
		"isolated condition to recheck it",
		NULL,
		"no isolated recheck: 'isolated' is the baseline and the plan has no second "
		"isolated condition to recheck it",
		"disagrees with its isolated recheck 'isolated': TIED there",
	};
	for (size_t i = 0; i < 4; i++) {
		r = json_array_get(train, i);
		assert_string_equal(sget(r, "split"), "train");
		assert_string_equal(sget(r, "family"), "t1");
		assert_int_equal(json_is_true(json_object_get(r, "trusted")), why[i] == NULL);
		if (why[i])
			assert_string_equal(sget(r, "trusted_why"), why[i]);
		else
			assert_true(json_is_null(json_object_get(r, "trusted_why")));
		json_t *pv = json_object_get(r, "provenance");
		assert_string_equal(sget(pv, "plan_digest"), DIGEST);
		assert_string_equal(sget(pv, "target_hash"), T1);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(pv, "judge"),
								     "seed")), 7);
		/* unknown figures are null, never a number */
		assert_true(json_is_null(json_object_get(r, "device_s")));
	}
	assert_string_equal(sget(json_object_get(json_array_get(train, 1), "recheck"), "outcome"),
			    "FASTER");
	json_decref(train);
	json_decref(held);
	/* the manifest: FILE's list, its digest, the missing pair-condition */
	char path[400];
	snprintf(path, sizeof(path), "%s/manifest.json", f->out);
	json_t *m = json_load_file(path, 0, NULL);
	assert_non_null(m);
	json_t *ho = json_object_get(m, "holdout");
	assert_string_equal(json_string_value(json_array_get(json_object_get(ho, "families"), 0)), "t2");
	assert_int_equal(strlen(sget(ho, "sha256")), 64);
	json_t *miss = json_array_get(json_object_get(m, "missing"), 0);
	assert_string_equal(sget(miss, "pair"), "p3");
	assert_string_equal(sget(miss, "condition"), "shared");
	assert_int_equal(json_array_size(json_object_get(m, "rechecks")), 0);
	json_decref(m);
	/* 2: not over files */
	rc = export(f, &n, &err);
	assert_int_equal(rc, NODUS_EIO);
	assert_non_null(strstr(err.message, "is not empty"));
}

static void test_holdout_errors(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	static const struct {
		const char *text;  /* FILE */
		int line, column;  /* where the error is */
		const char *msg;   /* part of the message */
	} cases[] = {
		{"t1\n# fine\n  t3 # no such task\n", 3, 3, "unknown family 't3'"},
		{"t1\nt1\n", 2, 1, "family 't1' is listed twice"},
		{"T1\n", 1, 1, "(its families: t1, t2)"},
		{"t1 t2\n", 1, 1, "unknown family 't1 t2'"},
		{"\xff\xfe\n", 1, 1, "not UTF-8"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_holdout(f, cases[i].text);
		memset(&err, 0, sizeof(err));
		int rc = export(f, NULL, &err);
		assert_int_equal(rc, NODUS_EINVAL);
		assert_string_equal(err.file, f->file);
		assert_int_equal(err.line, cases[i].line);
		assert_int_equal(err.column, cases[i].column);
		if (!strstr(err.message, cases[i].msg))
			fail_msg("case %zu: %s", i, err.message);
		assert_int_not_equal(access(f->out, F_OK), 0); /* nothing written */
	}
	/* no FILE */
	unlink(f->file);
	assert_int_equal(export(f, NULL, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "cannot read"));
	/* no final record */
	write_holdout(f, "");
	f->d.n_records = 0;
	assert_int_equal(export(f, NULL, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "has no final record"));
	assert_int_not_equal(access(f->out, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_split_and_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holdout_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
