/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * store.h: the record store, SQLite in WAL mode.
 *
 * Append-only: records and samples are inserted, never updated or deleted
 * (triggers refuse it). A record and its samples go in one transaction, so
 * a process killed at any point leaves either the whole attempt or none of
 * it. schema.sql documents every table and column; migrations are numbered
 * and only append. Shards from several machines merge by plan digest.
 *
 * Call order: nodus_store_open(); put_plan() for the plan being run (idempotent);
 * then any number of insert_record() / queries; nodus_store_close().
 * Not thread-safe: one store handle per thread.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_STORE_H
#define NODUS_STORE_H

#include <stdint.h>

#include "common/common.h"

typedef struct nodus_store nodus_store;

/* One timing sample: one timed batch of calls of one solution. */
typedef struct nodus_sample {
	int32_t round;         /* round index, 0-based; the independent unit */
	int32_t seq;           /* position within the round */
	int32_t role;          /* 0 = reference, 1 = candidate */
	int32_t copy;          /* input copy used */
	int32_t batch;         /* calls in this sample */
	int32_t flags;         /* NODUS_SAMPLE_* bits */
	int64_t ns;            /* time per call [ns] (event time on cuda) */
	int64_t host_ns;       /* host time around a device-wide sync, per call [ns]; 0 on cpu */
	int32_t sm_clock_mhz;  /* SM clock measured for this sample, 0 if unknown */
	int32_t reserved;
} nodus_sample;

#define NODUS_SAMPLE_HOST_GAP 0x1 /* event time far below host time: hidden work */
#define NODUS_SAMPLE_OUTLIER 0x2  /* flagged, still stored and used */
#define NODUS_SAMPLE_FRESH 0x4    /* the window's inputs were drawn afresh (timed_checks.h) */

typedef struct nodus_record {
	char plan_digest[NODUS_SHA256_HEX];
	char pair_id[256];
	char condition[64];
	int attempt;             /* 1-based attempt number for this pair-condition */
	int final;               /* 1: this attempt decides the pair-condition */
	int status;              /* a nodus_status */
	char guard[64];          /* which guard fired (REWARD_HACK etc.), or "" */
	int label;               /* a nodus_label, NODUS_LABEL_NONE unless status OK */
	int verdict;             /* a nodus_verdict (a judge_preset's condition, status OK,
				    no label), NODUS_VERDICT_NONE (0) otherwise */
	double speedup;          /* reference time / candidate time, point estimate; NAN if none */
	double ci_lo, ci_hi;     /* interval for speedup; NAN if none */
	int rounds;              /* rounds measured */
	int looks;               /* sequential looks taken */
	double cand_ns_median;   /* median candidate sample [ns per call]; NAN if none */
	double ref_ns_median;    /* median reference sample [ns per call]; NAN if none */
	double max_abs_err;      /* worst correctness figures over all checks; NAN if none */
	double max_rel_err;
	double matched_ratio;
	double device_s;         /* device seconds held by the worker */
	double charge_share;     /* share of device_s charged to this record, (0,1] */
	double compile_s;        /* compile time spent for this record (0 on cache hit) */
	int compile_cache_hits;  /* solutions found in the compile cache */
	double validation_s;     /* correctness checking time */
	double wall_s;           /* whole attempt, wall clock */
	char target_hash[NODUS_SHA256_HEX]; /* fingerprint of the target it ran on */
	char *message;           /* human explanation, may be NULL; borrowed */
	char *detail_json;       /* JSON object: condition as run, isolation figures, seeds...; borrowed, may be NULL */
	double started_at;       /* unix seconds */
	double finished_at;
	int n_samples;
	const nodus_sample *samples; /* borrowed */
} nodus_record;

/* Opens (creating if absent) the store at path for reading and writing,
 * and migrates it to this binary's schema version. Fails with NODUS_EINVAL
 * if path is not an SQLite database, is an SQLite database without a
 * nodus schema that already holds other tables, or has a schema version
 * newer than this binary knows; NODUS_ESTORE for other SQLite failures.
 * *out is NULL on failure. */
int nodus_store_open(const char *path, nodus_store **out, nodus_error *err);
/* Opens an existing store for reading only: never creates, writes or
 * migrates, and creates no file beside it. When DB-wal does not exist (no
 * writer has the store open) the file is read as immutable, so a store on
 * a read-only filesystem or directory reads; when DB-wal and DB-shm exist
 * (a writer is running, or one was killed) it is read through them
 * (mode=ro); DB-wal without DB-shm is refused (NODUS_EINVAL) with what to
 * do. NODUS_ENOTFOUND if path does not exist; NODUS_EINVAL if it is
 * not a nodus store or its version is newer than this binary's, or older
 * (migrate it: open it read-write once, `nodus db migrate`). Writing calls on
 * the handle fail with NODUS_ESTORE. */
int nodus_store_open_readonly(const char *path, nodus_store **out, nodus_error *err);
/* Closes the store; NULL is a no-op. A read-write handle first folds the
 * WAL into the main file (waiting up to 30 s for readers), so that the
 * main file copied alone holds every record. */
void nodus_store_close(nodus_store *s);
/* 1 if a read-only handle was opened immutable (no DB-wal existed). */
int nodus_store_is_immutable(const nodus_store *s);
/* Folds the WAL into the main file and truncates DB-wal to zero bytes
 * (SQLite's TRUNCATE checkpoint), waiting up to 30 s for readers and
 * writers. *log_frames and *done_frames (may be NULL): frames in the WAL
 * before, and frames copied. NODUS_ESTORE on a read-only handle or when
 * the store stayed busy. Writers also checkpoint by themselves: at least
 * every 10 s after an insert and on close. */
int nodus_store_checkpoint(nodus_store *s, int *log_frames, int *done_frames, nodus_error *err);

/* The schema version this binary creates and migrates to. */
int nodus_store_latest_version(void);

/* Current schema version of an open store. */
int nodus_store_schema_version(nodus_store *s);

/* Stores the plan (digest, name, the plan JSON text) and, from its
 * "pairs" (id, task, workload, candidate, reference, candidate_hash,
 * reference_hash, expect) and "conditions" (name, kind; the whole object
 * as params) arrays, its pairs and conditions; entries lacking a required
 * string are skipped (store them with put_pair/put_condition). A no-op if
 * this digest is already there. NODUS_EPARSE if plan_json is not a JSON
 * object. put_pair, put_condition and put_target are no-ops for a key
 * already present. */
int nodus_store_put_plan(nodus_store *s, const char *digest, const char *name,
			 const char *plan_json, nodus_error *err);
int nodus_store_put_pair(nodus_store *s, const char *digest, const char *pair_id,
			 const char *task, const char *workload, const char *candidate,
			 const char *reference, const char *cand_hash, const char *ref_hash,
			 const char *expect, nodus_error *err);
int nodus_store_put_condition(nodus_store *s, const char *digest, const char *name,
			      const char *kind, const char *params_json, nodus_error *err);
/* Stores a target fingerprint under its hash; a no-op if present. */
int nodus_store_put_target(nodus_store *s, const char *target_hash,
			   const char *fingerprint_json, nodus_error *err);

/* Inserts a record with its samples in one transaction; *record_id gets its
 * rowid (may be NULL). A record the schema refuses (a duplicate attempt, a
 * second final record for a pair-condition, an unknown plan digest, a
 * label on a failed record) fails with NODUS_EINVAL and stores nothing. */
int nodus_store_insert_record(nodus_store *s, const nodus_record *r, int64_t *record_id,
			      nodus_error *err);

/* How far a pair-condition got: *attempts = attempts recorded, *has_final =
 * 1 if a final record decides it: one that is not NOT_ISOLATED (a final
 * NOT_ISOLATED record failed for load beside the pair, and a resumed run
 * tries the pair again, at the next attempt number). */
int nodus_store_progress(nodus_store *s, const char *digest, const char *pair_id,
			 const char *condition, int *attempts, int *has_final, nodus_error *err);

/* Row counts of a store (nodus db info). */
typedef struct nodus_store_info {
	int schema_version;      /* MAX(schema_version.version) */
	int64_t plans, pairs, conditions, targets; /* rows of those tables */
	int64_t records;         /* every attempt */
	int64_t final_records;   /* records with final = 1 */
	int64_t samples;         /* timing samples of all records */
} nodus_store_info;
int nodus_store_info_get(nodus_store *s, nodus_store_info *out, nodus_error *err);

/* Calls fn for each record (final ones only when final_only), oldest first,
 * of the plan with this digest (all plans when digest is NULL). The record
 * passed to fn, its strings and samples are valid only during the call;
 * samples are loaded only when with_samples. fn returning non-zero stops
 * the walk and that value is returned. */
typedef int (*nodus_record_fn)(const nodus_record *r, void *ctx);
int nodus_store_foreach_record(nodus_store *s, const char *digest, int final_only,
			       int with_samples, nodus_record_fn fn, void *ctx, nodus_error *err);

/* Merging (docs/store.md, "Merging shards"). A record's identity is its
 * content: every column but id, attempt and final, its detail without the
 * "merged" key, and its samples. */
#define NODUS_MERGE_KEEP_BOTH 1 /* keep a differing record as a new attempt, not refuse */

typedef struct nodus_merge_counts {
	int merged;    /* copied as they were (a pair-condition s lacked, or a free attempt) */
	int identical; /* s held a record of the same content: not copied */
	int kept;      /* differed from what s holds: copied as a new attempt (KEEP_BOTH) */
	int conflicts; /* differed, without KEEP_BOTH: the shard's merge was rolled back */
} nodus_merge_counts;

/* One shard record that is another measurement of a pair-condition s holds.
 * Strings are valid only during the callback. */
typedef struct nodus_merge_note {
	const char *plan_digest, *pair_id, *condition;
	int shard_attempt; /* its attempt number in the shard */
	int shard_final;   /* its final flag in the shard */
	int clash;         /* 1: s holds another record at that attempt; 0: s holds a
			    * deciding record and this one would decide too */
	int attempt;       /* its attempt number in s; 0: not copied (refused) */
	int final;         /* its final flag in s */
	int decider;       /* the attempt of s that decides the pair-condition (its
			    * final record that is not NOT_ISOLATED), 0 if none */
} nodus_merge_note;
typedef void (*nodus_merge_fn)(const nodus_merge_note *n, void *ctx);

/* Merges the shard store at shard_path (same schema version) into s, in
 * one transaction: its plans, pairs, conditions and targets where s lacks
 * them, then each record (with its samples), in attempt order per
 * pair-condition:
 *   - s holds one of the same content: counted in identical, not copied,
 *     so merging a shard twice changes nothing;
 *   - else its attempt is free in s and it would not be a second deciding
 *     record (final, not NOT_ISOLATED): copied as it is (merged);
 *   - else it is another measurement (a second run of the same work):
 *     with NODUS_MERGE_KEEP_BOTH it is copied as the next free attempt,
 *     final only if s had no deciding record, with detail.merged naming
 *     the shard, its attempt, final flag and content hash (kept); without,
 *     it is counted in conflicts and, once every record was looked at,
 *     the whole shard is rolled back and s is unchanged.
 * fn (may be NULL) is called for every kept or conflicting record.
 * Returns 0 also when the merge was refused for conflicts. */
int nodus_store_merge(nodus_store *s, const char *shard_path, int flags,
		      nodus_merge_counts *counts, nodus_merge_fn fn, void *ctx,
		      nodus_error *err);

/* The plan JSON text of digest (NULL = the most recent plan), heap, caller
 * frees; *out NULL with NODUS_ENOTFOUND if absent. */
int nodus_store_get_plan(nodus_store *s, const char *digest, char **out_json, nodus_error *err);
/* The fingerprint JSON of a target hash, heap, or NODUS_ENOTFOUND. */
int nodus_store_get_target(nodus_store *s, const char *target_hash, char **out_json,
			   nodus_error *err);

/* ---- the run lock (runlock.c) ---- */

/* One `nodus run` per store and plan at a time: a run of the whole plan
 * (shard_count 0) holds the plan's lock exclusive; a run of shard I/N holds
 * it shared and that shard's lock exclusive (a shard started by the run
 * that holds the plan's lock, a replay condition's, is covered by it). The
 * locks are flock()s on files DB.run-DIGEST16[-IofN].lock beside the store,
 * dropped by the kernel when the holder dies and removed by the last
 * holder. Fails at once, without waiting, with NODUS_EUSAGE naming the
 * holder's pid and what to do when another process holds a lock it needs,
 * or when the lock file cannot be created. Take it before
 * nodus_store_open() and release it (nodus_runlock_close, NULL a no-op)
 * after nodus_store_close(). */
typedef struct nodus_runlock nodus_runlock;
int nodus_runlock_open(const char *db_path, const char *digest, int shard_index,
		       int shard_count, nodus_runlock **out, nodus_error *err);
void nodus_runlock_close(nodus_runlock *l);

#endif
