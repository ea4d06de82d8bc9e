/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * validate.c: located faults and typed getters for the spec validators
 * (see validate.h for the contract).
 * ------------------------------------------------------------------------ */
#include "validate.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"

void nodus__vctx_init(nodus__vctx *v, const char *file, const char *text, size_t text_len,
		      nodus_diags *diags)
{
	memset(v, 0, sizeof(*v));
	v->file = file ? file : "";
	v->text = text;
	v->text_len = text ? text_len : 0;
	v->diags = diags;
	nodus_buf_init(&v->path);
	nodus_buf_adds(&v->path, "$");
}

void nodus__vctx_release(nodus__vctx *v)
{
	nodus__jsonpos_free(v->pos);
	v->pos = NULL;
	nodus_buf_release(&v->path);
}

static void set_len(nodus_buf *b, size_t len)
{
	b->len = len;
	if (b->alloc)
		b->data[len] = '\0';
}

void nodus__v_push_key(nodus__vctx *v, const char *key)
{
	if (v->depth >= NODUS__VDEPTH)
		NODUS_BUG("validator path too deep");
	v->marks[v->depth++] = v->path.len;
	nodus__jsonpath_key(&v->path, key, strlen(key));
}

void nodus__v_push_index(nodus__vctx *v, size_t i)
{
	if (v->depth >= NODUS__VDEPTH)
		NODUS_BUG("validator path too deep");
	v->marks[v->depth++] = v->path.len;
	nodus__jsonpath_index(&v->path, i);
}

void nodus__v_pop(nodus__vctx *v)
{
	if (v->depth <= 0)
		NODUS_BUG("validator path popped below the root");
	set_len(&v->path, v->marks[--v->depth]);
}

/* Finds the position of the current path, or of the nearest enclosing path
 * present in the text (a missing member is shown at its parent). */
static void locate(nodus__vctx *v, int at_key, int *line, int *column)
{
	*line = *column = 0;
	if (!v->text)
		return;
	if (!v->pos_tried) {
		v->pos_tried = 1;
		nodus__jsonpos_build(v->text, v->text_len, &v->pos);
	}
	if (!v->pos)
		return;
	nodus_buf probe = NODUS_BUF_INIT; /* shortened copy; the path itself stays intact */
	if (nodus_buf_add(&probe, v->path.data, v->path.len))
		return;
	for (int d = v->depth;; at_key = 0) {
		if (nodus__jsonpos_find(v->pos, probe.data, at_key, line, column) || d == 0)
			break;
		set_len(&probe, v->marks[--d]);
	}
	nodus_buf_release(&probe);
}

static void verr(nodus__vctx *v, int at_key, const char *fmt, va_list ap)
{
	nodus_error e;
	int line, column;
	char msg[sizeof(e.message)];
	locate(v, at_key, &line, &column);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	NODUS_ERR_AT(&e, NODUS_EINVAL, v->file, line, column, v->path.data, "%s", msg);
	v->n_errors++;
	if (v->diags)
		nodus_diags_push(v->diags, &e);
}

void nodus__v_err(nodus__vctx *v, int at_key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(v, at_key, fmt, ap);
	va_end(ap);
}

void nodus__v_err_key(nodus__vctx *v, const char *key, int at_key, const char *fmt, ...)
{
	va_list ap;
	nodus__v_push_key(v, key);
	va_start(ap, fmt);
	verr(v, at_key, fmt, ap);
	va_end(ap);
	nodus__v_pop(v);
}

void nodus__v_describe(const json_t *j, char *out, size_t size)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		snprintf(out, size, "an object");
		return;
	case JSON_ARRAY:
		snprintf(out, size, "an array");
		return;
	case JSON_INTEGER:
		snprintf(out, size, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		return;
	case JSON_REAL:
		snprintf(out, size, "%.17g", json_real_value(j));
		return;
	case JSON_TRUE:
		snprintf(out, size, "true");
		return;
	case JSON_FALSE:
		snprintf(out, size, "false");
		return;
	case JSON_NULL:
		snprintf(out, size, "null");
		return;
	case JSON_STRING:
		break;
	}
	/* A string, quoted, control characters escaped, cut at about 48 bytes
	 * on a UTF-8 character boundary. Room kept before each character: its
	 * longest form (a 6-byte \uXXXX escape), then "...", the closing quote
	 * and the NUL, so the cut always fits. */
	const char *s = json_string_value(j);
	size_t n = json_string_length(j), o = 0;
	if (size < 16) {
		snprintf(out, size, "a string");
		return;
	}
	out[o++] = '"';
	for (size_t k = 0; k < n; k++) {
		unsigned char ch = (unsigned char)s[k];
		if (o + 6 + 5 > size || (k >= 48 && (ch & 0xC0) != 0x80)) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (ch < 0x20 || ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, size - o, ch < 0x20 ? "\\u%04x" : "\\%c", ch);
		else
			out[o++] = (char)ch;
	}
	out[o++] = '"';
	out[o] = '\0';
}

int nodus__v_object(nodus__vctx *v, const json_t *j, const char *what)
{
	if (json_is_object(j))
		return 1;
	char got[96];
	nodus__v_describe(j, got, sizeof(got));
	nodus__v_err(v, 0, "expected %s, got %s", what, got);
	return 0;
}

void nodus__v_fields(nodus__vctx *v, const json_t *obj, const nodus__vfield *fields, size_t n)
{
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)obj, key, val) {
		size_t k = 0;
		while (k < n && strcmp(fields[k].name, key) != 0)
			k++;
		if (k < n)
			continue;
		nodus_buf allowed = NODUS_BUF_INIT;
		for (k = 0; k < n; k++)
			nodus_buf_addf(&allowed, "%s%s", k ? ", " : "", fields[k].name);
		char got[96];
		json_t *name = json_string(key);
		if (name)
			nodus__v_describe(name, got, sizeof(got));
		else
			snprintf(got, sizeof(got), "an unprintable key");
		json_decref(name);
		nodus__v_err_key(v, key, 1, "expected one of the fields %s, got unknown field %s",
				 allowed.data, got);
		nodus_buf_release(&allowed);
	}
	for (size_t k = 0; k < n; k++)
		if (fields[k].required && !json_object_get(obj, fields[k].name))
			nodus__v_err_key(v, fields[k].name, 0,
					 "expected required field \"%s\", got an object without it",
					 fields[k].name);
}

int nodus__is_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= NODUS_NAME_MAX)
		return 0;
	for (size_t k = 0; k < n; k++) {
		char ch = s[k];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
		if (k > 0)
			ok = ok || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
		if (!ok)
			return 0;
	}
	return 1;
}

/* Pushes key, and reports "expected WHAT, got X" when j fails is_ok. */
static int typed(nodus__vctx *v, const json_t *obj, const char *key, json_t **j)
{
	*j = json_object_get(obj, key);
	if (!*j)
		return 0;
	nodus__v_push_key(v, key);
	return 1;
}

static int wrong(nodus__vctx *v, const json_t *j, const char *what)
{
	char got[96];
	nodus__v_describe(j, got, sizeof(got));
	nodus__v_err(v, 0, "expected %s, got %s", what, got);
	nodus__v_pop(v);
	return -1;
}

int nodus__v_name(nodus__vctx *v, const json_t *obj, const char *key, char *out, size_t size)
{
	json_t *j;
	if (!typed(v, obj, key, &j))
		return 0;
	if (!json_is_string(j) || !nodus__is_name(json_string_value(j)) ||
	    json_string_length(j) >= size)
		return wrong(v, j, "a name ([A-Za-z_][A-Za-z0-9_.-]*, at most 63 characters)");
	memcpy(out, json_string_value(j), json_string_length(j) + 1);
	nodus__v_pop(v);
	return 1;
}

int nodus__v_str(nodus__vctx *v, const json_t *obj, const char *key, char *out, size_t size)
{
	json_t *j;
	if (!typed(v, obj, key, &j))
		return 0;
	if (!json_is_string(j))
		return wrong(v, j, "a string");
	if (json_string_length(j) >= size) {
		nodus__v_err(v, 0, "expected a string of at most %zu bytes, got %zu bytes",
			     size - 1, json_string_length(j));
		nodus__v_pop(v);
		return -1;
	}
	memcpy(out, json_string_value(j), json_string_length(j) + 1);
	nodus__v_pop(v);
	return 1;
}

int nodus__v_int(nodus__vctx *v, const json_t *obj, const char *key, int64_t lo, int64_t hi,
		 int64_t *out)
{
	json_t *j;
	if (!typed(v, obj, key, &j))
		return 0;
	char what[96];
	snprintf(what, sizeof(what), "an integer in [%" PRId64 ", %" PRId64 "]", lo, hi);
	if (!json_is_integer(j))
		return wrong(v, j, what);
	json_int_t x = json_integer_value(j);
	if (x < lo || x > hi)
		return wrong(v, j, what);
	*out = (int64_t)x;
	nodus__v_pop(v);
	return 1;
}

static void fmt_bound(char *out, size_t size, double x)
{
	if (isinf(x))
		snprintf(out, size, "%s", x < 0 ? "-inf" : "inf");
	else
		snprintf(out, size, "%g", x);
}

int nodus__v_num(nodus__vctx *v, const json_t *obj, const char *key, double lo, int lo_open,
		 double hi, int hi_open, double *out)
{
	json_t *j;
	if (!typed(v, obj, key, &j))
		return 0;
	char what[128], a[32], b[32];
	fmt_bound(a, sizeof(a), lo);
	fmt_bound(b, sizeof(b), hi);
	if (isinf(lo) && isinf(hi))
		snprintf(what, sizeof(what), "a number");
	else if (isinf(hi))
		snprintf(what, sizeof(what), "a number %s %s", lo_open ? ">" : ">=", a);
	else if (isinf(lo))
		snprintf(what, sizeof(what), "a number %s %s", hi_open ? "<" : "<=", b);
	else
		snprintf(what, sizeof(what), "a number in %c%s, %s%c", lo_open ? '(' : '[', a, b,
			 hi_open ? ')' : ']');
	if (!json_is_number(j))
		return wrong(v, j, what);
	double x = json_number_value(j);
	if (!isfinite(x) || x < lo || x > hi || (lo_open && x == lo) || (hi_open && x == hi))
		return wrong(v, j, what);
	*out = x;
	nodus__v_pop(v);
	return 1;
}

int nodus__v_bool(nodus__vctx *v, const json_t *obj, const char *key, int *out)
{
	json_t *j;
	if (!typed(v, obj, key, &j))
		return 0;
	if (!json_is_boolean(j))
		return wrong(v, j, "true or false");
	*out = json_is_true(j);
	nodus__v_pop(v);
	return 1;
}

int nodus__v_enum_value(nodus__vctx *v, const json_t *j, const char *const *names, size_t n,
			int *out)
{
	if (json_is_string(j)) {
		for (size_t k = 0; k < n; k++) {
			if (strcmp(names[k], json_string_value(j)) == 0) {
				*out = (int)k;
				return 1;
			}
		}
	}
	nodus_buf what = NODUS_BUF_INIT;
	nodus_buf_adds(&what, "one of ");
	for (size_t k = 0; k < n; k++)
		nodus_buf_addf(&what, "%s%s", k ? ", " : "", names[k]);
	char got[96];
	nodus__v_describe(j, got, sizeof(got));
	nodus__v_err(v, 0, "expected %s, got %s", what.data, got);
	nodus_buf_release(&what);
	return -1;
}

int nodus__v_enum(nodus__vctx *v, const json_t *obj, const char *key, const char *const *names,
		  size_t n, int *out)
{
	json_t *j;
	if (!typed(v, obj, key, &j))
		return 0;
	int rc = nodus__v_enum_value(v, j, names, n, out);
	nodus__v_pop(v);
	return rc;
}

int nodus__v_array(nodus__vctx *v, const json_t *j, size_t min, size_t max, const char *what)
{
	char got[96];
	if (!json_is_array(j)) {
		nodus__v_describe(j, got, sizeof(got));
		nodus__v_err(v, 0, "expected an array of %s, got %s", what, got);
		return -1;
	}
	size_t n = json_array_size(j);
	if (n < min || n > max) {
		if (min == max)
			nodus__v_err(v, 0, "expected %zu %s, got %zu", min, what, n);
		else
			nodus__v_err(v, 0, "expected %zu to %zu %s, got %zu", min, max, what, n);
		return -1;
	}
	return (int)n;
}
