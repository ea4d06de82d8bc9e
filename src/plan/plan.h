/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * plan.h: sealing a campaign into a plan, verifying it, loading it.
 *
 * A plan fixes the candidate/reference pairs before anything is measured.
 * It holds: the campaign's path and hash, the SHA-256 of every file the
 * pairs depend on (campaign, tasks, workloads, solution files and their
 * sources), each solution's content hash, the resolved pairs, the judge with
 * every default filled in, the conditions, the declared target (price or
 * null), and a digest over its own canonical form (the "digest" member left
 * out). Paths inside a plan are relative to the plan file's directory.
 *
 * Call order: nodus_plan_seal() once; later nodus_plan_verify() any number
 * of times; nodus_plan_load() (verifies, then loads the campaign from the
 * verified files) before running; nodus_plan_free().
 * ------------------------------------------------------------------------ */
#ifndef NODUS_PLAN_H
#define NODUS_PLAN_H

#include <jansson.h>

#include "common/common.h"
#include "spec/spec.h"

typedef struct nodus_plan {
	char path[512];             /* the plan file */
	char digest[NODUS_SHA256_HEX];
	json_t *json;               /* the plan document, owned */
	nodus_campaign *campaign;   /* loaded from the verified files, owned */
} nodus_plan;

/* Seals campaign_path into a plan written to out_path (atomically: temp
 * file then rename). On success fills digest_out. Faults of the campaign's
 * files go to diags; other failures to err. Returns 0 or a NODUS_E* code. */
int nodus_plan_seal(const char *campaign_path, const char *out_path,
		    char digest_out[NODUS_SHA256_HEX], nodus_diags *diags, nodus_error *err);

/* Refuses (NODUS_EUSAGE, naming both) an out_path that is one of the
 * campaign's own files - the campaign, a task, workload or solution file,
 * a source - by device and inode, so "-o campaign.json" and "-o ./x.json"
 * for another name of an input both fail before anything is written. 0 if
 * out_path does not exist or is none of them. nodus_plan_seal() checks it
 * too. */
int nodus_campaign_check_output(const nodus_campaign *c, const char *out_path,
				nodus_error *err);

/* Re-hashes every file the plan names and checks the plan's own digest.
 * Returns 0 if all match; NODUS_ECHANGED with one diag per changed or
 * missing file (file = that file, message says expected and found hash);
 * another negative code if the plan itself cannot be read. */
int nodus_plan_verify(const char *plan_path, nodus_diags *diags);

/* Verifies, then loads. *out is NULL on failure. */
int nodus_plan_load(const char *plan_path, nodus_plan **out, nodus_diags *diags);
void nodus_plan_free(nodus_plan *p);

/* Writes the path of target relative to directory from (both resolved,
 * absolute) into out: "../" for each component of from below the common
 * prefix, then the rest of target. NODUS_EINVAL when out is too small.
 * (Plans and `nodus serve`'s batch campaigns name files so.) */
int nodus__path_relative(const char *from, const char *target, char *out, size_t size);

#endif
