/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * run.h: the orchestrator (`nodus run`).
 *
 * It never loads solution code. For every (pair, condition) of a verified
 * plan it builds both solutions (cached), starts an oracle worker (the
 * reference alone) and a measure worker (candidate and reference), compares
 * what they send, decides when to stop timing, labels the pair, and writes
 * one record per attempt - failed attempts too - in its own transaction.
 *
 * Resumable: a pair-condition with a final record is skipped; one with only
 * non-final attempts continues at the next attempt number. A run killed at
 * any point therefore loses at most the attempt in flight, and never writes
 * a record twice.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_RUN_H
#define NODUS_RUN_H

#include <jansson.h>
#include <stdio.h>

#include "common/common.h"

typedef struct nodus_run_opts {
	const char *plan_path;   /* the sealed plan */
	const char *db_path;     /* the record store (created if missing) */
	const char *self_path;   /* the nodus binary, started as workers and stressors */
	const char *cache_dir;   /* compiled solutions; NULL = <db dir>/nodus-cache */
	const char *condition;   /* run only this condition; NULL = all, in plan order */
	int resume;              /* 1: continue a store that already holds this plan's records */
	int shard_index;         /* with shard_count > 0: run only pairs p with p % count == index */
	int shard_count;         /* 0 = all pairs (replay conditions shard themselves) */
	int only_aa;             /* 1: only pairs whose candidate is their reference (calibration) */
	FILE *progress;          /* one line per record; NULL = quiet */
	int progress_json;       /* 1: progress as JSON lines (progress.c), not text */
} nodus_run_opts;

typedef struct nodus_run_summary {
	int pair_conditions;     /* planned (pair, condition) combinations run or skipped */
	int skipped;             /* already final in the store (resume) */
	int records;             /* records written by this run, retries included */
	int failures;            /* final records whose status is not OK */
} nodus_run_summary;

/* Moves the fields of a device fingerprint that name one physical unit
 * (uuid, cuda_uuid, pci_bus_id) from fp into unit: what is left is the
 * profile, the part of the target hash a device contributes (target.c). */
void nodus__target_split_unit(json_t *fp, json_t *unit);

/* `nodus run --devices LIST`: one orchestrator per entry of LIST (GPU
 * ordinals, comma-separated, repeats allowed; or "all"), each a shard
 * `nodus run --shard I/N` of the plan on its GPU, all writing into the one
 * store; refused before anything runs unless every GPU's profile is the
 * same (devices.c). Returns 0 when every orchestrator completed. */
int nodus_run_devices(const nodus_run_opts *opts, const char *devices, nodus_error *err);

/* Runs the plan. Plan verification faults go to diags (returns
 * NODUS_ECHANGED); other failures of the harness to err. Failing candidates
 * are records, not errors. */
int nodus_run(const nodus_run_opts *opts, nodus_run_summary *summary, nodus_diags *diags,
	      nodus_error *err);

#endif
