/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-merge.c: merging shard stores (nodus db merge).
 *   1. records and their samples arrive once, under new ids;
 *   2. merging the same shard again copies nothing;
 *   3. a shard with other measurements of a pair-condition the store holds
 *      (a second run: another attempt 1, a second final record) is refused,
 *      every such record named, and the store is left unchanged;
 *   4. with NODUS_MERGE_KEEP_BOTH they are kept as attempts 2 and 3, not
 *      final (the store's attempt 1 still decides), and merging the shard
 *      again finds them identical.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/store.h"

#define DIGEST "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TARGET "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static nodus_store *open_fresh(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	nodus_store *s = NULL;
	nodus_error err;
	assert_int_equal(nodus_store_open(path, &s, &err), 0);
	assert_int_equal(nodus_store_put_plan(s, DIGEST, "p", "{}", &err), 0);
	assert_int_equal(nodus_store_put_target(s, TARGET, "{}", &err), 0);
	return s;
}

static void add(nodus_store *s, const char *pair, int attempt, int final, int n_samples)
{
	nodus_sample smp[4];
	memset(smp, 0, sizeof(smp));
	for (int i = 0; i < n_samples; i++) {
		smp[i].round = i;
		smp[i].batch = 1;
		smp[i].ns = 1000 + i;
	}
	nodus_record r;
	memset(&r, 0, sizeof(r));
	strcpy(r.plan_digest, DIGEST);
	snprintf(r.pair_id, sizeof(r.pair_id), "%s", pair);
	strcpy(r.condition, "isolated");
	r.attempt = attempt;
	r.final = final;
	r.status = final ? NODUS_STATUS_OK : NODUS_STATUS_TIMEOUT;
	r.label = final ? NODUS_LABEL_TIED : NODUS_LABEL_NONE;
	r.speedup = r.ci_lo = r.ci_hi = final ? 1.0 : NAN;
	r.cand_ns_median = r.ref_ns_median = NAN;
	r.max_abs_err = r.max_rel_err = r.matched_ratio = NAN;
	r.charge_share = 1;
	strcpy(r.target_hash, TARGET);
	r.n_samples = n_samples;
	r.samples = smp;
	nodus_error err;
	assert_int_equal(nodus_store_insert_record(s, &r, NULL, &err), 0);
}

static void counts(nodus_store *s, int64_t *records, int64_t *samples)
{
	nodus_store_info info;
	nodus_error err;
	assert_int_equal(nodus_store_info_get(s, &info, &err), 0);
	*records = info.records;
	*samples = info.samples;
}

struct notes {
	int n;
	nodus_merge_note note[4];
};

static void note(const nodus_merge_note *n, void *ctx)
{
	struct notes *ns = ctx;
	if (ns->n < 4) {
		ns->note[ns->n] = *n;
		ns->note[ns->n].plan_digest = ns->note[ns->n].pair_id = NULL;
		ns->note[ns->n].condition = NULL; /* valid only during the call */
	}
	ns->n++;
}

static void test_merge(void **state)
{
	(void)state;
	char a_path[] = "/tmp/nodus-merge-a-XXXXXX", b_path[] = "/tmp/nodus-merge-b-XXXXXX",
	     c_path[] = "/tmp/nodus-merge-c-XXXXXX";
	nodus_store *a = open_fresh(a_path), *b = open_fresh(b_path), *c = open_fresh(c_path);
	add(a, "w/x/r", 1, 1, 3);
	add(b, "w/y/r", 1, 0, 0);
	add(b, "w/y/r", 2, 1, 4);
	/* c decided w/x/r too, after a retry: a second final for it */
	add(c, "w/x/r", 1, 0, 0);
	add(c, "w/x/r", 2, 1, 2);
	nodus_store_close(b);
	nodus_store_close(c);

	nodus_error err;
	nodus_merge_counts n;
	struct notes ns = {0};
	int64_t records, samples;
	assert_int_equal(nodus_store_merge(a, b_path, 0, &n, note, &ns, &err), 0);
	assert_int_equal(n.merged, 2);
	assert_int_equal(n.identical + n.kept + n.conflicts + ns.n, 0);
	counts(a, &records, &samples);
	assert_int_equal(records, 3);
	assert_int_equal(samples, 7);

	assert_int_equal(nodus_store_merge(a, b_path, 0, &n, note, &ns, &err), 0);
	assert_int_equal(n.merged + n.kept + n.conflicts, 0);
	assert_int_equal(n.identical, 2);

	assert_int_equal(nodus_store_merge(a, c_path, 0, &n, note, &ns, &err), 0);
	assert_int_equal(n.conflicts, 2);
	assert_int_equal(ns.n, 2);
	assert_int_equal(ns.note[0].shard_attempt, 1);
	assert_int_equal(ns.note[0].clash, 1);     /* a's attempt 1 is another */
	assert_int_equal(ns.note[1].shard_attempt, 2);
	assert_int_equal(ns.note[1].clash, 0);     /* would be a second final */
	assert_int_equal(ns.note[1].attempt, 0);   /* not copied */
	assert_int_equal(ns.note[1].decider, 1);
	counts(a, &records, &samples);
	assert_int_equal(records, 3); /* rolled back: attempt 1 of c is not kept either */
	assert_int_equal(samples, 7);

	ns.n = 0;
	assert_int_equal(nodus_store_merge(a, c_path, NODUS_MERGE_KEEP_BOTH, &n, note, &ns, &err),
			 0);
	assert_int_equal(n.kept, 2);
	assert_int_equal(n.merged + n.identical + n.conflicts, 0);
	assert_int_equal(ns.note[0].attempt, 2);
	assert_int_equal(ns.note[0].final, 0);
	assert_int_equal(ns.note[1].attempt, 3);
	assert_int_equal(ns.note[1].final, 0);
	assert_int_equal(ns.note[1].shard_final, 1);
	assert_int_equal(ns.note[1].decider, 1);
	counts(a, &records, &samples);
	assert_int_equal(records, 5);
	assert_int_equal(samples, 9);

	assert_int_equal(nodus_store_merge(a, c_path, NODUS_MERGE_KEEP_BOTH, &n, note, &ns, &err),
			 0);
	assert_int_equal(n.identical, 2);
	assert_int_equal(n.merged + n.kept + n.conflicts, 0);
	counts(a, &records, &samples);
	assert_int_equal(records, 5);

	nodus_store_close(a);
	unlink(a_path);
	unlink(b_path);
	unlink(c_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
