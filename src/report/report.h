/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * report.h: does a label survive its isolated recheck? The report of a
 * plan's records, per condition against a baseline condition, over pairs.
 *
 * Three layers, so that the arithmetic is testable without SQLite:
 *   1. nodus_report_load() reads a store: the plan JSON, every record of
 *      the plan (all attempts, no samples) and the target fingerprints;
 *   2. nodus_report_compute() works on those in-memory arrays only and
 *      builds the report as a JSON document (docs/report.md gives its
 *      shape: baseline, plan, conditions[], pairs[], excluded[]);
 *   3. nodus_report_render() turns that document into text, JSON or CSV.
 *
 * Call order: nodus_report_data_init(); nodus_report_load() (or fill the
 * struct by hand in tests); nodus_report_compute(); nodus_report_render()
 * any number of times; json_decref() the report;
 * nodus_report_data_release().
 *
 * Bootstrap intervals use a fixed seed, so the same store gives the same
 * report byte for byte.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_REPORT_H
#define NODUS_REPORT_H

#include <jansson.h>

#include "common/common.h"
#include "plan/plan.h"
#include "store/store.h"

#define NODUS_REPORT_SEED UINT64_C(0x6e6f647573) /* "nodus": fixed, reports are reproducible */
#define NODUS_REPORT_RESAMPLES 2000              /* default bootstrap resamples over tasks */
#define NODUS_REPORT_CONFIDENCE 0.95             /* default interval confidence */

/* What the report is computed from. Every pointer is borrowed by
 * nodus_report_compute(); after nodus_report_load() the struct owns them
 * and nodus_report_data_release() frees them. */
typedef struct nodus_report_data {
	char plan_digest[NODUS_SHA256_HEX]; /* the plan reported on */
	char *plan_json;           /* the plan document: pairs, conditions, target */
	nodus_record *records;     /* every attempt of the plan, any order; no samples;
				      message owned (NULL if none); detail_json only
				      {"tie_margin": d, "merged": {...}}, what the
				      record has of them (owned), or NULL */
	int n_records;             /* entries in records */
	char **target_hash;        /* fingerprints known to the store: hash i ... */
	char **target_json;        /* ... has fingerprint JSON i */
	int n_targets;             /* entries in target_hash and target_json */
	int alloc_records;         /* capacity of records (loader's bookkeeping) */
	int alloc_targets;         /* capacity of the target arrays (loader's bookkeeping) */
} nodus_report_data;

/* How to compute. Zero-initialised means the defaults. */
typedef struct nodus_report_options {
	const char *baseline;      /* condition compared against; NULL = the plan's
				      condition of kind "isolated" */
	int resamples;             /* bootstrap resamples; 0 = NODUS_REPORT_RESAMPLES */
	double confidence;         /* interval confidence; 0 = NODUS_REPORT_CONFIDENCE */
	uint64_t seed;             /* bootstrap seed; 0 = NODUS_REPORT_SEED */
	const char *conditions;    /* comma-separated names: only these conditions (and
				      the baseline) are reported; NULL = every one */
} nodus_report_options;

/* Whether outcome, a pair's outcome under one condition as the document's
 * pairs[].labels names it (a label, a status name or MISSING), contradicts
 * the pair's declared expect (docs/formats.md): a label expect must be that
 * label; EQUIVALENT and OK any label (or OK without one); FAIL any failure
 * status but NOT_ISOLATED (the machine's, not the candidate's); another
 * status that status. Returns 1 when it contradicts, 0 when it meets it,
 * -1 when there is nothing to check (expect NULL or empty, outcome NULL,
 * empty or MISSING). The one place this rule is written: compute() stores
 * its answer as pairs[].expect_mismatch, which every renderer reads. */
int nodus__report_expect_missed(const char *expect, const char *outcome);

/* The report document as one HTML page (html.c), appended to b. */
void nodus__report_render_html(const json_t *report, nodus_buf *b);

/* Final records as FlashInfer-Bench Trace JSONL (one line each), appended
 * to out. Needs only the loaded data (no computation). A harness failure
 * (trace.c says which statuses are) is no trace: it is left out, and
 * *left_out (may be NULL) gets how many were. */
int nodus_report_trace(const nodus_report_data *d, nodus_buf *out, int *left_out,
		       nodus_error *err);

/* What nodus_report_dataset() wrote. */
typedef struct nodus_report_dataset_counts {
	int definitions;           /* definitions/TASK/TASK@CONDITION.json */
	int solutions;             /* solutions/TASK/SOLUTION@CONDITION.json */
	int workloads;             /* lines of workloads/TASK/TASK@CONDITION.jsonl */
	int traces;                /* lines of traces/TASK/TASK@CONDITION.jsonl */
	int harness_failures;      /* lines of nodus/harness-failures.jsonl */
} nodus_report_dataset_counts;

/* Writes the plan's final records as a FlashInfer-Bench dataset (the
 * layout its TraceSet.from_path loads; docs/report.md) into the directory
 * dir, which must not exist or be empty: everything is written into a new
 * directory beside it, then renamed onto it, so dir is never half-written.
 * p is the plan as nodus_plan_load() verified it (its campaign has the
 * tasks' tensors and the solutions' sources, which the store has not); it
 * must be d's plan (NODUS_EINVAL otherwise). counts (may be NULL) gets what was written. NODUS_EINVAL
 * also for what the format cannot hold (a dtype it has no name for, an
 * empty or non-UTF-8 source), naming the task or file; NODUS_EIO when a
 * file cannot be written or dir is not empty. */
int nodus_report_dataset(const nodus_report_data *d, const nodus_plan *p, const char *dir,
			 nodus_report_dataset_counts *counts, nodus_error *err);

/* Output directories, written whole or not at all (dataset.c; the
 * dataset and the export use them): nodus__report_dir_begin() refuses dir
 * unless it does not exist or is an empty directory (NODUS_EIO, saying
 * so), then makes a new directory beside it, DIR.tmp-XXXXXX, whose path it
 * writes to root (size bytes); fill root, then nodus__report_dir_commit()
 * renames it onto dir (rename() replaces an empty directory, never a full
 * one), or nodus__report_dir_abort() removes it and all it holds. */
int nodus__report_dir_begin(const char *dir, char *root, size_t size, nodus_error *err);
int nodus__report_dir_commit(const char *root, const char *dir, nodus_error *err);
void nodus__report_dir_abort(const char *root);

/* Shared by trace.c and dataset.c (library-internal). */
/* The FlashInfer-Bench status of a final record, or NULL when it is a
 * harness failure (not the candidate's fault; table in trace.c). */
const char *nodus__trace_status(const nodus_record *r);
/* "NAME@CONDITION" as a new JSON string, or NULL without memory. */
json_t *nodus__trace_key(const char *name, const char *condition);
/* The plan's pair with this id (borrowed), or NULL. */
const json_t *nodus__trace_find_pair(const json_t *plan, const char *id);
/* The Workload object {uuid WORKLOAD@CONDITION, axes, inputs} of a pair
 * (new reference), or NULL without memory. */
json_t *nodus__trace_workload(const json_t *pair, const char *condition);
/* Where a dataset keeps the file inputs of pair's workload under condition
 * (relative to its root): blob/workloads/nodus/DEF/DEF_UUID.safetensors, as
 * FlashInfer-Bench lays out its own blobs. 0 or NODUS_EINVAL (too long). */
int nodus__trace_blob_path(const json_t *pair, const char *condition, char *out, size_t size);
/* The Trace line of a final record (new reference); NULL for a harness
 * failure or without memory. */
json_t *nodus__trace_line(const nodus_report_data *d, const json_t *pair, const nodus_record *r);
/* A harness failure's line for nodus/harness-failures.jsonl: pair, task,
 * workload, candidate, reference, condition, attempt, nodus's status,
 * guard, message, timestamp, plan (new reference), or NULL. */
json_t *nodus__trace_harness_line(const nodus_report_data *d, const json_t *pair,
				  const nodus_record *r);

/* How nodus_report_export() exports. */
typedef struct nodus_report_export_options {
	const char *holdout_path;  /* FILE: the held-out family (task) names, one a line,
				      '#' comments and blank lines allowed; required */
	const char *db_path;       /* the store, as the user named it, for the manifest */
} nodus_report_export_options;

/* What nodus_report_export() wrote. */
typedef struct nodus_report_export_counts {
	int train;                 /* rows of train.jsonl */
	int heldout;               /* rows of heldout.jsonl */
	int trusted;               /* rows of both with trusted true */
	int missing;               /* pair-conditions without a final record: no row */
	int families;              /* the plan's families (tasks) */
	int heldout_families;      /* of them, those FILE holds out */
} nodus_report_export_counts;

/* Writes the plan's final records as a training dataset into dir (export.c;
 * docs/export.md): dir/train.jsonl and dir/heldout.jsonl, one row per final
 * record, split by family (the pair's task) as o->holdout_path lists them,
 * and dir/manifest.json. dir must not exist or be empty; everything is
 * written beside it, then renamed onto it. A row is trusted only when it is
 * OK with a decided label that agrees with its isolated recheck as the
 * report computes agreement (pairs[].agrees). NODUS_EINVAL, located at
 * FILE:LINE, for a name that is no task of the plan (or listed twice), or
 * for FILE unreadable; NODUS_EINVAL too for a plan without a final record
 * or without an isolated condition; NODUS_EIO when dir is not empty or a
 * file cannot be written. counts (may be NULL) gets what was written. */
int nodus_report_export(const nodus_report_data *d, const nodus_report_export_options *o,
			const char *dir, nodus_report_export_counts *counts, nodus_error *err);

typedef enum nodus_report_format {
	NODUS_REPORT_TEXT,         /* readable terminal report */
	NODUS_REPORT_JSON,         /* the document itself, indented, keys in order */
	NODUS_REPORT_CSV,          /* one row per pair x condition, with a header row */
	NODUS_REPORT_TRACE,        /* FlashInfer-Bench Trace JSONL of the final records */
	NODUS_REPORT_HTML,         /* one self-contained page with tables and interval figures */
	NODUS_REPORT_DATASET       /* a FlashInfer-Bench dataset directory (nodus_report_dataset()) */
} nodus_report_format;

void nodus_report_data_init(nodus_report_data *d);
void nodus_report_data_release(nodus_report_data *d);

/* Loads the plan with this digest (NULL = the most recent plan in the
 * store) and its records and target fingerprints into d (initialised).
 * NODUS_ENOTFOUND if the plan is absent; on failure d is left released. */
int nodus_report_load(nodus_store *s, const char *digest, nodus_report_data *d,
		      nodus_error *err);

/* Computes the report of d. *out gets a new JSON object (json_decref it).
 * NODUS_EPARSE if the plan JSON lacks pairs or conditions; NODUS_EINVAL if
 * the baseline condition is not in the plan (or the plan has no isolated
 * condition and none was named). */
int nodus_report_compute(const nodus_report_data *d, const nodus_report_options *opt,
			 json_t **out, nodus_error *err);

/* Renders a report made by nodus_report_compute() into out (appending). */
int nodus_report_render(const json_t *report, nodus_report_format format, nodus_buf *out,
			nodus_error *err);

#endif
