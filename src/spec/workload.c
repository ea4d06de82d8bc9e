/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * workload.c: validating a workload file into a nodus_workload.
 *
 * A workload is checked twice as deep as its task allows: given the tasks
 * of a campaign it must name one of them, give every var axis an integer in
 * [1, 2^40], name no const or unknown axis, keep every tensor under 2^40
 * bytes, keep index distributions inside their dtype, and override only
 * inputs the task has. Without tasks (`nodus check` on a lone workload) only
 * what the file alone can tell is checked.
 * ------------------------------------------------------------------------ */
#include "spec-internal.h"
#include "spec/safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nodus__vfield wl_fields[] = {{"kind", 1}, {"format", 1}, {"name", 1},
					  {"task", 1}, {"axes", 1},   {"inputs", 0},
					  {"tolerance", 0}};

static void axis_names(const nodus_task *t, int want_var, char *out, size_t size)
{
	nodus_buf b = NODUS_BUF_INIT;
	for (int k = 0; k < t->n_axes; k++)
		if (!want_var || !t->axes[k].is_const)
			nodus_buf_addf(&b, "%s%s", b.len ? ", " : "", t->axes[k].name);
	snprintf(out, size, "%s", b.len ? b.data : "none");
	nodus_buf_release(&b);
}

static void wl_axes(nodus__vctx *v, const json_t *j, const nodus_task *t, nodus_workload *w)
{
	if (!nodus__v_object(v, j, "an object of axis values {\"NAME\": N}"))
		return;
	const char *key;
	json_t *val;
	char list[512];
	if (t)
		axis_names(t, 1, list, sizeof(list));
	json_object_foreach((json_t *)j, key, val) {
		int64_t x;
		int a = -1;
		if (t) {
			for (int k = 0; k < t->n_axes && a < 0; k++)
				if (strcmp(t->axes[k].name, key) == 0)
					a = k;
			if (a < 0 || t->axes[a].is_const) {
				nodus__v_err_key(v, key, 1,
						 "expected a var axis of task \"%s\" (%s), got %s "
						 "axis \"%s\"",
						 t->name, list, a < 0 ? "unknown" : "const", key);
				continue;
			}
		} else if (!nodus__is_name(key)) {
			nodus__v_err_key(v, key, 1, "expected an axis name, got a key of %zu bytes",
					 strlen(key));
			continue;
		}
		if (nodus__v_int(v, j, key, 1, NODUS__AXIS_MAX, &x) == 1 && a >= 0)
			w->axis_value[a] = x;
	}
	for (int k = 0; t && k < t->n_axes; k++) {
		if (t->axes[k].is_const)
			w->axis_value[k] = t->axes[k].value;
		else if (!json_object_get(j, t->axes[k].name))
			nodus__v_err_key(v, t->axes[k].name, 0,
					 "expected a value for var axis \"%s\" of task \"%s\", got "
					 "none",
					 t->axes[k].name, t->name);
	}
}

static void wl_inputs(nodus__vctx *v, const json_t *j, const nodus_task *t, nodus_workload *w)
{
	static const nodus__vfield f[] = {{"init", 1}};
	if (!nodus__v_object(v, j, "an object of input overrides {\"NAME\": {\"init\": ...}}"))
		return;
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)j, key, val) {
		int in = -1;
		for (int k = 0; t && k < t->n_inputs && in < 0; k++)
			if (strcmp(t->inputs[k].name, key) == 0)
				in = k;
		nodus__v_push_key(v, key);
		if (t && in < 0) {
			char list[1024] = "";
			for (int k = 0; k < t->n_inputs; k++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 k ? ", " : "", t->inputs[k].name);
			nodus__v_err(v, 1, "expected an input of task \"%s\" (%s), got \"%s\"",
				     t->name, list, key);
		} else if (nodus__v_object(v, val, "an override object {\"init\": ...}")) {
			nodus__v_fields(v, val, f, 1);
			json_t *init = json_object_get(val, "init");
			nodus_dist d;
			nodus__v_push_key(v, "init");
			if (init && nodus__v_dist(v, init, t ? t->inputs[in].dtype : 0,
						  t ? t->axes : NULL, t ? t->n_axes : 0, &d) == 1 &&
			    in >= 0) {
				w->has_init[in] = 1;
				w->init_override[in] = d;
			}
			nodus__v_pop(v);
		}
		nodus__v_pop(v);
	}
}

/* Bytes of one tensor with the workload's axis values; -1 past the limit. */
static int64_t tensor_bytes(const nodus_tensor_spec *ts, const nodus_workload *w)
{
	int64_t n = (int64_t)nodus_dtype_size(ts->dtype);
	for (int d = 0; d < ts->ndim; d++) {
		int64_t x = w->axis_value[ts->axis[d]];
		if (x < 1)
			return 0;
		if (n > NODUS__TENSOR_MAX_BYTES / x)
			return -1;
		n *= x;
	}
	return n;
}

/* Tensor sizes and index ranges, once every axis has a valid value. */
static void wl_limits(nodus__vctx *v, const nodus_task *t, const nodus_workload *w)
{
	nodus__v_push_key(v, "axes");
	for (int k = 0; k < t->n_inputs + t->n_outputs; k++) {
		const nodus_tensor_spec *ts =
			k < t->n_inputs ? &t->inputs[k] : &t->outputs[k - t->n_inputs];
		if (tensor_bytes(ts, w) < 0)
			nodus__v_err(v, 0,
				     "expected tensors of at most 2^40 bytes, got %s \"%s\" larger "
				     "than that",
				     k < t->n_inputs ? "input" : "output", ts->name);
	}
	for (int k = 0; k < t->n_inputs; k++) {
		const nodus_dist *d = w->has_init[k] ? &w->init_override[k] : &t->inputs[k].init;
		int dt = t->inputs[k].dtype;
		int64_t lim = dt == NODUS_DTYPE_UINT8 ? 256
			      : dt == NODUS_DTYPE_INT32 ? (int64_t)1 << 31
							: NODUS__AXIS_MAX;
		if (d->kind == NODUS_DIST_INDEX && d->axis >= 0 && w->axis_value[d->axis] > lim)
			nodus__v_err(v, 0,
				     "expected axis \"%s\" at most %lld for index input \"%s\" (%s), "
				     "got %lld",
				     t->axes[d->axis].name, (long long)lim, t->inputs[k].name,
				     nodus_dtype_name(dt), (long long)w->axis_value[d->axis]);
	}
	nodus__v_pop(v);
}

/* Reads file input i's safetensors file (its path relative to the
 * workload's directory) and keeps the tensor's bytes: the file's SHA-256
 * must be the one the workload names, the tensor's dtype the input's and
 * its shape the workload's. Faults are located at the init's fields and
 * name the file and the tensor key. The data is little-endian, as the
 * format's; nodus runs on little-endian hosts only (x86-64, aarch64). */
static void wl_load_file(nodus__vctx *v, const json_t *init, const nodus_task *t, int i,
			 nodus_workload *w)
{
	const nodus_tensor_spec *ts = &t->inputs[i];
	const char *rel = json_string_value(json_object_get(init, "path"));
	const char *key = json_string_value(json_object_get(init, "tensor"));
	const char *want = json_string_value(json_object_get(init, "sha256"));
	char dir[512], full[1024], sha[NODUS_SHA256_HEX], why[512];
	if (!rel || !key || !want)
		return; /* reported by nodus__v_dist */
	nodus__path_dir(w->file, dir, sizeof(dir));
	if (nodus__path_join(full, sizeof(full), dir, rel)) {
		nodus__v_err_key(v, "path", 0, "expected a path of at most %zu bytes with the "
				 "workload's directory", sizeof(full) - 1);
		return;
	}
	nodus_buf b = NODUS_BUF_INIT;
	nodus__v_push_key(v, "path");
	int rc = nodus__spec_read(full, NODUS__FILE_INPUT_MAX_BYTES, &b, v, NULL);
	nodus__v_pop(v);
	if (rc)
		goto out;
	nodus_sha256_hex(b.data, b.len, sha);
	if (strcmp(sha, want) != 0) {
		nodus__v_err_key(v, "sha256", 0, "expected %s to have sha256 %s (the workload's), "
				 "got %s: the file is not the one this workload names", full, want,
				 sha);
		goto out;
	}
	nodus_st_tensor st;
	if (nodus_safetensors_find((const unsigned char *)b.data, b.len, key, &st, why,
				   sizeof(why))) {
		nodus__v_err_key(v, strstr(why, "expected a tensor '") == why ? "tensor" : "path", 0,
				 "%s: not a valid safetensors file for tensor '%s': %s", full, key,
				 why);
		goto out;
	}
	if (st.nodus_dtype != ts->dtype) {
		nodus__v_err_key(v, "tensor", 0, "%s, tensor '%s': expected dtype %s (input \"%s\"'s "
				 "dtype), got %s", full, key, nodus_dtype_name(ts->dtype), ts->name,
				 st.dtype);
		goto out;
	}
	int same = st.ndim == ts->ndim;
	char want_shape[256] = "", got_shape[256] = "";
	for (int d = 0; d < ts->ndim; d++) {
		int64_t x = w->axis_value[ts->axis[d]];
		snprintf(want_shape + strlen(want_shape), sizeof(want_shape) - strlen(want_shape),
			 "%s%s=%lld", d ? ", " : "", t->axes[ts->axis[d]].name, (long long)x);
		same = same && st.shape[d] == x;
	}
	for (int d = 0; d < st.ndim; d++)
		snprintf(got_shape + strlen(got_shape), sizeof(got_shape) - strlen(got_shape),
			 "%s%lld", d ? ", " : "", (long long)st.shape[d]);
	if (!same) {
		nodus__v_err_key(v, "tensor", 0, "%s, tensor '%s': expected shape [%s] (input \"%s\" "
				 "with the workload's axes), got [%s]", full, key, want_shape,
				 ts->name, got_shape);
		goto out;
	}
	void *data = malloc(st.bytes ? (size_t)st.bytes : 1);
	if (!data) {
		nodus__v_err_key(v, "path", 0, "out of memory for %s, tensor '%s'", full, key);
		goto out;
	}
	memcpy(data, st.data, (size_t)st.bytes);
	free(w->file_data[i]);
	w->file_data[i] = data;
	w->init_override[i].data = data;
	w->init_override[i].bytes = (int64_t)st.bytes;
out:
	nodus_buf_release(&b);
}

/* Every file input's values, once the axes are known and valid. */
static void wl_files(nodus__vctx *v, const json_t *inputs, const nodus_task *t,
		     nodus_workload *w)
{
	nodus__v_push_key(v, "inputs");
	for (int i = 0; i < t->n_inputs; i++) {
		if (!w->has_init[i] || w->init_override[i].kind != NODUS_DIST_FILE)
			continue;
		nodus__v_push_key(v, t->inputs[i].name);
		nodus__v_push_key(v, "init");
		wl_load_file(v, json_object_get(json_object_get(inputs, t->inputs[i].name), "init"),
			     t, i, w);
		nodus__v_pop(v);
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

static const nodus_task *wl_task(nodus__vctx *v, const nodus_task *tasks, int n_tasks,
				 nodus_workload *w)
{
	w->task = -1;
	if (!n_tasks || !w->task_name[0])
		return NULL;
	for (int k = 0; k < n_tasks; k++)
		if (strcmp(tasks[k].name, w->task_name) == 0)
			return &tasks[w->task = k];
	nodus_buf list = NODUS_BUF_INIT;
	for (int k = 0; k < n_tasks; k++)
		nodus_buf_addf(&list, "%s%s", k ? ", " : "", tasks[k].name);
	nodus__v_err_key(v, "task", 0, "expected a task of the campaign (%s), got \"%s\"",
			 list.data, w->task_name);
	nodus_buf_release(&list);
	return NULL;
}

int nodus_workload_from_json(json_t *obj, const char *file, const char *text,
			     const nodus_task *tasks, int n_tasks, nodus_workload *out,
			     nodus_diags *diags)
{
	nodus__vctx v;
	memset(out, 0, sizeof(*out));
	out->task = -1;
	out->tolerance.matched_ratio = 1;
	out->tolerance.max_error_cap = -1;
	snprintf(out->file, sizeof(out->file), "%s", file ? file : "");
	nodus__vctx_init(&v, file, text, text ? strlen(text) : 0, diags);
	if (nodus__v_header(&v, obj, "workload") < 0)
		goto out;
	out->json = json_incref(obj);
	nodus__v_fields(&v, obj, wl_fields, NODUS_ARRAY_SIZE(wl_fields));
	nodus__v_name(&v, obj, "name", out->name, sizeof(out->name));
	nodus__v_name(&v, obj, "task", out->task_name, sizeof(out->task_name));
	const nodus_task *t = wl_task(&v, tasks, n_tasks, out);
	if (n_tasks && !t)
		goto out; /* nothing else can be checked against an unknown task */
	size_t before = v.n_errors;
	json_t *j = json_object_get(obj, "axes");
	if (j) {
		nodus__v_push_key(&v, "axes");
		wl_axes(&v, j, t, out);
		nodus__v_pop(&v);
	}
	if ((j = json_object_get(obj, "inputs"))) {
		nodus__v_push_key(&v, "inputs");
		wl_inputs(&v, j, t, out);
		nodus__v_pop(&v);
	}
	if (t && v.n_errors == before)
		wl_limits(&v, t, out);
	/* a file input's values: read only when the workload comes from a
	 * file (text given); a worker's job carries them instead
	 * (nodus_workload_set_file) */
	if (t && text && v.n_errors == before)
		wl_files(&v, json_object_get(obj, "inputs"), t, out);
	if ((j = json_object_get(obj, "tolerance"))) {
		if (t)
			out->tolerance = t->tolerance;
		out->has_tolerance = 1;
		nodus__v_push_key(&v, "tolerance");
		nodus__v_tolerance(&v, j, 1, &out->tolerance);
		nodus__v_pop(&v);
	}
out:
	nodus__vctx_release(&v);
	return v.n_errors ? NODUS_EINVAL : 0;
}

void nodus_workload_release(nodus_workload *w)
{
	if (!w)
		return;
	json_decref(w->json);
	w->json = NULL;
	for (int i = 0; i < NODUS_MAX_INPUTS; i++) {
		free(w->file_data[i]);
		w->file_data[i] = NULL;
		w->init_override[i].data = NULL;
	}
}

int nodus_workload_file_input(const nodus_workload *w, int i)
{
	return i >= 0 && i < NODUS_MAX_INPUTS && w->has_init[i] &&
	       w->init_override[i].kind == NODUS_DIST_FILE;
}

int nodus_workload_set_file(nodus_workload *w, const nodus_task *t, int i, const void *data,
			    size_t bytes)
{
	if (!nodus_workload_file_input(w, i) || i >= t->n_inputs)
		return NODUS_EINVAL;
	int64_t want = (int64_t)nodus_dtype_size(t->inputs[i].dtype);
	for (int d = 0; d < t->inputs[i].ndim; d++)
		want *= w->axis_value[t->inputs[i].axis[d]];
	if ((int64_t)bytes != want)
		return NODUS_EINVAL;
	void *copy = malloc(bytes ? bytes : 1);
	if (!copy)
		return NODUS_ENOMEM;
	memcpy(copy, data, bytes);
	free(w->file_data[i]);
	w->file_data[i] = copy;
	w->init_override[i].data = copy;
	w->init_override[i].bytes = (int64_t)bytes;
	return 0;
}
