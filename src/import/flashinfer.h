/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * flashinfer.h: a FlashInfer-Bench dataset as nodus files (`nodus import
 * flashinfer DIR -o OUT`; docs/import.md).
 *
 * A dataset holds Definitions (DIR/definitions/, .json files: axes, named
 * inputs and outputs, a Python `reference` defining run), Workloads
 * (DIR/workloads/, .jsonl files: one line per workload, its var axes and how
 * each input is made) and Solutions (DIR/solutions/, .json files: spec.language,
 * spec.entry_point "file::fn", spec.destination_passing_style, sources).
 * Each Definition becomes a task and a reference solution, each Workload a
 * workload, each Python or Triton Solution a python solution, and
 * OUT/campaign.json pairs every solution with its definition's reference
 * on every workload, plus the reference against itself. Nothing is run:
 * the files are JSON and Python text, and each safetensors file a workload
 * names is checked and copied into OUT at its dataset path (a file input:
 * docs/formats.md). An integer input a workload draws at random takes
 * FlashInfer-Bench's own range, [-1024, 1023], and the notes say so. What
 * nodus cannot take (a dtype it lacks, a bad or missing safetensors file,
 * a random uint8, solutions it cannot build) is left out and said, one
 * line each; nothing that exists is overwritten.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_IMPORT_FLASHINFER_H
#define NODUS_IMPORT_FLASHINFER_H

#include "common/common.h"

typedef struct nodus_fi_opts {
	const char *python;  /* the campaign's target.python */
	const char *backend; /* "cuda" (FlashInfer's) or "cpu" */
} nodus_fi_opts;

typedef struct nodus_fi_counts {
	int definitions, workloads, solutions, pairs; /* written */
	int left_out;                                 /* said on notes, one line each */
} nodus_fi_counts;

/* Imports the dataset in into out (created; every file new). Returns 0
 * with *counts filled and notes holding one line per thing left out, or
 * NODUS_EINVAL (nothing to import, a file exists, a document that is not
 * what FlashInfer-Bench writes) / NODUS_EIO with err naming the file. */
int nodus__fi_import(const char *in, const char *out, const nodus_fi_opts *o,
		     nodus_fi_counts *counts, nodus_buf *notes, nodus_error *err);

#endif
