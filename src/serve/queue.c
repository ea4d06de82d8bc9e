/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * queue.c: the tables of `nodus serve`, serve_submissions and
 * serve_batches (schema.sql, migration 4, documents every column).
 *
 * A submission moves queued -> batched -> done (or failed), each step one
 * transaction, so a server killed between two steps restarts from the
 * last one committed: a submission is never lost (it was committed before
 * its 202) and ends once (done_seq is set in the transaction that ends it,
 * from a state that is not ended, and is UNIQUE). The records a batch's
 * `nodus run` wrote are read here, never written.
 *
 * Every statement is prepared with bound parameters (STYLE 13). The
 * functions take a connection that one thread uses at a time.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-internal.h"

#define BUSY_TIMEOUT_MS 60000 /* a batch's `nodus run` commits beside us */

static int db_fail(sqlite3 *db, nodus_error *err, const char *what)
{
	return NODUS_ERR(err, NODUS_ESTORE, "serve: %s: %s", what, sqlite3_errmsg(db));
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, nodus_error *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(db, err, "preparing a statement");
	return 0;
}

static int exec_sql(sqlite3 *db, const char *sql, nodus_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		NODUS_ERR(err, NODUS_ESTORE, "serve: '%s': %s", sql, msg ? msg : "failed");
		sqlite3_free(msg);
		return NODUS_ESTORE;
	}
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s && s[0])
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int nodus__sq_open(const char *path, sqlite3 **out, nodus_error *err)
{
	*out = NULL;
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		int rc = NODUS_ERR(err, NODUS_ESTORE, "serve: cannot open the store '%s': %s", path,
				   db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return rc;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	int rc = exec_sql(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; "
			      "PRAGMA foreign_keys = ON", err);
	if (rc) {
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

/* Looks the key up: *id and *same (body hash equal) when found. */
static int find_key(sqlite3 *db, const char *key, const char *sha, int64_t *id, int *found,
		    int *same, nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT id, body_sha256 FROM serve_submissions WHERE idem_key = ?1", &st,
		      err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	*found = 0;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*found = 1;
		*id = sqlite3_column_int64(st, 0);
		*same = strcmp((const char *)sqlite3_column_text(st, 1), sha) == 0;
	} else if (s != SQLITE_DONE) {
		rc = db_fail(db, err, "looking up an idempotency key");
	}
	sqlite3_finalize(st);
	return rc;
}

static int count_open(sqlite3 *db, int64_t *n, nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT COUNT(*) FROM serve_submissions WHERE state IN ('queued', 'batched')",
		      &st, err);
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, err, "counting open submissions");
	sqlite3_finalize(st);
	return rc;
}

static int insert_sub(sqlite3 *db, const char *key, const char *sha, const char *campaign,
		      const char *workload, const char *reference, const char *label,
		      const char *solution_json, const char *upload_path, int64_t *id,
		      nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "INSERT INTO serve_submissions (idem_key, body_sha256, kind, campaign, "
			  "workload, reference, label, solution_json, upload_path, state, submitted_at) "
			  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'queued', ?10)", &st, err);
	if (rc)
		return rc;
	int whole = upload_path != NULL;
	bind_text_or_null(st, 1, key);
	sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, whole ? "campaign" : "candidate", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, campaign, -1, SQLITE_TRANSIENT);
	bind_text_or_null(st, 5, whole ? NULL : workload);
	bind_text_or_null(st, 6, whole ? NULL : reference);
	bind_text_or_null(st, 7, label);
	bind_text_or_null(st, 8, whole ? NULL : solution_json);
	bind_text_or_null(st, 9, upload_path);
	sqlite3_bind_double(st, 10, nodus_wall_time_s());
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, err, "storing a submission");
	else
		*id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	return rc;
}

int nodus__sq_submit(sqlite3 *db, const char *idem_key, const char *body_sha,
		     const char *campaign, const char *workload, const char *reference,
		     const char *label, const char *solution_json, const char *upload_path,
		     int queue_max, int64_t *id, int *outcome, nodus_error *err)
{
	/* IMMEDIATE: the key look-up, the count and the insert see one state,
	 * so two retries of one POST racing each other insert once */
	int rc = exec_sql(db, "BEGIN IMMEDIATE", err);
	if (rc)
		return rc;
	int found = 0, same = 0;
	int64_t open = 0;
	if (idem_key && idem_key[0] &&
	    (rc = find_key(db, idem_key, body_sha, id, &found, &same, err)))
		goto out;
	if (found) {
		*outcome = same ? NODUS__SQ_EXISTING : NODUS__SQ_CONFLICT;
		goto out;
	}
	if ((rc = count_open(db, &open, err)))
		goto out;
	if (open >= queue_max) {
		*outcome = NODUS__SQ_FULL;
		goto out;
	}
	if ((rc = insert_sub(db, idem_key, body_sha, campaign, workload, reference, label,
			     solution_json, upload_path, id, err)))
		goto out;
	*outcome = NODUS__SQ_NEW;
	/* the commit is the acknowledgement's precondition */
	rc = exec_sql(db, "COMMIT", err);
	if (rc)
		exec_sql(db, "ROLLBACK", NULL);
	return rc;
out:
	exec_sql(db, "ROLLBACK", NULL);
	return rc;
}

void nodus__sq_subs_free(nodus__sq_sub *subs, int n)
{
	for (int i = 0; subs && i < n; i++) {
		free(subs[i].solution_json);
		free(subs[i].upload_path);
	}
	free(subs);
}

static void copy_col(char *dst, size_t size, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

/* 1 when the oldest queued submission is a whole campaign (0: a candidate
 * or none). */
static int oldest_is_campaign(sqlite3 *db, int *yes, nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT kind = 'campaign' FROM serve_submissions WHERE state = 'queued' "
			  "ORDER BY id LIMIT 1", &st, err);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	*yes = s == SQLITE_ROW && sqlite3_column_int(st, 0);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		rc = db_fail(db, err, "reading the queue");
	sqlite3_finalize(st);
	return rc;
}

int nodus__sq_take_queued(sqlite3 *db, int max, nodus__sq_sub **subs, int *n, nodus_error *err)
{
	sqlite3_stmt *st;
	int whole = 0;
	*subs = NULL;
	*n = 0;
	int rc = oldest_is_campaign(db, &whole, err);
	if (rc)
		return rc;
	/* a whole campaign is a batch alone; candidates go in batches of one
	 * base campaign, the oldest queued candidate's */
	rc = prep(db, whole ? "SELECT id, campaign, workload, reference, solution_json, upload_path "
			      "FROM serve_submissions WHERE state = 'queued' ORDER BY id LIMIT 1"
			    : "SELECT id, campaign, workload, reference, solution_json, upload_path "
			      "FROM serve_submissions WHERE state = 'queued' AND kind = 'candidate' "
			      "AND campaign = (SELECT campaign FROM serve_submissions WHERE state = "
			      "'queued' AND kind = 'candidate' ORDER BY id LIMIT 1) ORDER BY id LIMIT ?1",
		  &st, err);
	if (rc)
		return rc;
	if (whole)
		max = 1;
	else
		sqlite3_bind_int(st, 1, max);
	nodus__sq_sub *v = calloc((size_t)max, sizeof(*v));
	if (!v) {
		sqlite3_finalize(st);
		return NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory taking a batch");
	}
	int k = 0, s;
	while (k < max && (s = sqlite3_step(st)) == SQLITE_ROW) {
		v[k].id = sqlite3_column_int64(st, 0);
		copy_col(v[k].campaign, sizeof(v[k].campaign), st, 1);
		copy_col(v[k].workload, sizeof(v[k].workload), st, 2);
		copy_col(v[k].reference, sizeof(v[k].reference), st, 3);
		const unsigned char *sol = sqlite3_column_text(st, 4), *up = sqlite3_column_text(st, 5);
		v[k].solution_json = sol ? strdup((const char *)sol) : NULL;
		v[k].upload_path = up ? strdup((const char *)up) : NULL;
		if (!(sol ? v[k].solution_json : v[k].upload_path)) {
			rc = NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory taking a batch");
			break;
		}
		k++;
	}
	if (!rc && k < max && s != SQLITE_DONE)
		rc = db_fail(db, err, "reading queued submissions");
	sqlite3_finalize(st);
	if (rc) {
		nodus__sq_subs_free(v, k + 1);
		return rc;
	}
	*subs = v;
	*n = k;
	return 0;
}

static int insert_batch(sqlite3 *db, const char *digest, const char *plan_path, int64_t *id,
			nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "INSERT INTO serve_batches (plan_digest, plan_path, state, sealed_at) "
			  "VALUES (?1, ?2, 'sealed', ?3)", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, digest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, plan_path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 3, nodus_wall_time_s());
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, err, "storing a batch");
	else
		*id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	return rc;
}

int nodus__sq_seal(sqlite3 *db, const char *digest, const char *plan_path,
		   const nodus__sq_sub *subs, char (*pair_ids)[NODUS_PAIR_ID_MAX], int n,
		   int64_t *batch_id, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = exec_sql(db, "BEGIN IMMEDIATE", err);
	if (rc)
		return rc;
	if ((rc = insert_batch(db, digest, plan_path, batch_id, err)))
		goto out;
	if ((rc = prep(db, "UPDATE serve_submissions SET state = 'batched', batch_id = ?1, "
			   "pair_id = ?2 WHERE id = ?3 AND state = 'queued'", &st, err)))
		goto out;
	for (int i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, *batch_id);
		bind_text_or_null(st, 2, pair_ids ? pair_ids[i] : NULL);
		sqlite3_bind_int64(st, 3, subs[i].id);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_fail(db, err, "batching a submission");
			goto out;
		}
		/* only the batcher moves queued submissions: another count is a
		 * second server on this store */
		if (sqlite3_changes(db) != 1) {
			rc = NODUS_ERR(err, NODUS_EINTERNAL, "serve: submission %lld was not queued "
				       "any more (is a second nodus serve using this store?)",
				       (long long)subs[i].id);
			goto out;
		}
	}
	sqlite3_finalize(st);
	return exec_sql(db, "COMMIT", err);
out:
	sqlite3_finalize(st);
	exec_sql(db, "ROLLBACK", NULL);
	return rc;
}

static int next_seq(sqlite3 *db, int64_t *seq, nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT COALESCE(MAX(done_seq), 0) FROM serve_submissions", &st, err);
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*seq = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, err, "reading the last sequence number");
	sqlite3_finalize(st);
	return rc;
}

int nodus__sq_last_seq(sqlite3 *db, int64_t *seq, nodus_error *err)
{
	return next_seq(db, seq, err);
}

/* Sets one submission ended (state done or failed) with result, at
 * *seq + 1; only from queued or batched, so it ends once. */
static int end_sub(sqlite3 *db, sqlite3_stmt *st, int64_t id, const char *state,
		   const char *result, int64_t *seq, nodus_error *err)
{
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, result, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, *seq + 1);
	sqlite3_bind_double(st, 4, nodus_wall_time_s());
	sqlite3_bind_int64(st, 5, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return db_fail(db, err, "ending a submission");
	if (sqlite3_changes(db) == 1)
		(*seq)++;
	return 0;
}

#define END_SQL                                                                               \
	"UPDATE serve_submissions SET state = ?1, result_json = ?2, done_seq = ?3, done_at = ?4 " \
	"WHERE id = ?5 AND state IN ('queued', 'batched')"

int nodus__sq_fail_subs(sqlite3 *db, const nodus__sq_sub *subs, int n, const char *message,
			int64_t *last_seq, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	json_t *res = json_pack("{s:s, s:s}", "error", "not evaluated", "message", message);
	char *text = res ? json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(res);
	if (!text)
		return NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
	int rc = exec_sql(db, "BEGIN IMMEDIATE", err);
	if (rc)
		goto done;
	if ((rc = next_seq(db, last_seq, err)) || (rc = prep(db, END_SQL, &st, err)))
		goto out;
	for (int i = 0; i < n && !rc; i++)
		rc = end_sub(db, st, subs[i].id, "failed", text, last_seq, err);
	if (rc)
		goto out;
	sqlite3_finalize(st);
	rc = exec_sql(db, "COMMIT", err);
	goto done;
out:
	sqlite3_finalize(st);
	exec_sql(db, "ROLLBACK", NULL);
done:
	free(text);
	return rc;
}

int nodus__sq_next_batch(sqlite3 *db, nodus__sq_batch *b, int *found, nodus_error *err)
{
	sqlite3_stmt *st;
	*found = 0;
	int rc = prep(db, "SELECT id, plan_digest, plan_path, run_failures FROM serve_batches "
			  "WHERE state = 'sealed' ORDER BY id LIMIT 1", &st, err);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*found = 1;
		b->id = sqlite3_column_int64(st, 0);
		copy_col(b->digest, sizeof(b->digest), st, 1);
		copy_col(b->plan_path, sizeof(b->plan_path), st, 2);
		b->run_failures = sqlite3_column_int(st, 3);
	} else if (s != SQLITE_DONE) {
		rc = db_fail(db, err, "reading sealed batches");
	}
	sqlite3_finalize(st);
	return rc;
}

static json_t *jnum_or_null(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	double v = sqlite3_column_double(st, col);
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jtext_or_null(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? json_string((const char *)t) : json_null();
}

/* One condition's outcome from its deciding record (st's current row). */
static json_t *outcome_of(sqlite3_stmt *st)
{
	const char *status = (const char *)sqlite3_column_text(st, 1);
	const unsigned char *label = sqlite3_column_text(st, 2);
	const unsigned char *verdict = sqlite3_column_text(st, 3);
	json_t *interval = json_null();
	if (sqlite3_column_type(st, 5) != SQLITE_NULL && sqlite3_column_type(st, 6) != SQLITE_NULL)
		interval = json_pack("[oo]", jnum_or_null(st, 5), jnum_or_null(st, 6));
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
			 "outcome", label ? (const char *)label
				 : verdict ? (const char *)verdict : status,
			 "status", status, "label", jtext_or_null(st, 2), "verdict",
			 jtext_or_null(st, 3), "speedup", jnum_or_null(st, 4), "interval", interval,
			 "message", jtext_or_null(st, 7), "guard", jtext_or_null(st, 8),
			 "attempt", sqlite3_column_int(st, 9));
}

/* The outcome per condition of one pair: its final record that is not
 * NOT_ISOLATED, else its latest final NOT_ISOLATED one (docs/store.md);
 * conditions without one are absent. */
static int pair_outcomes(sqlite3 *db, const char *digest, const char *pair, json_t *conds,
			 nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT condition, status, label, verdict, speedup, ci_lo, ci_hi, message, "
			  "guard, attempt FROM records WHERE plan_digest = ?1 AND pair_id = ?2 "
			  "AND final = 1 ORDER BY condition, status = 'NOT_ISOLATED', attempt DESC",
		      &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, digest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, pair, -1, SQLITE_TRANSIENT);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *cond = (const char *)sqlite3_column_text(st, 0);
		if (!json_object_get(conds, cond))
			json_object_set_new(conds, cond, outcome_of(st));
	}
	if (s != SQLITE_DONE)
		rc = db_fail(db, err, "reading a pair's records");
	sqlite3_finalize(st);
	return rc;
}

/* What every attempt of the pair cost: attempts, device seconds charged,
 * and USD at the target's price (null when the price is unknown). */
static int pair_cost(sqlite3 *db, const char *digest, const char *pair, double price_usd_h,
		     json_t **out, nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT COUNT(*), TOTAL(COALESCE(device_s, 0) * COALESCE(charge_share, 1)), "
			  "TOTAL(COALESCE(wall_s, 0)) FROM records WHERE plan_digest = ?1 AND pair_id = ?2",
		      &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, digest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, pair, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		double dev = sqlite3_column_double(st, 1);
		*out = json_pack("{s:i, s:f, s:f, s:o}", "attempts", sqlite3_column_int(st, 0),
				 "device_s", dev, "wall_s", sqlite3_column_double(st, 2), "usd",
				 isfinite(price_usd_h) ? json_real(dev * price_usd_h / 3600.0)
						       : json_null());
	} else {
		rc = db_fail(db, err, "reading a pair's cost");
	}
	sqlite3_finalize(st);
	return rc;
}

static int result_of(sqlite3 *db, const char *digest, const char *pair, double price_usd_h,
		     const char *baseline, char **text, nodus_error *err)
{
	json_t *conds = json_object(), *cost = NULL;
	int rc = pair_outcomes(db, digest, pair, conds, err);
	if (!rc)
		rc = pair_cost(db, digest, pair, price_usd_h, &cost, err);
	if (rc) {
		json_decref(conds);
		return rc;
	}
	/* the baseline's outcome at the top, for a reader who wants one word */
	json_t *b = json_object_get(json_object_get(conds, baseline), "outcome");
	json_t *outcome = b ? json_incref(b) : json_string("MISSING");
	json_t *res = json_pack("{s:o, s:o, s:s, s:o}", "conditions", conds, "cost", cost,
				"baseline", baseline, "outcome", outcome);
	*text = res ? json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(res);
	return *text ? 0 : NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
}

/* A whole campaign's result: every pair of its plan as result_of gives one
 * (without its own cost), and the cost of all. */
static int campaign_result_of(sqlite3 *db, const char *digest, double price_usd_h,
			      const char *baseline, char **text, nodus_error *err)
{
	sqlite3_stmt *st;
	json_t *pairs = json_object();
	double dev = 0, wall = 0;
	int attempts = 0;
	int rc = prep(db, "SELECT pair_id FROM pairs WHERE plan_digest = ?1 ORDER BY rowid", &st, err);
	if (rc) {
		json_decref(pairs);
		return rc;
	}
	sqlite3_bind_text(st, 1, digest, -1, SQLITE_TRANSIENT);
	int s;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *pair = (const char *)sqlite3_column_text(st, 0);
		char *one = NULL;
		if ((rc = result_of(db, digest, pair, price_usd_h, baseline, &one, err)))
			break;
		json_t *o = json_loads(one, 0, NULL);
		free(one);
		json_t *cost = json_object_get(o, "cost");
		attempts += (int)json_integer_value(json_object_get(cost, "attempts"));
		dev += json_number_value(json_object_get(cost, "device_s"));
		wall += json_number_value(json_object_get(cost, "wall_s"));
		json_object_del(o, "baseline");
		json_object_set_new(pairs, pair, o);
	}
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, err, "reading a plan's pairs");
	sqlite3_finalize(st);
	if (rc) {
		json_decref(pairs);
		return rc;
	}
	json_t *res = json_pack("{s:o, s:s, s:{s:i, s:f, s:f, s:o}}", "pairs", pairs, "baseline",
				baseline, "cost", "attempts", attempts, "device_s", dev, "wall_s", wall,
				"usd", isfinite(price_usd_h) ? json_real(dev * price_usd_h / 3600.0)
							     : json_null());
	*text = res ? json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(res);
	return *text ? 0 : NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
}

static int set_batch_state(sqlite3 *db, int64_t id, const char *state, const char *message,
			   int failures, nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "UPDATE serve_batches SET state = ?1, message = ?2, run_failures = ?3, "
			  "finished_at = CASE WHEN ?1 = 'sealed' THEN NULL ELSE ?4 END WHERE id = ?5",
		      &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	bind_text_or_null(st, 2, message);
	sqlite3_bind_int(st, 3, failures);
	sqlite3_bind_double(st, 4, nodus_wall_time_s());
	sqlite3_bind_int64(st, 5, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, err, "updating a batch");
	sqlite3_finalize(st);
	return rc;
}

/* Ends the batched submissions of batch b: done with their results, or
 * failed with fail_text when it is not NULL. Inside a transaction. */
static int end_batch_subs(sqlite3 *db, const nodus__sq_batch *b, double price_usd_h,
			  const char *baseline, const char *fail_text, int64_t *seq,
			  nodus_error *err)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	int rc = prep(db, "SELECT id, pair_id FROM serve_submissions WHERE batch_id = ?1 "
			  "AND state = 'batched' ORDER BY id", &sel, err);
	if (rc || (rc = prep(db, END_SQL, &upd, err)))
		goto out;
	sqlite3_bind_int64(sel, 1, b->id);
	int s;
	while (!rc && (s = sqlite3_step(sel)) == SQLITE_ROW) {
		char *text = NULL;
		const char *pair = (const char *)sqlite3_column_text(sel, 1);
		if (!fail_text)
			rc = pair ? result_of(db, b->digest, pair, price_usd_h, baseline, &text, err)
				  : campaign_result_of(db, b->digest, price_usd_h, baseline, &text, err);
		if (!rc)
			rc = end_sub(db, upd, sqlite3_column_int64(sel, 0),
				     fail_text ? "failed" : "done", fail_text ? fail_text : text,
				     seq, err);
		free(text);
	}
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, err, "reading a batch's submissions");
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return rc;
}

int nodus__sq_finish_batch(sqlite3 *db, const nodus__sq_batch *b, double price_usd_h,
			   const char *baseline, int64_t *last_seq, nodus_error *err)
{
	int rc = exec_sql(db, "BEGIN IMMEDIATE", err);
	if (rc)
		return rc;
	if ((rc = next_seq(db, last_seq, err)) ||
	    (rc = end_batch_subs(db, b, price_usd_h, baseline, NULL, last_seq, err)) ||
	    (rc = set_batch_state(db, b->id, "done", NULL, b->run_failures, err))) {
		exec_sql(db, "ROLLBACK", NULL);
		return rc;
	}
	return exec_sql(db, "COMMIT", err);
}

int nodus__sq_fail_run(sqlite3 *db, const nodus__sq_batch *b, const char *message,
		       int attempts, int *ended, int64_t *last_seq, nodus_error *err)
{
	int failures = b->run_failures + 1;
	*ended = failures >= attempts;
	char *text = NULL;
	if (*ended) {
		json_t *res = json_pack("{s:s, s:s}", "error", "the batch's run failed", "message",
					message);
		text = res ? json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		json_decref(res);
		if (!text)
			return NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
	}
	int rc = exec_sql(db, "BEGIN IMMEDIATE", err);
	if (rc)
		goto done;
	if ((rc = next_seq(db, last_seq, err)) ||
	    (*ended && (rc = end_batch_subs(db, b, NAN, "", text, last_seq, err))) ||
	    (rc = set_batch_state(db, b->id, *ended ? "failed" : "sealed", message, failures,
				  err))) {
		exec_sql(db, "ROLLBACK", NULL);
		goto done;
	}
	rc = exec_sql(db, "COMMIT", err);
done:
	free(text);
	return rc;
}

#define SUB_COLS                                                                              \
	"SELECT s.id, s.state, s.label, s.campaign, s.workload, s.reference, s.pair_id, "      \
	"b.plan_digest, s.result_json, s.done_seq, s.submitted_at, s.done_at, s.batch_id, "   \
	"s.kind "                                                                             \
	"FROM serve_submissions s LEFT JOIN serve_batches b ON b.id = s.batch_id "

static json_t *sub_of(sqlite3_stmt *st)
{
	json_t *result = json_null();
	const unsigned char *rt = sqlite3_column_text(st, 8);
	if (rt) {
		result = json_loads((const char *)rt, 0, NULL);
		if (!result)
			result = json_null();
	}
	json_t *o = json_pack("{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			      "id", (json_int_t)sqlite3_column_int64(st, 0), "state",
			      (const char *)sqlite3_column_text(st, 1), "kind",
			      (const char *)sqlite3_column_text(st, 13), "label", jtext_or_null(st, 2),
			      "campaign", jtext_or_null(st, 3), "workload", jtext_or_null(st, 4),
			      "reference", jtext_or_null(st, 5), "pair", jtext_or_null(st, 6),
			      "plan_digest", jtext_or_null(st, 7), "result", result, "seq",
			      sqlite3_column_type(st, 9) == SQLITE_NULL
				      ? json_null() : json_integer(sqlite3_column_int64(st, 9)),
			      "submitted_at", jnum_or_null(st, 10), "done_at", jnum_or_null(st, 11),
			      "batch", sqlite3_column_type(st, 12) == SQLITE_NULL
				      ? json_null() : json_integer(sqlite3_column_int64(st, 12)));
	return o;
}

int nodus__sq_get(sqlite3 *db, int64_t id, json_t **out, nodus_error *err)
{
	sqlite3_stmt *st;
	*out = NULL;
	int rc = prep(db, SUB_COLS "WHERE s.id = ?1", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*out = sub_of(st);
		if (!*out)
			rc = NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
	} else if (s != SQLITE_DONE) {
		rc = db_fail(db, err, "reading a submission");
	}
	sqlite3_finalize(st);
	return rc;
}

int nodus__sq_results_after(sqlite3 *db, int64_t after, int limit, json_t *arr,
			    nodus_error *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, SUB_COLS "WHERE s.done_seq > ?1 ORDER BY s.done_seq LIMIT ?2", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, limit);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = sub_of(st);
		if (!o || json_array_append_new(arr, o)) {
			rc = NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
			break;
		}
	}
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, err, "reading results");
	sqlite3_finalize(st);
	return rc;
}
