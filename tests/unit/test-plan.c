/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-plan.c: unit tests of src/plan/: sealing the mini fixture (in a
 * copy under /tmp), the digest over the canonical form, verification of
 * unchanged, changed and missing files and of an edited plan, and loading.
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

#include "plan/plan.h"

#define MINI NODUS_TEST_DATA "/fixtures/mini"

typedef struct fixture {
	char dir[64];   /* copy of the mini fixture */
	char plan[128]; /* dir/plan.json */
} fixture;

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc;
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/nodus-test-plan-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp -r '%s/.' '%s/'", MINI, f->dir);
	if (run(cmd) != 0)
		return -1;
	snprintf(f->plan, sizeof(f->plan), "%s/plan.json", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	run(cmd);
	free(f);
	return 0;
}

static void seal(fixture *f, char digest[NODUS_SHA256_HEX])
{
	char campaign[128];
	nodus_diags d = NODUS_DIAGS_INIT;
	nodus_error err = {0};
	snprintf(campaign, sizeof(campaign), "%s/campaign.json", f->dir);
	assert_int_equal(nodus_plan_seal(campaign, f->plan, digest, &d, &err), 0);
	assert_int_equal(d.count, 0);
}

static void append(const char *dir, const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *fp = fopen(path, "a");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_seal_digest(void **state)
{
	fixture *f = *state;
	char digest[NODUS_SHA256_HEX];
	seal(f, digest);
	json_t *plan = json_load_file(f->plan, 0, NULL);
	assert_non_null(plan);
	assert_string_equal(json_string_value(json_object_get(plan, "digest")), digest);
	/* the digest is the SHA-256 of the canonical plan without "digest" */
	json_object_del(plan, "digest");
	char *canon = nodus_json_canonical(plan);
	char again[NODUS_SHA256_HEX];
	nodus_sha256_hex(canon, strlen(canon), again);
	assert_string_equal(again, digest);
	free(canon);
	/* contents a runner relies on */
	assert_string_equal(json_string_value(json_object_get(plan, "kind")), "plan");
	assert_string_equal(json_string_value(json_object_get(plan, "campaign_path")),
			    "campaign.json");
	assert_int_equal(json_array_size(json_object_get(plan, "files")), 7);
	json_t *pair = json_array_get(json_object_get(plan, "pairs"), 0);
	assert_string_equal(json_string_value(json_object_get(pair, "id")),
			    "vec_add_4k/vec_add_unrolled/vec_add_ref");
	assert_string_equal(json_string_value(json_object_get(pair, "expect")), "TIED");
	json_t *judge = json_object_get(plan, "judge");
	assert_int_equal(json_integer_value(json_object_get(judge, "trials")), 4);
	assert_int_equal(json_integer_value(json_object_get(judge, "seed")), 7);
	json_t *target = json_object_get(plan, "target");
	assert_true(json_is_null(json_object_get(target, "price_per_device_hour_usd")));
	json_decref(plan);
	/* sealing twice gives the same digest */
	char second[NODUS_SHA256_HEX];
	seal(f, second);
	assert_string_equal(digest, second);
}

static void test_verify_changes(void **state)
{
	fixture *f = *state;
	char digest[NODUS_SHA256_HEX];
	seal(f, digest);
	nodus_diags d = NODUS_DIAGS_INIT;
	assert_int_equal(nodus_plan_verify(f->plan, &d), 0);
	assert_int_equal(d.count, 0);

	append(f->dir, "solutions/vec_add_ref.c", "\n");
	append(f->dir, "tasks/vec_add.json", " ");
	assert_int_equal(nodus_plan_verify(f->plan, &d), NODUS_ECHANGED);
	assert_int_equal(d.count, 3);
	assert_non_null(strstr(d.items[0].file, "tasks/vec_add.json"));
	assert_non_null(strstr(d.items[1].file, "solutions/vec_add_ref.c"));
	assert_non_null(strstr(d.items[1].message, "expected sha256 "));
	/* then what the change means: the reference's code changed */
	assert_string_equal(d.items[2].json_path, "$");
	assert_non_null(strstr(d.items[2].message, "changed vec_add_ref"));
	assert_non_null(strstr(d.items[2].message, "seal the campaign again"));
	nodus_diags_release(&d);

	char path[256];
	snprintf(path, sizeof(path), "%s/workloads/vec_add_4k.json", f->dir);
	unlink(path);
	assert_int_equal(nodus_plan_verify(f->plan, &d), NODUS_ECHANGED);
	assert_int_equal(d.count, 3); /* the campaign no longer loads: nothing to explain */
	nodus_diags_release(&d);
}

static void test_verify_edited_plan(void **state)
{
	fixture *f = *state;
	char digest[NODUS_SHA256_HEX], cmd[512];
	seal(f, digest);
	snprintf(cmd, sizeof(cmd), "sed -i 's/\"trials\": 4/\"trials\": 1/' '%s'", f->plan);
	assert_int_equal(run(cmd), 0);
	nodus_diags d = NODUS_DIAGS_INIT;
	assert_int_equal(nodus_plan_verify(f->plan, &d), NODUS_ECHANGED);
	assert_int_equal(d.count, 1);
	assert_string_equal(d.items[0].json_path, "$.digest");
	nodus_diags_release(&d);
	snprintf(cmd, sizeof(cmd), "echo '[1, 2]' > '%s'", f->plan);
	assert_int_equal(run(cmd), 0);
	assert_int_equal(nodus_plan_verify(f->plan, &d), NODUS_EPARSE);
	nodus_diags_release(&d);
}

static void test_load(void **state)
{
	fixture *f = *state;
	char digest[NODUS_SHA256_HEX];
	seal(f, digest);
	nodus_plan *p = NULL;
	nodus_diags d = NODUS_DIAGS_INIT;
	assert_int_equal(nodus_plan_load(f->plan, &p, &d), 0);
	assert_string_equal(p->digest, digest);
	assert_int_equal(p->campaign->n_pairs, 2);
	const nodus_campaign *c = p->campaign;
	json_t *pair = json_array_get(json_object_get(p->json, "pairs"), 0);
	assert_string_equal(json_string_value(json_object_get(pair, "candidate_hash")),
			    c->solutions[c->pairs[0].candidate].hash);
	nodus_plan_free(p);

	append(f->dir, "solutions/vec_add_unrolled.c", "/* x */\n");
	assert_int_equal(nodus_plan_load(f->plan, &p, &d), NODUS_ECHANGED);
	assert_null(p);
	assert_int_equal(d.count, 2); /* the file, then what it means for the plan */
	assert_non_null(strstr(d.items[1].message, "changed vec_add_unrolled"));
	nodus_diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seal_digest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_edited_plan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
