/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-store.c: the record store as the orchestrator and the report rely
 * on it: records and samples come back as stored (NaN included), the
 * store refuses to change or duplicate evidence, a killed writer loses
 * nothing it committed, old stores migrate and newer ones are refused.
 * Each test works in its own temporary directory.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"

#define DIGEST "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST2 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define TARGET "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

static const char plan_json[] =
	"{\"kind\":\"plan\",\"format\":1,\"name\":\"demo\","
	"\"pairs\":[{\"id\":\"w/c/r\",\"task\":\"t\",\"workload\":\"w\",\"candidate\":\"c\","
	"\"reference\":\"r\",\"candidate_hash\":\"h1\",\"reference_hash\":\"h2\","
	"\"expect\":\"FASTER\"},{\"id\":\"w/r/r\",\"task\":\"t\",\"workload\":\"w\","
	"\"candidate\":\"r\",\"reference\":\"r\",\"expect\":null}],"
	"\"conditions\":[{\"name\":\"isolated\",\"kind\":\"isolated\"},"
	"{\"name\":\"mps-2\",\"kind\":\"mps\",\"tenants\":2}],"
	"\"target\":{\"price_per_device_hour_usd\":null}}";

struct fixture {
	char dir[64];    /* temporary directory */
	char path[128];  /* dir/store.db */
	nodus_store *s;  /* opened on path with the demo plan stored */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	nodus_error err = {0};
	snprintf(f->dir, sizeof(f->dir), "/tmp/nodus-store-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/store.db", f->dir);
	if (nodus_store_open(f->path, &f->s, &err) ||
	    nodus_store_put_plan(f->s, DIGEST, "demo", plan_json, &err)) {
		fprintf(stderr, "setup: %s\n", err.message);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	nodus_store_close(f->s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static nodus_record make_record(const char *pair, const char *cond, int attempt, int final)
{
	nodus_record r;
	memset(&r, 0, sizeof(r));
	snprintf(r.plan_digest, sizeof(r.plan_digest), "%s", DIGEST);
	snprintf(r.pair_id, sizeof(r.pair_id), "%s", pair);
	snprintf(r.condition, sizeof(r.condition), "%s", cond);
	snprintf(r.target_hash, sizeof(r.target_hash), "%s", TARGET);
	r.attempt = attempt;
	r.final = final;
	r.status = NODUS_STATUS_OK;
	r.label = NODUS_LABEL_FASTER;
	r.speedup = 1.5;
	r.ci_lo = 1.4;
	r.ci_hi = 1.6;
	r.rounds = 10;
	r.looks = 2;
	r.cand_ns_median = 1000.0;
	r.ref_ns_median = 1500.0;
	r.max_abs_err = 1e-6;
	r.max_rel_err = 2e-6;
	r.matched_ratio = 1.0;
	r.device_s = 3.25;
	r.charge_share = 0.5;
	r.compile_s = 0.75;
	r.compile_cache_hits = 1;
	r.validation_s = 0.125;
	r.wall_s = 4.5;
	r.started_at = 1700000000.0;
	r.finished_at = 1700000004.5;
	return r;
}

/* Collects what foreach passes, copying the parts the tests check. */
struct seen {
	int n;
	char pair[32][256];
	char cond[32][64];
	int attempt[32];
	int final[32];
	int n_samples[32];
	nodus_record first;         /* the first record, strings copied below */
	char message[64];
	char detail[64];
	nodus_sample samples[8];    /* samples of the first record */
	int stop_after;             /* return 7 after this many calls; 0 = never */
};

static int collect(const nodus_record *r, void *ctx)
{
	struct seen *w = ctx;
	if (w->n == 0) {
		w->first = *r;
		snprintf(w->message, sizeof(w->message), "%s", r->message ? r->message : "(null)");
		snprintf(w->detail, sizeof(w->detail), "%s",
			 r->detail_json ? r->detail_json : "(null)");
		for (int i = 0; i < r->n_samples && i < 8; i++)
			w->samples[i] = r->samples[i];
		w->first.message = NULL;
		w->first.detail_json = NULL;
		w->first.samples = NULL;
	}
	if (w->n >= 32)
		fail_msg("more records than the test expects");
	snprintf(w->pair[w->n], sizeof(w->pair[0]), "%s", r->pair_id);
	snprintf(w->cond[w->n], sizeof(w->cond[0]), "%s", r->condition);
	w->attempt[w->n] = r->attempt;
	w->final[w->n] = r->final;
	w->n_samples[w->n] = r->n_samples;
	w->n++;
	return w->stop_after && w->n >= w->stop_after ? 7 : 0;
}

static int64_t count_rows(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t n = -1;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Runs sql on a separate raw connection; returns the SQLite result and
 * copies the message. */
static int raw_exec(const char *path, const char *sql, char *msg, size_t size)
{
	sqlite3 *db = NULL;
	char *e = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
	snprintf(msg, size, "%s", e ? e : "");
	sqlite3_free(e);
	sqlite3_close(db);
	return rc;
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_sample smp[3] = {
		{0, 0, 0, 1, 4, 0, 1500, 1600, 1410, 0},
		{0, 1, 1, 2, 4, NODUS_SAMPLE_HOST_GAP, 1000, 5000, 1395, 0},
		{1, 0, 1, 3, 8, NODUS_SAMPLE_OUTLIER, INT64_C(9000000000), 0, 0, 0},
	};
	nodus_record r = make_record("w/c/r", "isolated", 1, 1);
	snprintf(r.guard, sizeof(r.guard), "none");
	r.message = "measured";
	r.detail_json = "{\"seed\":7}";
	r.samples = smp;
	r.n_samples = 3;
	int64_t id = 0;
	assert_int_equal(nodus_store_insert_record(f->s, &r, &id, &err), 0);
	assert_true(id > 0);

	struct seen w = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, DIGEST, 0, 1, collect, &w, &err), 0);
	assert_int_equal(w.n, 1);
	nodus_record *g = &w.first;
	assert_string_equal(g->plan_digest, DIGEST);
	assert_string_equal(g->pair_id, "w/c/r");
	assert_string_equal(g->condition, "isolated");
	assert_string_equal(g->guard, "none");
	assert_string_equal(g->target_hash, TARGET);
	assert_string_equal(w.message, "measured");
	assert_string_equal(w.detail, "{\"seed\":7}");
	assert_int_equal(g->attempt, 1);
	assert_int_equal(g->final, 1);
	assert_int_equal(g->status, NODUS_STATUS_OK);
	assert_int_equal(g->label, NODUS_LABEL_FASTER);
	assert_true(g->speedup == 1.5 && g->ci_lo == 1.4 && g->ci_hi == 1.6);
	assert_int_equal(g->rounds, 10);
	assert_int_equal(g->looks, 2);
	assert_true(g->cand_ns_median == 1000.0 && g->ref_ns_median == 1500.0);
	assert_true(g->max_abs_err == 1e-6 && g->max_rel_err == 2e-6 && g->matched_ratio == 1.0);
	assert_true(g->device_s == 3.25 && g->charge_share == 0.5 && g->compile_s == 0.75);
	assert_int_equal(g->compile_cache_hits, 1);
	assert_true(g->validation_s == 0.125 && g->wall_s == 4.5);
	assert_true(g->started_at == 1700000000.0 && g->finished_at == 1700000004.5);
	assert_int_equal(w.n_samples[0], 3);
	assert_memory_equal(&w.samples[0], &smp[0], sizeof(smp[0]));
	assert_memory_equal(&w.samples[1], &smp[1], sizeof(smp[1]));
	assert_memory_equal(&w.samples[2], &smp[2], sizeof(smp[2]));

	/* without samples: none loaded */
	struct seen w2 = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, DIGEST, 0, 0, collect, &w2, &err), 0);
	assert_int_equal(w2.n_samples[0], 0);
}

static void test_nan_fields(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_record r = make_record("w/c/r", "isolated", 1, 1);
	r.status = NODUS_STATUS_CRASH;
	r.label = NODUS_LABEL_NONE;
	r.speedup = r.ci_lo = r.ci_hi = NAN;
	r.cand_ns_median = r.ref_ns_median = NAN;
	r.max_abs_err = r.max_rel_err = r.matched_ratio = NAN;
	r.started_at = NAN;
	assert_int_equal(nodus_store_insert_record(f->s, &r, NULL, &err), 0);
	struct seen w = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, NULL, 0, 0, collect, &w, &err), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.first.status, NODUS_STATUS_CRASH);
	assert_int_equal(w.first.label, NODUS_LABEL_NONE);
	assert_true(isnan(w.first.speedup) && isnan(w.first.ci_lo) && isnan(w.first.ci_hi));
	assert_true(isnan(w.first.cand_ns_median) && isnan(w.first.ref_ns_median));
	assert_true(isnan(w.first.max_abs_err) && isnan(w.first.matched_ratio));
	assert_true(isnan(w.first.started_at));
	assert_true(w.first.device_s == 3.25);
	assert_string_equal(w.message, "(null)");
	/* stored as SQL NULL, not as a NaN blob or 0 */
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records WHERE speedup IS NULL "
				    "AND ci_lo IS NULL AND started_at IS NULL AND label IS NULL"), 1);
}

static void test_update_delete_refused(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_sample smp = {0, 0, 1, 0, 1, 0, 10, 0, 0, 0};
	nodus_record r = make_record("w/c/r", "isolated", 1, 1);
	r.samples = &smp;
	r.n_samples = 1;
	assert_int_equal(nodus_store_insert_record(f->s, &r, NULL, &err), 0);
	char msg[256];
	assert_int_not_equal(raw_exec(f->path, "UPDATE records SET speedup = 9", msg, sizeof(msg)),
			     SQLITE_OK);
	assert_non_null(strstr(msg, "append-only"));
	assert_int_not_equal(raw_exec(f->path, "DELETE FROM records", msg, sizeof(msg)), SQLITE_OK);
	assert_non_null(strstr(msg, "append-only"));
	assert_int_not_equal(raw_exec(f->path, "UPDATE samples SET ns = 1", msg, sizeof(msg)),
			     SQLITE_OK);
	assert_non_null(strstr(msg, "append-only"));
	assert_int_not_equal(raw_exec(f->path, "DELETE FROM samples", msg, sizeof(msg)), SQLITE_OK);
	assert_non_null(strstr(msg, "append-only"));
	assert_int_equal(count_rows(f->path, "SELECT speedup * 10 FROM records"), 15);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM samples"), 1);
}

static void test_duplicates_refused(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	nodus_sample smp[2] = {{0, 0, 1, 0, 1, 0, 10, 0, 0, 0}, {0, 1, 0, 0, 1, 0, 12, 0, 0, 0}};
	nodus_record r = make_record("w/c/r", "isolated", 1, 0);
	r.status = NODUS_STATUS_TIMEOUT;
	r.label = NODUS_LABEL_NONE;
	r.samples = smp;
	r.n_samples = 2;
	assert_int_equal(nodus_store_insert_record(f->s, &r, NULL, &err), 0);
	/* the same attempt again: refused whole, its samples not stored */
	memset(&err, 0, sizeof(err));
	assert_int_equal(nodus_store_insert_record(f->s, &r, NULL, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "UNIQUE"));
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM samples"), 2);
	/* two final records for one pair-condition: refused */
	nodus_record a2 = make_record("w/c/r", "isolated", 2, 1);
	nodus_record a3 = make_record("w/c/r", "isolated", 3, 1);
	assert_int_equal(nodus_store_insert_record(f->s, &a2, NULL, &err), 0);
	assert_int_equal(nodus_store_insert_record(f->s, &a3, NULL, &err), NODUS_EINVAL);
	/* a label on a failed record, an unknown plan: refused */
	nodus_record bad = make_record("w/c/r", "mps-2", 1, 1);
	bad.status = NODUS_STATUS_CRASH;
	assert_int_equal(nodus_store_insert_record(f->s, &bad, NULL, &err), NODUS_EINVAL);
	nodus_record orphan = make_record("w/c/r", "isolated", 9, 0);
	snprintf(orphan.plan_digest, sizeof(orphan.plan_digest), "%s", DIGEST2);
	assert_int_equal(nodus_store_insert_record(f->s, &orphan, NULL, &err), NODUS_EINVAL);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records"), 2);
}

static void test_every_status_accepted(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	/* schema.sql's CHECK lists must match NODUS_STATUS_MAP / NODUS_LABEL_MAP */
	for (int st = 0; st < NODUS_STATUS_COUNT_; st++) {
		nodus_record r = make_record("w/c/r", "isolated", st + 1, 0);
		r.status = st;
		r.label = st == NODUS_STATUS_OK ? NODUS_LABEL_TIED : NODUS_LABEL_NONE;
		int rc = nodus_store_insert_record(f->s, &r, NULL, &err);
		if (rc)
			fail_msg("status %s refused: %s", nodus_status_name(st), err.message);
	}
	for (int l = 0; l < NODUS_LABEL_COUNT_; l++) {
		nodus_record r = make_record("w/r/r", "isolated", l + 1, 0);
		r.label = l;
		assert_int_equal(nodus_store_insert_record(f->s, &r, NULL, &err), 0);
	}
	struct seen w = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, DIGEST, 0, 0, collect, &w, &err), 0);
	assert_int_equal(w.n, NODUS_STATUS_COUNT_ + NODUS_LABEL_COUNT_);
}

/* A preset's verdict (migration 3): stored and read back under its own
 * name, on a correct record without a label; never beside a label nor on
 * a failed record, so that no reader takes one for the other. */
static void test_verdicts(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	for (int v = NODUS_VERDICT_NONE + 1; v < NODUS_VERDICT_COUNT_; v++) {
		nodus_record r = make_record("w/c/r", "kernelbench", v, 0);
		r.label = NODUS_LABEL_NONE;
		r.verdict = v;
		r.ci_lo = r.ci_hi = NAN;
		if (nodus_store_insert_record(f->s, &r, NULL, &err))
			fail_msg("verdict %s refused: %s", nodus_verdict_name(v), err.message);
	}
	struct seen w = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, DIGEST, 0, 0, collect, &w, &err), 0);
	assert_int_equal(w.n, NODUS_VERDICT_COUNT_ - 1);
	assert_int_equal(w.first.verdict, NODUS_VERDICT_BINARY_FASTER);
	assert_int_equal(w.first.label, NODUS_LABEL_NONE);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records WHERE verdict = "
					     "'BINARY_FASTER' AND label IS NULL"), 1);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records WHERE verdict = "
					     "'BINARY_NOT_FASTER' AND label IS NULL"), 1);
	nodus_record both = make_record("w/c/r", "kernelbench", 9, 0);
	both.verdict = NODUS_VERDICT_BINARY_FASTER; /* and make_record's label */
	assert_int_not_equal(nodus_store_insert_record(f->s, &both, NULL, &err), 0);
	nodus_record failed = make_record("w/c/r", "kernelbench", 10, 0);
	failed.status = NODUS_STATUS_CRASH;
	failed.label = NODUS_LABEL_NONE;
	failed.verdict = NODUS_VERDICT_BINARY_NOT_FASTER;
	assert_int_not_equal(nodus_store_insert_record(f->s, &failed, NULL, &err), 0);
	nodus_record out_of_range = make_record("w/c/r", "kernelbench", 11, 0);
	out_of_range.label = NODUS_LABEL_NONE;
	out_of_range.verdict = NODUS_VERDICT_COUNT_;
	assert_int_equal(nodus_store_insert_record(f->s, &out_of_range, NULL, &err), NODUS_EINVAL);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records"), 2);
}

static void test_progress(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	int attempts = -1, has_final = -1;
	assert_int_equal(nodus_store_progress(f->s, DIGEST, "w/c/r", "isolated", &attempts,
					      &has_final, &err), 0);
	assert_int_equal(attempts, 0);
	assert_int_equal(has_final, 0);
	nodus_record r1 = make_record("w/c/r", "isolated", 1, 0);
	r1.status = NODUS_STATUS_TIMEOUT;
	r1.label = NODUS_LABEL_NONE;
	assert_int_equal(nodus_store_insert_record(f->s, &r1, NULL, &err), 0);
	assert_int_equal(nodus_store_progress(f->s, DIGEST, "w/c/r", "isolated", &attempts,
					      &has_final, &err), 0);
	assert_int_equal(attempts, 1);
	assert_int_equal(has_final, 0);
	nodus_record r2 = make_record("w/c/r", "isolated", 2, 1);
	assert_int_equal(nodus_store_insert_record(f->s, &r2, NULL, &err), 0);
	assert_int_equal(nodus_store_progress(f->s, DIGEST, "w/c/r", "isolated", &attempts,
					      &has_final, &err), 0);
	assert_int_equal(attempts, 2);
	assert_int_equal(has_final, 1);
	/* other conditions are counted apart */
	assert_int_equal(nodus_store_progress(f->s, DIGEST, "w/c/r", "mps-2", &attempts,
					      &has_final, &err), 0);
	assert_int_equal(attempts, 0);
}

/* A final NOT_ISOLATED record decides nothing for good: progress says the
 * pair-condition is open, a later final record may follow it (that is
 * what --resume writes), and still only one record that is not
 * NOT_ISOLATED may be final. */
static void test_not_isolated_is_retried(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	int attempts = -1, has_final = -1;
	nodus_record r1 = make_record("w/c/r", "isolated", 1, 1);
	r1.status = NODUS_STATUS_NOT_ISOLATED;
	r1.label = NODUS_LABEL_NONE;
	assert_int_equal(nodus_store_insert_record(f->s, &r1, NULL, &err), 0);
	assert_int_equal(nodus_store_progress(f->s, DIGEST, "w/c/r", "isolated", &attempts,
					      &has_final, &err), 0);
	assert_int_equal(attempts, 1);
	assert_int_equal(has_final, 0);
	nodus_record r2 = r1; /* the resumed run's try: busy again */
	r2.attempt = 2;
	assert_int_equal(nodus_store_insert_record(f->s, &r2, NULL, &err), 0);
	nodus_record r3 = make_record("w/c/r", "isolated", 3, 1);
	assert_int_equal(nodus_store_insert_record(f->s, &r3, NULL, &err), 0);
	assert_int_equal(nodus_store_progress(f->s, DIGEST, "w/c/r", "isolated", &attempts,
					      &has_final, &err), 0);
	assert_int_equal(attempts, 3);
	assert_int_equal(has_final, 1);
	nodus_record r4 = make_record("w/c/r", "isolated", 4, 1);
	assert_int_equal(nodus_store_insert_record(f->s, &r4, NULL, &err), NODUS_EINVAL);
}

static void test_foreach_order_and_filters(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	assert_int_equal(nodus_store_put_plan(f->s, DIGEST2, "other", plan_json, &err), 0);
	nodus_record rs[5] = {
		make_record("w/r/r", "mps-2", 1, 1), make_record("w/c/r", "isolated", 1, 0),
		make_record("w/c/r", "isolated", 2, 1), make_record("w/c/r", "mps-2", 1, 1),
		make_record("w/c/r", "isolated", 1, 1),
	};
	snprintf(rs[4].plan_digest, sizeof(rs[4].plan_digest), "%s", DIGEST2);
	for (int i = 0; i < 5; i++)
		assert_int_equal(nodus_store_insert_record(f->s, &rs[i], NULL, &err), 0);

	struct seen all = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, NULL, 0, 0, collect, &all, &err), 0);
	assert_int_equal(all.n, 5);
	for (int i = 0; i < 5; i++) {
		assert_string_equal(all.pair[i], rs[i].pair_id);
		assert_string_equal(all.cond[i], rs[i].condition);
		assert_int_equal(all.attempt[i], rs[i].attempt);
	}
	struct seen fin = {0};
	assert_int_equal(nodus_store_foreach_record(f->s, DIGEST, 1, 0, collect, &fin, &err), 0);
	assert_int_equal(fin.n, 3);
	assert_string_equal(fin.pair[0], "w/r/r");
	assert_int_equal(fin.attempt[1], 2);
	assert_string_equal(fin.cond[2], "mps-2");
	for (int i = 0; i < fin.n; i++)
		assert_int_equal(fin.final[i], 1);
	struct seen stop = {.stop_after = 2};
	assert_int_equal(nodus_store_foreach_record(f->s, NULL, 0, 0, collect, &stop, &err), 7);
	assert_int_equal(stop.n, 2);
}

static void test_plan_and_info(void **state)
{
	struct fixture *f = *state;
	nodus_error err = {0};
	/* put_plan is idempotent and fills pairs and conditions from the JSON */
	assert_int_equal(nodus_store_put_plan(f->s, DIGEST, "demo", plan_json, &err), 0);
	assert_int_equal(nodus_store_put_target(f->s, TARGET, "{\"gpu\":\"none\"}", &err), 0);
	assert_int_equal(nodus_store_put_target(f->s, TARGET, "{\"gpu\":\"none\"}", &err), 0);
	nodus_record r = make_record("w/c/r", "isolated", 1, 1);
	nodus_sample smp[2] = {{0, 0, 1, 0, 1, 0, 10, 0, 0, 0}, {0, 1, 0, 0, 1, 0, 12, 0, 0, 0}};
	r.samples = smp;
	r.n_samples = 2;
	assert_int_equal(nodus_store_insert_record(f->s, &r, NULL, &err), 0);
	nodus_record r2 = make_record("w/c/r", "mps-2", 1, 0);
	assert_int_equal(nodus_store_insert_record(f->s, &r2, NULL, &err), 0);
	nodus_store_info info;
	assert_int_equal(nodus_store_info_get(f->s, &info, &err), 0);
	assert_int_equal(info.schema_version, nodus_store_latest_version());
	assert_int_equal(info.plans, 1);
	assert_int_equal(info.pairs, 2);
	assert_int_equal(info.conditions, 2);
	assert_int_equal(info.targets, 1);
	assert_int_equal(info.records, 2);
	assert_int_equal(info.final_records, 1);
	assert_int_equal(info.samples, 2);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM pairs WHERE pair_id = 'w/c/r' "
				    "AND cand_hash = 'h1' AND expect = 'FASTER'"), 1);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM pairs WHERE pair_id = 'w/r/r' "
				    "AND expect IS NULL AND cand_hash IS NULL"), 1);

	char *json = NULL;
	assert_int_equal(nodus_store_get_plan(f->s, NULL, &json, &err), 0);
	assert_string_equal(json, plan_json);
	free(json);
	assert_int_equal(nodus_store_get_plan(f->s, DIGEST2, &json, &err), NODUS_ENOTFOUND);
	assert_null(json);
	assert_int_equal(nodus_store_get_target(f->s, TARGET, &json, &err), 0);
	assert_string_equal(json, "{\"gpu\":\"none\"}");
	free(json);
	assert_int_equal(nodus_store_get_target(f->s, DIGEST2, &json, &err), NODUS_ENOTFOUND);
	/* a plan that is not JSON: refused, nothing stored */
	assert_int_equal(nodus_store_put_plan(f->s, DIGEST2, "x", "{oops", &err), NODUS_EPARSE);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM plans"), 1);
}

static void test_pragmas(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* A writer killed with SIGKILL (no close, no checkpoint) loses nothing it
 * committed, and no record is stored without its samples. */
static void test_survives_sigkill(void **state)
{
	struct fixture *f = *state;
	nodus_store_close(f->s);
	f->s = NULL;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		nodus_store *s = NULL;
		nodus_error err = {0};
		nodus_sample smp[4] = {{0}};
		for (int i = 0; i < 4; i++)
			smp[i] = (nodus_sample){i, 0, i & 1, 0, 1, 0, 100 + i, 0, 0, 0};
		if (nodus_store_open(f->path, &s, &err))
			_exit(1);
		for (int a = 1; a <= 20; a++) {
			nodus_record r = make_record("w/c/r", "isolated", a, 0);
			r.samples = smp;
			r.n_samples = 4;
			if (nodus_store_insert_record(s, &r, NULL, &err))
				_exit(1);
		}
		raise(SIGKILL);
		_exit(2);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records"), 20);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM samples"), 80);
	assert_int_equal(count_rows(f->path, "SELECT COUNT(*) FROM records r WHERE (SELECT "
				    "COUNT(*) FROM samples s WHERE s.record_id = r.id) <> 4"), 0);
}

static void test_migrate_empty_file(void **state)
{
	struct fixture *f = *state;
	char path[160];
	nodus_error err = {0};
	nodus_store *s = NULL;
	snprintf(path, sizeof(path), "%s/empty.db", f->dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	/* a zero-byte file is a version-0 store: read-only refuses, read-write migrates */
	assert_int_equal(nodus_store_open_readonly(path, &s, &err), NODUS_EINVAL);
	assert_null(s);
	assert_int_equal(nodus_store_open(path, &s, &err), 0);
	assert_int_equal(nodus_store_schema_version(s), nodus_store_latest_version());
	assert_true(nodus_store_latest_version() >= 1);
	nodus_store_close(s);
	assert_int_equal(count_rows(path, "SELECT COUNT(*) FROM schema_version"),
			 nodus_store_latest_version());
	assert_int_equal(count_rows(path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN "
				    "('plans','pairs','conditions','targets','records','samples')"),
			 6);
	/* opening again applies nothing twice */
	assert_int_equal(nodus_store_open(path, &s, &err), 0);
	nodus_store_close(s);
	assert_int_equal(count_rows(path, "SELECT COUNT(*) FROM schema_version"),
			 nodus_store_latest_version());
	/* now read-only works */
	assert_int_equal(nodus_store_open_readonly(path, &s, &err), 0);
	nodus_store_close(s);
}

static void test_newer_version_refused(void **state)
{
	struct fixture *f = *state;
	char msg[256], sql[128];
	nodus_error err = {0};
	nodus_store *s = NULL;
	snprintf(sql, sizeof(sql), "INSERT INTO schema_version VALUES (%d, 0)",
		 nodus_store_latest_version() + 1);
	assert_int_equal(raw_exec(f->path, sql, msg, sizeof(msg)), SQLITE_OK);
	assert_int_equal(nodus_store_open(f->path, &s, &err), NODUS_EINVAL);
	assert_null(s);
	assert_non_null(strstr(err.message, "newer than this nodus"));
	assert_int_equal(nodus_store_open_readonly(f->path, &s, &err), NODUS_EINVAL);
	assert_null(s);
}

static void test_not_a_store(void **state)
{
	struct fixture *f = *state;
	char path[160], msg[256];
	nodus_error err = {0};
	nodus_store *s = NULL;
	struct stat sb;
	/* read-only open of a missing file: not found, and no file created */
	snprintf(path, sizeof(path), "%s/missing.db", f->dir);
	assert_int_equal(nodus_store_open_readonly(path, &s, &err), NODUS_ENOTFOUND);
	assert_int_not_equal(stat(path, &sb), 0);
	/* a text file */
	snprintf(path, sizeof(path), "%s/text.db", f->dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("this is not a database, not even close; it is long enough to have a header\n", fp);
	fclose(fp);
	assert_int_equal(nodus_store_open(path, &s, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "not a nodus store"));
	assert_int_equal(nodus_store_open_readonly(path, &s, &err), NODUS_EINVAL);
	/* someone else's SQLite database is left alone */
	snprintf(path, sizeof(path), "%s/other.db", f->dir);
	assert_int_equal(raw_exec(path, "CREATE TABLE t (x)", msg, sizeof(msg)), SQLITE_OK);
	assert_int_equal(nodus_store_open(path, &s, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "not a nodus store"));
	assert_int_equal(count_rows(path, "SELECT COUNT(*) FROM sqlite_master"), 1);
	/* a read-only handle does not write */
	assert_int_equal(nodus_store_open_readonly(f->path, &s, &err), 0);
	nodus_record r = make_record("w/c/r", "isolated", 1, 1);
	assert_int_equal(nodus_store_insert_record(s, &r, NULL, &err), NODUS_ESTORE);
	nodus_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nan_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_delete_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicates_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_status_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_isolated_is_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreach_order_and_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_and_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pragmas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_survives_sigkill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_empty_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_store, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
