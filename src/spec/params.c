/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * params.c: python.params as text, and the two comparisons made on it
 * (docs/formats.md, "python"; docs/audit.md, "params").
 *
 * A solution's python.params is kept as the adapter gets it,
 * "name:D0xD1:dtype" entries joined by ';' (solution.c); the torch adapter
 * reports a module's own floating tensors in the same form (ENTRY_params).
 * Two questions are asked of such texts:
 *
 *   - the campaign's (campaign.c, per pair): does a candidate declare what
 *     its reference declares? The declaration is the reference module's
 *     tensors, copied into every solution of a problem; the adapter draws a
 *     declared tensor's values from its name and shape and matches a
 *     solution's own tensors against the declared list in its order, so
 *     two sides draw the same values only from the same list, entry for
 *     entry (nodus__py_params_pair_diff);
 *   - the audit's (audit.c, the reference's process): does the reference's
 *     module, as built, have exactly the declared tensors, with their
 *     names, shapes and dtypes, in torch's order
 *     (nodus__py_params_module_diff)?
 *
 * Both answer 0 when the texts agree, else the number of differences, with
 * the first ones described in words and the index of the first declared
 * entry involved (-1 when none is: an undeclared tensor of the module).
 * ------------------------------------------------------------------------ */
#include "spec/spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last ':' of p[0..len), or NULL. */
static const char *last_colon(const char *p, size_t len)
{
	while (len--)
		if (p[len] == ':')
			return p + len;
	return NULL;
}

/* p[0..len) into dst, cut to size - 1 bytes, NUL-terminated. */
static void copy_field(char *dst, size_t size, const char *p, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, p, len);
	dst[len] = '\0';
}

int nodus__py_params_split(const char *text, nodus_py_param **out)
{
	*out = NULL;
	int n = 0;
	if (!text || !*text)
		return 0;
	for (const char *p = text; p; p = strchr(p + 1, ';'))
		n++;
	nodus_py_param *e = calloc((size_t)n, sizeof(*e));
	if (!e)
		return -1;
	const char *p = text;
	for (int k = 0; k < n; k++) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		/* from the end: the dtype, then the sizes; the name is the rest */
		const char *dt = last_colon(p, len);
		const char *dims = dt ? last_colon(p, (size_t)(dt - p)) : NULL;
		const char *name_end = dims ? dims : dt ? dt : p + len;
		copy_field(e[k].name, sizeof(e[k].name), p, (size_t)(name_end - p));
		if (dims)
			copy_field(e[k].dims, sizeof(e[k].dims), dims + 1, (size_t)(dt - dims - 1));
		if (dt)
			copy_field(e[k].dtype, sizeof(e[k].dtype), dt + 1,
				   (size_t)(p + len - dt - 1));
		p = end ? end + 1 : p + len;
	}
	*out = e;
	return n;
}

void nodus__py_param_describe(const nodus_py_param *e, char *buf, size_t size)
{
	char shape[sizeof(e->dims) * 2 + 4];
	size_t n = 0;
	shape[n++] = '[';
	for (const char *d = e->dims; *d && n + 3 < sizeof(shape); d++) {
		if (*d == 'x') {
			shape[n++] = ',';
			shape[n++] = ' ';
		} else {
			shape[n++] = *d;
		}
	}
	shape[n++] = ']';
	shape[n] = '\0';
	snprintf(buf, size, "%s %s %s", e->name, shape, e->dtype);
}

/* Appends one difference to detail (the first three; later ones are only
 * counted in *n). */
static void add_diff(char *detail, size_t size, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_diff(char *detail, size_t size, int *n, const char *fmt, ...)
{
	size_t len = strlen(detail);
	if (*n < 3 && len + 3 < size) {
		if (*n) {
			memcpy(detail + len, "; ", 3);
			len += 2;
		}
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail + len, size - len, fmt, ap);
		va_end(ap);
	}
	(*n)++;
}

/* The index of the entry of e[0..n) named name, or -1. */
static int find_name(const nodus_py_param *e, int n, const char *name)
{
	for (int k = 0; k < n; k++)
		if (strcmp(e[k].name, name) == 0)
			return k;
	return -1;
}

int nodus__py_params_pair_diff(const char *candidate, const char *reference, char *detail,
			       size_t size, int *index)
{
	nodus_py_param *c = NULL, *r = NULL;
	int nc = nodus__py_params_split(candidate, &c), nr = nodus__py_params_split(reference, &r);
	int diffs = 0;
	char a[512], b[512];
	detail[0] = '\0';
	*index = -1;
	if (nc < 0 || nr < 0) {
		snprintf(detail, size, "out of memory comparing the declarations");
		diffs = 1;
		goto out;
	}
	int n = nc < nr ? nc : nr;
	for (int k = 0; k < n; k++) {
		if (!strcmp(c[k].name, r[k].name) && !strcmp(c[k].dims, r[k].dims) &&
		    !strcmp(c[k].dtype, r[k].dtype))
			continue;
		if (*index < 0)
			*index = k;
		nodus__py_param_describe(&c[k], a, sizeof(a));
		nodus__py_param_describe(&r[k], b, sizeof(b));
		add_diff(detail, size, &diffs,
			 "$.python.params[%d] is %s in the candidate, %s in the reference", k, a,
			 b);
	}
	for (int k = n; k < nc || k < nr; k++) {
		if (*index < 0)
			*index = k;
		nodus__py_param_describe(k < nc ? &c[k] : &r[k], a, sizeof(a));
		add_diff(detail, size, &diffs, "$.python.params[%d] %s is the %s only", k, a,
			 k < nc ? "candidate's" : "reference's");
	}
out:
	free(c);
	free(r);
	return diffs;
}

int nodus__py_params_module_diff(const char *declared, const char *own, char *detail,
				 size_t size, int *index)
{
	nodus_py_param *d = NULL, *m = NULL;
	int nd = nodus__py_params_split(declared, &d), nm = nodus__py_params_split(own, &m);
	int diffs = 0;
	char a[512], b[512];
	detail[0] = '\0';
	*index = -1;
	if (nd < 0 || nm < 0) {
		snprintf(detail, size, "out of memory comparing the parameters");
		diffs = 1;
		goto out;
	}
	for (int k = 0; k < nd; k++) {
		int j = find_name(m, nm, d[k].name);
		nodus__py_param_describe(&d[k], a, sizeof(a));
		if (j < 0) {
			add_diff(detail, size, &diffs,
				 "$.python.params[%d] %s is declared, the module has no floating "
				 "tensor %s", k, a, d[k].name);
		} else if (strcmp(d[k].dims, m[j].dims) || strcmp(d[k].dtype, m[j].dtype)) {
			nodus__py_param_describe(&m[j], b, sizeof(b));
			add_diff(detail, size, &diffs,
				 "$.python.params[%d] %s is declared, the module has %s", k, a, b);
		} else {
			continue;
		}
		if (*index < 0)
			*index = k;
	}
	for (int j = 0; j < nm; j++) {
		if (find_name(d, nd, m[j].name) >= 0)
			continue;
		nodus__py_param_describe(&m[j], a, sizeof(a));
		add_diff(detail, size, &diffs, "the module's %s is not declared", a);
	}
	/* the same tensors: then in torch's order, which the candidates'
	 * matching by order and shape follows */
	for (int k = 0; !diffs && k < nd; k++) {
		if (strcmp(d[k].name, m[k].name) == 0)
			continue;
		nodus__py_param_describe(&d[k], a, sizeof(a));
		add_diff(detail, size, &diffs, "$.python.params[%d] %s is declared where torch's "
			 "order has %s", k, a, m[k].name);
		*index = k;
	}
out:
	free(d);
	free(m);
	return diffs;
}
