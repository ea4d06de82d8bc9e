/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * dataset.c: a plan's final records as a FlashInfer-Bench dataset, the
 * directory its TraceSet.from_path() loads:
 *
 *   definitions/TASK/TASK@CONDITION.json     one Definition per task and condition
 *   solutions/TASK/SOLUTION@CONDITION.json   one Solution per solution of the
 *                                            task's pairs (candidates and
 *                                            references) and condition
 *   workloads/TASK/TASK@CONDITION.jsonl      workload traces, one per workload
 *   traces/TASK/TASK@CONDITION.jsonl         one Trace per final record (trace.c)
 *   nodus/harness-failures.jsonl             the final records that are no
 *                                            trace (trace.c says which), with
 *                                            nodus's own status, guard, message
 *
 * Why a definition per condition: FlashInfer-Bench keys everything by
 * definition name (a solution names one definition; get_best_trace() picks
 * the fastest PASSED trace of a definition, whatever its workload uuid), so
 * only separate definitions keep a trace measured under sharing from
 * competing with the isolated ones. The workload uuids name the condition
 * too (WORKLOAD@CONDITION), so that a trace read on its own says it.
 *
 * The tensors come from the tasks and the sources from the solutions of the
 * campaign nodus_plan_load() verified against the plan's hashes: the store
 * holds the plan document, which names files but has neither. A nodus
 * reference is a C (or Python) solution, not FlashInfer-Bench's Python
 * `run` returning the outputs, so a definition's `reference` is a
 * placeholder whose run() raises, and its description names the reference
 * solution whose sources are in solutions/. Nothing is written in place: a
 * directory beside dir is filled, then renamed onto it.
 * ------------------------------------------------------------------------ */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"

struct dataset {
	const nodus_report_data *d;   /* the records */
	const nodus_campaign *c;      /* tasks and solutions, verified */
	json_t *plan;                 /* the plan document, owned */
	char root[4096];              /* the directory being filled */
	json_t *traces;               /* "TASK@CONDITION" -> [trace lines], owned */
	nodus_buf failures;           /* nodus/harness-failures.jsonl */
	nodus_report_dataset_counts n; /* what was written */
	nodus_error *err;             /* filled on failure */
};

/* ---- files ---- */

/* mkdir -p of the directories above root/rel. */
static int make_parents(struct dataset *ds, const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(ds->root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return NODUS_ERR(ds->err, NODUS_EIO, "cannot create directory '%s': %s", dir,
					 strerror(errno));
		*p = '/';
	}
	return 0;
}

/* Writes text (len bytes) to root/rel, creating the directories above. */
static int write_file(struct dataset *ds, const char *rel, const char *text, size_t len)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", ds->root, rel) >= sizeof(path))
		return NODUS_ERR(ds->err, NODUS_EIO, "'%s/%s': path too long", ds->root, rel);
	int rc = make_parents(ds, path);
	if (rc)
		return rc;
	FILE *f = fopen(path, "w");
	if (!f)
		return NODUS_ERR(ds->err, NODUS_EIO, "cannot create '%s': %s", path, strerror(errno));
	int bad = fwrite(text, 1, len, f) != len || ferror(f);
	bad |= fclose(f) != 0;
	if (bad)
		return NODUS_ERR(ds->err, NODUS_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* Writes obj (taken) as indented JSON to DIR/TASK/NAME.json. */
static int write_json(struct dataset *ds, const char *dir, const char *task, json_t *obj)
{
	char rel[512];
	char *text = obj ? json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	snprintf(rel, sizeof(rel), "%s/%s/%s.json", dir, task,
		 json_string_value(json_object_get(obj, "name")));
	json_decref(obj);
	int rc = text ? write_file(ds, rel, text, strlen(text))
		      : NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory building '%s'", rel);
	free(text);
	return rc;
}

/* Appends obj (taken) to b as one compact line. */
static int add_line(struct dataset *ds, nodus_buf *b, json_t *obj)
{
	char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(obj);
	int rc = !text || nodus_buf_adds(b, text) || nodus_buf_adds(b, "\n");
	free(text);
	return rc ? NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory writing the dataset") : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* ---- definitions ---- */

/* FlashInfer-Bench's name of a nodus dtype, or NULL when its DType has none. */
static const char *fib_dtype(int dtype)
{
	switch (dtype) {
	case NODUS_DTYPE_FLOAT32:
		return "float32";
	case NODUS_DTYPE_FLOAT16:
		return "float16";
	case NODUS_DTYPE_BFLOAT16:
		return "bfloat16";
	case NODUS_DTYPE_INT32:
		return "int32";
	case NODUS_DTYPE_INT64:
		return "int64";
	}
	return NULL; /* float64, uint8 */
}

/* {NAME: TensorSpec} of n tensors of t, into *out (new). */
static int tensor_specs(struct dataset *ds, const nodus_task *t, const nodus_tensor_spec *ts,
			int n, json_t **out)
{
	json_t *o = json_object();
	for (int i = 0; i < n && o; i++) {
		const char *dtype = fib_dtype(ts[i].dtype);
		if (!dtype) {
			json_decref(o);
			return NODUS_ERR(ds->err, NODUS_EINVAL,
					 "%s: tensor '%s' of task '%s' is %s, which FlashInfer-Bench's "
					 "DType has no name for (float32, float16, bfloat16, int32, "
					 "int64 only): no dataset can hold this task",
					 t->file, ts[i].name, t->name, nodus_dtype_name(ts[i].dtype));
		}
		json_t *shape = ts[i].ndim ? json_array() : json_null(); /* null: a scalar */
		for (int k = 0; k < ts[i].ndim; k++)
			json_array_append_new(shape, json_string(t->axes[ts[i].axis[k]].name));
		json_object_set_new(o, ts[i].name,
				    json_pack("{s:o,s:s}", "shape", shape, "dtype", dtype));
	}
	*out = o;
	return o ? 0 : NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory");
}

/* The references of task's pairs, comma separated, into b. */
static void references_of(struct dataset *ds, const char *task, nodus_buf *b)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(ds->plan, "pairs"), i, p)
	{
		const char *ref = json_string_value(json_object_get(p, "reference"));
		if (!ref || strcmp(json_string_value(json_object_get(p, "task")), task) != 0)
			continue;
		char quoted[NODUS_NAME_MAX + 4];
		snprintf(quoted, sizeof(quoted), "'%s'", ref);
		if (!strstr(b->data, quoted))
			nodus_buf_addf(b, "%s%s", b->len ? ", " : "", quoted);
	}
}

static int write_definition(struct dataset *ds, const nodus_task *t, const json_t *cond)
{
	const char *cname = json_string_value(json_object_get(cond, "name"));
	json_t *axes = json_object(), *inputs = NULL, *outputs = NULL;
	for (int a = 0; a < t->n_axes; a++)
		json_object_set_new(axes, t->axes[a].name,
				    t->axes[a].is_const
					    ? json_pack("{s:s,s:I}", "type", "const", "value",
							(json_int_t)t->axes[a].value)
					    : json_pack("{s:s}", "type", "var"));
	int rc = tensor_specs(ds, t, t->inputs, t->n_inputs, &inputs);
	if (!rc)
		rc = tensor_specs(ds, t, t->outputs, t->n_outputs, &outputs);
	if (rc) {
		json_decref(axes), json_decref(inputs);
		return rc;
	}
	nodus_buf refs = NODUS_BUF_INIT, desc = NODUS_BUF_INIT, code = NODUS_BUF_INIT;
	nodus_buf tag = NODUS_BUF_INIT;
	references_of(ds, t->name, &refs);
	nodus_buf_addf(&tag, "nodus_condition:%s", cname);
	nodus_buf_addf(&desc,
		       "nodus task '%s' as measured under condition '%s' (kind %s) of plan %s. "
		       "Each condition is its own definition, so that a best pick never mixes "
		       "traces measured under sharing with isolated ones. The reference is nodus "
		       "solution %s, whose sources are in solutions/%s/; `reference` here is a "
		       "placeholder whose run() raises: a nodus reference is not a FlashInfer-Bench "
		       "Python run() returning the outputs.",
		       t->name, cname, json_string_value(json_object_get(cond, "kind")),
		       ds->d->plan_digest, refs.data, t->name);
	nodus_buf_addf(&code,
		       "# placeholder: nodus task '%s' has no FlashInfer-Bench Python reference;\n"
		       "# its reference is nodus solution %s (see the description)\n"
		       "def run(*args):\n"
		       "    raise NotImplementedError(\"nodus task '%s': the reference is nodus "
		       "solution %s, not a FlashInfer-Bench Python reference\")\n",
		       t->name, refs.data, t->name, refs.data);
	json_t *def = json_pack("{s:o,s:s,s:o,s:o,s:o,s:s,s:[s,s],s:s}", "name",
				nodus__trace_key(t->name, cname), "op_type", t->name, "axes", axes,
				"inputs", inputs, "outputs", outputs, "reference", code.data, "tags",
				"nodus", tag.data, "description", desc.data);
	nodus_buf_release(&refs), nodus_buf_release(&desc), nodus_buf_release(&code);
	nodus_buf_release(&tag);
	rc = write_json(ds, "definitions", t->name, def);
	ds->n.definitions += rc == 0;
	return rc;
}

/* ---- solutions ---- */

/* [{path, content}] of s's sources into *out (new); *entry_file gets the
 * source that holds the entry (python: the module; native: the first that
 * names the entry symbol, else the first). */
static int source_files(struct dataset *ds, const nodus_solution *s, json_t **out,
			const char **entry_file)
{
	json_t *arr = json_array();
	int rc = 0, found = s->language == NODUS_LANG_PYTHON; /* python: its one module */
	*entry_file = s->sources[0];
	for (int i = 0; i < s->n_sources && !rc; i++) {
		char path[1024];
		nodus_buf b = NODUS_BUF_INIT;
		snprintf(path, sizeof(path), "%s/%s", s->dir, s->sources[i]);
		json_t *content = NULL;
		if (nodus_buf_read_file(&b, path))
			rc = NODUS_ERR(ds->err, NODUS_EIO, "%s: cannot read source '%s'", s->file, path);
		else if (b.len == 0 || strlen(b.data) != b.len || !(content = json_string(b.data)))
			rc = NODUS_ERR(ds->err, NODUS_EINVAL,
				       "%s: source '%s' is %s; a FlashInfer-Bench source's content "
				       "must be non-empty text", s->file, path,
				       b.len == 0 ? "empty" : "not UTF-8 text");
		else if (!found && strstr(b.data, s->entry)) {
			*entry_file = s->sources[i];
			found = 1;
		}
		if (content)
			json_array_append_new(arr, json_pack("{s:s,s:o}", "path", s->sources[i],
							     "content", content));
		nodus_buf_release(&b);
	}
	if (rc)
		json_decref(arr);
	*out = rc ? NULL : arr;
	return rc;
}

static const char *language_of(const nodus_solution *s)
{
	if (s->language == NODUS_LANG_PYTHON)
		return "python";
	return s->backend == NODUS_BACKEND_CUDA ? "cuda" : "cpp";
}

/* What FlashInfer-Bench's fields cannot say about how nodus builds and
 * calls s, into b. */
static void how_called(const nodus_solution *s, nodus_buf *b)
{
	if (s->language == NODUS_LANG_PYTHON && s->py_style == NODUS_PY_MODULE)
		nodus_buf_addf(b, "a Python module run by nodus's torch adapter: %s is an nn.Module "
			       "class, constructed with %s, whose forward(*inputs) returns the "
			       "outputs", s->entry, s->py_init);
	else if (s->language == NODUS_LANG_PYTHON)
		nodus_buf_addf(b, "a Python module run by nodus's torch adapter: %s(*inputs, "
			       "*outputs) writes the outputs", s->entry);
	else
		nodus_buf_addf(b, "%s sources built by nodus into a shared object (%d compiler "
			       "flag(s)) and called through nodus's C ABI, int %s(const nodus_call *) "
			       "(include/nodus/solution.h), not a tvm-ffi or torch binding: "
			       "FlashInfer-Bench cannot build it as it stands",
			       s->backend == NODUS_BACKEND_CUDA ? "CUDA" : "C", s->n_flags, s->entry);
}

static int write_solution(struct dataset *ds, const nodus_solution *s, const char *cname)
{
	json_t *sources = NULL;
	const char *entry_file = NULL;
	int rc = source_files(ds, s, &sources, &entry_file);
	if (rc)
		return rc;
	nodus_buf entry = NODUS_BUF_INIT, desc = NODUS_BUF_INIT;
	nodus_buf_addf(&entry, "%s::%s", entry_file, s->entry);
	nodus_buf_addf(&desc, "nodus solution '%s' (content hash %s) of task '%s', under condition "
		       "'%s': ", s->name, s->hash, s->task_name, cname);
	how_called(s, &desc);
	json_t *deps = json_array();
	for (int i = 0; i < s->n_libs; i++)
		json_array_append_new(deps, json_string(s->libs[i]));
	json_t *sol = json_pack(
		"{s:o,s:o,s:s,s:{s:s,s:[s],s:s,s:o,s:b},s:o,s:s}", "name",
		nodus__trace_key(s->name, cname), "definition", nodus__trace_key(s->task_name, cname),
		"author", s->author[0] ? s->author : "unknown", "spec", "language", language_of(s),
		"target_hardware", s->backend == NODUS_BACKEND_CUDA ? "cuda" : "cpu", "entry_point",
		entry.data, "dependencies", deps, "destination_passing_style",
		!(s->language == NODUS_LANG_PYTHON && s->py_style == NODUS_PY_MODULE), "sources",
		sources, "description", desc.data);
	nodus_buf_release(&entry), nodus_buf_release(&desc);
	rc = write_json(ds, "solutions", s->task_name, sol);
	ds->n.solutions += rc == 0;
	return rc;
}

/* ---- one task ---- */

/* 1 if name is already in the array seen; else appends it and returns 0. */
static int seen_before(json_t *seen, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(seen, i, v)
	{
		if (strcmp(json_string_value(v), name) == 0)
			return 1;
	}
	json_array_append_new(seen, json_string(name));
	return 0;
}

/* The file inputs of pair p's workload (the plan's file_inputs) as one
 * safetensors file at the path its trace workload names
 * (nodus__trace_blob_path), each keyed by its input's name, from the
 * values the verified campaign loaded: the dataset holds what was run. */
static int write_blob(struct dataset *ds, const json_t *p, const char *cname)
{
	static const char *const st_names[] = {NULL, "F32", "F64", "F16", "BF16", "I32", "I64", "U8"};
	const json_t *names = json_object_get(p, "file_inputs");
	if (!json_array_size(names))
		return 0;
	int wi = nodus_campaign_find_workload(ds->c, json_string_value(json_object_get(p, "workload")));
	const nodus_workload *w = wi >= 0 ? &ds->c->workloads[wi] : NULL;
	const nodus_task *t = w && w->task >= 0 ? &ds->c->tasks[w->task] : NULL;
	char rel[1024];
	if (!t || nodus__trace_blob_path(p, cname, rel, sizeof(rel)))
		return NODUS_ERR(ds->err, NODUS_EINVAL, "pair '%s': its workload's file inputs cannot "
				 "be written", json_string_value(json_object_get(p, "id")));
	json_t *header = json_object();
	nodus_buf data = NODUS_BUF_INIT;
	int rc = 0;
	for (int i = 0; !rc && i < t->n_inputs; i++) {
		const nodus_dist *d = &w->init_override[i];
		if (!nodus_workload_file_input(w, i))
			continue;
		if (!d->data || t->inputs[i].dtype < 1 || t->inputs[i].dtype > 7) {
			rc = NODUS_ERR(ds->err, NODUS_EINVAL, "workload '%s': file input '%s' has no "
				       "values loaded", w->name, t->inputs[i].name);
			break;
		}
		json_t *shape = json_array();
		for (int k = 0; k < t->inputs[i].ndim; k++)
			json_array_append_new(shape, json_integer(w->axis_value[t->inputs[i].axis[k]]));
		json_object_set_new(header, t->inputs[i].name,
				    json_pack("{s:s,s:o,s:[I,I]}", "dtype", st_names[t->inputs[i].dtype],
					      "shape", shape, "data_offsets", (json_int_t)data.len,
					      (json_int_t)(data.len + (size_t)d->bytes)));
		if (nodus_buf_add(&data, d->data, (size_t)d->bytes))
			rc = NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory writing the dataset");
	}
	char *h = rc ? NULL : json_dumps(header, JSON_COMPACT | JSON_SORT_KEYS);
	if (!rc && !h)
		rc = NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory writing the dataset");
	if (!rc) {
		/* the header padded with spaces to a multiple of 8, as the
		 * format's own writer does, so the data starts aligned */
		size_t hl = strlen(h), padded = (hl + 7) & ~(size_t)7;
		nodus_buf file = NODUS_BUF_INIT;
		unsigned char len8[8];
		for (int k = 0; k < 8; k++)
			len8[k] = (unsigned char)((uint64_t)padded >> (8 * k));
		rc = nodus_buf_add(&file, len8, 8) || nodus_buf_add(&file, h, hl) ||
		     nodus_buf_add(&file, "        ", padded - hl) ||
		     nodus_buf_add(&file, data.data, data.len)
			     ? NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory writing the dataset")
			     : write_file(ds, rel, file.data, file.len);
		nodus_buf_release(&file);
	}
	free(h);
	nodus_buf_release(&data);
	json_decref(header);
	return rc;
}

/* The solutions (candidates and references) of task's pairs under cname,
 * and its workloads file. */
static int write_pairs_of(struct dataset *ds, const char *task, const char *cname)
{
	json_t *seen_sol = json_array(), *seen_wl = json_array();
	nodus_buf lines = NODUS_BUF_INIT;
	size_t i;
	json_t *p;
	int rc = 0;
	json_array_foreach(json_object_get(ds->plan, "pairs"), i, p)
	{
		if (rc || strcmp(json_string_value(json_object_get(p, "task")), task) != 0)
			continue;
		const char *names[] = {json_string_value(json_object_get(p, "candidate")),
				       json_string_value(json_object_get(p, "reference"))};
		for (int k = 0; k < 2 && !rc; k++) {
			int at = names[k] ? nodus_campaign_find_solution(ds->c, names[k]) : -1;
			if (at < 0)
				rc = NODUS_ERR(ds->err, NODUS_EINVAL, "pair '%s': solution '%s' is "
					       "not in the campaign", json_string_value(json_object_get(
					       p, "id")), names[k] ? names[k] : "(none)");
			else if (!seen_before(seen_sol, names[k]))
				rc = write_solution(ds, &ds->c->solutions[at], cname);
		}
		if (rc || seen_before(seen_wl, json_string_value(json_object_get(p, "workload"))))
			continue;
		rc = write_blob(ds, p, cname);
		if (!rc)
			rc = add_line(ds, &lines, json_pack("{s:o,s:o}", "definition",
							    nodus__trace_key(task, cname), "workload",
							    nodus__trace_workload(p, cname)));
		ds->n.workloads += rc == 0;
	}
	if (!rc) {
		char rel[512];
		snprintf(rel, sizeof(rel), "workloads/%s/%s@%s.jsonl", task, task, cname);
		rc = write_file(ds, rel, lines.data, lines.len);
	}
	nodus_buf_release(&lines);
	json_decref(seen_sol), json_decref(seen_wl);
	return rc;
}

/* Definitions, solutions and workloads of every task the plan's pairs
 * name, under every condition of the plan. */
static int write_tasks(struct dataset *ds)
{
	json_t *seen = json_array();
	size_t i, k;
	json_t *p, *cond;
	int rc = 0;
	json_array_foreach(json_object_get(ds->plan, "pairs"), i, p)
	{
		const char *task = json_string_value(json_object_get(p, "task"));
		if (rc || !task || seen_before(seen, task))
			continue;
		int at = nodus_campaign_find_task(ds->c, task);
		if (at < 0) {
			rc = NODUS_ERR(ds->err, NODUS_EINVAL, "task '%s' of the plan is not in the "
				       "campaign", task);
			break;
		}
		json_array_foreach(json_object_get(ds->plan, "conditions"), k, cond)
		{
			const char *cname = json_string_value(json_object_get(cond, "name"));
			if (!rc)
				rc = write_definition(ds, &ds->c->tasks[at], cond);
			if (!rc)
				rc = write_pairs_of(ds, task, cname);
		}
	}
	json_decref(seen);
	return rc;
}

/* ---- records ---- */

/* Every final record: a trace line into ds->traces, or a harness failure
 * into ds->failures. */
static int sort_records(struct dataset *ds)
{
	int rc = 0;
	for (int k = 0; k < ds->d->n_records && !rc; k++) {
		const nodus_record *r = &ds->d->records[k];
		const json_t *pair = nodus__trace_find_pair(ds->plan, r->pair_id);
		if (!r->final || !pair)
			continue;
		if (!nodus__trace_status(r)) {
			rc = add_line(ds, &ds->failures, nodus__trace_harness_line(ds->d, pair, r));
			ds->n.harness_failures += rc == 0;
			continue;
		}
		json_t *line = nodus__trace_line(ds->d, pair, r);
		const char *def = json_string_value(json_object_get(line, "definition"));
		json_t *list = def ? json_object_get(ds->traces, def) : NULL;
		if (def && !list)
			json_object_set_new(ds->traces, def, list = json_array());
		if (!list || json_array_append_new(list, line))
			rc = NODUS_ERR(ds->err, NODUS_ENOMEM, "out of memory sorting the records");
		ds->n.traces += rc == 0;
	}
	return rc;
}

static int write_traces(struct dataset *ds)
{
	const char *def;
	json_t *list;
	int rc = 0;
	json_object_foreach(ds->traces, def, list)
	{
		nodus_buf b = NODUS_BUF_INIT;
		char rel[512];
		size_t i;
		json_t *line;
		json_array_foreach(list, i, line)
		{
			if (!rc)
				rc = add_line(ds, &b, json_incref(line));
		}
		/* the task is the definition's name before its '@' */
		snprintf(rel, sizeof(rel), "traces/%.*s/%s.jsonl", (int)strcspn(def, "@"), def, def);
		if (!rc)
			rc = write_file(ds, rel, b.data, b.len);
		nodus_buf_release(&b);
		if (rc)
			break;
	}
	return rc;
}

/* ---- the whole ---- */

/* 0 if dir does not exist or is an empty directory (rename() replaces an
 * empty directory, never a full one). */
static int check_target(const char *dir, nodus_error *err)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0
				       : NODUS_ERR(err, NODUS_EIO, "'%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return NODUS_ERR(err, NODUS_EIO, "'%s' exists and is not a directory; a dataset "
				 "is a directory (name a new one)", dir);
	DIR *dp = opendir(dir);
	if (!dp)
		return NODUS_ERR(err, NODUS_EIO, "cannot read directory '%s': %s", dir,
				 strerror(errno));
	int entries = 0;
	for (struct dirent *e; (e = readdir(dp));)
		entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dp);
	if (entries)
		return NODUS_ERR(err, NODUS_EIO, "'%s' is not empty; a dataset is written into a new "
				 "or empty directory, never over files (name another)", dir);
	return 0;
}

int nodus__report_dir_begin(const char *dir, char *root, size_t size, nodus_error *err)
{
	int rc = check_target(dir, err);
	if (rc)
		return rc;
	if ((size_t)snprintf(root, size, "%s.tmp-XXXXXX", dir) >= size)
		return NODUS_ERR(err, NODUS_EIO, "'%s': path too long", dir);
	if (!mkdtemp(root))
		return NODUS_ERR(err, NODUS_EIO, "cannot create a directory beside '%s' (%s): %s", dir,
				 root, strerror(errno));
	chmod(root, 0755); /* mkdtemp's 0700 is for secrets; a dataset is for reading */
	return 0;
}

int nodus__report_dir_commit(const char *root, const char *dir, nodus_error *err)
{
	if (rename(root, dir) != 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot rename '%s' to '%s': %s", root, dir,
				 strerror(errno));
	return 0;
}

void nodus__report_dir_abort(const char *root)
{
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int nodus_report_dataset(const nodus_report_data *d, const nodus_plan *p, const char *dir,
			 nodus_report_dataset_counts *counts, nodus_error *err)
{
	struct dataset ds = {.d = d, .c = p->campaign, .err = err};
	nodus_buf_init(&ds.failures);
	if (strcmp(p->digest, d->plan_digest) != 0)
		return NODUS_ERR(err, NODUS_EINVAL, "%s: plan %s, not the plan %s reported on",
				 p->path, p->digest, d->plan_digest);
	if (!(ds.plan = json_loads(d->plan_json, 0, NULL)))
		return NODUS_ERR(err, NODUS_EPARSE, "the stored plan is not JSON");
	int rc = nodus__report_dir_begin(dir, ds.root, sizeof(ds.root), err);
	if (rc) {
		json_decref(ds.plan);
		return rc;
	}
	ds.traces = json_object();
	rc = write_tasks(&ds);
	if (!rc)
		rc = sort_records(&ds);
	if (!rc)
		rc = write_traces(&ds);
	if (!rc) /* always, empty when there were none: a reader sees none were left out */
		rc = write_file(&ds, "nodus/harness-failures.jsonl", ds.failures.data,
				ds.failures.len);
	if (!rc)
		rc = nodus__report_dir_commit(ds.root, dir, err);
	if (rc)
		nodus__report_dir_abort(ds.root);
	else if (counts)
		*counts = ds.n;
	json_decref(ds.traces);
	json_decref(ds.plan);
	nodus_buf_release(&ds.failures);
	return rc;
}
