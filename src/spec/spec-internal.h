/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * spec-internal.h: pieces shared by the spec validators (task.c,
 * workload.c, solution.c, campaign.c, spec.c) and by the fuzz target.
 * Not part of the library's interface to other modules.
 *
 * Reading a spec file goes: nodus__spec_read() (a regular file, at most
 * NODUS__SPEC_MAX_BYTES) -> nodus__spec_parse() (jansson, strict, syntax
 * faults located) -> a *_from_json() validator.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SPEC_INTERNAL_H
#define NODUS_SPEC_INTERNAL_H

#include <jansson.h>

#include "spec.h"
#include "validate.h"

#define NODUS__SPEC_MAX_BYTES (16u << 20)   /* largest spec file read (16 MiB) */
#define NODUS__SOURCE_MAX_BYTES (16u << 20) /* largest solution source read */
#define NODUS__AXIS_MAX ((int64_t)1 << 40)  /* largest axis value */
#define NODUS__TENSOR_MAX_BYTES ((int64_t)1 << 40) /* largest tensor a workload may ask for */
#define NODUS__FILE_INPUT_MAX_BYTES ((size_t)256 << 20) /* largest safetensors file a workload names */
#define NODUS__INT_EXACT ((int64_t)1 << 53) /* integers stored in a double stay exact */

/* Reads a regular file of at most max bytes into out (replacing it). On
 * failure pushes one diag located at (file, path) of the referring document
 * when v is given, else one unlocated diag naming path; returns a NODUS_E*. */
int nodus__spec_read(const char *path, size_t max, nodus_buf *out, nodus__vctx *v,
		     nodus_diags *diags);

/* Hashes path (SHA-256, hex) under the same checks as nodus__spec_read: a
 * regular file of at most max bytes, opened without blocking. On failure
 * pushes one unlocated diag naming path with check's words ("expected a
 * readable regular file, got not a regular file"). */
int nodus__spec_hash_file(const char *path, size_t max, char sha[NODUS_SHA256_HEX],
			  nodus_diags *diags);

/* 0 when path, resolved (symbolic links followed), lies under dir,
 * resolved; -1 when it leads out of it. resolved gets the resolved path
 * ("" when path does not exist: that is 0, for the read to report). */
int nodus__path_inside(const char *dir, const char *path, char *resolved, size_t size);

/* Parses text strictly (duplicate keys rejected, NUL rejected, one
 * document). Syntax faults become one located diag for file. */
int nodus__spec_parse(const char *file, const char *text, size_t len, json_t **out,
		      nodus_diags *diags);

/* Checks "kind" and "format" of a spec object. Returns 0 when the object
 * can be validated as `kind` (faults of the two fields may have been
 * reported), -1 when it is not an object or declares another kind (reported;
 * validating it further would only bury that fault). */
int nodus__v_header(nodus__vctx *v, const json_t *obj, const char *kind);

/* Validates a distribution object at the current path. dtype 0 = unknown
 * (dtype checks skipped); axes NULL = task unknown (index axis checked as a
 * name only). */
int nodus__v_dist(nodus__vctx *v, const json_t *j, int dtype, const nodus_axis *axes,
		  int n_axes, nodus_dist *out);

/* Validates a tolerance object at the current path into *io (pre-filled
 * with the values to keep). partial = 1: every field optional (overrides). */
int nodus__v_tolerance(nodus__vctx *v, const json_t *j, int partial, nodus_tolerance *io);

/* Checks a relative path written in a spec: not empty, not absolute, at
 * most size-1 bytes; allow_dotdot = 0 also rejects ".." components. */
int nodus__v_relpath(nodus__vctx *v, const json_t *j, int allow_dotdot, char *out, size_t size);

/* Joins dir and rel ("." or "" dir gives rel) into out. 0 or NODUS_EINVAL
 * when it does not fit. */
int nodus__path_join(char *out, size_t size, const char *dir, const char *rel);
/* Directory part of path ("." when there is none). */
void nodus__path_dir(const char *path, char *out, size_t size);

/* Why compiler flag f may not be used for backend (a NODUS_BACKEND_*), or
 * NULL when it may (flags.c; the allow-list is documented there). */
const char *nodus__flag_fault(const char *f, int backend);

/* Loads a campaign whose text is already in memory; dir is where its
 * relative paths start. Same contract as nodus_campaign_load(). */
int nodus__campaign_load_text(const char *file, const char *text, size_t len, const char *dir,
			      nodus_campaign **out, nodus_diags *diags);

/* The check behind `nodus check`, on text in memory; dir resolves a
 * solution's sources and a campaign's files. */
int nodus__spec_check_text(const char *file, const char *text, size_t len, const char *dir,
			   nodus_diags *diags);

#endif
