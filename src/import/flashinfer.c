/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * flashinfer.c: a FlashInfer-Bench dataset as nodus files (see
 * flashinfer.h).
 *
 * Order: every document is read and turned into nodus JSON in memory
 * first (definitions, then the workloads and solutions that name them);
 * then every output path is checked to be new; only then is anything
 * written, so a refusal leaves OUT as it was.
 *
 * A reference (`run(*inputs)` returning its outputs) and a solution that is
 * not destination-passing are wrapped for nodus's destination-passing
 * python style: the file written is the definition's or solution's own
 * text followed by `nodus_run(*inputs, *outputs)`, which calls the entry
 * and copies what it returns into nodus's outputs (inside the timed call,
 * as a KernelBench module's returned outputs are: docs/formats.md).
 * ------------------------------------------------------------------------ */
#define _XOPEN_SOURCE 700
#include "import/flashinfer.h"
#include "spec/safetensors.h"
#include "spec/spec-internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DOCS 512
#define NAME_MAX_FI 56

struct doc {                 /* one file to write */
	char path[4096];
	json_t *json;        /* or */
	char *text;          /* owned */
	size_t len;          /* > 0: text holds len bytes of a copied file (a blob) */
};

struct ctx {
	const char *out;
	const nodus_fi_opts *o;
	nodus_buf *notes;
	nodus_fi_counts *n;
	struct doc docs[MAX_DOCS * 3];
	int n_docs;
	json_t *defs;        /* definition name -> {"task": json, "inputs": [names], "n_out": k} */
	json_t *campaign;
	json_t *workload_names; /* the workloads' nodus names, once each */
	const char *in;         /* the dataset's root: safetensors paths are relative to it */
	json_t *blobs;          /* dataset-relative path -> sha256, each blob copied once */
};

/* A nodus name from s: [A-Za-z0-9_], at most NAME_MAX_FI, "fi_" before a digit. */
static void nodus_name(const char *s, char *out, size_t size)
{
	size_t n = 0;
	if (*s >= '0' && *s <= '9')
		n = (size_t)snprintf(out, size, "fi_");
	for (; *s && n + 1 < size && n < NAME_MAX_FI; s++)
		out[n++] = (isalnum((unsigned char)*s) || *s == '_') ? *s : '_';
	out[n] = 0;
}

static void note(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ctx *x, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	nodus_buf_addf(x->notes, "%s\n", line);
	x->n->left_out++;
}

/* Why something is left out, into why (cut at size: a path may be long;
 * through vsnprintf, since a message cut short is still the message). */
static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* A line of notes that says how something was imported (nothing left out). */
static void info(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(struct ctx *x, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	nodus_buf_addf(x->notes, "%s\n", line);
}

static int add_doc(struct ctx *x, const char *sub, const char *name, const char *ext, json_t *j,
		   char *text)
{
	if (x->n_docs == (int)NODUS_ARRAY_SIZE(x->docs)) {
		json_decref(j);
		free(text);
		return -1;
	}
	struct doc *d = &x->docs[x->n_docs++];
	snprintf(d->path, sizeof(d->path), "%s/%s/%s%s", x->out, sub, name, ext);
	d->json = j;
	d->text = text;
	return 0;
}

/* nodus's dtype names are FlashInfer's where nodus has the type */
static int dtype_ok(const char *t)
{
	static const char *const ok[] = {"float32", "float64", "float16", "bfloat16",
					 "int32",   "int64",   "uint8"};
	for (size_t k = 0; t && k < NODUS_ARRAY_SIZE(ok); k++)
		if (strcmp(t, ok[k]) == 0)
			return 1;
	return 0;
}

static int floating(const char *t)
{
	return t && (strncmp(t, "float", 5) == 0 || strcmp(t, "bfloat16") == 0);
}

/* A tensor of a definition as nodus's, or NULL with why set. */
static json_t *tensor(const char *name, const json_t *spec, int input, char *why, size_t size)
{
	const char *dtype = json_string_value(json_object_get(spec, "dtype"));
	const json_t *shape = json_object_get(spec, "shape");
	if (!dtype_ok(dtype)) {
		snprintf(why, size, "%s '%s': dtype %s is not one of nodus's", input ? "input" : "output",
			 name, dtype ? dtype : "(none)");
		return NULL;
	}
	if (!json_is_array(shape) && !json_is_null(shape)) {
		snprintf(why, size, "%s '%s': expected a shape (axis names) or null", input ? "input" : "output",
			 name);
		return NULL;
	}
	json_t *t = json_pack("{s:s,s:s,s:O}", "name", name, "dtype", dtype, "shape", shape);
	if (input && json_is_null(shape)) {
		/* a scalar (a scale, an epsilon): its workloads give its value
		 * ("type": "scalar"); never scaled or negated by a variant */
		json_object_set_new(t, "init", json_pack("{s:s,s:i}", "dist", "constant", "value", 1));
	} else if (input && !floating(dtype)) {
		/* what FlashInfer-Bench's random draws for int32 and int64:
		 * torch.randint(-1024, 1024), the high end exclusive; no variant
		 * (a negated draw leaves that range). It draws no random uint8:
		 * such a workload must give the values (workload()). An index or
		 * a length needs its workload's file: a random one is what
		 * FlashInfer-Bench would pass, not a valid index. */
		if (strcmp(dtype, "uint8") == 0)
			json_object_set_new(t, "init", json_pack("{s:s,s:i,s:i}", "dist", "int_range",
								  "low", 0, "high", 255));
		else
			json_object_set_new(t, "init", json_pack("{s:s,s:i,s:i}", "dist", "int_range",
								  "low", -1024, "high", 1023));
	} else if (input) {
		json_object_set_new(t, "init", json_pack("{s:s,s:i,s:i}", "dist", "normal", "mean", 0,
							  "std", 1));
		json_object_set_new(t, "variants", json_pack("[s,s,s]", "scale_3", "scale_0.01",
							      "negate"));
	}
	return t;
}

/* nodus_run(*inputs, *outputs) after the text, for an entry that returns */
static char *wrapped(const char *text, const char *entry, int n_in, int n_out)
{
	nodus_buf b = NODUS_BUF_INIT;
	nodus_buf_addf(&b, "%s\n\n\n# added by nodus import flashinfer: nodus's destination-passing "
		       "entry\ndef nodus_run(*args):\n    r = %s(*args[:%d])\n"
		       "    r = r if isinstance(r, (tuple, list)) else (r,)\n"
		       "    if len(r) != %d:\n"
		       "        raise TypeError(f'%s returned {len(r)} value(s), expected %d')\n"
		       "    for o, v in zip(args[%d:], r):\n        o.copy_(v)\n",
		       text, entry, n_in, n_out, entry, n_out, n_in);
	return b.data;
}

static int definition(struct ctx *x, const char *path)
{
	json_error_t je;
	json_t *d = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	const char *raw = json_string_value(json_object_get(d, "name"));
	const char *ref = json_string_value(json_object_get(d, "reference"));
	json_t *axes = json_object_get(d, "axes"), *ins = json_object_get(d, "inputs"),
	       *outs = json_object_get(d, "outputs");
	if (!raw || !ref || !json_is_object(axes) || !json_is_object(ins) || !json_is_object(outs)) {
		note(x, "%s: not a FlashInfer-Bench Definition (expected name, axes, inputs, "
		     "outputs, reference)%s%s", path, d ? "" : ": ", d ? "" : je.text);
		json_decref(d);
		return 0;
	}
	char name[NAME_MAX_FI + 8], why[512] = "";
	size_t i;
	nodus_name(raw, name, sizeof(name));
	json_t *taxes = json_object(), *tin = json_array(), *tout = json_array(), *names = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(axes, k, v) {
		const char *type = json_string_value(json_object_get(v, "type"));
		if (type && strcmp(type, "const") == 0 && json_is_integer(json_object_get(v, "value")))
			json_object_set_new(taxes, k, json_pack("{s:s,s:O}", "type", "const", "value",
								json_object_get(v, "value")));
		else if (type && strcmp(type, "var") == 0)
			json_object_set_new(taxes, k, json_pack("{s:s}", "type", "var"));
		else if (!why[0])
			snprintf(why, sizeof(why), "axis '%s': expected {\"type\": \"const\", \"value\": N} "
				 "or {\"type\": \"var\"}", k);
	}
	json_t *scalars = json_array();
	json_object_foreach(ins, k, v) {
		json_t *t = why[0] ? NULL : tensor(k, v, 1, why, sizeof(why));
		if (t) {
			json_array_append_new(tin, t);
			json_array_append_new(names, json_string(k));
			if (json_is_null(json_object_get(v, "shape")))
				json_array_append_new(scalars, json_string(k));
		}
	}
	json_object_foreach(outs, k, v) {
		json_t *t = why[0] ? NULL : tensor(k, v, 0, why, sizeof(why));
		if (t)
			json_array_append_new(tout, t);
	}
	if (why[0] || json_object_get(x->defs, raw)) {
		note(x, "%s: definition %s left out: %s", path, raw,
		     why[0] ? why : "a second definition of that name");
		json_decref(taxes), json_decref(tin), json_decref(tout), json_decref(names);
		json_decref(scalars);
		json_decref(d);
		return 0;
	}
	/* the judge audit's dead- and constant-input checks on a scalar (an
	 * epsilon, a scale) that each workload fixes and whose effect may lie
	 * below the tolerance: waived, with the reason, in the campaign
	 * (docs/audit.md); the plan records it, the report shows it */
	json_t *waive = json_object_get(json_object_get(x->campaign, "audit"), "waive");
	json_array_foreach(scalars, i, v) {
		static const char *const checks[] = {"dead_input", "constant_input"};
		for (size_t c = 0; c < NODUS_ARRAY_SIZE(checks); c++) {
			char check[160];
			snprintf(check, sizeof(check), "%s:%s", checks[c], json_string_value(v));
			json_array_append_new(
				waive, json_pack("{s:s,s:s,s:s}", "task", name, "check", check, "reason",
						 "a scalar input of a FlashInfer-Bench definition (an "
						 "epsilon, a scale): each workload gives its one value, "
						 "so a formula that ignores it may pass, and its effect "
						 "may lie below the tolerance"));
		}
	}
	json_decref(scalars);
	int low = 0;
	json_array_foreach(tout, i, v) {
		const char *t = json_string_value(json_object_get(v, "dtype"));
		low = low > 1 ? low : strcmp(t, "bfloat16") == 0 ? 2 : strcmp(t, "float16") == 0 ? 1 : low;
	}
	double tol = low == 2 ? 1e-2 : low == 1 ? 1e-3 : 1e-4;
	char desc[1024];
	snprintf(desc, sizeof(desc), "FlashInfer-Bench definition %s, imported by 'nodus import "
		 "flashinfer' from %s: nodus draws every floating tensor input normal(0, 1) with "
		 "variants and an integer one in [-1024, 1023] (FlashInfer-Bench's randint), unless a "
		 "workload gives its values from a safetensors file; a scalar input is 1 unless a "
		 "workload gives its value; tolerance atol = rtol = %g (nodus's for the outputs' "
		 "dtype)", raw, path, tol);
	json_t *task = json_pack("{s:s,s:i,s:s,s:s,s:o,s:o,s:o,s:{s:f,s:f},s:b}", "kind", "task",
				 "format", 1, "name", name, "description", desc, "axes", taxes,
				 "inputs", tin, "outputs", tout, "tolerance", "atol", tol, "rtol", tol,
				 "deterministic", 1);
	int n_in = (int)json_array_size(names), n_out = (int)json_object_size(outs);
	char refname[NAME_MAX_FI + 16], src[NAME_MAX_FI + 24];
	snprintf(refname, sizeof(refname), "%s_ref", name);
	snprintf(src, sizeof(src), "%s_ref.py", name);
	json_t *sol = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:{s:s},s:[s],s:s,s:[s,s]}", "kind",
				"solution", "format", 1, "name", refname, "task", name, "backend",
				x->o->backend, "language", "python", "python", "style", "destination",
				"sources", src, "entry", "nodus_run", "tags", "reference", "flashinfer");
	json_object_set_new(x->defs, raw, json_pack("{s:s,s:i,s:i,s:O,s:O}", "name", name, "n_in",
						    n_in, "n_out", n_out, "consts", taxes, "inputs",
						    ins));
	json_object_foreach(ins, k, v) {
		const char *dt = json_string_value(json_object_get(v, "dtype"));
		if (floating(dt) || json_is_null(json_object_get(v, "shape")))
			continue;
		if (strcmp(dt, "uint8") == 0)
			info(x, "%s: input '%s' (uint8): FlashInfer-Bench draws no random uint8, so a "
			     "workload must give it by safetensors (a random one is left out)", path, k);
		else
			info(x, "%s: input '%s' (%s): a random workload draws integers in [-1024, "
			     "1023] (int_range), as FlashInfer-Bench's torch.randint(-1024, 1024); an "
			     "index or a length needs its workload's safetensors values", path, k, dt);
	}
	add_doc(x, "tasks", name, ".json", task, NULL);
	add_doc(x, "solutions", refname, ".json", sol, NULL);
	add_doc(x, "solutions", refname, ".py", NULL, wrapped(ref, "run", n_in, n_out));
	json_array_append_new(json_object_get(x->campaign, "tasks"),
			      json_sprintf("tasks/%s.json", name));
	json_array_append_new(json_object_get(x->campaign, "solutions"),
			      json_sprintf("solutions/%s.json", refname));
	x->n->definitions++;
	json_decref(names);
	json_decref(d);
	return 0;
}

/* A workload's safetensors input `name` ({"path", "tensor_key"}): the
 * file, at its path relative to the dataset's root (FlashInfer-Bench's
 * rule, its TraceSet root), read and checked against the definition's
 * input (dtype; shape with the workload's axes), and copied once into OUT
 * at the same path, so OUT stands alone; returns the nodus init naming it
 * (docs/formats.md, "File inputs"), or NULL with why. */
static json_t *file_init(struct ctx *x, json_t *info, const char *name, json_t *spec,
			 json_t *axes, json_t *pending, char *why, size_t size)
{
	const char *path = json_string_value(json_object_get(spec, "path"));
	const char *key = json_string_value(json_object_get(spec, "tensor_key"));
	json_t *def = json_object_get(json_object_get(info, "inputs"), name);
	if (!path || !key || !path[0] || !key[0]) {
		say(why, size, "input '%s': a safetensors input without path or tensor_key", name);
		return NULL;
	}
	if (!def) {
		say(why, size, "input '%s': its definition has no such input", name);
		return NULL;
	}
	/* one spelling per file ("./a//b" and "a/./b" are "a/b"), so a blob
	 * named two ways is copied once, to one place */
	char norm[4096];
	size_t at = 0;
	int escapes = path[0] == '/';
	for (const char *c = path; !escapes && *c;) {
		size_t n = strcspn(c, "/");
		escapes = n == 2 && c[0] == '.' && c[1] == '.';
		if (n && !(n == 1 && c[0] == '.') && at + n + 2 < sizeof(norm)) {
			if (at)
				norm[at++] = '/';
			memcpy(norm + at, c, n);
			at += n;
		}
		c += n + (c[n] == '/');
	}
	norm[at] = 0;
	const char *given = path;
	path = norm;
	if (escapes || !at) {
		say(why, size, "input '%s': safetensors path '%s' is absolute or leaves the "
			 "dataset; nodus imports a blob from inside DIR (move it under DIR, e.g. "
			 "DIR/blob/workloads/)", name, given);
		return NULL;
	}
	char full[4200];
	snprintf(full, sizeof(full), "%s/%s", x->in, path);
	struct stat sb;
	if (stat(full, &sb) || !S_ISREG(sb.st_mode)) {
		int e = errno;
		say(why, size, "input '%s': cannot read safetensors file %s: %s", name, full,
			 stat(full, &sb) ? strerror(e) : "not a regular file");
		return NULL;
	}
	if ((size_t)sb.st_size > NODUS__FILE_INPUT_MAX_BYTES) {
		say(why, size, "input '%s': safetensors file %s is %lld bytes, more than "
			 "nodus's %zu for a file input", name, full, (long long)sb.st_size,
			 NODUS__FILE_INPUT_MAX_BYTES);
		return NULL;
	}
	nodus_buf b = NODUS_BUF_INIT;
	if (nodus_buf_read_file(&b, full)) {
		say(why, size, "input '%s': cannot read safetensors file %s", name, full);
		nodus_buf_release(&b);
		return NULL;
	}
	nodus_st_tensor st;
	char fault[512];
	json_t *init = NULL;
	const char *dt = json_string_value(json_object_get(def, "dtype"));
	json_t *shape = json_object_get(def, "shape");
	if (nodus_safetensors_find((const unsigned char *)b.data, b.len, key, &st, fault,
				   sizeof(fault))) {
		say(why, size, "input '%s': %s, tensor '%s': %s", name, full, key, fault);
		goto out;
	}
	if (st.nodus_dtype != nodus_dtype_from_name(dt)) {
		say(why, size, "input '%s': %s, tensor '%s': expected dtype %s (the "
			 "definition's), got %s", name, full, key, dt, st.dtype);
		goto out;
	}
	size_t d;
	json_t *ax;
	int ok = (int)json_array_size(shape) == st.ndim;
	json_array_foreach(shape, d, ax) {
		const char *an = json_string_value(ax);
		json_t *c = json_object_get(json_object_get(info, "consts"), an ? an : "");
		json_t *val = json_object_get(c, "value");
		if (!val)
			val = json_object_get(axes, an ? an : "");
		ok = ok && json_is_integer(val) && json_integer_value(val) == st.shape[d];
	}
	if (!ok) {
		char got[256] = "";
		for (int k = 0; k < st.ndim; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%lld", k ? ", " : "",
				 (long long)st.shape[k]);
		char *want = json_dumps(shape, JSON_COMPACT);
		say(why, size, "input '%s': %s, tensor '%s': expected shape %s with the "
			 "workload's axes, got [%s]", name, full, key, want ? want : "?", got);
		free(want);
		goto out;
	}
	char sha[NODUS_SHA256_HEX], rel[4200];
	nodus_sha256_hex(b.data, b.len, sha);
	snprintf(rel, sizeof(rel), "../%s", path); /* from OUT/workloads/ */
	/* copied once the whole workload is imported (add_blobs): a workload
	 * left out leaves no file of its own in OUT */
	json_object_set_new(pending, path, json_string(sha));
	init = json_pack("{s:s,s:s,s:s,s:s}", "dist", "file", "path", rel, "tensor", key, "sha256",
			 sha);
out:
	nodus_buf_release(&b);
	return init;
}

/* The blobs a workload just imported names, each copied into OUT once (at
 * its dataset path); read again, and checked against the hash taken when
 * it was validated, so what is copied is what was checked. */
static int add_blobs(struct ctx *x, json_t *pending, char *why, size_t size)
{
	const char *path;
	json_t *sha;
	json_object_foreach(pending, path, sha) {
		if (json_object_get(x->blobs, path))
			continue;
		char full[4200], now[NODUS_SHA256_HEX];
		snprintf(full, sizeof(full), "%s/%s", x->in, path);
		nodus_buf b = NODUS_BUF_INIT;
		if (nodus_buf_read_file(&b, full) || b.len == 0) {
			nodus_buf_release(&b);
			say(why, size, "cannot read safetensors file %s again", full);
			return -1;
		}
		nodus_sha256_hex(b.data, b.len, now);
		if (strcmp(now, json_string_value(sha)) != 0) {
			nodus_buf_release(&b);
			say(why, size, "%s changed while it was imported", full);
			return -1;
		}
		if (add_doc(x, "", "", "", NULL, b.data)) { /* it freed b.data */
			say(why, size, "more files than one import writes (%d)",
				 (int)NODUS_ARRAY_SIZE(x->docs));
			return -1;
		}
		struct doc *doc = &x->docs[x->n_docs - 1];
		snprintf(doc->path, sizeof(doc->path), "%s/%s", x->out, path);
		doc->len = b.len; /* the doc owns b.data now */
		json_object_set(x->blobs, path, sha);
	}
	return 0;
}

/* One JSONL line: a workload of a definition read already. */
static void workload(struct ctx *x, const char *path, int line_no, const char *line)
{
	json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
	const char *def = json_string_value(json_object_get(j, "definition"));
	json_t *w = json_object_get(j, "workload");
	const char *uuid = json_string_value(json_object_get(w, "uuid"));
	json_t *info = def ? json_object_get(x->defs, def) : NULL;
	if (!info || !uuid || !json_is_object(json_object_get(w, "axes"))) {
		note(x, "%s:%d: workload left out: %s", path, line_no,
		     !j ? "not JSON" : !info ? "its definition was not imported" : "no uuid or axes");
		json_decref(j);
		return;
	}
	const char *task = json_string_value(json_object_get(info, "name"));
	char name[NAME_MAX_FI + 16], u[9];
	nodus_name(uuid, u, sizeof(u));
	snprintf(name, sizeof(name), "%.46s_%s", task, u);
	json_t *axes = json_object(), *inputs = json_object();
	const char *k;
	json_t *v;
	const char *why = NULL;
	char whybuf[1024];
	json_t *pending = json_object(); /* blobs to copy: dataset path -> sha256 */
	json_object_foreach(json_object_get(w, "axes"), k, v) {
		/* only the var axes: a const one is the task's already */
		const char *type = json_string_value(
			json_object_get(json_object_get(json_object_get(info, "consts"), k), "type"));
		if (type && strcmp(type, "var") == 0 && json_is_integer(v))
			json_object_set(axes, k, v);
		else if (!type)
			why = "an axis its definition does not have";
	}
	json_object_foreach(json_object_get(w, "inputs"), k, v) {
		const char *type = json_string_value(json_object_get(v, "type"));
		const char *dt = json_string_value(
			json_object_get(json_object_get(json_object_get(info, "inputs"), k), "dtype"));
		json_t *init;
		if (why)
			break;
		if (type && strcmp(type, "scalar") == 0 && json_is_number(json_object_get(v, "value")))
			json_object_set_new(inputs, k, json_pack("{s:{s:s,s:O}}", "init", "dist", "constant",
								 "value", json_object_get(v, "value")));
		else if (type && strcmp(type, "safetensors") == 0) {
			init = file_init(x, info, k, v, json_object_get(w, "axes"), pending,
					 whybuf, sizeof(whybuf));
			if (init)
				json_object_set_new(inputs, k, json_pack("{s:o}", "init", init));
			else
				why = whybuf;
		} else if (!type || strcmp(type, "random") != 0)
			why = "an input that is not random, scalar or safetensors";
		else if (dt && strcmp(dt, "uint8") == 0) {
			snprintf(whybuf, sizeof(whybuf), "input '%s' is uint8 and random: "
				 "FlashInfer-Bench draws no random uint8 (its generator refuses it); "
				 "give its values by safetensors", k);
			why = whybuf;
		}
	}
	if (!why && !json_object_get(x->workload_names, name) &&
	    add_blobs(x, pending, whybuf, sizeof(whybuf)))
		why = whybuf;
	json_decref(pending);
	if (why || json_object_get(x->workload_names, name)) {
		note(x, "%s:%d: workload %s left out: %s", path, line_no, uuid, why ? why : "twice");
		json_decref(axes), json_decref(inputs), json_decref(j);
		return;
	}
	json_t *doc = json_pack("{s:s,s:i,s:s,s:s,s:o}", "kind", "workload", "format", 1, "name", name,
				"task", task, "axes", axes);
	if (json_object_size(inputs))
		json_object_set_new(doc, "inputs", inputs);
	else
		json_decref(inputs);
	json_object_set_new(x->workload_names, name, json_true());
	add_doc(x, "workloads", name, ".json", doc, NULL);
	json_array_append_new(json_object_get(x->campaign, "workloads"),
			      json_sprintf("workloads/%s.json", name));
	/* the workloads of each definition, for the pairs */
	json_t *list = json_object_get(info, "workloads");
	if (!list)
		json_object_set_new(info, "workloads", list = json_array());
	json_array_append_new(list, json_string(name));
	x->n->workloads++;
	json_decref(j);
}

/* What kind of file a C++/CUDA solution's source is, by its name: 'c' a
 * C/C++ translation unit, 'u' a CUDA one, 'h' a header, 0 anything else. */
static int source_kind(const char *p)
{
	const char *dot = strrchr(p, '.');
	static const char *const tu[] = {".cpp", ".cc", ".cxx", ".c"};
	static const char *const hdr[] = {".h", ".hpp", ".hh", ".cuh", ".inl"};
	if (!dot)
		return 0;
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(tu); i++)
		if (strcmp(dot, tu[i]) == 0)
			return 'c';
	if (strcmp(dot, ".cu") == 0)
		return 'u';
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(hdr); i++)
		if (strcmp(dot, hdr[i]) == 0)
			return 'h';
	return 0;
}

/* The python text shared by both bindings' modules (compiled_module):
 * the sources, which of them are translation units, and _inlined, which
 * puts a header a source includes by a quoted name in place of its
 * #include, once per translation unit, since load_inline takes no files. */
static void add_inliner(nodus_buf *b, const char *j_all, const char *j_tus, const char *j_cus)
{
	nodus_buf_addf(
		b,
		"_SOURCES = %s\n"
		"_CPP = %s\n"
		"_CUDA = %s\n\n\n"
		"def _inlined(path, seen):\n"
		"    # a quoted #include of one of the sources, in its place, once\n"
		"    out = []\n"
		"    for line in _SOURCES[path].splitlines(keepends=True):\n"
		"        s = line.strip()\n"
		"        if s == '#pragma once' and path not in _CPP + _CUDA:\n"
		"            continue  # the header is put in once anyway\n"
		"        if s.startswith('#include \"') and s.endswith('\"'):\n"
		"            inc = s[len('#include \"'):-1]\n"
		"            near = posixpath.normpath(posixpath.join(posixpath.dirname(path), inc))\n"
		"            hit = near if near in _SOURCES else inc if inc in _SOURCES else None\n"
		"            if hit is not None:\n"
		"                if hit not in seen:\n"
		"                    seen.add(hit)\n"
		"                    out.append(_inlined(hit, seen))\n"
		"                    out.append('\\n')\n"
		"                continue\n"
		"        out.append(line)\n"
		"    return ''.join(out)\n\n\n",
		j_all, j_tus, j_cus);
}

/* The torch binding's module: load_inline with the sources' own
 * PYBIND11_MODULE (functions=None), the entry an attribute of it. */
static void add_torch_module(nodus_buf *b, const char *name, const char *lang, const char *fn,
			     const char *j_all, const char *j_tus, const char *j_cus)
{
	nodus_buf_addf(
		b,
		"# written by nodus import flashinfer: a %s solution with torch's binding,\n"
		"# its sources compiled by torch.utils.cpp_extension.load_inline (nodus builds\n"
		"# it once, at build time; the worker only imports it)\n"
		"import posixpath\n\n"
		"from torch.utils.cpp_extension import load_inline\n\n",
		lang);
	add_inliner(b, j_all, j_tus, j_cus);
	nodus_buf_addf(
		b,
		"_ext = load_inline(name='fib_%s', cpp_sources=[_inlined(p, {p}) for p in _CPP] or [''],\n"
		"                   cuda_sources=[_inlined(p, {p}) for p in _CUDA] or None,\n"
		"                   functions=None, with_cuda=%s)\n"
		"%s = getattr(_ext, '%s')\n",
		name, strcmp(lang, "cuda") == 0 ? "True" : "False", fn, fn);
}

/* The tvm-ffi binding's module (FlashInfer-Bench's TVMFFIBuilder compiles
 * the sources with tvm_ffi.cpp.build, the entry a function the sources
 * export with TVM_FFI_DLL_EXPORT_TYPED_FUNC, called with torch's tensors
 * through DLPack): tvm_ffi.cpp.load_inline with the sources' own exports
 * (functions=None), which nodus builds once at build time too. A
 * value-returning entry's tensors come back as torch's (tvm_ffi converts
 * them for torch arguments), an Array of them made a tuple, and a
 * tvm_ffi.Tensor made torch's (zero-copy) for the nodus_run wrapper that
 * copies them. */
static void add_tvm_ffi_module(nodus_buf *b, const char *name, const char *lang, const char *fn,
			       int dps, const char *j_all, const char *j_tus, const char *j_cus)
{
	nodus_buf_addf(
		b,
		"# written by nodus import flashinfer: a %s solution with the tvm-ffi binding,\n"
		"# its sources compiled by tvm_ffi.cpp.load_inline (nodus builds it once, at\n"
		"# build time; the worker only loads it) and its entry called with torch's\n"
		"# tensors, which tvm_ffi takes by DLPack\n"
		"import posixpath\n\n"
		"import tvm_ffi\n"
		"import tvm_ffi.cpp\n\n",
		lang);
	add_inliner(b, j_all, j_tus, j_cus);
	nodus_buf_addf(
		b,
		"_ext = tvm_ffi.cpp.load_inline(name='fib_%s',\n"
		"                               cpp_sources=[_inlined(p, {p}) for p in _CPP] or None,\n"
		"                               cuda_sources=[_inlined(p, {p}) for p in _CUDA] or None)\n",
		name);
	if (dps) {
		nodus_buf_addf(b, "%s = getattr(_ext, '%s')\n", fn, fn);
		return;
	}
	nodus_buf_addf(
		b,
		"_entry = getattr(_ext, '%s')\n\n\n"
		"def _torch(v):\n"
		"    # tvm_ffi gives torch's tensors back for torch's arguments; else its own\n"
		"    import torch.utils.dlpack\n"
		"    return torch.utils.dlpack.from_dlpack(v) if isinstance(v, tvm_ffi.Tensor) else v\n\n\n"
		"def %s(*args):\n"
		"    r = _entry(*args)\n"
		"    if isinstance(r, (tuple, list, tvm_ffi.Array)):\n"
		"        return tuple(_torch(v) for v in r)\n"
		"    return _torch(r)\n",
		fn, fn);
}

/* A C++/CUDA solution as a python module: the sources in it, compiled by
 * load_inline of its binding (binding 't': torch's; FlashInfer-Bench's
 * TorchBuilder compiles them with torch.utils.cpp_extension.load and takes
 * the entry symbol from the extension; 'v': tvm-ffi's, above), which nodus
 * builds once at build time and only loads in the worker (docs/formats.md,
 * "load_inline and load"). A header the sources include by a quoted name
 * is put in place of its #include, once per translation unit, since
 * load_inline takes no files. NULL with *why when the sources are not
 * such a solution. */
static char *compiled_module(const char *name, const char *lang, int binding, int dps,
			     json_t *sources, const char *entry_file, const char *fn,
			     const char **why)
{
	json_t *all = json_object(), *tus = json_array(), *cus = json_array();
	int entry_seen = 0;
	size_t i;
	json_t *f;
	*why = NULL;
	json_array_foreach(sources, i, f) {
		const char *sp = json_string_value(json_object_get(f, "path"));
		const char *content = json_string_value(json_object_get(f, "content"));
		int kind = sp ? source_kind(sp) : 0;
		if (!sp || !content) {
			*why = "a source without path or content";
			break;
		}
		if (!kind) {
			*why = "a source that is not C, C++, CUDA or a header (.c .cc .cpp .cxx .cu "
			       ".h .hh .hpp .cuh .inl)";
			break;
		}
		if (kind == 'u' && strcmp(lang, "cuda") != 0) {
			*why = "a .cu source in a cpp solution";
			break;
		}
		json_object_set_new(all, sp, json_string(content));
		if (kind == 'c')
			json_array_append_new(tus, json_string(sp));
		else if (kind == 'u')
			json_array_append_new(cus, json_string(sp));
		entry_seen |= strcmp(sp, entry_file) == 0;
	}
	if (!*why && !entry_seen)
		*why = "its entry_point names a file that is not among its sources";
	if (!*why && json_array_size(tus) + json_array_size(cus) == 0)
		*why = "no C, C++ or CUDA translation unit among its sources";
	char *text = NULL;
	char *j_all = NULL, *j_tus = NULL, *j_cus = NULL;
	if (!*why) {
		j_all = json_dumps(all, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		j_tus = json_dumps(tus, JSON_COMPACT | JSON_ENSURE_ASCII);
		j_cus = json_dumps(cus, JSON_COMPACT | JSON_ENSURE_ASCII);
	}
	if (j_all && j_tus && j_cus) {
		nodus_buf b = NODUS_BUF_INIT;
		/* JSON's escapes are Python's: the dumps are literals */
		if (binding == 't')
			add_torch_module(&b, name, lang, fn, j_all, j_tus, j_cus);
		else
			add_tvm_ffi_module(&b, name, lang, fn, dps, j_all, j_tus, j_cus);
		text = b.data;
	}
	free(j_all);
	free(j_tus);
	free(j_cus);
	json_decref(all);
	json_decref(tus);
	json_decref(cus);
	return text;
}

static void solution(struct ctx *x, const char *path)
{
	json_error_t je;
	json_t *s = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	const char *raw = json_string_value(json_object_get(s, "name"));
	const char *def = json_string_value(json_object_get(s, "definition"));
	json_t *spec = json_object_get(s, "spec"), *sources = json_object_get(s, "sources");
	const char *lang = json_string_value(json_object_get(spec, "language"));
	const char *ep = json_string_value(json_object_get(spec, "entry_point"));
	json_t *info = def ? json_object_get(x->defs, def) : NULL;
	const char *why = NULL, *colons = ep ? strstr(ep, "::") : NULL;
	if (!raw || !def || !lang || !ep || !json_is_array(sources))
		why = "not a FlashInfer-Bench Solution (expected name, definition, spec.language, "
		      "spec.entry_point, sources)";
	else if (!info)
		why = "its definition was not imported";
	else if (!colons)
		why = "its entry_point is not 'file::fn'";
	else if (strcmp(lang, "cpp") == 0 || strcmp(lang, "cuda") == 0) {
		/* FlashInfer-Bench's BuildSpec: no binding is tvm-ffi's */
		json_t *binding = json_object_get(spec, "binding");
		const char *bs = json_string_value(binding);
		if (binding && !json_is_null(binding) &&
		    (!bs || (strcmp(bs, "torch") != 0 && strcmp(bs, "tvm-ffi") != 0)))
			why = "a cpp or cuda solution's binding must be \"tvm-ffi\" (the default: "
			      "absent or null) or \"torch\"";
		else if (strcmp(lang, "cuda") == 0 && strcmp(x->o->backend, "cuda") != 0)
			why = "a cuda solution on a cpu target (import with --backend cuda)";
	} else if (strcmp(lang, "python") != 0 && strcmp(lang, "triton") != 0)
		why = "only python, triton, cpp and cuda solutions are imported yet";
	else if (json_array_size(sources) != 1)
		why = "only one-file python and triton solutions are imported yet";
	if (why) {
		note(x, "%s: solution %s left out: %s", path, raw ? raw : "?", why);
		json_decref(s);
		return;
	}
	const char *content = json_string_value(json_object_get(json_array_get(sources, 0), "content"));
	char name[NAME_MAX_FI + 8], fn[128], src[NAME_MAX_FI + 16], entry_file[512];
	nodus_name(raw, name, sizeof(name));
	snprintf(fn, sizeof(fn), "%s", colons + 2);
	snprintf(entry_file, sizeof(entry_file), "%.*s", (int)(colons - ep), ep);
	snprintf(src, sizeof(src), "%s.py", name);
	int dps = json_is_true(json_object_get(spec, "destination_passing_style"));
	int n_in = (int)json_integer_value(json_object_get(info, "n_in"));
	int n_out = (int)json_integer_value(json_object_get(info, "n_out"));
	int compiled = strcmp(lang, "cpp") == 0 || strcmp(lang, "cuda") == 0;
	if (compiled) {
		/* the symbol becomes a Python name of the module */
		int ident = (fn[0] == '_' || isalpha((unsigned char)fn[0]));
		for (const char *c = fn; ident && *c; c++)
			ident = *c == '_' || isalnum((unsigned char)*c);
		const char *cwhy = NULL;
		const char *bs = json_string_value(json_object_get(spec, "binding"));
		int binding = bs && strcmp(bs, "torch") == 0 ? 't' : 'v';
		content = ident ? compiled_module(name, lang, binding, dps, sources, entry_file, fn,
						  &cwhy)
				: NULL;
		if (!content) {
			note(x, "%s: solution %s left out: %s", path, raw,
			     !ident ? "its entry symbol is not an identifier" : cwhy);
			json_decref(s);
			return;
		}
	}
	char *text = !content ? NULL : dps ? strdup(content) : wrapped(content, fn, n_in, n_out);
	if (compiled)
		free((char *)content);
	if (!text || strcmp(name, json_string_value(json_object_get(info, "name"))) == 0) {
		note(x, "%s: solution %s left out: %s", path, raw,
		     !text ? "its source has no content" : "it has its definition's name");
		free(text);
		json_decref(s);
		return;
	}
	json_t *sol = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:{s:s},s:[s],s:s,s:[s,s]}", "kind",
				"solution", "format", 1, "name", name, "task",
				json_string_value(json_object_get(info, "name")), "backend",
				x->o->backend, "language", "python", "python", "style", "destination",
				"sources", src, "entry", dps ? fn : "nodus_run", "tags", "flashinfer",
				lang);
	add_doc(x, "solutions", name, ".json", sol, NULL);
	add_doc(x, "solutions", name, ".py", NULL, text);
	json_array_append_new(json_object_get(x->campaign, "solutions"),
			      json_sprintf("solutions/%s.json", name));
	json_t *list = json_object_get(info, "solutions");
	if (!list)
		json_object_set_new(info, "solutions", list = json_array());
	json_array_append_new(list, json_string(name));
	x->n->solutions++;
	json_decref(s);
}

/* The files under dir ending in ext, sorted (every run imports in one order). */
static void collect(const char *dir, const char *ext, char ***out, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat sb;
		if (lstat(path, &sb))
			continue;
		size_t len = strlen(e->d_name), el = strlen(ext);
		if (S_ISDIR(sb.st_mode))
			collect(path, ext, out, n);
		else if (S_ISREG(sb.st_mode) && len > el && strcmp(e->d_name + len - el, ext) == 0 &&
			 *n < MAX_DOCS) {
			*out = realloc(*out, sizeof(char *) * (size_t)(*n + 1));
			(*out)[(*n)++] = strdup(path);
		}
	}
	if (d)
		closedir(d);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_list(char **l, int n)
{
	for (int k = 0; k < n; k++)
		free(l[k]);
	free(l);
}

static void pairs(struct ctx *x)
{
	json_t *list = json_object_get(x->campaign, "pairs");
	const char *k;
	json_t *info;
	json_object_foreach(x->defs, k, info) {
		const char *task = json_string_value(json_object_get(info, "name"));
		char ref[NAME_MAX_FI + 16];
		snprintf(ref, sizeof(ref), "%s_ref", task);
		size_t i, j;
		json_t *w, *s;
		json_array_foreach(json_object_get(info, "workloads"), i, w) {
			if (i == 0) { /* the reference against itself, once per definition */
				json_array_append_new(list, json_pack("{s:O,s:s,s:s,s:s}", "workload", w,
								      "candidate", ref, "reference", ref,
								      "expect", "TIED"));
				x->n->pairs++;
			}
			json_array_foreach(json_object_get(info, "solutions"), j, s) {
				json_array_append_new(list, json_pack("{s:O,s:O,s:s}", "workload", w,
								      "candidate", s, "reference", ref));
				x->n->pairs++;
			}
		}
	}
}

static int write_all(struct ctx *x, nodus_error *err)
{
	static const char *const subs[] = {"", "/tasks", "/workloads", "/solutions"};
	char path[4200];
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(subs); k++) {
		snprintf(path, sizeof(path), "%s%s", x->out, subs[k]);
		if (mkdir(path, 0755) && errno != EEXIST)
			return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", path, strerror(errno));
	}
	for (int k = 0; k < x->n_docs; k++) {
		struct doc *d = &x->docs[k];
		if (d->len) { /* a blob: its directories under OUT first */
			char dir[4096];
			snprintf(dir, sizeof(dir), "%s", d->path);
			for (char *c = dir + strlen(x->out) + 1; (c = strchr(c, '/')); c++) {
				*c = 0;
				if (mkdir(dir, 0755) && errno != EEXIST)
					return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", dir,
							 strerror(errno));
				*c = '/';
			}
		}
		FILE *f = fopen(d->path, "wx");
		int bad = !f;
		if (f && d->len)
			bad = fwrite(d->text, 1, d->len, f) != d->len;
		else if (f && d->json)
			bad = json_dumpf(d->json, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
			      fputc('\n', f) == EOF;
		else if (f)
			bad = fputs(d->text, f) == EOF;
		if (f && fclose(f))
			bad = 1;
		if (bad)
			return NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", d->path,
					 strerror(errno));
	}
	return 0;
}

int nodus__fi_import(const char *in, const char *out, const nodus_fi_opts *o,
		     nodus_fi_counts *counts, nodus_buf *notes, nodus_error *err)
{
	struct ctx *x = calloc(1, sizeof(*x));
	if (!x)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	memset(counts, 0, sizeof(*counts));
	x->out = out;
	x->o = o;
	x->notes = notes;
	x->n = counts;
	x->defs = json_object();
	x->workload_names = json_object();
	x->in = in;
	x->blobs = json_object();
	x->campaign = json_pack("{s:s,s:i,s:s,s:[],s:[],s:[],s:[],s:{s:i},s:[{s:s,s:s}],s:{s:s,s:s,"
				"s:n,s:s},s:{s:[]}}", "kind", "campaign", "format", 1, "name", "flashinfer",
				"tasks", "workloads", "solutions", "pairs", "judge", "seed", 1,
				"conditions", "name", "isolated", "kind", "isolated", "target",
				"backend", o->backend, "profile",
				strcmp(o->backend, "cuda") == 0 ? "this machine's GPU" : "this machine's CPU",
				"price_per_device_hour_usd", "python", o->python, "audit", "waive");
	/* python on cuda: the offset between the two sides' processes that
	 * host-bound torch calls showed on the H200 (docs/statistics.md,
	 * "Between processes"; bench/results/h200/process-pairs-50) */
	if (x->campaign && strcmp(o->backend, "cuda") == 0)
		json_object_set_new(json_object_get(x->campaign, "judge"), "process_sd",
				    json_real(0.03));
	char dir[4200], **files = NULL;
	int n = 0, rc = 0;
	snprintf(dir, sizeof(dir), "%s/definitions", in);
	collect(dir, ".json", &files, &n);
	if (n > 0) /* qsort takes no NULL, even for nothing */
		qsort(files, (size_t)n, sizeof(char *), by_name);
	for (int k = 0; k < n; k++)
		definition(x, files[k]);
	free_list(files, n);
	files = NULL, n = 0;
	snprintf(dir, sizeof(dir), "%s/workloads", in);
	collect(dir, ".jsonl", &files, &n);
	if (n > 0) /* qsort takes no NULL, even for nothing */
		qsort(files, (size_t)n, sizeof(char *), by_name);
	for (int k = 0; k < n; k++) {
		nodus_buf b = NODUS_BUF_INIT;
		if (nodus_buf_read_file(&b, files[k]) == 0) {
			int line_no = 0;
			for (char *line = b.data, *end; line && *line; line = end ? end + 1 : NULL) {
				end = strchr(line, '\n');
				if (end)
					*end = 0;
				line_no++;
				if (strspn(line, " \t\r") != strlen(line))
					workload(x, files[k], line_no, line);
			}
		}
		nodus_buf_release(&b);
	}
	free_list(files, n);
	files = NULL, n = 0;
	snprintf(dir, sizeof(dir), "%s/solutions", in);
	collect(dir, ".json", &files, &n);
	if (n > 0) /* qsort takes no NULL, even for nothing */
		qsort(files, (size_t)n, sizeof(char *), by_name);
	for (int k = 0; k < n; k++)
		solution(x, files[k]);
	free_list(files, n);
	pairs(x);
	if (!counts->definitions || !counts->workloads)
		rc = NODUS_ERR(err, NODUS_EINVAL, "'%s': nothing to import (%d definition(s), %d "
			       "workload(s) nodus can take; expected DIR/definitions/*.json and "
			       "DIR/workloads/*.jsonl)", in, counts->definitions, counts->workloads);
	add_doc(x, "", "campaign", ".json", json_incref(x->campaign), NULL);
	/* campaign.json sits in out itself, not in a subdirectory */
	snprintf(x->docs[x->n_docs - 1].path, sizeof(x->docs[0].path), "%s/campaign.json", out);
	for (int k = 0; !rc && k < x->n_docs; k++) {
		struct stat sb;
		if (lstat(x->docs[k].path, &sb) == 0 || errno != ENOENT)
			rc = NODUS_ERR(err, NODUS_EINVAL, "'%s' exists: nodus import never overwrites a "
				       "file (nothing was written)", x->docs[k].path);
	}
	if (!rc)
		rc = write_all(x, err);
	for (int k = 0; k < x->n_docs; k++) {
		json_decref(x->docs[k].json);
		free(x->docs[k].text);
	}
	json_decref(x->defs);
	json_decref(x->workload_names);
	json_decref(x->blobs);
	json_decref(x->campaign);
	free(x);
	return rc;
}
