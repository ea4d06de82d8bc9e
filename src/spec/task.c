/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * task.c: validating a task file into a nodus_task, and the pieces a
 * workload reuses (input distributions, tolerances).
 *
 * Distributions are checked against the tensor's dtype: integer dtypes draw
 * only from int_range or index (and their values must fit the dtype);
 * floating dtypes from the others, with parameters inside the dtype's
 * finite range. Affine distributions are never the identity: their spread
 * must be positive (and below 1 for affine_scale, so 1 + u stays positive).
 * Roofline expressions are parsed (axes, integers, + - * / and parentheses,
 * nesting bounded) and every name must be an axis of the task.
 * ------------------------------------------------------------------------ */
#include "spec-internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dist_names[] = {"normal",       "uniform",  "affine_scale",
					 "affine_shift", "positive", "int_range",
					 "index",        "constant", "file"};

static int dtype_is_int(int dtype)
{
	return dtype == NODUS_DTYPE_INT32 || dtype == NODUS_DTYPE_INT64 ||
	       dtype == NODUS_DTYPE_UINT8;
}

/* Largest finite magnitude of a floating dtype. */
static double dtype_max(int dtype)
{
	switch (dtype) {
	case NODUS_DTYPE_FLOAT16:
		return 65504.0;
	case NODUS_DTYPE_FLOAT32:
	case NODUS_DTYPE_BFLOAT16:
		return 3.0e38;
	default:
		return INFINITY; /* float64: any finite number */
	}
}

/* Integer range of an integer dtype (int64 limited to exact doubles). */
static void dtype_int_range(int dtype, int64_t *lo, int64_t *hi)
{
	switch (dtype) {
	case NODUS_DTYPE_UINT8:
		*lo = 0;
		*hi = 255;
		return;
	case NODUS_DTYPE_INT32:
		*lo = INT32_MIN;
		*hi = INT32_MAX;
		return;
	default:
		*lo = -NODUS__INT_EXACT;
		*hi = NODUS__INT_EXACT;
		return;
	}
}

static int find_axis(const nodus_axis *axes, int n, const char *name)
{
	for (int k = 0; k < n; k++)
		if (strcmp(axes[k].name, name) == 0)
			return k;
	return -1;
}

static void axis_list(const nodus_axis *axes, int n, char *out, size_t size)
{
	nodus_buf b = NODUS_BUF_INIT;
	for (int k = 0; k < n; k++)
		nodus_buf_addf(&b, "%s%s", k ? ", " : "", axes[k].name);
	snprintf(out, size, "%s", n ? b.data : "none declared");
	nodus_buf_release(&b);
}

static const nodus__vfield dist_fields[][4] = {
	{{"dist", 1}, {"mean", 1}, {"std", 1}},
	{{"dist", 1}, {"low", 1}, {"high", 1}},
	{{"dist", 1}, {"spread", 1}},
	{{"dist", 1}, {"spread", 1}},
	{{"dist", 1}, {"low", 1}, {"high", 1}},
	{{"dist", 1}, {"low", 1}, {"high", 1}},
	{{"dist", 1}, {"axis", 1}},
	{{"dist", 1}, {"value", 1}},
	{{"dist", 1}, {"path", 1}, {"tensor", 1}, {"sha256", 1}},
};
static const size_t dist_nfields[] = {3, 3, 2, 2, 3, 3, 2, 2, 4};

/* A file distribution's fields: where the values are (loaded by the
 * workload, which knows its directory and shape: workload.c). */
static void dist_file(nodus__vctx *v, const json_t *j)
{
	char path[512], tensor[256];
	json_t *p = json_object_get(j, "path");
	if (p) {
		nodus__v_push_key(v, "path");
		/* ".." allowed: a campaign's files may sit beside its workloads */
		nodus__v_relpath(v, p, 1, path, sizeof(path));
		nodus__v_pop(v);
	}
	nodus__v_str(v, j, "tensor", tensor, sizeof(tensor));
	const char *sha = json_string_value(json_object_get(j, "sha256"));
	int hex = sha && strlen(sha) == 64;
	for (const char *c = sha; hex && *c; c++)
		hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f');
	if (json_object_get(j, "sha256") && !hex)
		nodus__v_err_key(v, "sha256", 0, "expected the file's SHA-256 as 64 lowercase hex "
				 "digits (sha256sum FILE)");
}

/* Checks low < high (strict) or low <= high, reporting at .high. */
static void check_order(nodus__vctx *v, int ok_low, int ok_high, double lo, double hi, int strict)
{
	if (ok_low == 1 && ok_high == 1 && (strict ? !(lo < hi) : !(lo <= hi)))
		nodus__v_err_key(v, "high", 0, "expected a number %s low (%g), got %g",
				 strict ? ">" : ">=", lo, hi);
}

static void dist_int_params(nodus__vctx *v, const json_t *j, int dtype, nodus_dist *out)
{
	int64_t lo, hi, a = 0, b = 0;
	dtype_int_range(dtype, &lo, &hi);
	int ra = nodus__v_int(v, j, "low", lo, hi, &a);
	int rb = nodus__v_int(v, j, "high", lo, hi, &b);
	if (ra == 1 && rb == 1 && a > b)
		nodus__v_err_key(v, "high", 0, "expected an integer >= low (%lld), got %lld",
				 (long long)a, (long long)b);
	out->a = (double)a;
	out->b = (double)b;
}

static void dist_index(nodus__vctx *v, const json_t *j, const nodus_axis *axes, int n_axes,
		       nodus_dist *out)
{
	char name[NODUS_NAME_MAX];
	if (nodus__v_name(v, j, "axis", name, sizeof(name)) != 1 || !axes)
		return;
	out->axis = find_axis(axes, n_axes, name);
	if (out->axis < 0) {
		char list[512];
		axis_list(axes, n_axes, list, sizeof(list));
		nodus__v_err_key(v, "axis", 0, "expected an axis of the task (%s), got \"%s\"",
				 list, name);
	}
}

int nodus__v_dist(nodus__vctx *v, const json_t *j, int dtype, const nodus_axis *axes,
		  int n_axes, nodus_dist *out)
{
	size_t before = v->n_errors;
	memset(out, 0, sizeof(*out));
	out->axis = -1;
	if (!nodus__v_object(v, j, "a distribution object {\"dist\": ...}"))
		return -1;
	int kind = -1;
	if (!json_object_get(j, "dist")) {
		nodus__v_err_key(v, "dist", 0,
				 "expected required field \"dist\" (normal, uniform, affine_scale, "
				 "affine_shift, positive, int_range, index, constant, file), got an object "
				 "without it");
		return -1;
	}
	if (nodus__v_enum(v, j, "dist", dist_names, NODUS_ARRAY_SIZE(dist_names), &kind) != 1)
		return -1;
	out->kind = kind + 1;
	nodus__v_fields(v, j, dist_fields[kind], dist_nfields[kind]);
	int int_dist = out->kind == NODUS_DIST_INT_RANGE || out->kind == NODUS_DIST_INDEX;
	/* constant and file take either kind of dtype (file: the file's dtype
	 * is checked against the tensor's when it is read) */
	if (dtype > 0 && out->kind != NODUS_DIST_CONSTANT && out->kind != NODUS_DIST_FILE &&
	    dtype_is_int(dtype) != int_dist) {
		nodus__v_err_key(v, "dist", 0, "expected %s for a %s tensor, got \"%s\"",
				 int_dist ? "a floating distribution (normal, uniform, "
					    "affine_scale, affine_shift, positive)"
					  : "int_range or index",
				 nodus_dtype_name(dtype), dist_names[kind]);
	}
	double max = dtype_is_int(dtype) ? INFINITY : dtype_max(dtype);
	int ra = 0, rb = 0;
	switch (out->kind) {
	case NODUS_DIST_NORMAL:
		nodus__v_num(v, j, "mean", -max, 0, max, 0, &out->a);
		nodus__v_num(v, j, "std", 0, 1, max, 0, &out->b);
		break;
	case NODUS_DIST_UNIFORM:
		ra = nodus__v_num(v, j, "low", -max, 0, max, 0, &out->a);
		rb = nodus__v_num(v, j, "high", -max, 0, max, 0, &out->b);
		check_order(v, ra, rb, out->a, out->b, 1);
		break;
	case NODUS_DIST_AFFINE_SCALE:
		nodus__v_num(v, j, "spread", 0, 1, 1, 1, &out->a);
		break;
	case NODUS_DIST_AFFINE_SHIFT:
		nodus__v_num(v, j, "spread", 0, 1, max, 0, &out->a);
		break;
	case NODUS_DIST_POSITIVE:
		ra = nodus__v_num(v, j, "low", 0, 1, max, 0, &out->a);
		rb = nodus__v_num(v, j, "high", 0, 1, max, 0, &out->b);
		check_order(v, ra, rb, out->a, out->b, 1);
		break;
	case NODUS_DIST_INT_RANGE:
		dist_int_params(v, j, dtype, out);
		break;
	case NODUS_DIST_INDEX:
		dist_index(v, j, axes, n_axes, out);
		break;
	case NODUS_DIST_CONSTANT:
		if (dtype > 0 && dtype_is_int(dtype)) {
			int64_t lo, hi, x = 0;
			dtype_int_range(dtype, &lo, &hi);
			if (nodus__v_int(v, j, "value", lo, hi, &x) == 1)
				out->a = out->b = (double)x;
		} else {
			nodus__v_num(v, j, "value", -max, 0, max, 0, &out->a);
			out->b = out->a;
		}
		break;
	case NODUS_DIST_FILE:
		dist_file(v, j);
		break;
	}
	return v->n_errors > before ? -1 : 1;
}

static const nodus__vfield tol_fields[] = {
	{"atol", 1}, {"rtol", 1}, {"matched_ratio", 0}, {"max_error_cap", 0}};

int nodus__v_tolerance(nodus__vctx *v, const json_t *j, int partial, nodus_tolerance *io)
{
	size_t before = v->n_errors;
	if (!nodus__v_object(v, j, "a tolerance object"))
		return -1;
	nodus__vfield f[4];
	memcpy(f, tol_fields, sizeof(f));
	if (partial)
		f[0].required = f[1].required = 0;
	nodus__v_fields(v, j, f, 4);
	nodus__v_num(v, j, "atol", 0, 0, INFINITY, 0, &io->atol);
	nodus__v_num(v, j, "rtol", 0, 0, INFINITY, 0, &io->rtol);
	nodus__v_num(v, j, "matched_ratio", 0, 1, 1, 0, &io->matched_ratio);
	json_t *cap = json_object_get(j, "max_error_cap");
	if (json_is_null(cap))
		io->max_error_cap = -1;
	else
		nodus__v_num(v, j, "max_error_cap", 0, 1, INFINITY, 0, &io->max_error_cap);
	return v->n_errors > before ? -1 : 1;
}

/* ---- roofline expressions ---- */

#define EXPR_MAX_BYTES 1024
#define EXPR_MAX_NEST 32

typedef struct expr {
	const char *s;          /* the expression */
	size_t i;               /* next byte */
	int nest;               /* open parentheses and unary minus chains */
	const nodus_task *task; /* axes names resolve against */
	char fault[160];        /* first fault, "" while none */
} expr;

static void expr_ws(expr *e)
{
	while (e->s[e->i] == ' ')
		e->i++;
}

static void expr_sum(expr *e);

static void expr_factor(expr *e)
{
	expr_ws(e);
	char ch = e->s[e->i];
	if (e->fault[0])
		return;
	if (++e->nest > EXPR_MAX_NEST) {
		snprintf(e->fault, sizeof(e->fault), "nesting deeper than %d at offset %zu",
			 EXPR_MAX_NEST, e->i);
		return;
	}
	if (ch == '(' || ch == '-') {
		e->i++;
		if (ch == '(') {
			expr_sum(e);
			expr_ws(e);
			if (!e->fault[0] && e->s[e->i] != ')')
				snprintf(e->fault, sizeof(e->fault), "a missing ')' at offset %zu",
					 e->i);
			else
				e->i++;
		} else {
			expr_factor(e);
		}
	} else if (isdigit((unsigned char)ch)) {
		size_t start = e->i;
		while (isdigit((unsigned char)e->s[e->i]))
			e->i++;
		if (e->i - start > 15)
			snprintf(e->fault, sizeof(e->fault), "an integer of more than 15 digits");
	} else if (isalpha((unsigned char)ch) || ch == '_') {
		char name[NODUS_NAME_MAX];
		size_t n = 0;
		while (isalnum((unsigned char)e->s[e->i]) || e->s[e->i] == '_') {
			if (n + 1 < sizeof(name))
				name[n++] = e->s[e->i];
			e->i++;
		}
		name[n] = '\0';
		if (find_axis(e->task->axes, e->task->n_axes, name) < 0)
			snprintf(e->fault, sizeof(e->fault), "unknown axis \"%s\"", name);
	} else {
		snprintf(e->fault, sizeof(e->fault), "%s at offset %zu",
			 ch ? "an unexpected character" : "a missing operand", e->i);
	}
	e->nest--;
}

static void expr_product(expr *e)
{
	expr_factor(e);
	expr_ws(e);
	while (!e->fault[0] && (e->s[e->i] == '*' || e->s[e->i] == '/')) {
		e->i++;
		expr_factor(e);
		expr_ws(e);
	}
}

static void expr_sum(expr *e)
{
	expr_product(e);
	while (!e->fault[0] && (e->s[e->i] == '+' || e->s[e->i] == '-')) {
		e->i++;
		expr_product(e);
	}
}

/* ---- evaluation (same grammar as the validator above) ---- */

typedef struct eval {
	const char *s;          /* the expression */
	size_t i;               /* next byte */
	int depth;              /* recursion guard */
	const nodus_task *task; /* axes */
	const int64_t *axes;    /* their values */
	int bad;                /* 1 once it cannot be evaluated */
} eval;

static double eval_sum(eval *e);

static double eval_factor(eval *e)
{
	while (e->s[e->i] == ' ')
		e->i++;
	char ch = e->s[e->i];
	if (e->bad || ++e->depth > EXPR_MAX_NEST) {
		e->bad = 1;
		return 0;
	}
	double v = 0;
	if (ch == '(') {
		e->i++;
		v = eval_sum(e);
		while (e->s[e->i] == ' ')
			e->i++;
		if (e->s[e->i] == ')')
			e->i++;
		else
			e->bad = 1;
	} else if (ch == '-') {
		e->i++;
		v = -eval_factor(e);
	} else if (isdigit((unsigned char)ch)) {
		while (isdigit((unsigned char)e->s[e->i]))
			v = v * 10 + (e->s[e->i++] - '0');
	} else if (isalpha((unsigned char)ch) || ch == '_') {
		char name[NODUS_NAME_MAX];
		size_t n = 0;
		while (isalnum((unsigned char)e->s[e->i]) || e->s[e->i] == '_') {
			if (n + 1 < sizeof(name))
				name[n++] = e->s[e->i];
			e->i++;
		}
		name[n] = '\0';
		int a = find_axis(e->task->axes, e->task->n_axes, name);
		if (a < 0)
			e->bad = 1;
		else
			v = (double)e->axes[a];
	} else {
		e->bad = 1;
	}
	e->depth--;
	return v;
}

static double eval_product(eval *e)
{
	double v = eval_factor(e);
	for (;;) {
		while (e->s[e->i] == ' ')
			e->i++;
		char op = e->s[e->i];
		if (e->bad || (op != '*' && op != '/'))
			return v;
		e->i++;
		double r = eval_factor(e);
		if (op == '*')
			v *= r;
		else if (r == 0)
			e->bad = 1;
		else
			v /= r;
	}
}

static double eval_sum(eval *e)
{
	double v = eval_product(e);
	for (;;) {
		while (e->s[e->i] == ' ')
			e->i++;
		char op = e->s[e->i];
		if (e->bad || (op != '+' && op != '-'))
			return v;
		e->i++;
		double r = eval_product(e);
		v = op == '+' ? v + r : v - r;
	}
}

int nodus_roofline_eval(const char *text, const nodus_task *t, const int64_t *axes, double *out)
{
	if (!text)
		return NODUS_EINVAL;
	eval e = {text, 0, 0, t, axes, 0};
	double v = eval_sum(&e);
	while (text[e.i] == ' ')
		e.i++;
	if (e.bad || text[e.i])
		return NODUS_EINVAL;
	*out = v;
	return 0;
}

static char *roofline_expr(nodus__vctx *v, const json_t *obj, const char *key,
			   const nodus_task *t)
{
	char text[EXPR_MAX_BYTES];
	if (nodus__v_str(v, obj, key, text, sizeof(text)) != 1)
		return NULL;
	expr e = {text, 0, 0, t, ""};
	expr_sum(&e);
	expr_ws(&e);
	if (!e.fault[0] && text[e.i])
		snprintf(e.fault, sizeof(e.fault), "an unexpected character at offset %zu", e.i);
	if (e.fault[0]) {
		nodus__v_err_key(v, key, 0,
				 "expected an expression of the axes with integers and + - * / ( ), "
				 "got %s",
				 e.fault);
		return NULL;
	}
	return strdup(text);
}

/* ---- task ---- */

static const nodus__vfield task_fields[] = {
	{"kind", 1},   {"format", 1},  {"name", 1},      {"description", 0}, {"axes", 1},
	{"inputs", 1}, {"outputs", 1}, {"tolerance", 1}, {"deterministic", 0}, {"roofline", 0}};

static void task_axis(nodus__vctx *v, const char *key, const json_t *val, nodus_task *t)
{
	static const char *const types[] = {"var", "const"};
	static const nodus__vfield var_f[] = {{"type", 1}};
	static const nodus__vfield const_f[] = {{"type", 1}, {"value", 1}};
	if (!nodus__is_name(key))
		nodus__v_err(v, 1, "expected an axis name ([A-Za-z_][A-Za-z0-9_.-]*, at most 63 "
				   "characters), got a key of %zu bytes",
			     strlen(key));
	if (!nodus__v_object(v, val, "an axis object {\"type\": \"var\"|\"const\"}"))
		return;
	int type = -1;
	nodus_axis *a = &t->axes[t->n_axes++];
	snprintf(a->name, sizeof(a->name), "%s", key);
	if (nodus__v_enum(v, val, "type", types, 2, &type) < 0)
		return;
	nodus__v_fields(v, val, type == 1 ? const_f : var_f, type == 1 ? 2 : 1);
	a->is_const = type == 1;
	if (a->is_const)
		nodus__v_int(v, val, "value", -NODUS__AXIS_MAX, NODUS__AXIS_MAX, &a->value);
}

static void task_axes(nodus__vctx *v, const json_t *j, nodus_task *t)
{
	if (!nodus__v_object(v, j, "an object of axes {\"NAME\": {\"type\": ...}}"))
		return;
	if (json_object_size(j) > NODUS_MAX_AXES) {
		nodus__v_err(v, 0, "expected at most %d axes, got %zu", NODUS_MAX_AXES,
			     json_object_size(j));
		return;
	}
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)j, key, val) {
		nodus__v_push_key(v, key);
		task_axis(v, key, val, t);
		nodus__v_pop(v);
	}
}

static void tensor_shape(nodus__vctx *v, const json_t *j, const nodus_task *t,
			 nodus_tensor_spec *ts)
{
	if (!j || json_is_null(j))
		return;
	nodus__v_push_key(v, "shape");
	int n = nodus__v_array(v, j, 0, NODUS_MAX_DIMS, "axis names (or null)");
	for (int d = 0; d < n; d++) {
		json_t *name = json_array_get(j, (size_t)d);
		nodus__v_push_index(v, (size_t)d);
		int a = json_is_string(name) ? find_axis(t->axes, t->n_axes, json_string_value(name))
					     : -1;
		char got[96], list[512];
		nodus__v_describe(name, got, sizeof(got));
		axis_list(t->axes, t->n_axes, list, sizeof(list));
		if (a < 0)
			nodus__v_err(v, 0, "expected an axis of the task (%s), got %s", list, got);
		else if (t->axes[a].is_const && t->axes[a].value < 1)
			nodus__v_err(v, 0, "expected an axis whose value is >= 1, got %s = %lld", got,
				     (long long)t->axes[a].value);
		ts->axis[ts->ndim++] = a < 0 ? 0 : a;
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

static void tensor_variants(nodus__vctx *v, const json_t *j, nodus_tensor_spec *ts)
{
	static const char *const names[] = {"scale_3", "scale_0.01", "negate"};
	static const unsigned bits[] = {NODUS_VARIANT_SCALE_3, NODUS_VARIANT_SCALE_001,
					NODUS_VARIANT_NEGATE};
	if (!j)
		return;
	nodus__v_push_key(v, "variants");
	int n = nodus__v_array(v, j, 0, 3, "variants (scale_3, scale_0.01, negate)");
	if (n > 0 && ts->dtype > 0 && dtype_is_int(ts->dtype)) {
		nodus__v_err(v, 0, "expected no variants for a %s tensor, got %d",
			     nodus_dtype_name(ts->dtype), n);
		n = 0;
	}
	for (int k = 0; k < n; k++) {
		int which;
		nodus__v_push_index(v, (size_t)k);
		if (nodus__v_enum_value(v, json_array_get(j, (size_t)k), names, 3, &which) == 1) {
			if (ts->variants & bits[which])
				nodus__v_err(v, 0, "expected each variant once, got \"%s\" again",
					     names[which]);
			ts->variants |= bits[which];
		}
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

/* Index of a tensor named name among inputs then outputs, or -1; *where
 * gets its path for messages. */
static int find_tensor(const nodus_task *t, const char *name, char *where, size_t size)
{
	for (int k = 0; k < t->n_inputs; k++)
		if (strcmp(t->inputs[k].name, name) == 0)
			return snprintf(where, size, "$.inputs[%d]", k), k;
	for (int k = 0; k < t->n_outputs; k++)
		if (strcmp(t->outputs[k].name, name) == 0)
			return snprintf(where, size, "$.outputs[%d]", k), k;
	return -1;
}

static void task_tensor(nodus__vctx *v, const json_t *j, int is_input, nodus_task *t)
{
	static const nodus__vfield in_f[] = {
		{"name", 1}, {"dtype", 1}, {"shape", 1}, {"init", 1}, {"variants", 0}};
	static const nodus__vfield out_f[] = {{"name", 1}, {"dtype", 1}, {"shape", 1}};
	static const char *const dnames[] = {"float32", "float64", "float16", "bfloat16",
					     "int32",   "int64",   "uint8"};
	if (!nodus__v_object(v, j, "a tensor object {\"name\", \"dtype\", \"shape\", ...}"))
		return;
	nodus__v_fields(v, j, is_input ? in_f : out_f, is_input ? 5 : 3);
	nodus_tensor_spec ts;
	memset(&ts, 0, sizeof(ts));
	ts.init.axis = -1;
	char where[64];
	if (nodus__v_name(v, j, "name", ts.name, sizeof(ts.name)) == 1 &&
	    find_tensor(t, ts.name, where, sizeof(where)) >= 0)
		nodus__v_err_key(v, "name", 0,
				 "expected a tensor name unique among inputs and outputs, got \"%s\" "
				 "again (first at %s)",
				 ts.name, where);
	int d;
	if (nodus__v_enum(v, j, "dtype", dnames, NODUS_ARRAY_SIZE(dnames), &d) == 1)
		ts.dtype = d + 1;
	tensor_shape(v, json_object_get(j, "shape"), t, &ts);
	if (is_input) {
		json_t *init = json_object_get(j, "init");
		if (init) {
			nodus__v_push_key(v, "init");
			if (nodus__v_dist(v, init, ts.dtype, t->axes, t->n_axes, &ts.init) == 1 &&
			    ts.init.kind == NODUS_DIST_FILE)
				/* a file's values have one shape: a workload's */
				nodus__v_err_key(v, "dist", 0, "expected a distribution a task can "
						 "draw for every workload; \"file\" belongs in a "
						 "workload's inputs (its shape is the workload's)");
			nodus__v_pop(v);
		}
		tensor_variants(v, json_object_get(j, "variants"), &ts);
		t->inputs[t->n_inputs++] = ts;
	} else {
		t->outputs[t->n_outputs++] = ts;
	}
}

static void task_tensors(nodus__vctx *v, const json_t *obj, const char *key, nodus_task *t)
{
	int is_input = strcmp(key, "inputs") == 0;
	json_t *j = json_object_get(obj, key);
	if (!j)
		return;
	nodus__v_push_key(v, key);
	int max = is_input ? NODUS_MAX_INPUTS : NODUS_MAX_OUTPUTS;
	int n = nodus__v_array(v, j, 1, (size_t)max, is_input ? "input tensors" : "output tensors");
	for (int k = 0; k < n; k++) {
		nodus__v_push_index(v, (size_t)k);
		task_tensor(v, json_array_get(j, (size_t)k), is_input, t);
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

static void task_roofline(nodus__vctx *v, const json_t *j, nodus_task *t)
{
	static const nodus__vfield f[] = {{"flops", 0}, {"bytes", 0}};
	if (!j)
		return;
	nodus__v_push_key(v, "roofline");
	if (nodus__v_object(v, j, "a roofline object {\"flops\", \"bytes\"}")) {
		nodus__v_fields(v, j, f, 2);
		t->roofline_flops = roofline_expr(v, j, "flops", t);
		t->roofline_bytes = roofline_expr(v, j, "bytes", t);
	}
	nodus__v_pop(v);
}

int nodus_task_from_json(json_t *obj, const char *file, const char *text, nodus_task *out,
			 nodus_diags *diags)
{
	nodus__vctx v;
	memset(out, 0, sizeof(*out));
	out->tolerance.matched_ratio = 1;
	out->tolerance.max_error_cap = -1;
	out->deterministic = 1;
	snprintf(out->file, sizeof(out->file), "%s", file ? file : "");
	nodus__vctx_init(&v, file, text, text ? strlen(text) : 0, diags);
	if (nodus__v_header(&v, obj, "task") < 0)
		goto out;
	out->json = json_incref(obj);
	nodus__v_fields(&v, obj, task_fields, NODUS_ARRAY_SIZE(task_fields));
	nodus__v_name(&v, obj, "name", out->name, sizeof(out->name));
	char description[4096];
	nodus__v_str(&v, obj, "description", description, sizeof(description));
	json_t *axes = json_object_get(obj, "axes");
	if (axes) {
		nodus__v_push_key(&v, "axes");
		task_axes(&v, axes, out);
		nodus__v_pop(&v);
	}
	task_tensors(&v, obj, "inputs", out);
	task_tensors(&v, obj, "outputs", out);
	json_t *tol = json_object_get(obj, "tolerance");
	if (tol) {
		nodus__v_push_key(&v, "tolerance");
		nodus__v_tolerance(&v, tol, 0, &out->tolerance);
		nodus__v_pop(&v);
	}
	nodus__v_bool(&v, obj, "deterministic", &out->deterministic);
	task_roofline(&v, json_object_get(obj, "roofline"), out);
out:
	nodus__vctx_release(&v);
	return v.n_errors ? NODUS_EINVAL : 0;
}

void nodus_task_release(nodus_task *t)
{
	if (!t)
		return;
	free(t->roofline_flops);
	free(t->roofline_bytes);
	json_decref(t->json);
	t->roofline_flops = t->roofline_bytes = NULL;
	t->json = NULL;
}
