/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-serve.c: the parts of `nodus serve` below HTTP (src/serve/).
 *
 *   1.x queue.c: a submission is stored once per idempotency key (the
 *       same body: the same id; another: a conflict), a full queue stores
 *       nothing, queued ones are taken oldest first and sealed into a
 *       batch, a failed run is counted and, the last time, ends every
 *       submission of the batch once, with distinct sequence numbers; a
 *       finished batch ends its submissions with a result.
 *   2.x submission.c: bad JSON is a parse fault with line and column; an
 *       unknown field, a workload the campaign lacks, a source path that
 *       leaves its directory and a solution fault are reported with their
 *       JSON paths; a valid one comes back without its name, task filled;
 *       a KernelBench ModelNew source becomes a module-style candidate.
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
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "serve/serve-internal.h"
#include "store/store.h"

typedef struct fixture {
	char dir[64];
	char db_path[128];
	sqlite3 *db;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	nodus_error err;
	nodus_store *s = NULL;
	snprintf(f->dir, sizeof(f->dir), "/tmp/nodus-test-serve-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db_path, sizeof(f->db_path), "%s/s.db", f->dir);
	memset(&err, 0, sizeof(err));
	assert_int_equal(nodus_store_open(f->db_path, &s, &err), 0);
	nodus_store_close(s);
	assert_int_equal(nodus__sq_open(f->db_path, &f->db, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	sqlite3_close(f->db);
	nodus_remove_tree(f->dir);
	free(f);
	return 0;
}

static int64_t submit(fixture *f, const char *key, const char *sha, int queue_max, int *outcome)
{
	nodus_error err;
	int64_t id = 0;
	memset(&err, 0, sizeof(err));
	assert_int_equal(nodus__sq_submit(f->db, key, sha, "c", "w", "r", NULL, "{}", NULL, queue_max,
					  &id, outcome, &err), 0);
	return id;
}

static int64_t count(fixture *f, const char *sql)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(f->db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* 1.1 idempotency keys and the full queue */
static void test_submit_once(void **state)
{
	fixture *f = *state;
	int out;
	assert_int_equal(submit(f, "k1", SHA_A, 3, &out), 1);
	assert_int_equal(out, NODUS__SQ_NEW);
	assert_int_equal(submit(f, "k1", SHA_A, 3, &out), 1);
	assert_int_equal(out, NODUS__SQ_EXISTING);
	assert_int_equal(submit(f, "k1", SHA_B, 3, &out), 1);
	assert_int_equal(out, NODUS__SQ_CONFLICT);
	assert_int_equal(submit(f, NULL, SHA_B, 3, &out), 2);
	assert_int_equal(submit(f, "", SHA_B, 3, &out), 3); /* "" is no key */
	assert_int_equal(out, NODUS__SQ_NEW);
	submit(f, "k4", SHA_B, 3, &out);
	assert_int_equal(out, NODUS__SQ_FULL);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM serve_submissions"), 3);
	/* a stored key is answered even when the queue is full */
	assert_int_equal(submit(f, "k1", SHA_A, 3, &out), 1);
	assert_int_equal(out, NODUS__SQ_EXISTING);
}

/* 1.2 taken in order, sealed, a failed run counted, then the batch failed */
static void test_batch_fail(void **state)
{
	fixture *f = *state;
	nodus_error err;
	int out, n = 0, found = 0, ended = 0;
	nodus__sq_sub *subs = NULL;
	nodus__sq_batch b;
	int64_t bid = 0, last = 0;
	memset(&err, 0, sizeof(err));
	for (int i = 0; i < 4; i++)
		submit(f, NULL, SHA_A, 10, &out);
	assert_int_equal(nodus__sq_take_queued(f->db, 3, &subs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(subs[0].id, 1);
	assert_int_equal(subs[2].id, 3);
	assert_string_equal(subs[1].solution_json, "{}");
	char pairs[3][NODUS_PAIR_ID_MAX] = {"w/serve_1/r", "w/serve_2/r", "w/serve_3/r"};
	assert_int_equal(nodus__sq_seal(f->db, SHA_B, "/x/plan.json", subs, pairs, n, &bid, &err), 0);
	/* sealing twice is refused: they are not queued any more */
	assert_int_not_equal(nodus__sq_seal(f->db, SHA_B, "/x/plan.json", subs, pairs, n, &bid, &err),
			     0);
	nodus__sq_subs_free(subs, n);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM serve_submissions WHERE state = 'batched'"), 3);
	assert_int_equal(nodus__sq_next_batch(f->db, &b, &found, &err), 0);
	assert_int_equal(found, 1);
	assert_string_equal(b.plan_path, "/x/plan.json");
	assert_int_equal(nodus__sq_fail_run(f->db, &b, "boom", 2, &ended, &last, &err), 0);
	assert_int_equal(ended, 0);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM serve_submissions WHERE done_seq IS NOT NULL"), 0);
	assert_int_equal(nodus__sq_next_batch(f->db, &b, &found, &err), 0);
	assert_int_equal(b.run_failures, 1);
	assert_int_equal(nodus__sq_fail_run(f->db, &b, "boom again", 2, &ended, &last, &err), 0);
	assert_int_equal(ended, 1);
	assert_int_equal(last, 3);
	assert_int_equal(count(f, "SELECT COUNT(DISTINCT done_seq) FROM serve_submissions "
			      "WHERE state = 'failed'"), 3);
	assert_int_equal(nodus__sq_next_batch(f->db, &b, &found, &err), 0);
	assert_int_equal(found, 0);
	json_t *o = NULL;
	assert_int_equal(nodus__sq_get(f->db, 2, &o, &err), 0);
	assert_string_equal(json_string_value(json_object_get(o, "state")), "failed");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "result"),
							      "message")), "boom again");
	json_decref(o);
	assert_int_equal(nodus__sq_get(f->db, 99, &o, &err), 0);
	assert_null(o);
	/* the fourth is still queued, and the stream holds the three, in order */
	json_t *arr = json_array();
	assert_int_equal(nodus__sq_results_after(f->db, 1, 10, arr, &err), 0);
	assert_int_equal(json_array_size(arr), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(arr, 0), "seq")), 2);
	json_decref(arr);
}

/* 1.3 a finished batch ends each submission once, with a result */
static void test_batch_finish(void **state)
{
	fixture *f = *state;
	nodus_error err;
	int out, n = 0, found = 0;
	nodus__sq_sub *subs = NULL;
	nodus__sq_batch b;
	int64_t bid = 0, last = 0;
	memset(&err, 0, sizeof(err));
	submit(f, NULL, SHA_A, 10, &out);
	submit(f, NULL, SHA_A, 10, &out);
	assert_int_equal(nodus__sq_take_queued(f->db, 8, &subs, &n, &err), 0);
	char pairs[2][NODUS_PAIR_ID_MAX] = {"w/serve_1/r", "w/serve_2/r"};
	assert_int_equal(nodus__sq_seal(f->db, SHA_B, "/x/plan.json", subs, pairs, n, &bid, &err), 0);
	nodus__sq_subs_free(subs, n);
	assert_int_equal(nodus__sq_next_batch(f->db, &b, &found, &err), 0);
	assert_int_equal(nodus__sq_finish_batch(f->db, &b, 1.0, "isolated", &last, &err), 0);
	assert_int_equal(last, 2);
	/* again: nothing is batched any more, nothing ends twice */
	assert_int_equal(nodus__sq_finish_batch(f->db, &b, 1.0, "isolated", &last, &err), 0);
	assert_int_equal(last, 2);
	json_t *o = NULL;
	assert_int_equal(nodus__sq_get(f->db, 1, &o, &err), 0);
	json_t *res = json_object_get(o, "result");
	/* no records were written for the plan: the outcome says so */
	assert_string_equal(json_string_value(json_object_get(res, "outcome")), "MISSING");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "cost"), "attempts")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "state")), "done");
	json_decref(o);
}

/* 1.4 a whole campaign is a batch alone, in its turn */
static void test_campaign_alone(void **state)
{
	fixture *f = *state;
	nodus_error err;
	int out, n = 0;
	int64_t id = 0;
	nodus__sq_sub *subs = NULL;
	memset(&err, 0, sizeof(err));
	submit(f, NULL, SHA_A, 10, &out);
	assert_int_equal(nodus__sq_submit(f->db, NULL, SHA_A, "whole", NULL, NULL, NULL, NULL,
					  "/u/campaign.json", 10, &id, &out, &err), 0);
	assert_int_equal(id, 2);
	submit(f, NULL, SHA_A, 10, &out);
	/* the oldest is a candidate: the candidates, not the campaign */
	assert_int_equal(nodus__sq_take_queued(f->db, 8, &subs, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(subs[1].id, 3);
	assert_null(subs[0].upload_path);
	char pairs[2][NODUS_PAIR_ID_MAX] = {"w/serve_1/r", "w/serve_3/r"};
	int64_t bid;
	assert_int_equal(nodus__sq_seal(f->db, SHA_B, "/x/plan.json", subs, pairs, n, &bid, &err), 0);
	nodus__sq_subs_free(subs, n);
	/* then the campaign, alone */
	submit(f, NULL, SHA_A, 10, &out);
	assert_int_equal(nodus__sq_take_queued(f->db, 8, &subs, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(subs[0].id, 2);
	assert_string_equal(subs[0].upload_path, "/u/campaign.json");
	assert_null(subs[0].solution_json);
	assert_int_equal(nodus__sq_seal(f->db, SHA_A, "/y/plan.json", subs, NULL, n, &bid, &err), 0);
	nodus__sq_subs_free(subs, n);
	json_t *o = NULL;
	assert_int_equal(nodus__sq_get(f->db, 2, &o, &err), 0);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "campaign");
	assert_string_equal(json_string_value(json_object_get(o, "state")), "batched");
	json_decref(o);
}

/* ---- 2.x submissions ---- */

static nodus__serve *serve_new(const char *dir)
{
	nodus__serve *sv = calloc(1, sizeof(*sv));
	nodus_diags d = NODUS_DIAGS_INIT;
	char tmp[1200];
	snprintf(sv->files_dir, sizeof(sv->files_dir), "%s/files", dir);
	mkdir(sv->files_dir, 0755);
	snprintf(tmp, sizeof(tmp), "%s/tmp", sv->files_dir);
	mkdir(tmp, 0755);
	snprintf(sv->bases[0].path, sizeof(sv->bases[0].path), "%s/suites/cpu/campaign.json",
		 NODUS_SOURCE_DIR);
	assert_int_equal(nodus_campaign_load(sv->bases[0].path, &sv->bases[0].c, &d), 0);
	nodus_diags_release(&d);
	sv->n_bases = 1;
	return sv;
}

static void serve_free(nodus__serve *sv)
{
	nodus_campaign_free(sv->bases[0].c);
	free(sv);
}

/* Parses body; returns the code, the faults in d. */
static int parse(nodus__serve *sv, const char *body, nodus_diags *d, nodus__serve_sub *s)
{
	return nodus__serve_sub_parse(sv, body, strlen(body), s, d);
}

static int has_path(const nodus_diags *d, const char *path)
{
	for (size_t i = 0; i < d->count; i++)
		if (strcmp(d->items[i].json_path, path) == 0)
			return 1;
	return 0;
}

#define SOL_OK                                                                               \
	"{\"kind\": \"solution\", \"format\": 1, \"backend\": \"cpu\", \"entry\": \"f\", "   \
	"\"sources\": [{\"path\": \"f.c\", \"content\": \"int f(void) { return 0; }\"}]}"

static void test_parse(void **state)
{
	fixture *f = *state;
	nodus__serve *sv = serve_new(f->dir);
	nodus_diags d = NODUS_DIAGS_INIT;
	nodus__serve_sub s;

	/* 2.1 bad JSON: line and column */
	assert_int_equal(parse(sv, "{\n  \"workload\": ,\n}", &d, &s), NODUS_EPARSE);
	assert_int_equal(d.count, 1);
	assert_int_equal(d.items[0].line, 2);
	assert_true(strstr(d.items[0].message, "at byte") != NULL);
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);

	/* 2.2 unknown field, unknown workload */
	assert_int_equal(parse(sv, "{\"workload\": \"nope\", \"x\": 1, \"solution\": " SOL_OK "}", &d,
			       &s), NODUS_EINVAL);
	assert_true(has_path(&d, "$"));
	assert_true(has_path(&d, "$.workload"));
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);

	/* 2.3 a source path that would leave the directory */
	assert_int_equal(parse(sv, "{\"workload\": \"vector_poly_16384\", \"solution\": {\"sources\": "
			       "[{\"path\": \"../x.c\", \"content\": \"\"}]}}", &d, &s), NODUS_EINVAL);
	assert_true(has_path(&d, "$.solution.sources[0]"));
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);

	/* 2.4 a fault of the solution checker, under $.solution, located */
	assert_int_equal(parse(sv, "{\"workload\": \"vector_poly_16384\",\n \"solution\": {\"kind\": "
			       "\"solution\", \"format\": 1, \"backend\": \"cpu\",\n \"entry\": \"1x\", "
			       "\"sources\": [{\"path\": \"f.c\", \"content\": \"\"}]}}", &d, &s),
			 NODUS_EINVAL);
	assert_true(has_path(&d, "$.solution.entry"));
	assert_int_equal(d.items[0].line, 3);
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);

	/* 2.5 valid: the name left out, the task filled in, the reference defaulted */
	assert_int_equal(parse(sv, "{\"workload\": \"vector_poly_16384\", \"label\": \"t\", "
			       "\"solution\": " SOL_OK "}", &d, &s), 0);
	assert_int_equal(d.count, 0);
	assert_string_equal(s.reference, "vector_poly_ref");
	assert_string_equal(s.campaign, sv->bases[0].c->name);
	assert_string_equal(s.label, "t");
	assert_null(strstr(s.solution_json, "\"name\""));
	assert_non_null(strstr(s.solution_json, "\"task\":\"vector_poly\""));
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);

	/* 2.6 a KernelBench source needs a python module reference; not with a solution */
	assert_int_equal(parse(sv, "{\"workload\": \"vector_poly_16384\", \"kernelbench\": "
			       "{\"path\": \"c.py\", \"content\": \"\"}}", &d, &s), NODUS_EINVAL);
	assert_true(has_path(&d, "$.reference"));
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);
	assert_int_equal(parse(sv, "{\"workload\": \"vector_poly_16384\", \"kernelbench\": "
			       "{\"path\": \"c.py\", \"content\": \"\"}, \"solution\": " SOL_OK "}",
			       &d, &s), NODUS_EINVAL);
	assert_true(has_path(&d, "$.kernelbench"));
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);
	serve_free(sv);
}

/* 2.7 a KernelBench ModelNew source becomes the module-style candidate
 * `nodus import kernelbench-candidate` makes, with the reference's params */
static void test_parse_kernelbench(void **state)
{
	fixture *f = *state;
	nodus__serve *sv = serve_new(f->dir);
	nodus_diags d = NODUS_DIAGS_INIT;
	nodus__serve_sub s;
	char path[1024];
	nodus_campaign_free(sv->bases[0].c);
	snprintf(path, sizeof(path), "%s/suites/torch/kernelbench/campaign.json", NODUS_SOURCE_DIR);
	assert_int_equal(nodus_campaign_load(path, &sv->bases[0].c, &d), 0);
	assert_int_equal(parse(sv, "{\"workload\": \"softmax_eager\", \"kernelbench\": {\"path\": "
			       "\"c.py\", \"content\": \"class ModelNew: pass\\n\"}}", &d, &s), 0);
	assert_int_equal(d.count, 0);
	json_t *sol = json_loads(s.solution_json, 0, NULL);
	assert_non_null(sol);
	assert_string_equal(json_string_value(json_object_get(sol, "entry")), "ModelNew");
	assert_string_equal(json_string_value(json_object_get(sol, "language")), "python");
	assert_string_equal(json_string_value(json_object_get(json_object_get(sol, "python"),
							      "style")), "module");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(sol, "sources"), 0), "path")), "c.py");
	json_decref(sol);
	nodus__serve_sub_release(&s);
	nodus_diags_release(&d);
	serve_free(sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_submit_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_finish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_kernelbench, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
