/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * serve-internal.h: what the files of `nodus serve` share (serve.h says
 * which file does what).
 *
 * Threads: libmicrohttpd's, one per connection (http.c), each submitting
 * and reading through the one connection sv->db under sv->db_lock; the
 * batcher's (batch.c), with a connection of its own. SQLite serialises the
 * writers (WAL, busy timeout); the `nodus run` child writes records through
 * its own. sv->cv (under sv->lock) wakes the batcher when a submission
 * arrives and the long-polls of /v1/results when submissions end.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SERVE_INTERNAL_H
#define NODUS_SERVE_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

#include "serve/serve.h"
#include "spec/spec.h"

#define NODUS_SERVE_MAX_BASES 16

/* A base campaign: what submissions are judged against. */
typedef struct nodus__serve_base {
	char path[1024];            /* the campaign file, absolute */
	char dir[1024];             /* its directory, absolute */
	nodus_campaign *c;          /* loaded and validated at start, owned */
} nodus__serve_base;

typedef struct nodus__serve {
	nodus_serve_opts o;         /* as given, defaults filled in */
	char db_abs[1024];          /* the store, absolute */
	char files_dir[1100];       /* DB.serve: batches' campaigns, candidates, plans */
	char token[256];            /* the bearer token, "" = none required */
	size_t token_len;
	int n_bases;
	nodus__serve_base bases[NODUS_SERVE_MAX_BASES];
	sqlite3 *db;                /* the HTTP threads' connection, under db_lock */
	pthread_mutex_t db_lock;
	pthread_mutex_t lock;       /* guards the members below */
	pthread_cond_t cv;          /* broadcast: a submission queued, or some ended, or stop */
	int64_t queued_gen;         /* bumped on each queued submission */
	int64_t done_seq;           /* highest done_seq ended so far */
	int stop;                   /* 1: shutting down */
} nodus__serve;

/* ---- the judge audit (audit.c) ---- */

/* nodus plan's judge audit of c (docs/audit.md): 0 when every task passes
 * or is waived; 1 when one fails, with why the audit's lines (at most size
 * bytes); another code on an internal error (err). */
int nodus__serve_audit(const nodus__serve *sv, const nodus_campaign *c, char *why, size_t size,
		       nodus_error *err);

/* ---- the tables (queue.c) ---- */

/* Opens a connection to the store for the serve tables: WAL (the store
 * set it), synchronous FULL (an acknowledged submission survives a crash),
 * a busy timeout. */
int nodus__sq_open(const char *path, sqlite3 **out, nodus_error *err);

enum nodus__sq_outcome {
	NODUS__SQ_NEW = 0,       /* inserted: a new submission */
	NODUS__SQ_EXISTING = 1,  /* the idempotency key was seen with the same body */
	NODUS__SQ_CONFLICT = 2,  /* the key was seen with another body */
	NODUS__SQ_FULL = 3       /* queue_max submissions have not ended yet */
};

/* One submission as the batcher needs it. */
typedef struct nodus__sq_sub {
	int64_t id;
	char campaign[NODUS_NAME_MAX];
	char workload[NODUS_NAME_MAX];
	char reference[NODUS_NAME_MAX];
	char *solution_json;        /* heap; NULL for a whole campaign */
	char *upload_path;          /* a whole campaign's file, heap; NULL for a candidate */
} nodus__sq_sub;

/* Inserts a submission, committed before it returns, unless the queue is
 * full. *outcome says which; *id is the submission's id (new or existing).
 * A whole campaign has upload_path (its file) and campaign its name;
 * workload, reference and solution_json are then not stored. */
int nodus__sq_submit(sqlite3 *db, const char *idem_key, const char *body_sha,
		     const char *campaign, const char *workload, const char *reference,
		     const char *label, const char *solution_json, const char *upload_path,
		     int queue_max, int64_t *id, int *outcome, nodus_error *err);
/* The next batch's submissions into *subs (heap, free with
 * nodus__sq_subs_free): the oldest queued one alone when it is a whole
 * campaign, else the oldest queued candidates of one base campaign (the
 * oldest candidate's), at most max. */
int nodus__sq_take_queued(sqlite3 *db, int max, nodus__sq_sub **subs, int *n,
			  nodus_error *err);
void nodus__sq_subs_free(nodus__sq_sub *subs, int n);
/* Marks subs batched in a new batch of this plan, in one transaction;
 * pair_ids[i] is subs[i]'s pair (pair_ids NULL: a whole campaign, every
 * pair its). *batch_id gets the batch. */
int nodus__sq_seal(sqlite3 *db, const char *digest, const char *plan_path,
		   const nodus__sq_sub *subs, char (*pair_ids)[NODUS_PAIR_ID_MAX], int n,
		   int64_t *batch_id, nodus_error *err);
/* Ends submissions that cannot be batched (a failed seal): failed, with
 * message, one transaction. *last_seq gets the highest done_seq. */
int nodus__sq_fail_subs(sqlite3 *db, const nodus__sq_sub *subs, int n, const char *message,
			int64_t *last_seq, nodus_error *err);

/* A sealed batch that is not done. */
typedef struct nodus__sq_batch {
	int64_t id;
	char digest[NODUS_SHA256_HEX];
	char plan_path[1200];
	int run_failures;
} nodus__sq_batch;
/* The oldest sealed batch that is not done; *found 0 when none. */
int nodus__sq_next_batch(sqlite3 *db, nodus__sq_batch *b, int *found, nodus_error *err);
/* Ends every batched submission of batch b: its result from the plan's
 * final records (per condition; price_usd_h the plan's target price or
 * NAN; baseline the condition whose outcome is the result's "outcome"),
 * done, in one transaction with the batch. *last_seq as above. */
int nodus__sq_finish_batch(sqlite3 *db, const nodus__sq_batch *b, double price_usd_h,
			   const char *baseline, int64_t *last_seq, nodus_error *err);
/* A run of b's plan failed with message: counts it; when it was the
 * attempts-th, the batch and its submissions fail. *ended 1 then. */
int nodus__sq_fail_run(sqlite3 *db, const nodus__sq_batch *b, const char *message,
		       int attempts, int *ended, int64_t *last_seq, nodus_error *err);

/* A submission as GET /v1/submissions/ID shows it (a new object), or
 * NULL with *found 0. */
int nodus__sq_get(sqlite3 *db, int64_t id, json_t **out, nodus_error *err);
/* Ended submissions with done_seq > after, in that order, at most limit,
 * appended to arr as objects like nodus__sq_get's. */
int nodus__sq_results_after(sqlite3 *db, int64_t after, int limit, json_t *arr,
			    nodus_error *err);
/* The highest done_seq (0 if none). */
int nodus__sq_last_seq(sqlite3 *db, int64_t *seq, nodus_error *err);

/* ---- submissions (submission.c) ---- */

/* A parsed, validated submission. */
typedef struct nodus__serve_sub {
	char idem_key[256];         /* "" = none */
	char campaign[NODUS_NAME_MAX];
	char workload[NODUS_NAME_MAX];
	char reference[NODUS_NAME_MAX];
	char label[256];            /* "" = none */
	char *solution_json;        /* the solution object, compact, sources inline; heap */
	char upload_path[1400];     /* a whole campaign: its file beside the store; "" otherwise */
} nodus__serve_sub;

/* Parses body (len bytes) as a submission and validates it against the
 * base campaigns with the checks `nodus check` applies to a solution (the
 * sources written to a scratch directory under sv->files_dir first).
 * Faults go to diags, each with the JSON path of the field and what was
 * expected (a parse error with its line, column and byte position):
 * NODUS_EPARSE / NODUS_EINVAL; NODUS_EIO / NODUS_ENOMEM are the server's.
 * Release out with nodus__serve_sub_release either way. */
int nodus__serve_sub_parse(nodus__serve *sv, const char *body, size_t len,
			   nodus__serve_sub *out, nodus_diags *diags);
void nodus__serve_sub_release(nodus__serve_sub *s);
/* Writes solution_json (sources inline) as a solution file named name
 * into dir (created): dir/solution.json and each source; durable: each
 * fsynced (a batch's), else not (a scratch copy for a check). */
int nodus__serve_write_solution(const char *solution_json, const char *name, const char *dir,
				int durable, nodus_error *err);
/* Makes dir, whose content fill() writes, appear whole or not at all: it
 * is filled under a temporary name beside it and renamed; a dir that
 * exists is left as it is (content-addressed: same name, same content). */
typedef int (*nodus__serve_fill_fn)(const char *dir, void *ctx, nodus_error *err);
int nodus__serve_publish_dir(const char *dir, nodus__serve_fill_fn fill, void *ctx,
			     nodus_error *err);
/* The base campaign named name, or NULL. */
const nodus__serve_base *nodus__serve_find_base(const nodus__serve *sv, const char *name);

/* ---- the batcher (batch.c) ---- */

/* The batcher thread's body: arg is the nodus__serve. */
void *nodus__serve_batcher(void *arg);

/* ---- HTTP (http.c) ---- */

/* Starts libmicrohttpd on the listening socket fd (taken). *daemon_out is
 * an opaque handle for nodus__http_stop. */
int nodus__http_start(nodus__serve *sv, int fd, void **daemon_out, nodus_error *err);
void nodus__http_stop(void *daemon);

#endif
