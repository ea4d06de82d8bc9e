/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-spec.c: unit tests of src/spec/: the solution content hash, the
 * line:column and JSON path of faults, that every fault of a file is
 * reported, the position index on its own, the judge defaults, campaign
 * loading of the mini fixture, canonical JSON, the dtype table and
 * python.params as text (params.c).
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "spec/jsonpos.h"
#include "spec/spec-internal.h"
#include "spec/spec.h"

#define MINI NODUS_TEST_DATA "/fixtures/mini"

/* ---- helpers ---- */

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);
	assert_non_null(j);
	return j;
}

/* Runs nodus check on text (as file "t.json", base dir MINI) and returns
 * the diags. */
static nodus_diags check_text(const char *text)
{
	nodus_diags d = NODUS_DIAGS_INIT;
	nodus__spec_check_text("t.json", text, strlen(text), MINI, &d);
	return d;
}

/* Finds the diag whose path is path; fails the test when there is none. */
static const nodus_error *find_diag(const nodus_diags *d, const char *path)
{
	for (size_t k = 0; k < d->count; k++)
		if (strcmp(d->items[k].json_path, path) == 0)
			return &d->items[k];
	for (size_t k = 0; k < d->count; k++)
		print_message("diag: %s:%d:%d: %s: %s\n", d->items[k].file, d->items[k].line,
			      d->items[k].column, d->items[k].json_path, d->items[k].message);
	fail_msg("no fault at %s", path);
	return NULL;
}

static void assert_at(const nodus_diags *d, const char *path, int line, int column,
		      const char *fragment)
{
	const nodus_error *e = find_diag(d, path);
	assert_string_equal(e->file, "t.json");
	assert_int_equal(e->line, line);
	assert_int_equal(e->column, column);
	if (!strstr(e->message, fragment))
		fail_msg("message '%s' lacks '%s'", e->message, fragment);
}

/* ---- solution hash ---- */

static const char *const SOL_A =
	"{\"kind\": \"solution\", \"format\": 1, \"name\": \"a\", \"task\": \"vec_add\","
	" \"backend\": \"cpu\", \"sources\": [\"vec_add_ref.c\"], \"entry\": \"vec_add_ref\","
	" \"build\": {\"flags\": [\"-O2\"]}, \"author\": \"alice\", \"tags\": [\"x\"]}";

static void sol_hash(const char *text, char out[NODUS_SHA256_HEX])
{
	json_t *j = parse(text);
	nodus_solution *s = calloc(1, sizeof(*s));
	nodus_diags d = NODUS_DIAGS_INIT;
	assert_int_equal(nodus_solution_from_json(j, "s.json", text, MINI "/solutions", s, &d), 0);
	assert_int_equal(d.count, 0);
	assert_int_equal(strlen(s->hash), 64);
	memcpy(out, s->hash, NODUS_SHA256_HEX);
	nodus_solution_release(s);
	free(s);
	json_decref(j);
}

static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	char *out = malloc(strlen(text) + strlen(to) + 1);
	size_t pre = (size_t)(at - text);
	memcpy(out, text, pre);
	strcpy(out + pre, to);
	strcat(out, at + strlen(from));
	return out;
}

static void test_hash_ignores_names(void **state)
{
	(void)state;
	char a[NODUS_SHA256_HEX], b[NODUS_SHA256_HEX];
	sol_hash(SOL_A, a);
	char *renamed = replace(SOL_A, "\"name\": \"a\"", "\"name\": \"b_other\"");
	char *t2 = replace(renamed, "\"alice\"", "\"bob\"");
	char *t3 = replace(t2, "[\"x\"]", "[\"y\", \"z\"]");
	sol_hash(t3, b);
	assert_string_equal(a, b);
	free(renamed);
	free(t2);
	free(t3);
}

static void test_hash_sees_flags_entry_sources(void **state)
{
	(void)state;
	char a[NODUS_SHA256_HEX], b[NODUS_SHA256_HEX];
	sol_hash(SOL_A, a);
	char *flag = replace(SOL_A, "\"-O2\"", "\"-O3\"");
	sol_hash(flag, b);
	assert_string_not_equal(a, b);
	char *two = replace(SOL_A, "\"-O2\"", "\"-O2\", \"-g\"");
	sol_hash(two, b);
	assert_string_not_equal(a, b);
	/* the same bytes under another entry name are another solution */
	char *src = replace(SOL_A, "[\"vec_add_ref.c\"]", "[\"vec_add_unrolled.c\"]");
	sol_hash(src, b);
	assert_string_not_equal(a, b);
	/* flags ["-Wall", "-Wextra"] must not collide with one flag
	 * "-Wall-Wextra" and the like (both pass the flag allow-list) */
	char *glued = replace(SOL_A, "\"-O2\"", "\"-Wall-Wextra\"");
	char *split = replace(SOL_A, "\"-O2\"", "\"-Wall\", \"-Wextra\"");
	char c[NODUS_SHA256_HEX];
	sol_hash(split, b);
	sol_hash(glued, c);
	assert_string_not_equal(b, c);
	free(flag);
	free(two);
	free(src);
	free(glued);
	free(split);
}

static void test_hash_sees_source_bytes(void **state)
{
	(void)state;
	char dir[] = "/tmp/nodus-test-spec-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[512];
	snprintf(path, sizeof(path), "%s/vec_add_ref.c", dir);
	const char *text = SOL_A;
	char h1[NODUS_SHA256_HEX], h2[NODUS_SHA256_HEX];
	for (int round = 0; round < 2; round++) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(round ? "int vec_add_ref;\n" : "int vec_add_ref; \n", f);
		fclose(f);
		json_t *j = parse(text);
		nodus_solution *s = calloc(1, sizeof(*s));
		nodus_diags d = NODUS_DIAGS_INIT;
		assert_int_equal(nodus_solution_from_json(j, "s.json", text, dir, s, &d), 0);
		memcpy(round ? h2 : h1, s->hash, NODUS_SHA256_HEX);
		nodus_solution_release(s);
		free(s);
		json_decref(j);
	}
	assert_string_not_equal(h1, h2);
	unlink(path);
	rmdir(dir);
}

/* ---- fault positions ---- */

static void test_positions_task(void **state)
{
	(void)state;
	const char *text = "{\n"
			   "  \"kind\": \"task\", \"format\": 1,\n"
			   "  \"name\": \"t\",\n"
			   "  \"axes\": {\"n\": {\"type\": \"var\"}},\n"
			   "  \"inputs\": [\n"
			   "    {\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", \"q\"],\n"
			   "     \"init\": {\"dist\": \"normal\", \"mean\": 0, \"std\": -1}},\n"
			   "    {\"name\": \"w\", \"dtype\": \"int33\", \"shape\": null,\n"
			   "     \"init\": {\"dist\": \"int_range\", \"low\": 0, \"high\": 3}, \"bogus\": 1}\n"
			   "  ],\n"
			   "  \"outputs\": [{\"name\": \"y\", \"shape\": [\"n\"]}],\n"
			   "  \"tolerance\": {\"atol\": 0, \"rtol\": 0}\n"
			   "}\n";
	nodus_diags d = check_text(text);
	assert_int_equal(d.count, 5);
	assert_at(&d, "$.inputs[0].shape[1]", 6, 54, "expected an axis of the task (n), got \"q\"");
	assert_at(&d, "$.inputs[0].init.std", 7, 51, "got -1");
	assert_at(&d, "$.inputs[1].dtype", 8, 28, "got \"int33\"");
	assert_at(&d, "$.inputs[1].bogus", 9, 58, "unknown field \"bogus\"");
	/* missing: located at the object that lacks it */
	assert_at(&d, "$.outputs[0].dtype", 11, 15, "expected required field \"dtype\"");
	nodus_diags_release(&d);
}

static void test_positions_utf8_and_keys(void **state)
{
	(void)state;
	/* columns count characters: "é" is two bytes, one column; escaped and
	 * non-identifier keys get the same path as jansson's decoded keys */
	const char *text = "{\"kind\": \"task\", \"format\": 1, \"description\": \"\xc3\xa9\xc3\xa9\","
			   " \"name\": 3,\n"
			   "\"\\u0061xes\": {\"n\": {\"type\": \"var\"}}, \"my key\": 1,\n"
			   "\"inputs\": [], \"outputs\": [], \"tolerance\": {}}";
	nodus_diags d = check_text(text);
	assert_at(&d, "$.name", 1, 60, "expected a name");
	assert_at(&d, "$[\"my key\"]", 2, 38, "unknown field \"my key\"");
	assert_at(&d, "$.inputs", 3, 11, "expected 1 to 16 input tensors, got 0");
	assert_at(&d, "$.tolerance.atol", 3, 43, "required field \"atol\"");
	nodus_diags_release(&d);
}

static void test_positions_syntax(void **state)
{
	(void)state;
	nodus_diags d = check_text("{\n  \"kind\": \"task\",\n  \"kind\": \"x\"\n}");
	assert_int_equal(d.count, 1);
	assert_at(&d, "$", 3, 3, "expected unique keys");
	nodus_diags_release(&d);
	d = check_text("{\"a\": [1, 2,\n   1e999]}");
	assert_at(&d, "$.a[2]", 2, 4, "expected a finite number");
	nodus_diags_release(&d);
	/* an overflow names its field, past strings holding brackets, commas
	 * and escaped quotes; 2^64-1 is not called "not within 64 bits" */
	d = check_text("{\"s\": \"[,{\\\"\", \"o\": {\"k,\": [{}, {\"n\": 18446744073709551615}]}}");
	assert_at(&d, "$.o.k,[1].n", 1, 39, "expected an integer from -2^63 to 2^63-1");
	nodus_diags_release(&d);
	d = check_text("");
	assert_at(&d, "$", 1, 1, "got an empty file");
	nodus_diags_release(&d);
}

static void test_all_faults_of_a_campaign(void **state)
{
	(void)state;
	const char *text =
		"{\"kind\": \"campaign\", \"format\": 1, \"name\": \"c\",\n"
		" \"tasks\": [\"tasks/vec_add.json\"], \"workloads\": [\"workloads/vec_add_4k.json\"],\n"
		" \"solutions\": [\"solutions/vec_add_ref.json\", \"solutions/vec_add_ref.json\"],\n"
		" \"pairs\": [{\"workload\": \"vec_add_4k\", \"candidate\": \"nope\", \"reference\": "
		"\"vec_add_ref\", \"expect\": \"REWARD_HACK\"}],\n"
		" \"judge\": {\"trials\": 0},\n"
		" \"conditions\": [{\"name\": \"a\", \"kind\": \"isolated\"}, {\"name\": \"b\", "
		"\"kind\": \"isolated\"}],\n"
		" \"target\": {\"backend\": \"cpu\", \"price_per_device_hour_usd\": null}}";
	nodus_diags d = check_text(text);
	/* a second isolated condition is a recheck of the baseline, not an error */
	assert_int_equal(d.count, 3);
	assert_at(&d, "$.solutions[1]", 3, 46, "unique solution name");
	assert_at(&d, "$.pairs[0].candidate", 4, 52, "got \"nope\"");
	assert_at(&d, "$.judge.trials", 5, 22, "[1, 1000]");
	nodus_diags_release(&d);
}

/* ---- the position index alone ---- */

static void test_jsonpos(void **state)
{
	(void)state;
	const char *text = "{\"a\": [10, {\"b\": true}, []],\n \"c\\\"d\": {}, \"e\": \"[\\\"]\"}";
	nodus__jsonpos *p = NULL;
	assert_int_equal(nodus__jsonpos_build(text, strlen(text), &p), 0);
	int line, col;
	assert_true(nodus__jsonpos_find(p, "$", 0, &line, &col));
	assert_int_equal(line * 100 + col, 101);
	assert_true(nodus__jsonpos_find(p, "$.a[1].b", 0, &line, &col));
	assert_int_equal(line * 100 + col, 118);
	assert_true(nodus__jsonpos_find(p, "$.a[1].b", 1, &line, &col));
	assert_int_equal(line * 100 + col, 113);
	assert_true(nodus__jsonpos_find(p, "$.a[2]", 0, &line, &col));
	assert_int_equal(line * 100 + col, 125);
	assert_true(nodus__jsonpos_find(p, "$[\"c\\\"d\"]", 1, &line, &col));
	assert_int_equal(line * 100 + col, 202);
	assert_true(nodus__jsonpos_find(p, "$.e", 0, &line, &col));
	assert_int_equal(line * 100 + col, 219);
	assert_false(nodus__jsonpos_find(p, "$.a[3]", 0, &line, &col));
	nodus__jsonpos_free(p);
	assert_int_equal(nodus__jsonpos_build("{\"a\": [1,", 9, &p), NODUS_EPARSE);
	assert_null(p);
}

/* ---- campaign, judge, canonical, dtypes ---- */

static void test_campaign_mini(void **state)
{
	(void)state;
	nodus_campaign *c = NULL;
	nodus_diags d = NODUS_DIAGS_INIT;
	assert_int_equal(nodus_campaign_load(MINI "/campaign.json", &c, &d), 0);
	assert_int_equal(d.count, 0);
	assert_int_equal(c->n_tasks, 1);
	assert_int_equal(c->n_pairs, 2);
	assert_string_equal(c->pairs[0].id, "vec_add_4k/vec_add_unrolled/vec_add_ref");
	assert_string_equal(c->pairs[1].expect, "EQUIVALENT");
	const nodus_workload *w = &c->workloads[c->pairs[0].workload];
	assert_int_equal(w->task, 0);
	assert_int_equal(w->axis_value[0], 4096);
	const nodus_task *t = &c->tasks[0];
	assert_int_equal(t->inputs[0].init.kind, NODUS_DIST_NORMAL);
	assert_int_equal(t->inputs[0].variants, NODUS_VARIANT_SCALE_3 | NODUS_VARIANT_NEGATE);
	assert_true(t->tolerance.max_error_cap < 0);
	assert_string_equal(t->roofline_bytes, "12*n");
	/* judge: declared values and defaults */
	assert_int_equal(c->judge.seed, 7);
	assert_int_equal(c->judge.min_rounds, 4);
	assert_int_equal(c->judge.trials, 4);
	assert_true(c->judge.tie_margin == 0.01);
	assert_int_equal(c->judge.retry_on, 1u << NODUS_STATUS_TIMEOUT | 1u << NODUS_STATUS_CRASH |
						    1u << NODUS_STATUS_NOT_ISOLATED);
	assert_int_equal(c->n_conditions, 2);
	assert_int_equal(c->conditions[1].kind, NODUS_COND_CPU_STRESS);
	assert_int_equal(c->conditions[1].load, NODUS_LOAD_MEMBW);
	assert_true(c->conditions[1].duty_cycle == 0.5);
	assert_int_equal(c->target.has_price, 0);
	assert_int_equal(nodus_campaign_find_solution(c, "vec_add_ref"), 0);
	assert_int_equal(nodus_campaign_find_workload(c, "nope"), -1);
	nodus_campaign_free(c);
}

static void test_retry_on(void **state)
{
	(void)state;
	char *text = NULL;
	nodus_buf b = NODUS_BUF_INIT;
	assert_int_equal(nodus_buf_read_file(&b, MINI "/campaign.json"), 0);
	text = replace(b.data, "\"seed\": 7,", "\"seed\": 7, \"retry_on\": [\"OUT_OF_MEMORY\"],");
	nodus_campaign *c = NULL;
	nodus_diags d = NODUS_DIAGS_INIT;
	assert_int_equal(nodus__campaign_load_text("c.json", text, strlen(text), MINI, &c, &d), 0);
	assert_int_equal(c->judge.retry_on, 1u << NODUS_STATUS_OUT_OF_MEMORY);
	nodus_campaign_free(c);
	free(text);
	nodus_buf_release(&b);
}

static void test_canonical_and_dtypes(void **state)
{
	(void)state;
	json_t *j = parse("{\"b\": [1, 2.5, {\"z\": null, \"a\": \"\xc3\xa9\"}], \"a\": true}");
	char *s = nodus_json_canonical(j);
	assert_string_equal(s, "{\"a\":true,\"b\":[1,2.5,{\"a\":\"\xc3\xa9\",\"z\":null}]}");
	free(s);
	json_decref(j);
	assert_int_equal(nodus_dtype_size(NODUS_DTYPE_BFLOAT16), 2);
	assert_int_equal(nodus_dtype_size(NODUS_DTYPE_INT64), 8);
	assert_int_equal(nodus_dtype_size(0), 0);
	assert_int_equal(nodus_dtype_size(99), 0);
	assert_string_equal(nodus_dtype_name(NODUS_DTYPE_UINT8), "uint8");
	assert_int_equal(nodus_dtype_from_name("float16"), NODUS_DTYPE_FLOAT16);
	assert_int_equal(nodus_dtype_from_name("float8"), -1);
}

/* Regression (found by fuzz-spec): a long string of control characters cut
 * to fit must leave room for "...", the quote and the NUL. Run under ASan,
 * an overflow of out fails the test. */
static void test_describe_bounds(void **state)
{
	(void)state;
	char raw[200];
	for (size_t k = 0; k < sizeof(raw); k++)
		raw[k] = (char)(k % 3 == 0 ? 0x01 : k % 3 == 1 ? '"' : 'a');
	for (size_t len = 0; len < sizeof(raw); len += 7) {
		json_t *j = json_stringn(raw, len);
		for (size_t size = 1; size <= 120; size++) {
			char *out = malloc(size);
			nodus__v_describe(j, out, size);
			assert_true(strlen(out) < size);
			free(out);
		}
		json_decref(j);
	}
	json_t *j = json_string("abc");
	char out[96];
	nodus__v_describe(j, out, sizeof(out));
	assert_string_equal(out, "\"abc\"");
	json_decref(j);
}

/* python.params as text (params.c): a scalar's empty sizes survive the
 * split; a pair agrees only entry for entry; a module differs from its
 * declaration by what is missing, changed, undeclared, then by order. */
static void test_py_params(void **state)
{
	(void)state;
	nodus_py_param *e = NULL;
	char detail[512], what[128];
	int index;
	assert_int_equal(nodus__py_params_split("", &e), 0);
	assert_null(e);
	assert_int_equal(nodus__py_params_split("fc.weight:32x24:float32;t::float64", &e), 2);
	assert_string_equal(e[0].name, "fc.weight");
	assert_string_equal(e[0].dims, "32x24");
	assert_string_equal(e[1].dims, "");
	assert_string_equal(e[1].dtype, "float64");
	nodus__py_param_describe(&e[0], what, sizeof(what));
	assert_string_equal(what, "fc.weight [32, 24] float32");
	nodus__py_param_describe(&e[1], what, sizeof(what));
	assert_string_equal(what, "t [] float64");
	free(e);

	const char *ref = "a:8:float32;b:8:float32";
	assert_int_equal(nodus__py_params_pair_diff(ref, ref, detail, sizeof(detail), &index), 0);
	assert_int_equal(nodus__py_params_pair_diff("b:8:float32;a:8:float32", ref, detail,
						    sizeof(detail), &index), 2);
	assert_int_equal(index, 0);
	assert_int_equal(nodus__py_params_pair_diff("a:8:float32", ref, detail, sizeof(detail),
						    &index), 1);
	assert_int_equal(index, 1);
	assert_string_equal(detail, "$.python.params[1] b [8] float32 is the reference's only");

	assert_int_equal(nodus__py_params_module_diff(ref, ref, detail, sizeof(detail), &index), 0);
	assert_int_equal(nodus__py_params_module_diff(ref, "a:8:float32;b:4:float32;c:8:float16",
						      detail, sizeof(detail), &index), 2);
	assert_int_equal(index, 1);
	assert_string_equal(detail, "$.python.params[1] b [8] float32 is declared, the module has "
				    "b [4] float32; the module's c [8] float16 is not declared");
	/* the same tensors in another order: the first place they differ */
	assert_int_equal(nodus__py_params_module_diff(ref, "b:8:float32;a:8:float32", detail,
						      sizeof(detail), &index), 1);
	assert_int_equal(index, 0);
	assert_string_equal(detail, "$.python.params[0] a [8] float32 is declared where torch's "
				    "order has b");
	assert_int_equal(nodus__py_params_module_diff(ref, "a:8:float32", detail, sizeof(detail),
						      &index), 1);
	assert_int_equal(index, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_ignores_names),
		cmocka_unit_test(test_hash_sees_flags_entry_sources),
		cmocka_unit_test(test_hash_sees_source_bytes),
		cmocka_unit_test(test_positions_task),
		cmocka_unit_test(test_positions_utf8_and_keys),
		cmocka_unit_test(test_positions_syntax),
		cmocka_unit_test(test_all_faults_of_a_campaign),
		cmocka_unit_test(test_jsonpos),
		cmocka_unit_test(test_campaign_mini),
		cmocka_unit_test(test_retry_on),
		cmocka_unit_test(test_canonical_and_dtypes),
		cmocka_unit_test(test_describe_bounds),
		cmocka_unit_test(test_py_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
