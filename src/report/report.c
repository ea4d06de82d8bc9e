/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * report.c: the arithmetic of the report, on in-memory arrays only.
 *
 * Items are PAIRS: each pair's outcome under a condition is the label of
 * its final record when the status is OK, else the status name, or
 * MISSING when no final record exists. Outcomes are small integers
 * (categories) so that the agreement statistics of src/measure/stats.h can
 * work on them: the four labels first, then every status (OK appears only
 * for an OK record without a label), then MISSING.
 *
 * Per condition, against the baseline condition:
 *   - pairs whose final record ran on another target than the baseline's
 *     final record of the same pair are excluded (and listed);
 *   - the matrix over the remaining (compared) pairs;
 *   - agreement rate and Cohen's kappa, with percentile bootstrap
 *     intervals over tasks (clusters), fixed seed, over the SCORED pairs:
 *     the compared pairs with a label in the baseline. A pair whose
 *     baseline failed (CRASH, NOT_ISOLATED, INCORRECT_NUMERICAL ...) or has
 *     no final record has no label to agree with; it is left out and
 *     counted by its baseline outcome (left_out[]). With no scored pair
 *     there is no estimate, with one task no interval (the bootstrap
 *     resamples tasks): not_enough_data says which;
 *   - false-fast pairs: FASTER here, labelled but not FASTER in the
 *     baseline (FASTER here over a failed or missing baseline is
 *     fast_unchecked);
 *   - cost over ALL attempts of the condition (retries, failures and
 *     excluded pairs included: money spent is spent);
 *   - the A/A noise of pairs whose candidate is their reference;
 *   - what the condition does to effect sizes (effect_scale).
 * Per pair and condition, whether the outcome contradicts the pair's
 * declared expect (nodus__report_expect_missed(), the one place that rule
 * is written): every condition's outcome is checked against it, the
 * baseline's and the others', excluded pairs included, since the truth
 * of a pair does not depend on which target measured it.
 * The result is one JSON document (docs/report.md); render.c and html.c
 * draw it and read those marks from it.
 * ------------------------------------------------------------------------ */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats.h"

/* verdict v (a preset's: BINARY_FASTER ...) is CAT_VERDICT0 + v - 1 */
#define CAT_VERDICT0 NODUS_LABEL_COUNT_
#define CAT_STATUS0 (CAT_VERDICT0 + NODUS_VERDICT_COUNT_ - 1) /* status s is CAT_STATUS0 + s */
#define CAT_BINARY_FASTER (CAT_VERDICT0 + NODUS_VERDICT_BINARY_FASTER - 1)
#define CAT_BINARY_NOT_FASTER (CAT_VERDICT0 + NODUS_VERDICT_BINARY_NOT_FASTER - 1)
#define CAT_MISSING (CAT_STATUS0 + NODUS_STATUS_COUNT_)   /* no final record */
#define N_CATS (CAT_MISSING + 1)

struct pair_info {
	const char *id;         /* pair id, borrowed from the plan JSON */
	const char *task;       /* task name */
	const char *candidate;  /* candidate solution name */
	const char *reference;  /* reference solution name */
	const char *expect;     /* expected outcome, or NULL */
	double effect;          /* the declared true speedup, or NAN */
	int same_code;          /* 1: A/A, candidate and reference have one content hash */
	int task_index;         /* index of task among the plan's distinct tasks */
};

struct cond_info {
	const char *name;       /* condition name, borrowed from the plan JSON */
	const char *kind;       /* isolated, cpu-stress, ... */
	const char *preset;     /* its judge_preset ("kernelbench"), or NULL for nodus's judge */
};

/* Everything compute() derives from the input before building sections. */
struct ctx {
	const nodus_report_data *d;      /* the input */
	nodus_report_options opt;        /* options with defaults filled in */
	json_t *plan;                    /* parsed plan JSON, owned */
	struct pair_info *pairs;         /* n_pairs entries */
	int n_pairs;
	struct cond_info *conds;         /* n_conds entries */
	int n_conds;
	int n_records;                   /* the records of these pairs and conditions */
	int base;                        /* index of the baseline condition */
	const nodus_record **final;      /* [pair * n_conds + cond]: final record or NULL */
	int *attempts;                   /* [pair * n_conds + cond]: its records, every attempt */
	double price_usd;                /* per device hour; NAN = unknown */
	const char *price_reason;        /* why price_usd is unknown, or NULL */
};

static const char *cat_name(int c)
{
	if (c < CAT_VERDICT0)
		return nodus_label_name(c);
	if (c < CAT_STATUS0)
		return nodus_verdict_name(c - CAT_VERDICT0 + 1);
	if (c < CAT_MISSING)
		return nodus_status_name(c - CAT_STATUS0);
	return "MISSING";
}

static int outcome(const nodus_record *r)
{
	if (!r)
		return CAT_MISSING;
	if (r->status == NODUS_STATUS_OK && r->label >= 0 && r->label < NODUS_LABEL_COUNT_)
		return r->label;
	if (r->status == NODUS_STATUS_OK && r->verdict > NODUS_VERDICT_NONE &&
	    r->verdict < NODUS_VERDICT_COUNT_)
		return CAT_VERDICT0 + r->verdict - 1;
	return CAT_STATUS0 + r->status;
}

/* A JSON number, or null for NaN and infinities (JSON has neither). */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A JSON string of text, which a compiler's output may not keep valid
 * UTF-8: then every byte above 0x7f becomes '?'. */
static json_t *jtext(const char *text)
{
	json_t *j = json_string(text);
	if (j)
		return j;
	char *copy = strdup(text);
	if (!copy)
		return json_null();
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p > 0x7f)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

static json_t *jinterval(double est, double lo, double hi)
{
	return json_pack("{s:o, s:o, s:o}", "estimate", jnum(est), "lo", jnum(lo), "hi", jnum(hi));
}

/* The interval, and the tie margin that labelled it (detail.tie_margin):
 * pairs whose reference call is short have their own (tie_margin_short),
 * so a reader must not judge every interval against the plan's. */
static json_t *jspeedup(const nodus_record *r)
{
	if (!r || !isfinite(r->speedup))
		return json_null();
	json_t *iv = jinterval(r->speedup, r->ci_lo, r->ci_hi);
	json_t *detail = r->detail_json ? json_loads(r->detail_json, 0, NULL) : NULL;
	json_t *tie = json_object_get(detail, "tie_margin");
	json_object_set_new(iv, "tie_margin",
			    json_is_number(tie) ? jnum(json_number_value(tie)) : json_null());
	json_decref(detail);
	return iv;
}

/* ---- expect: the truth a pair declares by construction ---- */

int nodus__report_expect_missed(const char *expect, const char *outcome)
{
	if (!expect || !*expect || !outcome || !*outcome || strcmp(outcome, "MISSING") == 0)
		return -1;
	int verdict = nodus_verdict_from_name(outcome);
	int ok = nodus_label_from_name(outcome) >= 0 || strcmp(outcome, "OK") == 0 ||
		 verdict != NODUS_VERDICT_NONE;
	if (strcmp(expect, "EQUIVALENT") == 0 || strcmp(expect, "OK") == 0)
		return !ok;
	/* a binary verdict meets a direction: faster, or slower or tied */
	if (verdict == NODUS_VERDICT_BINARY_FASTER)
		return strcmp(expect, "FASTER") != 0;
	if (verdict == NODUS_VERDICT_BINARY_NOT_FASTER)
		return strcmp(expect, "SLOWER") != 0 && strcmp(expect, "TIED") != 0;
	/* a machine too busy to measure is no failure of the candidate */
	if (strcmp(expect, "FAIL") == 0)
		return ok || strcmp(outcome, "NOT_ISOLATED") == 0;
	return strcmp(expect, outcome) != 0;
}

/* ---- reading the plan ---- */

static int parse_pairs(struct ctx *c, nodus_error *err)
{
	json_t *pairs = json_object_get(c->plan, "pairs");
	if (!json_is_array(pairs))
		return NODUS_ERR_AT(err, NODUS_EPARSE, "", 0, 0, "$.pairs",
				    "plan %s: expected an array of pairs", c->d->plan_digest);
	c->n_pairs = (int)json_array_size(pairs);
	c->pairs = calloc((size_t)c->n_pairs + 1, sizeof(*c->pairs));
	if (!c->pairs)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	for (int i = 0; i < c->n_pairs; i++) {
		json_t *p = json_array_get(pairs, (size_t)i);
		struct pair_info *q = &c->pairs[i];
		q->id = json_string_value(json_object_get(p, "id"));
		q->task = json_string_value(json_object_get(p, "task"));
		q->candidate = json_string_value(json_object_get(p, "candidate"));
		const char *ch = json_string_value(json_object_get(p, "candidate_hash"));
		const char *rh = json_string_value(json_object_get(p, "reference_hash"));
		q->same_code = ch && rh && strcmp(ch, rh) == 0;
		q->reference = json_string_value(json_object_get(p, "reference"));
		q->expect = json_string_value(json_object_get(p, "expect"));
		json_t *effect = json_object_get(p, "effect");
		q->effect = json_is_number(effect) ? json_number_value(effect) : NAN;
		if (!q->id || !q->task || !q->candidate || !q->reference) {
			char path[64];
			snprintf(path, sizeof(path), "$.pairs[%d]", i);
			return NODUS_ERR_AT(err, NODUS_EPARSE, "", 0, 0, path,
					    "plan %s: expected id, task, candidate and reference "
					    "strings", c->d->plan_digest);
		}
		q->task_index = i;
		for (int j = 0; j < i; j++)
			if (strcmp(c->pairs[j].task, q->task) == 0) {
				q->task_index = c->pairs[j].task_index;
				break;
			}
	}
	return 0;
}

static int parse_conditions(struct ctx *c, nodus_error *err)
{
	json_t *conds = json_object_get(c->plan, "conditions");
	if (!json_is_array(conds) || json_array_size(conds) == 0)
		return NODUS_ERR_AT(err, NODUS_EPARSE, "", 0, 0, "$.conditions",
				    "plan %s: expected a non-empty array of conditions",
				    c->d->plan_digest);
	c->n_conds = (int)json_array_size(conds);
	c->conds = calloc((size_t)c->n_conds, sizeof(*c->conds));
	if (!c->conds)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	for (int i = 0; i < c->n_conds; i++) {
		json_t *o = json_array_get(conds, (size_t)i);
		c->conds[i].name = json_string_value(json_object_get(o, "name"));
		c->conds[i].kind = json_string_value(json_object_get(o, "kind"));
		c->conds[i].preset = json_string_value(json_object_get(o, "judge_preset"));
		if (!c->conds[i].name || !c->conds[i].kind) {
			char path[64];
			snprintf(path, sizeof(path), "$.conditions[%d]", i);
			return NODUS_ERR_AT(err, NODUS_EPARSE, "", 0, 0, path,
					    "plan %s: expected name and kind strings",
					    c->d->plan_digest);
		}
	}
	return 0;
}

static int find_baseline(struct ctx *c, nodus_error *err)
{
	c->base = -1;
	for (int i = 0; i < c->n_conds && c->base < 0; i++) {
		if (c->opt.baseline ? strcmp(c->conds[i].name, c->opt.baseline) == 0
				    : strcmp(c->conds[i].kind, "isolated") == 0 && !c->conds[i].preset)
			c->base = i;
	}
	if (c->base >= 0 && c->conds[c->base].preset)
		return NODUS_ERR(err, NODUS_EINVAL,
				 "baseline condition '%s' is judged by the %s preset: its binary "
				 "verdicts have no interval to agree with; name a condition nodus "
				 "judges with --baseline", c->opt.baseline, c->conds[c->base].preset);
	if (c->base >= 0)
		return 0;
	if (c->opt.baseline)
		return NODUS_ERR(err, NODUS_EINVAL, "baseline condition '%s' is not in plan %s",
				 c->opt.baseline, c->d->plan_digest);
	return NODUS_ERR(err, NODUS_EINVAL,
			 "plan %s has no condition of kind isolated; name one with --baseline",
			 c->d->plan_digest);
}

/* Whether name is an entry of the comma-separated list. */
static int in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && *p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
		size_t n = strcspn(p, ",");
		if (n == len && strncmp(p, name, len) == 0)
			return 1;
	}
	return 0;
}

/* --conditions: only the named conditions and the baseline stay; the
 * records of the others are then ignored like those of another plan. A
 * name the plan lacks is an error that lists the plan's. */
static int keep_conditions(struct ctx *c, nodus_error *err)
{
	const char *list = c->opt.conditions;
	if (!list)
		return 0;
	for (const char *p = list;; p += strcspn(p, ",") + 1) {
		size_t n = strcspn(p, ",");
		if (n == 0)
			return NODUS_ERR(err, NODUS_EINVAL,
					 "--conditions: expected condition names separated by commas, "
					 "got '%s' (an empty name)", list);
		int found = 0;
		for (int i = 0; i < c->n_conds && !found; i++)
			found = strlen(c->conds[i].name) == n && strncmp(c->conds[i].name, p, n) == 0;
		if (found) {
			if (!p[n])
				break;
			continue;
		}
		char names[1024] = "";
		size_t len = 0;
		for (int i = 0; i < c->n_conds && len < sizeof(names); i++)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
						c->conds[i].name);
		return NODUS_ERR(err, NODUS_EINVAL,
				 "--conditions: '%.*s' is not a condition of plan %s (it has: %s)",
				 (int)n, p, c->d->plan_digest, names);
	}
	int kept = 0;
	for (int i = 0; i < c->n_conds; i++) {
		if (i != c->base && !in_list(list, c->conds[i].name))
			continue;
		if (i == c->base)
			c->base = kept;
		c->conds[kept++] = c->conds[i];
	}
	c->n_conds = kept;
	return 0;
}

static void read_price(struct ctx *c)
{
	json_t *target = json_object_get(c->plan, "target");
	json_t *price = json_object_get(target, "price_per_device_hour_usd");
	c->price_usd = NAN;
	if (json_is_number(price) && json_number_value(price) >= 0)
		c->price_usd = json_number_value(price);
	else if (json_is_null(price))
		c->price_reason = "the plan's target.price_per_device_hour_usd is null (unknown)";
	else
		c->price_reason = "the plan's target has no valid price_per_device_hour_usd";
}

static int find_pair(const struct ctx *c, const char *id)
{
	for (int i = 0; i < c->n_pairs; i++)
		if (strcmp(c->pairs[i].id, id) == 0)
			return i;
	return -1;
}

static int find_cond(const struct ctx *c, const char *name)
{
	for (int i = 0; i < c->n_conds; i++)
		if (strcmp(c->conds[i].name, name) == 0)
			return i;
	return -1;
}

/* 1 if r belongs to the plan reported on (any record when no digest). */
static int belongs(const struct ctx *c, const nodus_record *r)
{
	return c->d->plan_digest[0] == '\0' || strcmp(r->plan_digest, c->d->plan_digest) == 0;
}

/* Records of other plans, pairs or conditions than the plan's are ignored:
 * the loader only passes the plan's own. */
static int index_finals(struct ctx *c, nodus_error *err)
{
	c->final = calloc((size_t)c->n_pairs * (size_t)c->n_conds + 1, sizeof(*c->final));
	c->attempts = calloc((size_t)c->n_pairs * (size_t)c->n_conds + 1, sizeof(*c->attempts));
	if (!c->final || !c->attempts)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	for (int i = 0; i < c->d->n_records; i++) {
		const nodus_record *r = &c->d->records[i];
		if (!belongs(c, r))
			continue;
		int p = find_pair(c, r->pair_id), k = find_cond(c, r->condition);
		if (p < 0 || k < 0)
			continue;
		/* counted so the report says when a label is one of several
		 * measurements (retries, or a second run kept by db merge) */
		c->attempts[p * c->n_conds + k]++;
		c->n_records++;
		if (!r->final)
			continue;
		/* the final record that is not NOT_ISOLATED decides; while there is
		 * none, the latest final NOT_ISOLATED one (--resume retries those) */
		const nodus_record **slot = &c->final[p * c->n_conds + k];
		int decides = r->status != NODUS_STATUS_NOT_ISOLATED;
		if (!*slot || (decides && (*slot)->status == NODUS_STATUS_NOT_ISOLATED) ||
		    (decides == ((*slot)->status != NODUS_STATUS_NOT_ISOLATED) &&
		     r->attempt > (*slot)->attempt))
			*slot = r;
	}
	return 0;
}

/* ---- excluded pairs ---- */

static const nodus_record *final_of(const struct ctx *c, int p, int k)
{
	return c->final[p * c->n_conds + k];
}

/* nodus__report_expect_missed() on pair p's outcome under condition k:
 * 1 contradicts its expect, 0 meets it, -1 nothing to check. */
static int expect_missed(const struct ctx *c, int p, int k)
{
	return nodus__report_expect_missed(c->pairs[p].expect, cat_name(outcome(final_of(c, p, k))));
}

/* 1 if the pair's final record under k ran on another target than its
 * final record under the baseline: the two labels are not comparable. An
 * attempt that failed before its worker reported a fingerprint has an
 * empty target hash; it ran nowhere in particular and is compared. */
static int target_differs(const struct ctx *c, int p, int k)
{
	const nodus_record *b = final_of(c, p, c->base), *r = final_of(c, p, k);
	return k != c->base && b && r && b->target_hash[0] && r->target_hash[0] &&
	       strcmp(b->target_hash, r->target_hash) != 0;
}

/* 1 if baseline outcome a can be agreed with: a label. */
static int scorable(int a)
{
	return a < CAT_STATUS0;
}

/* The baseline's outcome as a binary judge would have said it: FASTER is
 * faster, SLOWER and TIED are not; an AMBIGUOUS interval says neither
 * (-1: left out). Anything else as it is. */
static int binarized(int a)
{
	if (a == NODUS_LABEL_FASTER)
		return CAT_BINARY_FASTER;
	if (a == NODUS_LABEL_SLOWER || a == NODUS_LABEL_TIED)
		return CAT_BINARY_NOT_FASTER;
	return a == NODUS_LABEL_AMBIGUOUS ? -1 : a;
}

/* Whether pair p's outcome under condition k agrees with its baseline
 * outcome, the one place this is decided: 1 it does, 0 it does not, -1
 * the pair is not scored there (it ran on another target than its
 * baseline record, or its baseline outcome is no label: a failure or
 * MISSING). The agreeing count of a condition is the number of its pairs
 * for which this is 1; pairs[].agrees and `nodus export` read it. */
static int pair_agrees(const struct ctx *c, int p, int k)
{
	int a = outcome(final_of(c, p, c->base));
	if (target_differs(c, p, k) || !scorable(a))
		return -1;
	/* a preset's verdict is held against the baseline's label binarized */
	if (c->conds[k].preset && (a = binarized(a)) < 0)
		return -1;
	return a == outcome(final_of(c, p, k));
}

static json_t *fingerprint(const struct ctx *c, const char *hash)
{
	for (int i = 0; i < c->d->n_targets; i++)
		if (strcmp(c->d->target_hash[i], hash) == 0)
			return json_loads(c->d->target_json[i], 0, NULL);
	return NULL;
}

/* Top-level fields whose values differ between the two fingerprints, or
 * NULL when the store lacks either of them. */
static json_t *differing_fields(const struct ctx *c, const char *h1, const char *h2)
{
	json_t *a = fingerprint(c, h1), *b = fingerprint(c, h2), *out = NULL;
	const char *key;
	json_t *v;
	if (!json_is_object(a) || !json_is_object(b))
		goto out;
	out = json_array();
	json_object_foreach(a, key, v)
		if (!json_equal(v, json_object_get(b, key)))
			json_array_append_new(out, json_string(key));
	json_object_foreach(b, key, v)
		if (!json_object_get(a, key))
			json_array_append_new(out, json_string(key));
out:
	json_decref(a);
	json_decref(b);
	return out;
}

static json_t *excluded_entry(const struct ctx *c, int p, int k)
{
	const char *h1 = final_of(c, p, c->base)->target_hash;
	const char *h2 = final_of(c, p, k)->target_hash;
	json_t *fields = differing_fields(c, h1, h2);
	nodus_buf reason = NODUS_BUF_INIT;
	nodus_buf_addf(&reason, "target %s differs from the baseline's target %s", h2, h1);
	if (!fields) {
		nodus_buf_adds(&reason, " (fingerprints not both in the store)");
	} else {
		size_t i;
		json_t *f;
		nodus_buf_adds(&reason, json_array_size(fields) ? "; differing fields:"
								: "; no top-level field differs");
		json_array_foreach(fields, i, f)
			nodus_buf_addf(&reason, "%s %s", i ? "," : "", json_string_value(f));
	}
	json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s}", "pair", c->pairs[p].id,
			      "condition", c->conds[k].name, "baseline_target", h1, "target", h2,
			      "differing_fields", fields ? fields : json_null(), "reason",
			      reason.data);
	nodus_buf_release(&reason);
	return e;
}

/* ---- one condition against the baseline ---- */

/* The compared pairs of one condition: baseline and condition outcomes,
 * and the task of each as a cluster index with no empty cluster. */
struct items {
	int n;             /* compared pairs */
	int *pair;         /* plan index of item i */
	int *a;            /* baseline outcome of item i */
	int *b;            /* condition outcome of item i */
	int *cluster;      /* compact task index of item i */
	int n_clusters;    /* distinct tasks among the items */
};

static void items_release(struct items *it)
{
	free(it->pair);
	free(it->a);
	free(it->b);
	free(it->cluster);
}

/* Fills it for condition k; excluded pairs go to excluded[]. */
static int items_build(const struct ctx *c, int k, struct items *it, json_t *excluded,
		       nodus_error *err)
{
	size_t n = (size_t)c->n_pairs + 1;
	int *task_map = malloc(n * sizeof(int));
	memset(it, 0, sizeof(*it));
	it->pair = malloc(n * sizeof(int));
	it->a = malloc(n * sizeof(int));
	it->b = malloc(n * sizeof(int));
	it->cluster = malloc(n * sizeof(int));
	if (!task_map || !it->pair || !it->a || !it->b || !it->cluster) {
		free(task_map);
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	}
	for (int p = 0; p < c->n_pairs; p++)
		task_map[p] = -1;
	for (int p = 0; p < c->n_pairs; p++) {
		if (target_differs(c, p, k)) {
			json_array_append_new(excluded, excluded_entry(c, p, k));
			continue;
		}
		int t = c->pairs[p].task_index;
		if (task_map[t] < 0)
			task_map[t] = it->n_clusters++;
		it->pair[it->n] = p;
		it->a[it->n] = outcome(final_of(c, p, c->base));
		it->b[it->n] = outcome(final_of(c, p, k));
		it->cluster[it->n] = task_map[t];
		it->n++;
	}
	free(task_map);
	return 0;
}

/* Baseline outcome x condition outcome, over the categories that occur. */
static json_t *matrix(const struct items *it)
{
	int counts[N_CATS][N_CATS] = {{0}}, seen[N_CATS] = {0};
	for (int i = 0; i < it->n; i++) {
		counts[it->a[i]][it->b[i]]++;
		seen[it->a[i]] = seen[it->b[i]] = 1;
	}
	json_t *cats = json_array(), *rows = json_array();
	for (int x = 0; x < N_CATS; x++) {
		if (!seen[x])
			continue;
		json_array_append_new(cats, json_string(cat_name(x)));
		json_t *row = json_array();
		for (int y = 0; y < N_CATS; y++)
			if (seen[y])
				json_array_append_new(row, json_integer(counts[x][y]));
		json_array_append_new(rows, row);
	}
	return json_pack("{s:o, s:o}", "categories", cats, "counts", rows);
}

/* The scored subset of it (baseline outcome a label), clusters compacted.
 * Against a binary judge (binary = 1) the baseline's label is binarized
 * first, and an AMBIGUOUS one is left out. */
static int items_scored(const struct items *it, int binary, struct items *out, nodus_error *err)
{
	size_t n = (size_t)it->n + 1;
	int *map = malloc(n * sizeof(int));
	memset(out, 0, sizeof(*out));
	out->pair = malloc(n * sizeof(int));
	out->a = malloc(n * sizeof(int));
	out->b = malloc(n * sizeof(int));
	out->cluster = malloc(n * sizeof(int));
	if (!map || !out->pair || !out->a || !out->b || !out->cluster) {
		free(map);
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	}
	for (int i = 0; i < it->n; i++)
		map[i] = -1;
	for (int i = 0; i < it->n; i++) {
		if (!scorable(it->a[i]) || (binary && binarized(it->a[i]) < 0))
			continue;
		int t = it->cluster[i]; /* < it->n */
		if (map[t] < 0)
			map[t] = out->n_clusters++;
		out->pair[out->n] = it->pair[i];
		out->a[out->n] = binary ? binarized(it->a[i]) : it->a[i];
		out->b[out->n] = it->b[i];
		out->cluster[out->n] = map[t];
		out->n++;
	}
	free(map);
	return 0;
}

/* Compared pairs left out of the agreement, one entry per baseline
 * outcome: {baseline, count, pairs[], reason}. */
static json_t *left_out(const struct ctx *c, const struct items *it, int binary)
{
	json_t *list = json_array();
	json_t *ambiguous = json_array();
	for (int i = 0; binary && i < it->n; i++)
		if (it->a[i] == NODUS_LABEL_AMBIGUOUS)
			json_array_append_new(ambiguous, json_string(c->pairs[it->pair[i]].id));
	if (json_array_size(ambiguous) > 0)
		json_array_append_new(
			list, json_pack("{s:s, s:I, s:o, s:s}", "baseline", "AMBIGUOUS", "count",
					(json_int_t)json_array_size(ambiguous), "pairs", ambiguous,
					"reason", "the baseline's interval straddles a margin: no "
					"direction for a binary verdict to agree with"));
	else
		json_decref(ambiguous);
	for (int x = CAT_STATUS0; x < N_CATS; x++) {
		json_t *ids = json_array();
		for (int i = 0; i < it->n; i++)
			if (it->a[i] == x)
				json_array_append_new(ids, json_string(c->pairs[it->pair[i]].id));
		if (json_array_size(ids) == 0) {
			json_decref(ids);
			continue;
		}
		char reason[256];
		if (x == CAT_MISSING)
			snprintf(reason, sizeof(reason), "no final record under the baseline %s yet",
				 c->conds[c->base].name);
		else if (x == CAT_STATUS0 + NODUS_STATUS_NOT_ISOLATED)
			snprintf(reason, sizeof(reason), "the baseline %s ended NOT_ISOLATED (load beside "
				 "the pair: the judge's isolation_max_busy_cores on cpu, other "
				 "processes on the GPU); 'nodus run --resume' tries it again",
				 c->conds[c->base].name);
		else
			snprintf(reason, sizeof(reason), "the baseline %s ended %s: no label to agree "
				 "with", c->conds[c->base].name, cat_name(x));
		json_array_append_new(list, json_pack("{s:s, s:I, s:o, s:s}", "baseline",
						      cat_name(x), "count",
						      (json_int_t)json_array_size(ids), "pairs", ids,
						      "reason", reason));
	}
	return list;
}

static int agreement(const struct ctx *c, const struct items *it, json_t *out, nodus_error *err)
{
	nodus_interval ag = {NAN, NAN, NAN}, ka = {NAN, NAN, NAN};
	char why[200] = "";
	if (it->n == 0)
		snprintf(why, sizeof(why), "not enough data: no compared pair has a label under the "
			 "baseline %s", c->conds[c->base].name);
	else if (it->n_clusters < 2)
		snprintf(why, sizeof(why), "not enough data for an interval: the %d scored pair(s) "
			 "come from one task, and the bootstrap resamples tasks", it->n);
	if (it->n > 0) {
		int rc = nodus_stats_agreement_bootstrap(it->a, it->b, it->cluster, it->n, N_CATS,
							 it->n_clusters, c->opt.confidence,
							 c->opt.resamples, c->opt.seed, &ag, &ka);
		if (rc == NODUS_ENOMEM)
			return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		if (rc)
			return NODUS_ERR(err, NODUS_EINTERNAL,
					 "agreement bootstrap refused its arguments (%d items, "
					 "%d tasks)", it->n, it->n_clusters);
		if (it->n_clusters < 2) /* a point, not an interval */
			ag.lo = ag.hi = ka.lo = ka.hi = NAN;
	}
	json_object_set_new(out, "agreement", jinterval(ag.estimate, ag.lo, ag.hi));
	json_object_set_new(out, "kappa", jinterval(ka.estimate, ka.lo, ka.hi));
	json_object_set_new(out, "not_enough_data", why[0] ? json_string(why) : json_null());
	return 0;
}

/* FASTER under condition k and labelled, but not FASTER, in the baseline.
 * A pair whose baseline failed or has no final record is not "not fast in
 * isolation": nobody knows. It goes to fast_unchecked instead (unchecked = 1). */
static json_t *false_fast(const struct ctx *c, const struct items *it, int k, int unchecked)
{
	json_t *list = json_array();
	for (int i = 0; i < it->n; i++) {
		if ((it->b[i] != NODUS_LABEL_FASTER && it->b[i] != CAT_BINARY_FASTER) ||
		    it->a[i] == NODUS_LABEL_FASTER)
			continue;
		if ((scorable(it->a[i]) ? 0 : 1) != unchecked)
			continue;
		int p = it->pair[i];
		json_array_append_new(list, json_pack(
			"{s:s, s:s, s:s, s:o, s:o}", "pair", c->pairs[p].id, "baseline",
			cat_name(it->a[i]), "label", cat_name(it->b[i]), "baseline_speedup",
			jspeedup(final_of(c, p, c->base)), "speedup", jspeedup(final_of(c, p, k))));
	}
	return list;
}

/* Cost of every attempt under condition k, and what it bought. */
static json_t *cost(const struct ctx *c, int k, int agreeing, json_t *cond)
{
	int attempts = 0, retries = 0, failures = 0, unknown = 0;
	double device_s = 0, compile_s = 0, validation_s = 0;
	for (int i = 0; i < c->d->n_records; i++) {
		const nodus_record *r = &c->d->records[i];
		if (!belongs(c, r) || strcmp(r->condition, c->conds[k].name) != 0)
			continue;
		attempts++;
		retries += r->attempt > 1;
		failures += r->status != NODUS_STATUS_OK;
		if (isfinite(r->device_s) && isfinite(r->charge_share))
			device_s += r->device_s * r->charge_share;
		else
			unknown++;
		compile_s += isfinite(r->compile_s) ? r->compile_s : 0;
		validation_s += isfinite(r->validation_s) ? r->validation_s : 0;
	}
	double usd = NAN, per_usd = NAN;
	const char *reason = c->price_reason;
	char buf[160];
	if (!reason && unknown) {
		snprintf(buf, sizeof(buf), "device time or charge share unknown for %d of %d attempts",
			 unknown, attempts);
		reason = buf;
	}
	if (!reason)
		usd = device_s / 3600.0 * c->price_usd;
	if (!reason && usd > 0)
		per_usd = agreeing / usd;
	json_t *out = json_pack("{s:i, s:i, s:i, s:o, s:i, s:o, s:o, s:o, s:o, s:o}",
				"attempts", attempts, "retries", retries, "failures", failures,
				"device_s", jnum(device_s), "device_s_unknown_attempts", unknown,
				"device_hours", jnum(device_s / 3600.0), "compile_s", jnum(compile_s),
				"validation_s", jnum(validation_s), "usd", jnum(usd), "usd_reason",
				reason ? json_string(reason) : json_null());
	if (!reason && !(usd > 0))
		reason = "the condition cost zero dollars";
	/* what one evaluation and one label the baseline agrees with cost in
	 * device time: how judges compare beside their agreement */
	json_object_set_new(out, "device_s_per_attempt", jnum(attempts ? device_s / attempts : NAN));
	json_object_set_new(out, "device_s_per_agreeing",
			    jnum(agreeing > 0 && !unknown ? device_s / agreeing : NAN));
	json_object_set_new(cond, "agreeing_per_usd", jnum(per_usd));
	json_object_set_new(cond, "agreeing_per_usd_reason",
			    isfinite(per_usd) ? json_null() : json_string(reason));
	return out;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Median interval half-width on log scale of A/A pairs (candidate and
 * reference the same solution, or the same code under two names) with a
 * finite interval under condition k. */
/* Also the root mean square of the A/A pairs' log estimates, whose truth
 * is 0: where it is well above what their intervals allow, the pairs
 * carry an offset no round sees, the one between the two sides'
 * processes (docs/statistics.md, "Between processes"), and the judge's
 * process_sd should be at least about that. */
static json_t *aa_noise(const struct ctx *c, const struct items *it, int k)
{
	double *w = malloc(((size_t)it->n + 1) * sizeof(double));
	int n = 0, aa = 0, n_est = 0, faster = 0;
	double median = NAN, sq = 0;
	for (int i = 0; w && i < it->n; i++) {
		const struct pair_info *p = &c->pairs[it->pair[i]];
		if (strcmp(p->candidate, p->reference) != 0 && !p->same_code)
			continue;
		aa++;
		faster += it->b[i] == NODUS_LABEL_FASTER || it->b[i] == CAT_BINARY_FASTER;
		const nodus_record *r = final_of(c, it->pair[i], k);
		if (r && r->ci_lo > 0 && r->ci_hi > 0 && isfinite(r->ci_lo) && isfinite(r->ci_hi))
			w[n++] = (log(r->ci_hi) - log(r->ci_lo)) / 2.0;
		if (r && r->speedup > 0 && isfinite(r->speedup)) {
			sq += log(r->speedup) * log(r->speedup);
			n_est++;
		}
	}
	if (n > 0) {
		qsort(w, (size_t)n, sizeof(double), cmp_double);
		median = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2.0;
	}
	free(w);
	return json_pack("{s:i, s:i, s:i, s:o, s:i, s:o}", "aa_pairs", aa, "called_faster", faster,
			 "with_interval", n, "median_log_half_width", jnum(median),
			 "with_estimate", n_est, "rms_log_estimate",
			 jnum(n_est ? sqrt(sq / n_est) : NAN));
}

/* How many pairs have an expect and a final record under k (checked), and
 * how many of those contradict it, over every pair of the plan: an
 * excluded pair's outcome still meets or contradicts its truth. */
static void expect_counts(const struct ctx *c, int k, json_t *cond)
{
	int checked = 0, missed = 0;
	for (int p = 0; p < c->n_pairs; p++) {
		int m = expect_missed(c, p, k);
		checked += m >= 0;
		missed += m == 1;
	}
	json_object_set_new(cond, "expect_checked", json_integer(checked));
	json_object_set_new(cond, "expect_mismatches", json_integer(missed));
}

/* The resolution curve under condition k: the pairs that declare an
 * effect (their true speedup by construction), grouped by its size in
 * percent (max(e, 1/e) - 1, to 0.1) and direction, and how their outcomes
 * met their expect: met, AMBIGUOUS, a decided label or verdict against it
 * (wrong), a final record without a label (failed), or none at all
 * (missing: not run yet, as in a study run in parts). Excluded pairs count
 * too: a pair's truth does not depend on the target. */
static json_t *resolution(const struct ctx *c, int k)
{
	struct bin {
		double pct;
		int faster, pairs, met, ambiguous, wrong, failed, missing;
	} bins[64];
	int n = 0;
	for (int p = 0; p < c->n_pairs; p++) {
		const struct pair_info *q = &c->pairs[p];
		if (!(q->effect > 0) || !q->expect)
			continue;
		double e = q->effect;
		double pct = round(((e >= 1 ? e : 1 / e) - 1) * 1000) / 10;
		int faster = e > 1 ? 1 : e < 1 ? -1 : 0, b = 0; /* 0: A/A, no direction */
		while (b < n && !(bins[b].pct == pct && bins[b].faster == faster))
			b++;
		if (b == n) {
			if (n == (int)NODUS_ARRAY_SIZE(bins))
				continue; /* more sizes than a curve shows */
			memset(&bins[n], 0, sizeof(bins[n]));
			bins[n].pct = pct;
			bins[n].faster = faster;
			n++;
		}
		int o = outcome(final_of(c, p, k));
		bins[b].pairs++;
		if (o == CAT_MISSING)
			bins[b].missing++; /* not run (yet): a study resumed in parts */
		else if (o >= CAT_STATUS0)
			bins[b].failed++;
		else if (nodus__report_expect_missed(q->expect, cat_name(o)) == 0)
			bins[b].met++;
		else if (o == NODUS_LABEL_AMBIGUOUS)
			bins[b].ambiguous++;
		else
			bins[b].wrong++;
	}
	/* by direction, then size: slower ones first, largest first */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			double kj = bins[j].faster * bins[j].pct;
			double ki = bins[j - 1].faster * bins[j - 1].pct;
			if (ki <= kj)
				break;
			struct bin t = bins[j];
			bins[j] = bins[j - 1];
			bins[j - 1] = t;
		}
	json_t *list = json_array();
	for (int b = 0; b < n; b++)
		json_array_append_new(
			list, json_pack("{s:f, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "effect_pct", bins[b].pct,
					"direction",
					bins[b].faster > 0   ? "faster"
					: bins[b].faster < 0 ? "slower"
							     : "none",
					"pairs",
					bins[b].pairs, "met", bins[b].met, "ambiguous",
					bins[b].ambiguous, "wrong", bins[b].wrong, "failed",
					bins[b].failed, "missing", bins[b].missing));
	return list;
}

/* The median of x[0..n), which it sorts. */
static double median_sorting(double *x, int n)
{
	qsort(x, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

/* What condition k does to effect sizes: over the scored pairs the
 * baseline decided (FASTER or SLOWER) and k measured (an OK record with an
 * estimate), the median of log(speedup under k) / log(speedup in the
 * baseline): 1 keeps an effect, 0.5 halves it (a 10% difference measured
 * as 5%), below 0 turns it round. Its interval resamples tasks, as the
 * agreement's does, with the same seed and confidence. */
static json_t *effect_scale(const struct ctx *c, const struct items *it, int k)
{
	double *r = malloc(((size_t)it->n + 1) * sizeof(double));
	int *cl = malloc(((size_t)it->n + 1) * sizeof(int));
	int n = 0;
	for (int i = 0; r && cl && i < it->n; i++) {
		const nodus_record *b = final_of(c, it->pair[i], c->base);
		int o = outcome(b); /* not it->a: a preset's items hold it binarized */
		if (o != NODUS_LABEL_FASTER && o != NODUS_LABEL_SLOWER)
			continue;
		const nodus_record *x = final_of(c, it->pair[i], k);
		if (!b || !x || x->status != NODUS_STATUS_OK || !(b->speedup > 0) ||
		    !(x->speedup > 0) || !isfinite(x->speedup) || b->speedup == 1.0)
			continue;
		r[n] = log(x->speedup) / log(b->speedup);
		cl[n++] = it->cluster[i];
	}
	double est = NAN, lo = NAN, hi = NAN;
	int tasks = 0;
	if (n > 0) {
		double *w = malloc((size_t)n * sizeof(double));
		int *members = malloc((size_t)it->n_clusters * sizeof(int));
		int *start = calloc((size_t)it->n_clusters + 1, sizeof(int));
		int *order = malloc((size_t)n * sizeof(int));
		int B = c->opt.resamples;
		double *meds = malloc(((size_t)B + 1) * sizeof(double));
		if (w && members && start && order && meds) {
			memcpy(w, r, (size_t)n * sizeof(double));
			est = median_sorting(w, n);
			/* the ratios grouped by task: start[t] .. start[t + 1] in order */
			for (int i = 0; i < n; i++)
				start[cl[i] + 1]++;
			for (int t = 0; t < it->n_clusters; t++) {
				tasks += start[t + 1] > 0;
				start[t + 1] += start[t];
			}
			memcpy(members, start, (size_t)it->n_clusters * sizeof(int));
			for (int i = 0; i < n; i++)
				order[members[cl[i]]++] = i;
			int *present = members; /* reused: the tasks with a ratio */
			int np = 0;
			for (int t = 0; t < it->n_clusters; t++)
				if (start[t + 1] > start[t])
					present[np++] = t;
			int most = 0; /* a resample holds at most np draws of the largest task */
			for (int d = 0; d < np; d++)
				if (start[present[d] + 1] - start[present[d]] > most)
					most = start[present[d] + 1] - start[present[d]];
			double *grown = np >= 2 ? realloc(w, (size_t)np * (size_t)most * sizeof(double)) : NULL;
			if (grown)
				w = grown;
			if (grown && B > 0) {
				nodus_rng rng;
				nodus_rng_seed(&rng, c->opt.seed);
				int m = 0;
				for (int bi = 0; bi < B; bi++) {
					int got = 0;
					for (int d = 0; d < np; d++) {
						int t = present[nodus_rng_below(&rng, (uint64_t)np)];
						for (int q = start[t]; q < start[t + 1]; q++)
							w[got++] = r[order[q]];
					}
					if (got > 0)
						meds[m++] = median_sorting(w, got);
				}
				if (m > 0) {
					qsort(meds, (size_t)m, sizeof(double), cmp_double);
					double a = (1 - c->opt.confidence) / 2;
					lo = meds[(int)floor(a * (m - 1))];
					hi = meds[(int)ceil((1 - a) * (m - 1))];
				}
			}
		}
		free(w);
		free(members);
		free(start);
		free(order);
		free(meds);
	}
	free(r);
	free(cl);
	json_t *o = jinterval(est, lo, hi);
	json_object_set_new(o, "pairs", json_integer(n));
	json_object_set_new(o, "tasks", json_integer(tasks));
	return o;
}

static int condition_section(const struct ctx *c, int k, json_t *excluded, json_t **out,
			     nodus_error *err)
{
	struct items it, sc;
	int binary = c->conds[k].preset != NULL;
	int rc = items_build(c, k, &it, excluded, err);
	if (rc)
		return rc;
	if ((rc = items_scored(&it, binary, &sc, err))) {
		items_release(&sc);
		items_release(&it);
		return rc;
	}
	int agreeing = 0;
	for (int i = 0; i < sc.n; i++)
		agreeing += pair_agrees(c, sc.pair[i], k) == 1;
	json_t *cond = json_pack("{s:s, s:s, s:b, s:i, s:i, s:i, s:i}", "name", c->conds[k].name,
				 "kind", c->conds[k].kind, "baseline", k == c->base, "pairs", it.n,
				 "excluded", c->n_pairs - it.n, "scored", sc.n, "agreeing",
				 agreeing);
	json_object_set_new(cond, "judge_preset",
			    binary ? json_string(c->conds[k].preset) : json_null());
	json_object_set_new(cond, "left_out", left_out(c, &it, binary));
	expect_counts(c, k, cond);
	rc = agreement(c, &sc, cond, err);
	if (rc == 0) {
		json_object_set_new(cond, "matrix", matrix(&it));
		json_object_set_new(cond, "false_fast", false_fast(c, &it, k, 0));
		json_object_set_new(cond, "fast_unchecked", false_fast(c, &it, k, 1));
		json_object_set_new(cond, "cost", cost(c, k, agreeing, cond));
		json_object_set_new(cond, "aa_noise", aa_noise(c, &it, k));
		json_object_set_new(cond, "resolution", resolution(c, k));
		json_object_set_new(cond, "effect_scale", effect_scale(c, &sc, k));
		*out = cond;
	} else {
		json_decref(cond);
	}
	items_release(&sc);
	items_release(&it);
	return rc;
}

/* ---- the document ---- */

static json_t *pairs_section(const struct ctx *c)
{
	json_t *list = json_array();
	for (int p = 0; p < c->n_pairs; p++) {
		const struct pair_info *q = &c->pairs[p];
		json_t *labels = json_object(), *speedups = json_object();
		json_t *messages = json_object(), *guards = json_object();
		json_t *decided_by = json_object(), *mismatch = json_object();
		json_t *agrees = json_object();
		for (int k = 0; k < c->n_conds; k++) {
			const nodus_record *r = final_of(c, p, k);
			const char *name = c->conds[k].name;
			int m = expect_missed(c, p, k), ag = pair_agrees(c, p, k);
			json_object_set_new(agrees, name, ag < 0 ? json_null() : json_boolean(ag));
			json_object_set_new(mismatch, name, m < 0 ? json_null() : json_boolean(m));
			json_object_set_new(decided_by, name,
					    json_pack("{s:o, s:i}", "attempt",
						      r ? json_integer(r->attempt) : json_null(),
						      "attempts", c->attempts[p * c->n_conds + k]));
			json_object_set_new(labels, name, json_string(cat_name(outcome(r))));
			json_object_set_new(speedups, name, jspeedup(r));
			/* the full text: a compiler's errors, the tolerance detail, the signal */
			json_object_set_new(messages, name, r && r->message && r->message[0]
								    ? jtext(r->message)
								    : json_null());
			json_object_set_new(guards, name, r && r->guard[0] ? json_string(r->guard)
									   : json_null());
		}
		json_array_append_new(list, json_pack(
			"{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", q->id,
			"task", q->task, "candidate", q->candidate, "reference", q->reference, "expect",
			q->expect ? json_string(q->expect) : json_null(), "expect_mismatch",
			mismatch, "labels", labels, "agrees", agrees,
			"decided_by", decided_by, "speedups", speedups, "messages", messages,
			"guards", guards));
	}
	return list;
}

static json_t *plan_section(const struct ctx *c)
{
	json_t *name = json_object_get(c->plan, "name");
	if (!json_is_string(name))
		name = json_object_get(c->plan, "campaign");
	json_t *tie = json_object_get(json_object_get(c->plan, "judge"), "tie_margin");
	/* sealed only when declared: its absence is 0, no widening */
	json_t *psd = json_object_get(json_object_get(c->plan, "judge"), "process_sd");
	/* the judge's own margin and offset per task, sealed only when declared */
	json_t *tasks = json_object_get(json_object_get(c->plan, "judge"), "tasks");
	return json_pack("{s:s, s:O, s:o, s:o, s:i, s:i, s:i, s:o, s:o, s:o}", "digest", c->d->plan_digest,
			 "name", json_is_string(name) ? name : json_null(),
			 "price_per_device_hour_usd", jnum(c->price_usd), "price_reason",
			 c->price_reason ? json_string(c->price_reason) : json_null(), "pairs",
			 c->n_pairs, "conditions", c->n_conds, "records", c->opt.conditions ? c->n_records : c->d->n_records,
			 "tie_margin", json_is_number(tie) ? json_real(json_number_value(tie)) : json_null(),
			 "process_sd", json_real(json_is_number(psd) ? json_number_value(psd) : 0.0),
			 "task_judges", json_is_object(tasks) ? json_deep_copy(tasks) : json_object());
}

static int build(struct ctx *c, json_t **out, nodus_error *err)
{
	json_t *conds = json_array(), *excluded = json_array();
	int rc = 0;
	for (int k = 0; rc == 0 && k < c->n_conds; k++) {
		json_t *cond = NULL;
		rc = condition_section(c, k, excluded, &cond, err);
		if (rc == 0)
			json_array_append_new(conds, cond);
	}
	if (rc) {
		json_decref(conds);
		json_decref(excluded);
		return rc;
	}
	/* pairs contradicting their expect under at least one condition */
	int missed = 0;
	for (int p = 0; p < c->n_pairs; p++) {
		int any = 0;
		for (int k = 0; k < c->n_conds; k++)
			any |= expect_missed(c, p, k) == 1;
		missed += any;
	}
	*out = json_pack("{s:s, s:o, s:{s:s, s:i, s:f, s:I}, s:o, s:o, s:i, s:o}", "baseline",
			 c->conds[c->base].name, "plan", plan_section(c), "bootstrap", "clusters",
			 "task", "resamples", c->opt.resamples, "confidence", c->opt.confidence,
			 "seed", (json_int_t)c->opt.seed, "conditions", conds, "pairs",
			 pairs_section(c), "expect_mismatches", missed, "excluded", excluded);
	if (!*out)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory building the report");
	return 0;
}

int nodus_report_compute(const nodus_report_data *d, const nodus_report_options *opt,
			 json_t **out, nodus_error *err)
{
	struct ctx c = {.d = d};
	json_error_t jerr;
	int rc = 0;
	*out = NULL;
	if (opt)
		c.opt = *opt;
	c.opt.resamples = c.opt.resamples > 0 ? c.opt.resamples : NODUS_REPORT_RESAMPLES;
	c.opt.confidence = c.opt.confidence > 0 ? c.opt.confidence : NODUS_REPORT_CONFIDENCE;
	c.opt.seed = c.opt.seed ? c.opt.seed : NODUS_REPORT_SEED;
	c.plan = json_loads(d->plan_json ? d->plan_json : "", 0, &jerr);
	if (!json_is_object(c.plan)) {
		rc = NODUS_ERR(err, NODUS_EPARSE, "plan %s: not a JSON object: %s", d->plan_digest,
			       c.plan ? "another JSON value" : jerr.text);
		goto out;
	}
	rc = parse_pairs(&c, err);
	if (rc == 0)
		rc = parse_conditions(&c, err);
	if (rc == 0)
		rc = find_baseline(&c, err);
	if (rc == 0)
		rc = keep_conditions(&c, err);
	if (rc == 0)
		rc = index_finals(&c, err);
	if (rc == 0) {
		read_price(&c);
		rc = build(&c, out, err);
	}
out:
	free(c.pairs);
	free(c.conds);
	free(c.final);
	free(c.attempts);
	json_decref(c.plan);
	return rc;
}
