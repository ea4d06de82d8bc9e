/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * validate.h: the machinery shared by the spec validators (library-internal).
 *
 * A nodus__vctx follows one file through validation: it knows the file's
 * name and raw text, keeps the JSON path of the value being checked, and
 * turns every fault into a located nodus_error pushed onto the caller's
 * nodus_diags. Validators never stop at the first fault; they record it and
 * carry on with the next field, so a user sees every fault of a file at once.
 *
 * Positions: the first fault builds a jsonpos index of the text (so a valid
 * file never pays for it). A fault on a path that is not in the text (a
 * missing field) is located at the nearest enclosing value that is.
 *
 * Getters (nodus__v_int, _num, _str, ...) look up one member of an object,
 * push its key onto the path, check type and range, report, and pop. They
 * return 1 when the member is present and valid, 0 when it is absent (the
 * required-field check is nodus__v_fields' job, so nothing is reported
 * twice), and -1 when it is present but wrong (already reported).
 *
 * Call order: nodus__vctx_init(); any checks; nodus__vctx_release().
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SPEC_VALIDATE_H
#define NODUS_SPEC_VALIDATE_H

#include <jansson.h>
#include <stdint.h>

#include "common/common.h"
#include "jsonpos.h"

#define NODUS__VDEPTH 32 /* path segments a validator may push (schemas are shallow) */

typedef struct nodus__vctx {
	const char *file;        /* file name used in messages; borrowed */
	const char *text;        /* raw text for positions, may be NULL; borrowed */
	size_t text_len;         /* bytes in text */
	nodus__jsonpos *pos;     /* position index, built on the first fault; owned */
	int pos_tried;           /* 1 once building the index was attempted */
	nodus_diags *diags;      /* where faults go; borrowed */
	size_t n_errors;         /* faults reported through this context */
	nodus_buf path;          /* JSON path of the value being checked */
	size_t marks[NODUS__VDEPTH]; /* path length before each pushed segment */
	int depth;               /* segments pushed */
} nodus__vctx;

/* Field of an object schema. */
typedef struct nodus__vfield {
	const char *name;        /* member name */
	int required;            /* 1: missing is a fault */
} nodus__vfield;

void nodus__vctx_init(nodus__vctx *v, const char *file, const char *text, size_t text_len,
		      nodus_diags *diags);
void nodus__vctx_release(nodus__vctx *v);

/* Path stack: push a member key or an array index; pop the last segment. */
void nodus__v_push_key(nodus__vctx *v, const char *key);
void nodus__v_push_index(nodus__vctx *v, size_t i);
void nodus__v_pop(nodus__vctx *v);

/* Reports a fault at the current path (at its key when at_key, for unknown
 * fields). The message should read "expected ..., got ...". */
void nodus__v_err(nodus__vctx *v, int at_key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reports a fault at the current path extended by key (pushed and popped). */
void nodus__v_err_key(nodus__vctx *v, const char *key, int at_key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Describes a value for "got ...": "\"text\"", "12", "true", "an object"... */
void nodus__v_describe(const json_t *j, char *out, size_t size);

/* Checks that j is an object (reports "expected WHAT, got ..." otherwise)
 * and returns 1, else 0. */
int nodus__v_object(nodus__vctx *v, const json_t *j, const char *what);
/* Reports every member of obj that is not in fields (at its key), and every
 * required field that is missing. */
void nodus__v_fields(nodus__vctx *v, const json_t *obj, const nodus__vfield *fields, size_t n);

/* Names: [A-Za-z_][A-Za-z0-9_.-]*, at most NODUS_NAME_MAX-1 characters. */
int nodus__is_name(const char *s);
int nodus__v_name(nodus__vctx *v, const json_t *obj, const char *key, char *out, size_t size);
/* Any string of at most size-1 bytes. */
int nodus__v_str(nodus__vctx *v, const json_t *obj, const char *key, char *out, size_t size);
/* An integer in [lo, hi]. */
int nodus__v_int(nodus__vctx *v, const json_t *obj, const char *key, int64_t lo, int64_t hi,
		 int64_t *out);
/* A number in the interval between lo and hi; lo_open/hi_open exclude the
 * bound. Pass -INFINITY/INFINITY for no bound. */
int nodus__v_num(nodus__vctx *v, const json_t *obj, const char *key, double lo, int lo_open,
		 double hi, int hi_open, double *out);
int nodus__v_bool(nodus__vctx *v, const json_t *obj, const char *key, int *out);
/* A string among names[0..n); *out gets its index. */
int nodus__v_enum(nodus__vctx *v, const json_t *obj, const char *key, const char *const *names,
		  size_t n, int *out);
/* Same check on a value already in hand, at the current path. */
int nodus__v_enum_value(nodus__vctx *v, const json_t *j, const char *const *names, size_t n,
			int *out);
/* An array of at most max entries (min at least); returns its size or -1. */
int nodus__v_array(nodus__vctx *v, const json_t *j, size_t min, size_t max, const char *what);

#endif
