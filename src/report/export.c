/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * export.c: a plan's final records as a training dataset, split by
 * workload family into train and held-out rows (`nodus export dataset`,
 * docs/export.md):
 *
 *   DIR/train.jsonl     one row per final record of a family kept for training
 *   DIR/heldout.jsonl   one row per final record of a held-out family
 *   DIR/manifest.json   nodus version, store, plan, the held-out list and the
 *                       sha256 of the file it came from, counts per split,
 *                       status and label, every row field described
 *
 * A family is a task: every pair of one task (its workloads, candidates and
 * references) falls in one split. The split is the held-out FILE's alone,
 * read and checked against the plan's tasks before any record is looked
 * at, never a result: a name the plan has no task of is an error at its
 * line (a mistyped name would put a held-out family into training).
 *
 * `trusted` is true only for an OK record with a decided label (FASTER,
 * SLOWER, TIED) that agrees with its isolated recheck. What agrees means
 * is the report's: nodus_report_compute() builds the document and this
 * file reads its pairs[].agrees (report.c's pair_agrees(), the one place
 * the rule is written), never a second copy. A record under any condition
 * but the baseline is rechecked by the pair's baseline (isolated) record;
 * the baseline record itself by the plan's later isolated conditions (a
 * second isolated condition re-runs the baseline as a recheck of itself,
 * docs/formats.md). Where there is none, or it has no label, trusted is
 * false and trusted_why says so.
 *
 * Rows are the report's final records: for each pair and condition the
 * record pairs[].decided_by names. Pair-conditions without one are no row
 * and are listed in the manifest (missing). Nothing is written in place:
 * a directory beside DIR is filled, then renamed onto it
 * (nodus__report_dir_begin, as the FlashInfer-Bench dataset does).
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

struct export {
	const nodus_report_data *d;       /* the records */
	const nodus_report_export_options *o; /* FILE, the store's path */
	json_t *plan;                     /* the plan document, owned */
	json_t *rep;                      /* the report document, owned */
	json_t *families;                 /* the plan's tasks, in order of first pair, owned */
	json_t *heldout;                  /* FILE's family names, in its order, owned */
	char holdout_sha256[NODUS_SHA256_HEX]; /* of FILE's bytes */
	json_t *rechecks;                 /* names of the isolated conditions after the baseline */
	json_t *missing;                  /* [{pair, condition}] without a final record */
	json_t *counts[2];                /* per split: rows, trusted, status, label, condition */
	int finals;                       /* final records of the plan */
	json_t *index;                    /* "PAIR\x1fCONDITION\x1fATTEMPT" -> record index, owned */
	json_t *pairs_by_id;              /* pair id -> the plan's pair object, owned */
	nodus_buf out[2];                 /* train.jsonl, heldout.jsonl */
	nodus_report_export_counts n;     /* what was written */
	nodus_error *err;                 /* filled on failure */
};

enum { SPLIT_TRAIN, SPLIT_HELDOUT };
static const char *const split_name[] = {"train", "heldout"};
static const char *const split_file[] = {"train.jsonl", "heldout.jsonl"};

/* Every field of a row, as manifest.json's row_schema and docs/export.md
 * describe it. */
static const char *const row_schema[][2] = {
	{"split", "train or heldout: the file the row is in, decided by the held-out FILE alone"},
	{"pair_id", "the pair, WORKLOAD/CANDIDATE/REFERENCE"},
	{"family", "the workload family the split is decided by: the pair's task"},
	{"task", "the pair's task (the same as family)"},
	{"workload", "the pair's workload"},
	{"candidate", "the candidate solution"},
	{"reference", "the reference solution"},
	{"expect", "what the pair ends with by construction (docs/formats.md), or null"},
	{"condition", "the condition the record was measured under"},
	{"condition_kind", "isolated, cpu-stress, timeslice, mps, streams or replay"},
	{"baseline", "true when condition is the baseline (the plan's first isolated condition)"},
	{"status", "how the record ended: OK or a failure status (docs/formats.md)"},
	{"guard", "the guard that fired, or null"},
	{"message", "the record's whole message (bytes not UTF-8 become ?), or null"},
	{"label", "FASTER, SLOWER, TIED or AMBIGUOUS when status is OK, else null"},
	{"outcome", "label when there is one, else status: the report's pairs[].labels"},
	{"speedup", "reference time / candidate time, point estimate, or null"},
	{"ci_lo", "lower bound of the speedup interval, or null"},
	{"ci_hi", "upper bound of the speedup interval, or null"},
	{"tie_margin", "the tie margin that labelled it (the plan's, or tie_margin_short), or null"},
	{"rounds", "timing rounds measured"},
	{"looks", "sequential looks taken"},
	{"candidate_ns_median", "median candidate sample [ns per call], or null"},
	{"reference_ns_median", "median reference sample [ns per call], or null"},
	{"max_abs_err", "worst absolute error over every check, or null"},
	{"max_rel_err", "worst relative error over every check, or null"},
	{"matched_ratio", "worst share of elements within tolerance, or null"},
	{"device_s", "device seconds held by the worker [s], or null"},
	{"charge_share", "share of device_s charged to this record, (0,1], or null"},
	{"compile_s", "compile time for this record [s] (0 on a cache hit), or null"},
	{"validation_s", "correctness checking time [s], or null"},
	{"wall_s", "the whole attempt, wall clock [s], or null"},
	{"provenance", "{plan_digest, target_hash (the fingerprint of the machine it ran on; "
		       "empty when the worker failed before reporting one), judge (the plan's "
		       "sealed judge object), attempt, attempts (records of the pair-condition), "
		       "started_at, finished_at [unix s], merged (where nodus db merge took it "
		       "from, or null), run ({id, host}: the nodus run that wrote it, or null for "
		       "a record older than that field)}"},
	{"trusted", "true only when status is OK, the label is FASTER, SLOWER or TIED, and it "
		    "agrees with its isolated recheck as the report defines agreement"},
	{"trusted_why", "null when trusted, else why not"},
	{"recheck", "{condition, outcome}: the isolated recheck the row was held against and "
		    "its outcome there, or null when there is none"},
};

/* ---- small JSON helpers ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static const char *sget(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int in_list(const json_t *list, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v)
		if (strcmp(json_string_value(v), name) == 0)
			return 1;
	return 0;
}

/* 1 if outcome (a pairs[].labels value) is a label. */
static int is_label(const char *outcome)
{
	return outcome && nodus_label_from_name(outcome) >= 0;
}

/* ---- the held-out families ---- */

/* The plan's tasks, each once, in the order of their first pair. */
static int read_families(struct export *x)
{
	size_t i;
	json_t *p;
	x->families = json_array();
	json_array_foreach(json_object_get(x->plan, "pairs"), i, p) {
		const char *task = sget(p, "task");
		if (!task)
			return NODUS_ERR_AT(x->err, NODUS_EPARSE, "", 0, 0, "$.pairs",
					    "plan %s: a pair without a task", x->d->plan_digest);
		if (!in_list(x->families, task))
			json_array_append_new(x->families, json_string(task));
	}
	return 0;
}

/* One line of FILE (NUL-terminated, without its newline): its name, after
 * a '#' comment is cut and blanks are trimmed, checked against the plan. */
static int holdout_line(struct export *x, char *line, int lineno)
{
	const char *path = x->o->holdout_path;
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *s = line, *e = line + strlen(line);
	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*e = '\0';
	if (!*s)
		return 0;
	int col = (int)(s - line) + 1;
	json_t *name = json_string(s); /* NULL for what is not UTF-8 */
	if (!name)
		return NODUS_ERR_AT(x->err, NODUS_EINVAL, path, lineno, col, "",
				    "expected a family name, got bytes that are not UTF-8");
	json_decref(name);
	if (in_list(x->heldout, s))
		return NODUS_ERR_AT(x->err, NODUS_EINVAL, path, lineno, col, "",
				    "family '%s' is listed twice", s);
	if (!in_list(x->families, s)) {
		nodus_buf known = NODUS_BUF_INIT;
		size_t i;
		json_t *f;
		json_array_foreach(x->families, i, f)
			nodus_buf_addf(&known, "%s%s", i ? ", " : "", json_string_value(f));
		int rc = NODUS_ERR_AT(x->err, NODUS_EINVAL, path, lineno, col, "",
				      "unknown family '%s': plan %.12s has no task of that name "
				      "(its families: %s)", s, x->d->plan_digest, known.data);
		nodus_buf_release(&known);
		return rc;
	}
	json_array_append_new(x->heldout, json_string(s));
	return 0;
}

/* Reads FILE: one family name a line, '#' comments and blank lines
 * allowed; every name must be a task of the plan. */
static int read_holdout(struct export *x)
{
	const char *path = x->o->holdout_path;
	nodus_buf b = NODUS_BUF_INIT;
	x->heldout = json_array();
	int rc = nodus_buf_read_file(&b, path);
	if (rc == NODUS_ENOMEM)
		rc = NODUS_ERR(x->err, NODUS_ENOMEM, "out of memory reading '%s'", path);
	else if (rc)
		rc = NODUS_ERR_AT(x->err, NODUS_EINVAL, path, 0, 0, "",
				  "cannot read the held-out families: %s", strerror(errno));
	if (rc == 0 && memchr(b.data, '\0', b.len))
		rc = NODUS_ERR_AT(x->err, NODUS_EINVAL, path, 0, 0, "",
				  "expected text, one family name a line; the file has a NUL byte");
	if (rc == 0)
		nodus_sha256_hex(b.data, b.len, x->holdout_sha256);
	char *line = b.data;
	for (int lineno = 1; rc == 0 && line && *line; lineno++) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		rc = holdout_line(x, line, lineno);
		line = nl ? nl + 1 : NULL;
	}
	nodus_buf_release(&b);
	return rc;
}

/* ---- trust ---- */

static int excluded(const struct export *x, const char *pair, const char *cond)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(x->rep, "excluded"), i, e)
		if (strcmp(sget(e, "pair"), pair) == 0 && strcmp(sget(e, "condition"), cond) == 0)
			return 1;
	return 0;
}

/* Sets why (size bytes) to why pair p's outcome under cond has no label to
 * be held against in recheck rc: it ran on another target, or rc ended
 * without a label there. */
static void no_recheck_label(const struct export *x, const json_t *p, const char *cond,
			     const char *rc, char *why, size_t size)
{
	const char *other = sget(json_object_get(p, "labels"), rc);
	/* excluded[] names the condition that is not the baseline */
	if (excluded(x, sget(p, "id"), cond) || excluded(x, sget(p, "id"), rc))
		snprintf(why, size, "no isolated recheck on its target: '%s' and '%s' ran on "
			 "different targets (excluded from the agreement)", cond, rc);
	else if (!other || strcmp(other, "MISSING") == 0)
		snprintf(why, size, "no isolated recheck: no final record under '%s' yet", rc);
	else
		snprintf(why, size, "no isolated recheck label: '%s' ended %s", rc, other);
}

/* trust() for a baseline record with a decided label: held against the
 * plan's later isolated conditions, it must agree with each that has a
 * label on its target, and with one at least. */
static int trust_baseline(const struct export *x, const json_t *p, char *why, size_t size,
			  const char **recheck)
{
	const char *base = sget(x->rep, "baseline");
	const json_t *labels = json_object_get(p, "labels"), *agrees = json_object_get(p, "agrees");
	if (json_array_size(x->rechecks) == 0) {
		snprintf(why, size, "no isolated recheck: '%s' is the baseline and the plan has no "
			 "second isolated condition to recheck it", base);
		return 0;
	}
	size_t i;
	json_t *v;
	const char *agreeing = NULL;
	json_array_foreach(x->rechecks, i, v) {
		const char *rc = json_string_value(v);
		const json_t *ag = json_object_get(agrees, rc);
		if (is_label(sget(labels, rc)) && json_is_false(ag)) {
			*recheck = rc;
			snprintf(why, size, "disagrees with its isolated recheck '%s': %s there", rc,
				 sget(labels, rc));
			return 0;
		}
		if (is_label(sget(labels, rc)) && json_is_true(ag) && !agreeing)
			agreeing = rc;
	}
	if (agreeing) {
		*recheck = agreeing;
		return 1;
	}
	*recheck = json_string_value(json_array_get(x->rechecks, 0));
	no_recheck_label(x, p, base, *recheck, why, size);
	return 0;
}

/* Whether the final record of pair p (report document) under condition
 * cond is trusted: 1, or 0 with why (size bytes); *recheck gets the name of
 * the isolated condition it was held against (borrowed), or NULL. */
static int trust(const struct export *x, const json_t *p, const char *cond, char *why,
		 size_t size, const char **recheck)
{
	const char *base = sget(x->rep, "baseline");
	const json_t *labels = json_object_get(p, "labels"), *agrees = json_object_get(p, "agrees");
	const char *out = sget(labels, cond);
	*recheck = NULL;
	if (!is_label(out)) {
		snprintf(why, size, "status %s: no label", out ? out : "?");
		return 0;
	}
	if (strcmp(out, "AMBIGUOUS") == 0) {
		snprintf(why, size, "AMBIGUOUS: the interval did not decide the label");
		return 0;
	}
	if (strcmp(cond, base) != 0) { /* rechecked by the baseline */
		*recheck = base;
		const json_t *ag = json_object_get(agrees, cond);
		if (json_is_true(ag))
			return 1;
		if (json_is_false(ag))
			snprintf(why, size, "disagrees with its isolated recheck '%s': %s there",
				 base, sget(labels, base));
		else
			no_recheck_label(x, p, cond, base, why, size);
		return 0;
	}
	return trust_baseline(x, p, why, size, recheck);
}

/* ---- rows ---- */

/* The key of a record in x->index: pair, condition and attempt, with
 * separators no name holds. */
static void record_key(char *key, size_t size, const char *pair, const char *cond, int attempt)
{
	snprintf(key, size, "%s\x1f%s\x1f%d", pair, cond, attempt);
}

/* Indexes the plan's records by pair, condition and attempt, and the
 * plan's pairs by id, so that each row is found at once, however many. */
static int build_index(struct export *x)
{
	char key[512];
	size_t i;
	json_t *p;
	x->index = json_object();
	x->pairs_by_id = json_object();
	for (int j = 0; j < x->d->n_records; j++) {
		const nodus_record *r = &x->d->records[j];
		if (strcmp(r->plan_digest, x->d->plan_digest) != 0)
			continue;
		record_key(key, sizeof(key), r->pair_id, r->condition, r->attempt);
		if (json_object_set_new(x->index, key, json_integer(j)))
			return NODUS_ERR(x->err, NODUS_ENOMEM, "out of memory indexing the records");
	}
	json_array_foreach(json_object_get(x->plan, "pairs"), i, p)
		if (sget(p, "id") && json_object_set(x->pairs_by_id, sget(p, "id"), p))
			return NODUS_ERR(x->err, NODUS_ENOMEM, "out of memory indexing the pairs");
	return 0;
}

/* The pair's record under cond at this attempt (the deciding one), or NULL. */
static const nodus_record *find_record(const struct export *x, const char *pair,
				       const char *cond, int attempt)
{
	char key[512];
	record_key(key, sizeof(key), pair, cond, attempt);
	json_t *j = json_object_get(x->index, key);
	return j ? &x->d->records[json_integer_value(j)] : NULL;
}

static json_t *provenance(const struct export *x, const nodus_record *r, int attempts)
{
	json_t *detail = r->detail_json ? json_loads(r->detail_json, 0, NULL) : NULL;
	json_t *merged = json_object_get(detail, "merged");
	json_t *run = json_object_get(detail, "run");
	json_t *pv = json_pack("{s:s, s:s, s:O, s:i, s:i, s:o, s:o, s:O, s:O}", "plan_digest",
			       r->plan_digest, "target_hash", r->target_hash, "judge",
			       json_object_get(x->plan, "judge"), "attempt", r->attempt,
			       "attempts", attempts, "started_at", jnum(r->started_at),
			       "finished_at", jnum(r->finished_at), "merged",
			       merged ? merged : json_null(), "run", run ? run : json_null());
	json_decref(detail);
	return pv;
}

/* Adds 1 to counts[group][key]. */
static void count(json_t *counts, const char *group, const char *key)
{
	json_t *g = json_object_get(counts, group);
	json_t *n = json_object_get(g, key);
	json_object_set_new(g, key, json_integer(n ? json_integer_value(n) + 1 : 1));
}

/* The row of record r: pair p (report document) of pair plan_pair (plan)
 * under condition c (report document). */
static json_t *row(const struct export *x, const json_t *p, const json_t *plan_pair,
		   const json_t *c, const nodus_record *r, int split, int attempts)
{
	const char *cond = sget(c, "name");
	char why[512] = "";
	const char *recheck;
	int trusted = trust(x, p, cond, why, sizeof(why), &recheck);
	json_t *sp = json_object_get(json_object_get(p, "speedups"), cond);
	json_t *row = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:s, s:s, s:O}", "split",
		split_name[split], "pair_id", sget(p, "id"), "family", sget(p, "task"), "task",
		sget(p, "task"), "workload", sget(plan_pair, "workload") ? sget(plan_pair, "workload")
									 : "",
		"candidate", sget(p, "candidate"), "reference", sget(p, "reference"), "expect",
		json_object_get(p, "expect"), "condition", cond, "condition_kind", sget(c, "kind"),
		"baseline", json_object_get(c, "baseline"));
	if (!row)
		return NULL;
	int has_label = r->status == NODUS_STATUS_OK && r->label >= 0;
	json_object_set_new(row, "status", json_string(nodus_status_name(r->status)));
	json_object_set_new(row, "guard", jstr_or_null(r->guard));
	json_object_set(row, "message", json_object_get(json_object_get(p, "messages"), cond));
	json_object_set_new(row, "label", has_label ? json_string(nodus_label_name(r->label))
						     : json_null());
	json_object_set(row, "outcome", json_object_get(json_object_get(p, "labels"), cond));
	json_object_set_new(row, "speedup", jnum(r->speedup));
	json_object_set_new(row, "ci_lo", jnum(r->ci_lo));
	json_object_set_new(row, "ci_hi", jnum(r->ci_hi));
	json_t *tie = json_object_get(sp, "tie_margin");
	json_object_set(row, "tie_margin", tie ? tie : json_null());
	json_object_set_new(row, "rounds", json_integer(r->rounds));
	json_object_set_new(row, "looks", json_integer(r->looks));
	json_object_set_new(row, "candidate_ns_median", jnum(r->cand_ns_median));
	json_object_set_new(row, "reference_ns_median", jnum(r->ref_ns_median));
	json_object_set_new(row, "max_abs_err", jnum(r->max_abs_err));
	json_object_set_new(row, "max_rel_err", jnum(r->max_rel_err));
	json_object_set_new(row, "matched_ratio", jnum(r->matched_ratio));
	json_object_set_new(row, "device_s", jnum(r->device_s));
	json_object_set_new(row, "charge_share", jnum(r->charge_share));
	json_object_set_new(row, "compile_s", jnum(r->compile_s));
	json_object_set_new(row, "validation_s", jnum(r->validation_s));
	json_object_set_new(row, "wall_s", jnum(r->wall_s));
	json_object_set_new(row, "provenance", provenance(x, r, attempts));
	json_object_set_new(row, "trusted", json_boolean(trusted));
	json_object_set_new(row, "trusted_why", trusted ? json_null() : json_string(why));
	json_object_set_new(row, "recheck",
			    recheck ? json_pack("{s:s, s:O}", "condition", recheck, "outcome",
						json_object_get(json_object_get(p, "labels"),
								recheck))
				    : json_null());
	return row;
}

static const json_t *plan_pair(const struct export *x, const char *id)
{
	return json_object_get(x->pairs_by_id, id);
}

/* Appends the row of pair p under condition c to its split, or p to
 * missing when it has no final record there. */
static int add_row(struct export *x, const json_t *p, const json_t *c)
{
	const char *cond = sget(c, "name");
	const json_t *by = json_object_get(json_object_get(p, "decided_by"), cond);
	const json_t *attempt = json_object_get(by, "attempt");
	if (!json_is_integer(attempt)) {
		x->n.missing++;
		json_array_append_new(x->missing, json_pack("{s:s, s:s}", "pair", sget(p, "id"),
							     "condition", cond));
		return 0;
	}
	const nodus_record *r = find_record(x, sget(p, "id"), cond,
					    (int)json_integer_value(attempt));
	if (!r)
		return NODUS_ERR(x->err, NODUS_EINTERNAL, "the report names attempt %d of %s under "
				 "%s, which the records lack", (int)json_integer_value(attempt),
				 sget(p, "id"), cond);
	int split = in_list(x->heldout, sget(p, "task")) ? SPLIT_HELDOUT : SPLIT_TRAIN;
	json_t *line = row(x, p, plan_pair(x, sget(p, "id")), c, r, split,
			   (int)json_integer_value(json_object_get(by, "attempts")));
	char *text = line ? json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	int rc = !text || nodus_buf_adds(&x->out[split], text) || nodus_buf_adds(&x->out[split], "\n");
	if (!rc) {
		json_t *k = x->counts[split];
		json_object_set_new(k, "rows", json_integer(json_integer_value(
						       json_object_get(k, "rows")) + 1));
		if (json_is_true(json_object_get(line, "trusted"))) {
			json_object_set_new(k, "trusted", json_integer(json_integer_value(
							       json_object_get(k, "trusted")) + 1));
			x->n.trusted++;
		}
		count(k, "status", sget(line, "status"));
		count(k, "label", json_is_string(json_object_get(line, "label"))
					  ? sget(line, "label") : "none");
		count(k, "condition", cond);
		*(split == SPLIT_TRAIN ? &x->n.train : &x->n.heldout) += 1;
	}
	free(text);
	json_decref(line);
	return rc ? NODUS_ERR(x->err, NODUS_ENOMEM, "out of memory writing the rows") : 0;
}

static int build_rows(struct export *x)
{
	size_t i, k;
	json_t *p, *c;
	int rc = 0;
	for (int s = 0; s < 2; s++)
		x->counts[s] = json_pack("{s:i, s:i, s:{}, s:{}, s:{}}", "rows", 0, "trusted", 0,
					 "status", "label", "condition");
	x->missing = json_array();
	json_array_foreach(json_object_get(x->rep, "pairs"), i, p)
		json_array_foreach(json_object_get(x->rep, "conditions"), k, c)
			if (!rc)
				rc = add_row(x, p, c);
	int finals = 0;
	for (int j = 0; j < x->d->n_records; j++)
		finals += x->d->records[j].final &&
			  strcmp(x->d->records[j].plan_digest, x->d->plan_digest) == 0;
	x->finals = finals;
	if (!rc && finals == 0)
		rc = NODUS_ERR(x->err, NODUS_EINVAL, "plan %s has no final record: nothing to "
			       "export (run it first: nodus run PLAN --db DB)", x->d->plan_digest);
	/* every final record is a row, once: the store keeps one per pair-condition */
	if (!rc && finals != x->n.train + x->n.heldout)
		rc = NODUS_ERR(x->err, NODUS_EINTERNAL, "plan %s has %d final records but %d rows",
			       x->d->plan_digest, finals, x->n.train + x->n.heldout);
	return rc;
}

/* ---- the manifest and the files ---- */

static json_t *schema_json(void)
{
	json_t *o = json_object();
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(row_schema); i++)
		json_object_set_new(o, row_schema[i][0], json_string(row_schema[i][1]));
	return o;
}

static json_t *manifest(const struct export *x)
{
	char sha[2][NODUS_SHA256_HEX];
	json_t *files = json_object(), *train = json_array();
	size_t i;
	json_t *f;
	for (int s = 0; s < 2; s++) {
		nodus_sha256_hex(x->out[s].data, x->out[s].len, sha[s]);
		json_object_set_new(files, split_file[s],
				    json_pack("{s:s, s:O, s:s}", "split", split_name[s], "rows",
					      json_object_get(x->counts[s], "rows"), "sha256",
					      sha[s]));
	}
	json_array_foreach(x->families, i, f)
		if (!in_list(x->heldout, json_string_value(f)))
			json_array_append(train, f);
	json_t *name = json_object_get(x->plan, "name");
	if (!json_is_string(name))
		name = json_object_get(x->plan, "campaign");
	json_t *counts = json_pack("{s:i, s:i, s:i, s:O, s:O}", "rows",
				   x->n.train + x->n.heldout, "final_records", x->finals, "missing", x->n.missing, "train",
				   x->counts[0], "heldout", x->counts[1]);
	return json_pack(
		"{s:s, s:i, s:s, s:s, s:o, s:s, s:O, s:{s:s, s:s, s:O}, s:{s:o, s:O}, s:o, s:O, "
		"s:o, s:o}",
		"kind", "nodus-export", "format", 1, "nodus_version", NODUS_VERSION, "db",
		x->o->db_path ? x->o->db_path : "",
		"plans", json_pack("[{s:s, s:O, s:O}]", "digest", x->d->plan_digest, "name",
				   json_is_string(name) ? name : json_null(), "campaign_sha256",
				   json_object_get(x->plan, "campaign_sha256")
					   ? json_object_get(x->plan, "campaign_sha256")
					   : json_null()),
		"baseline", sget(x->rep, "baseline"), "rechecks", x->rechecks, "holdout", "file",
		x->o->holdout_path, "sha256", x->holdout_sha256, "families", x->heldout,
		"families", "train", train, "heldout", x->heldout, "counts", counts, "missing",
		x->missing, "files", files, "row_schema", schema_json());
}

static int write_file(const char *root, const char *name, const char *text, size_t len,
		      nodus_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", path, strerror(errno));
	int bad = fwrite(text, 1, len, f) != len || ferror(f);
	bad |= fclose(f) != 0;
	return bad ? NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path, strerror(errno)) : 0;
}

static int write_all(struct export *x, const char *dir)
{
	char root[4096];
	json_t *m = manifest(x);
	char *text = m ? json_dumps(m, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
	json_decref(m);
	if (!text)
		return NODUS_ERR(x->err, NODUS_ENOMEM, "out of memory building the manifest");
	int rc = nodus__report_dir_begin(dir, root, sizeof(root), x->err);
	int begun = rc == 0;
	for (int s = 0; s < 2 && !rc; s++)
		rc = write_file(root, split_file[s], x->out[s].data, x->out[s].len, x->err);
	if (!rc)
		rc = write_file(root, "manifest.json", text, strlen(text), x->err);
	if (!rc)
		rc = nodus__report_dir_commit(root, dir, x->err);
	if (rc && begun)
		nodus__report_dir_abort(root);
	free(text);
	return rc;
}

/* The isolated conditions after the baseline: the baseline's rechecks. */
static int find_rechecks(struct export *x)
{
	size_t i;
	json_t *c;
	const char *base = NULL;
	x->rechecks = json_array();
	json_array_foreach(json_object_get(x->plan, "conditions"), i, c) {
		if (!sget(c, "kind") || strcmp(sget(c, "kind"), "isolated") != 0)
			continue;
		if (base)
			json_array_append_new(x->rechecks, json_string(sget(c, "name")));
		else
			base = sget(c, "name");
	}
	if (!base)
		return NODUS_ERR(x->err, NODUS_EINVAL, "plan %s has no condition of kind isolated: "
				 "no record can be held against an isolated recheck",
				 x->d->plan_digest);
	return 0;
}

int nodus_report_export(const nodus_report_data *d, const nodus_report_export_options *o,
			const char *dir, nodus_report_export_counts *counts, nodus_error *err)
{
	struct export x = {.d = d, .o = o, .err = err};
	nodus_buf_init(&x.out[0]);
	nodus_buf_init(&x.out[1]);
	int rc = 0;
	x.plan = json_loads(d->plan_json ? d->plan_json : "", 0, NULL);
	if (!json_is_object(x.plan))
		rc = NODUS_ERR(err, NODUS_EPARSE, "plan %s: the stored plan is not a JSON object",
			       d->plan_digest);
	/* the split first, from FILE and the plan alone: no result is read yet */
	if (!rc)
		rc = read_families(&x);
	if (!rc)
		rc = read_holdout(&x);
	if (!rc)
		rc = find_rechecks(&x);
	if (!rc)
		rc = nodus_report_compute(d, NULL, &x.rep, err);
	if (!rc)
		rc = build_index(&x);
	if (!rc)
		rc = build_rows(&x);
	if (!rc)
		rc = write_all(&x, dir);
	if (!rc && counts) {
		x.n.families = (int)json_array_size(x.families);
		x.n.heldout_families = (int)json_array_size(x.heldout);
		*counts = x.n;
	}
	for (int s = 0; s < 2; s++) {
		nodus_buf_release(&x.out[s]);
		json_decref(x.counts[s]);
	}
	json_decref(x.missing);
	json_decref(x.index);
	json_decref(x.pairs_by_id);
	json_decref(x.rechecks);
	json_decref(x.heldout);
	json_decref(x.families);
	json_decref(x.rep);
	json_decref(x.plan);
	return rc;
}
