/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * campaign.c: loading a campaign and every file it names, then checking
 * what only the whole campaign can tell: unique names across its tasks,
 * workloads, solutions, pairs and conditions; pairs that name existing
 * workloads and solutions of the workload's task; solutions whose backend
 * is the target's; exactly one isolated condition; the judge's values.
 *
 * Order: target, tasks, workloads (against the tasks), solutions, pairs,
 * judge, conditions. A referenced file that fails validation still joins
 * the campaign when its name could be read, so one bad field in a task does
 * not also make every workload of that task "unknown". Campaigns never load
 * other campaigns: a campaign listed where a task is expected is reported
 * as a file of the wrong kind, which is how a cycle shows.
 * ------------------------------------------------------------------------ */
#include "spec-internal.h"
#include "measure/stats_looks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TASKS 256
#define MAX_WORKLOADS 1024
#define MAX_SOLUTIONS 1024
#define MAX_PAIRS 16384
#define MAX_CONDITIONS 64

static const nodus__vfield campaign_fields[] = {
	{"kind", 1},  {"format", 1}, {"name", 1},  {"tasks", 1},      {"workloads", 1},
	{"solutions", 1}, {"pairs", 1}, {"judge", 0}, {"conditions", 1}, {"target", 1},
	{"audit", 0}};

static const char *const backend_names[] = {"cpu", "cuda"};
static const char *const cond_names[] = {"isolated", "cpu-stress", "timeslice",
					 "mps",      "streams",    "replay"};
static const char *const load_names[] = {"membw", "compute", "mixed"};
/* in nodus_judge_preset order */
static const char *const preset_names[] = {"nodus", "kernelbench", "kernelbench-p",
					   "flashinfer"};

/* Appends up to 8 names of an array of structs (name first member, stride
 * bytes apart) to b, for "expected one of ..." messages. */
static void names_list(nodus_buf *b, const void *items, int n, size_t stride)
{
	for (int k = 0; k < n && k < 8; k++)
		nodus_buf_addf(b, "%s%s", k ? ", " : "", (const char *)items + (size_t)k * stride);
	if (n > 8)
		nodus_buf_addf(b, ", ... (%d in all)", n);
	if (!n)
		nodus_buf_adds(b, "none loaded");
}

/* ---- referenced files ---- */

typedef struct loader {
	nodus__vctx *v;      /* the campaign's context */
	const char *dir;     /* the campaign's directory */
	nodus_diags *diags;  /* faults of referenced files go here too */
	nodus_buf text;      /* scratch: text of the file being loaded */
	char path[512];      /* the file being loaded, joined with dir */
} loader;

/* Reads and parses entry k of the campaign array at the current path.
 * Returns the parsed JSON (caller decrefs) or NULL (reported). */
static json_t *load_ref(loader *l, const json_t *j)
{
	char rel[512];
	if (nodus__v_relpath(l->v, j, 1, rel, sizeof(rel)) != 1)
		return NULL;
	if (nodus__path_join(l->path, sizeof(l->path), l->dir, rel)) {
		nodus__v_err(l->v, 0, "expected a shorter path, got \"%s\"", rel);
		return NULL;
	}
	if (nodus__spec_read(l->path, NODUS__SPEC_MAX_BYTES, &l->text, l->v, NULL))
		return NULL;
	json_t *doc = NULL;
	if (nodus__spec_parse(l->path, l->text.data, l->text.len, &doc, l->diags))
		return NULL;
	return doc;
}

/* Reports a second item named like an earlier one. */
static int check_unique(nodus__vctx *v, const void *items, int n, size_t stride,
			const int *where, const char *what, const char *array)
{
	const char *name = (const char *)items + (size_t)n * stride;
	for (int k = 0; k < n; k++) {
		if (strcmp((const char *)items + (size_t)k * stride, name) == 0) {
			nodus__v_err(v, 0,
				     "expected a unique %s name, got \"%s\" again (first at "
				     "$.%s[%d])",
				     what, name, array, where[k]);
			return -1;
		}
	}
	return 0;
}

static int ref_array(loader *l, const json_t *obj, const char *key, int max)
{
	json_t *j = json_object_get(obj, key);
	if (!j)
		return 0;
	nodus__v_push_key(l->v, key);
	char what[64];
	snprintf(what, sizeof(what), "%s file paths", key);
	int n = nodus__v_array(l->v, j, 1, (size_t)max, what);
	nodus__v_pop(l->v);
	return n < 0 ? 0 : n;
}

static void load_tasks(loader *l, const json_t *obj, nodus_campaign *c, int *where)
{
	json_t *arr = json_object_get(obj, "tasks");
	int n = ref_array(l, obj, "tasks", MAX_TASKS);
	c->tasks = calloc((size_t)n + 1, sizeof(*c->tasks));
	if (!c->tasks)
		return;
	nodus__v_push_key(l->v, "tasks");
	for (int k = 0; k < n; k++) {
		nodus__v_push_index(l->v, (size_t)k);
		json_t *doc = load_ref(l, json_array_get(arr, (size_t)k));
		nodus_task *t = &c->tasks[c->n_tasks];
		if (doc) {
			nodus_task_from_json(doc, l->path, l->text.data, t, l->diags);
			if (t->name[0] &&
			    !check_unique(l->v, c->tasks, c->n_tasks, sizeof(*t), where, "task",
					  "tasks"))
				where[c->n_tasks++] = k;
			else
				nodus_task_release(t);
		}
		json_decref(doc);
		nodus__v_pop(l->v);
	}
	nodus__v_pop(l->v);
}

static void load_workloads(loader *l, const json_t *obj, nodus_campaign *c, int *where)
{
	json_t *arr = json_object_get(obj, "workloads");
	int n = ref_array(l, obj, "workloads", MAX_WORKLOADS);
	c->workloads = calloc((size_t)n + 1, sizeof(*c->workloads));
	if (!c->workloads)
		return;
	nodus__v_push_key(l->v, "workloads");
	for (int k = 0; k < n; k++) {
		nodus__v_push_index(l->v, (size_t)k);
		json_t *doc = load_ref(l, json_array_get(arr, (size_t)k));
		nodus_workload *w = &c->workloads[c->n_workloads];
		if (doc) {
			/* with no task loaded (all failed) only the workload's own
			 * structure is checked: the tasks' faults are already shown */
			nodus_workload_from_json(doc, l->path, l->text.data, c->tasks,
						 c->n_tasks, w, l->diags);
			if (w->name[0] &&
			    !check_unique(l->v, c->workloads, c->n_workloads, sizeof(*w), where,
					  "workload", "workloads"))
				where[c->n_workloads++] = k;
			else
				nodus_workload_release(w);
		}
		json_decref(doc);
		nodus__v_pop(l->v);
	}
	nodus__v_pop(l->v);
}

static void check_solution(nodus__vctx *v, const nodus_campaign *c, const nodus_solution *s)
{
	if (c->n_tasks && s->task_name[0] && nodus_campaign_find_task(c, s->task_name) < 0) {
		nodus_buf list = NODUS_BUF_INIT;
		names_list(&list, c->tasks, c->n_tasks, sizeof(*c->tasks));
		nodus__v_err(v, 0,
			     "expected a solution of a task of the campaign (%s), got solution "
			     "\"%s\" of task \"%s\"",
			     list.data, s->name, s->task_name);
		nodus_buf_release(&list);
	}
	if (s->backend && c->target.backend && s->backend != c->target.backend)
		nodus__v_err(v, 0,
			     "expected a solution for the target's backend (%s), got %s solution "
			     "\"%s\"",
			     backend_names[c->target.backend - 1], backend_names[s->backend - 1],
			     s->name);
	if (s->language == NODUS_LANG_PYTHON && !c->target.python[0])
		nodus__v_err(v, 0, "expected the target to name its interpreter "
				   "($.target.python) for python solution \"%s\", got none", s->name);
}

static void load_solutions(loader *l, const json_t *obj, nodus_campaign *c, int *where)
{
	json_t *arr = json_object_get(obj, "solutions");
	int n = ref_array(l, obj, "solutions", MAX_SOLUTIONS);
	c->solutions = calloc((size_t)n + 1, sizeof(*c->solutions));
	if (!c->solutions)
		return;
	nodus__v_push_key(l->v, "solutions");
	for (int k = 0; k < n; k++) {
		nodus__v_push_index(l->v, (size_t)k);
		json_t *doc = load_ref(l, json_array_get(arr, (size_t)k));
		nodus_solution *s = &c->solutions[c->n_solutions];
		if (doc) {
			char dir[512];
			nodus__path_dir(l->path, dir, sizeof(dir));
			nodus_solution_from_json(doc, l->path, l->text.data, dir, s, l->diags);
			if (s->name[0] &&
			    !check_unique(l->v, c->solutions, c->n_solutions, sizeof(*s), where,
					  "solution", "solutions")) {
				check_solution(l->v, c, s);
				where[c->n_solutions++] = k;
			} else {
				nodus_solution_release(s);
			}
		}
		json_decref(doc);
		nodus__v_pop(l->v);
	}
	nodus__v_pop(l->v);
}

/* ---- pairs ---- */

static int expect_ok(const char *s)
{
	return nodus_label_from_name(s) >= 0 || nodus_status_from_name(s) >= 0 ||
	       strcmp(s, "EQUIVALENT") == 0 || strcmp(s, "FAIL") == 0;
}

/* Resolves pair member key to a solution of task_name; -1 if it fails. */
static int pair_solution(nodus__vctx *v, const nodus_campaign *c, const json_t *p,
			 const char *key, const char *task_name)
{
	char name[NODUS_NAME_MAX];
	if (nodus__v_name(v, p, key, name, sizeof(name)) != 1)
		return -1;
	int s = nodus_campaign_find_solution(c, name);
	if (s < 0) {
		nodus_buf list = NODUS_BUF_INIT;
		names_list(&list, c->solutions, c->n_solutions, sizeof(*c->solutions));
		nodus__v_err_key(v, key, 0, "expected a solution of the campaign (%s), got \"%s\"",
				 list.data, name);
		nodus_buf_release(&list);
	} else if (task_name && strcmp(c->solutions[s].task_name, task_name) != 0) {
		nodus__v_err_key(v, key, 0,
				 "expected a solution of task \"%s\" (the workload's), got \"%s\" "
				 "of task \"%s\"",
				 task_name, name, c->solutions[s].task_name);
		return -1;
	}
	return s;
}

/* What a solution declares of its module's parameters: python.params, ""
 * for none (a native or destination-passing solution has none). */
static const char *declared_params(const nodus_solution *s)
{
	return s->language == NODUS_LANG_PYTHON && s->py_style == NODUS_PY_MODULE ? s->py_params
										   : "";
}

/* A pair's two sides declare the same python.params, entry for entry
 * (params.c): the adapter draws a declared tensor from its name and shape
 * and matches a module's own tensors against the declared list in its
 * order, so any other difference gives the two sides different values and
 * an honest candidate INCORRECT_NUMERICAL; no declaration at all redraws
 * by position, which agrees with no declaration but none. */
static void pair_params(nodus__vctx *v, const nodus_campaign *c, const nodus_pair_spec *ps)
{
	const nodus_solution *cs = &c->solutions[ps->candidate], *rs = &c->solutions[ps->reference];
	const char *cd = declared_params(cs), *rd = declared_params(rs);
	if (strcmp(cd, rd) == 0)
		return;
	nodus_py_param *e = NULL;
	int nc = nodus__py_params_split(cd, &e);
	free(e);
	int nr = nodus__py_params_split(rd, &e);
	free(e);
	if (!*cd || !*rd) {
		nodus__v_err(v, 0,
			     "expected candidate \"%s\" (%s) and reference \"%s\" (%s) to "
			     "declare the same python.params, got %d tensor(s) declared by the %s "
			     "and none by the %s: the declared side's parameters are drawn by "
			     "name, the other's by position, and never agree",
			     cs->name, cs->file, rs->name, rs->file, *cd ? nc : nr,
			     *cd ? "candidate" : "reference", *cd ? "reference" : "candidate");
		return;
	}
	char detail[1024];
	int index;
	int n = nodus__py_params_pair_diff(cd, rd, detail, sizeof(detail), &index);
	nodus__v_err(v, 0,
		     "expected candidate \"%s\" (%s) to declare the python.params of its "
		     "reference \"%s\" (%s), entry for entry, got %d difference(s) (the "
		     "candidate declares %d tensor(s), the reference %d): %s%s",
		     cs->name, cs->file, rs->name, rs->file, n, nc, nr, detail,
		     n > 3 ? "; ..." : "");
}

/* The optional "effect": the true speedup by construction (reference time /
 * candidate time), a refinement of a declared speed truth. It must agree
 * with expect's direction; the margin-dependent TIED-or-not is the
 * campaign's to get right (it depends on tie_margin_short at run time). */
static void pair_effect(nodus__vctx *v, const json_t *p, nodus_pair_spec *ps)
{
	if (nodus__v_num(v, p, "effect", 0, 1, 1e6, 0, &ps->effect) != 1)
		return;
	ps->has_effect = 1;
	const char *e = ps->expect;
	if (!*e)
		nodus__v_err_key(v, "effect", 0,
				 "expected an effect only beside an expect of FASTER, SLOWER, TIED "
				 "or EQUIVALENT, got no expect");
	else if (strcmp(e, "FASTER") != 0 && strcmp(e, "SLOWER") != 0 && strcmp(e, "TIED") != 0 &&
		 strcmp(e, "EQUIVALENT") != 0)
		nodus__v_err_key(v, "effect", 0,
				 "expected an effect only beside an expect of FASTER, SLOWER, TIED "
				 "or EQUIVALENT, got expect \"%s\"",
				 e);
	else if (strcmp(e, "FASTER") == 0 && !(ps->effect > 1))
		nodus__v_err_key(v, "effect", 0,
				 "expected a speedup above 1 for a pair declared FASTER (effect is "
				 "reference time / candidate time), got %g",
				 ps->effect);
	else if (strcmp(e, "SLOWER") == 0 && !(ps->effect < 1))
		nodus__v_err_key(v, "effect", 0,
				 "expected a speedup below 1 for a pair declared SLOWER (effect is "
				 "reference time / candidate time), got %g",
				 ps->effect);
}

static void pair_one(nodus__vctx *v, const json_t *p, nodus_campaign *c)
{
	static const nodus__vfield f[] = {{"workload", 1},
					  {"candidate", 1},
					  {"reference", 1},
					  {"expect", 0},
					  {"effect", 0}};
	if (!nodus__v_object(v, p, "a pair object {\"workload\", \"candidate\", \"reference\"}"))
		return;
	nodus__v_fields(v, p, f, NODUS_ARRAY_SIZE(f));
	nodus_pair_spec ps;
	memset(&ps, 0, sizeof(ps));
	char wname[NODUS_NAME_MAX];
	const char *task = NULL;
	ps.workload = -1;
	if (nodus__v_name(v, p, "workload", wname, sizeof(wname)) == 1) {
		ps.workload = nodus_campaign_find_workload(c, wname);
		if (ps.workload < 0) {
			nodus_buf list = NODUS_BUF_INIT;
			names_list(&list, c->workloads, c->n_workloads, sizeof(*c->workloads));
			nodus__v_err_key(v, "workload", 0,
					 "expected a workload of the campaign (%s), got \"%s\"",
					 list.data, wname);
			nodus_buf_release(&list);
		} else {
			task = c->workloads[ps.workload].task_name;
		}
	}
	ps.candidate = pair_solution(v, c, p, "candidate", task);
	ps.reference = pair_solution(v, c, p, "reference", task);
	if (nodus__v_str(v, p, "expect", ps.expect, sizeof(ps.expect)) == 1 &&
	    !expect_ok(ps.expect))
		nodus__v_err_key(v, "expect", 0,
				 "expected a label (FASTER, SLOWER, TIED, AMBIGUOUS), EQUIVALENT, "
				 "FAIL or a record status (e.g. CRASH, REWARD_HACK), got \"%s\"",
				 ps.expect);
	pair_effect(v, p, &ps);
	if (ps.workload < 0 || ps.candidate < 0 || ps.reference < 0)
		return;
	snprintf(ps.id, sizeof(ps.id), "%s/%s/%s", c->workloads[ps.workload].name,
		 c->solutions[ps.candidate].name, c->solutions[ps.reference].name);
	pair_params(v, c, &ps);
	c->pairs[c->n_pairs++] = ps;
}

static int id_cmp(const void *a, const void *b, void *pairs)
{
	const nodus_pair_spec *p = pairs;
	int x = *(const int *)a, y = *(const int *)b;
	int r = strcmp(p[x].id, p[y].id);
	return r ? r : (x > y) - (x < y);
}

static void load_pairs(nodus__vctx *v, const json_t *obj, nodus_campaign *c)
{
	json_t *arr = json_object_get(obj, "pairs");
	if (!arr)
		return;
	nodus__v_push_key(v, "pairs");
	int n = nodus__v_array(v, arr, 1, MAX_PAIRS, "pairs");
	int *where = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	int *order = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	c->pairs = calloc((size_t)(n > 0 ? n : 1), sizeof(*c->pairs));
	if (!c->pairs || !where || !order)
		goto out;
	for (int k = 0; k < n; k++) {
		nodus__v_push_index(v, (size_t)k);
		int before = c->n_pairs;
		pair_one(v, json_array_get(arr, (size_t)k), c);
		if (c->n_pairs > before)
			where[before] = k;
		nodus__v_pop(v);
	}
	for (int k = 0; k < c->n_pairs; k++)
		order[k] = k;
	qsort_r(order, (size_t)c->n_pairs, sizeof(int), id_cmp, c->pairs);
	for (int k = 1, first = 0; k < c->n_pairs; k++) {
		if (strcmp(c->pairs[order[k]].id, c->pairs[order[first]].id) != 0) {
			first = k;
			continue;
		}
		nodus__v_push_index(v, (size_t)where[order[k]]);
		nodus__v_err(v, 0, "expected a unique pair id, got \"%s\" again (first at "
				   "$.pairs[%d])",
			     c->pairs[order[k]].id, where[order[first]]);
		nodus__v_pop(v);
	}
out:
	free(where);
	free(order);
	nodus__v_pop(v);
}

/* ---- judge ---- */

static void judge_defaults(nodus_judge *j)
{
	memset(j, 0, sizeof(*j));
	j->seed = 1;
	j->trials = 4;
	j->recheck_reps = 4;
	j->determinism = 1;
	j->warmup_calls = 3;
	j->warmup_ms = 20;
	j->min_rounds = 10;
	j->max_rounds = 40;
	j->max_rounds_short = -1; /* max_rounds unless declared (set after loading) */
	j->look_every = 5;
	j->samples_per_round = 3;
	j->input_copies = 4;
	j->flush_cache = 1;
	j->min_sample_ns = 200000;
	j->tie_margin = 0.01;
	j->tie_margin_short = -1; /* tie_margin unless declared (set after loading) */
	j->short_kernel_ns = 10000;
	j->confidence = 0.95;
	j->bootstrap_resamples = 10000;
	j->timeout_s = 60;
	j->address_space_mb = 4096;
	j->cpu_time_s = 120;
	j->open_files = 64;
	j->processes = 4096;
	j->max_attempts = 3;
	j->oracle_group = 4;
	j->retry_on = 1u << NODUS_STATUS_TIMEOUT | 1u << NODUS_STATUS_CRASH |
		      1u << NODUS_STATUS_NOT_ISOLATED;
	j->isolation_max_busy_cores = 0.5;
}

static const nodus__vfield judge_fields[] = {
	{"seed", 0},         {"trials", 0},       {"recheck_reps", 0},
	{"determinism", 0},  {"warmup_calls", 0}, {"warmup_ms", 0},
	{"min_rounds", 0},   {"max_rounds", 0},   {"max_rounds_short", 0},
	{"min_timed_s", 0},  {"look_every", 0},
	{"samples_per_round", 0}, {"input_copies", 0}, {"flush_cache", 0},
	{"min_sample_ns", 0}, {"tie_margin", 0},  {"tie_margin_short", 0},
	{"process_sd", 0},
	{"short_kernel_ns", 0}, {"confidence", 0},
	{"bootstrap_resamples", 0}, {"timeout_s", 0}, {"address_space_mb", 0},
	{"cpu_time_s", 0},   {"open_files", 0},   {"processes", 0},
	{"max_attempts", 0}, {"retry_on", 0},     {"isolation_max_busy_cores", 0},
	{"oracle_group", 0}, {"tasks", 0}};

const nodus_task_judge *nodus_judge_task(const nodus_judge *j, const char *task)
{
	for (int k = 0; k < j->n_task_judges; k++)
		if (strcmp(j->task_judge[k].task, task) == 0)
			return &j->task_judge[k];
	return NULL;
}

/* "tasks": {"TASK": {"tie_margin"?, "process_sd"?}}: a task's own margin
 * and process offset, each task one of the campaign's. */
static void judge_tasks(nodus__vctx *v, const json_t *o, const nodus_campaign *c, nodus_judge *j)
{
	static const nodus__vfield f[] = {{"tie_margin", 0}, {"process_sd", 0}};
	json_t *tasks = json_object_get(o, "tasks");
	if (!tasks)
		return;
	nodus__v_push_key(v, "tasks");
	if (!nodus__v_object(v, tasks, "an object of task names, each {\"tie_margin\"?, "
				       "\"process_sd\"?}")) {
		nodus__v_pop(v);
		return;
	}
	if (json_object_size(tasks) > NODUS_MAX_TASK_JUDGES) {
		nodus__v_err(v, 0, "expected at most %d tasks, got %zu", NODUS_MAX_TASK_JUDGES,
			     json_object_size(tasks));
		nodus__v_pop(v);
		return;
	}
	const char *name;
	json_t *t;
	json_object_foreach(tasks, name, t) {
		nodus__v_push_key(v, name);
		nodus_task_judge *tj = &j->task_judge[j->n_task_judges];
		memset(tj, 0, sizeof(*tj));
		tj->tie_margin = tj->process_sd = -1;
		if (c->tasks && nodus_campaign_find_task(c, name) < 0)
			nodus__v_err(v, 0, "expected a task of the campaign, got \"%s\"", name);
		else if (strlen(name) >= sizeof(tj->task))
			nodus__v_err(v, 0, "expected a task name, got one of %zu bytes", strlen(name));
		else if (nodus__v_object(v, t, "{\"tie_margin\"?, \"process_sd\"?}")) {
			nodus__v_fields(v, t, f, NODUS_ARRAY_SIZE(f));
			snprintf(tj->task, sizeof(tj->task), "%s", name);
			nodus__v_num(v, t, "tie_margin", 0, 1, 1, 0, &tj->tie_margin);
			nodus__v_num(v, t, "process_sd", 0, 0, 1, 0, &tj->process_sd);
			j->n_task_judges++;
		}
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

/* An int judge member in [lo, hi], kept as its default when absent. */
static void judge_int(nodus__vctx *v, const json_t *o, const char *key, int64_t lo, int64_t hi,
		      int *io)
{
	int64_t x;
	if (nodus__v_int(v, o, key, lo, hi, &x) == 1)
		*io = (int)x;
}

static void judge_retry(nodus__vctx *v, const json_t *o, nodus_judge *j)
{
	json_t *arr = json_object_get(o, "retry_on");
	if (!arr)
		return;
	nodus__v_push_key(v, "retry_on");
	int n = nodus__v_array(v, arr, 0, NODUS_STATUS_COUNT_, "record status names");
	if (n >= 0)
		j->retry_on = 0;
	for (int k = 0; k < n; k++) {
		json_t *s = json_array_get(arr, (size_t)k);
		int st = json_is_string(s) ? nodus_status_from_name(json_string_value(s)) : -1;
		nodus__v_push_index(v, (size_t)k);
		char got[96];
		nodus__v_describe(s, got, sizeof(got));
		if (st <= NODUS_STATUS_OK)
			nodus__v_err(v, 0,
				     "expected a failure status (e.g. TIMEOUT, CRASH, NOT_ISOLATED), "
				     "got %s",
				     got);
		else if (j->retry_on & (1u << st))
			nodus__v_err(v, 0, "expected each status once, got %s again", got);
		else
			j->retry_on |= 1u << st;
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

/* A percentile bootstrap's interval can be no wider than its most extreme
 * resamples: with too few of them in each tail of each look, the interval
 * is narrower than the confidence it claims (at 99.999% over 7 looks,
 * 10000 resamples put 0.007 in each tail, so the bound is the minimum). */
#define BOOTSTRAP_TAIL_MIN 5

static void judge_tails(nodus__vctx *v, const nodus_judge *j)
{
	int most = j->max_rounds > j->max_rounds_short ? j->max_rounds : j->max_rounds_short;
	int looks = nodus_stats_look_count(j->min_rounds, most, j->look_every);
	if (looks < 1 || !(j->confidence < 1))
		return;
	double per_tail = j->bootstrap_resamples * (1 - j->confidence) / (2.0 * looks);
	/* (1 - confidence) is inexact: 0.99999 gives 7000000.00003 */
	if (per_tail >= BOOTSTRAP_TAIL_MIN * (1 - 1e-9))
		return;
	double need = ceil(BOOTSTRAP_TAIL_MIN * 2.0 * looks / (1 - j->confidence) * (1 - 1e-9));
	nodus__v_err_key(v, "bootstrap_resamples", 0,
			 "expected at least %.0f resamples for confidence %g over %d looks (%d in "
			 "each tail of each look; or a lower confidence, or fewer looks), got %d",
			 need, j->confidence, looks, BOOTSTRAP_TAIL_MIN, j->bootstrap_resamples);
}

static void load_judge(nodus__vctx *v, const json_t *o, const nodus_campaign *c, nodus_judge *j)
{
	judge_defaults(j);
	if (!o)
		return;
	nodus__v_push_key(v, "judge");
	if (!nodus__v_object(v, o, "a judge object")) {
		nodus__v_pop(v);
		return;
	}
	nodus__v_fields(v, o, judge_fields, NODUS_ARRAY_SIZE(judge_fields));
	int64_t x;
	if (nodus__v_int(v, o, "seed", 0, INT64_MAX, &x) == 1)
		j->seed = (uint64_t)x;
	judge_int(v, o, "trials", 1, 1000, &j->trials);
	judge_int(v, o, "recheck_reps", 0, 1000, &j->recheck_reps);
	nodus__v_bool(v, o, "determinism", &j->determinism);
	judge_int(v, o, "warmup_calls", 0, 1000000, &j->warmup_calls);
	nodus__v_num(v, o, "warmup_ms", 0, 0, 600000, 0, &j->warmup_ms);
	judge_int(v, o, "min_rounds", 2, 100000, &j->min_rounds);
	judge_int(v, o, "max_rounds", 2, 1000000, &j->max_rounds);
	judge_int(v, o, "max_rounds_short", 2, 1000000, &j->max_rounds_short);
	judge_int(v, o, "look_every", 1, 1000000, &j->look_every);
	judge_int(v, o, "samples_per_round", 1, 10000, &j->samples_per_round);
	judge_int(v, o, "input_copies", 1, 64, &j->input_copies);
	nodus__v_bool(v, o, "flush_cache", &j->flush_cache);
	if (nodus__v_int(v, o, "min_sample_ns", 0, 10000000000LL, &x) == 1)
		j->min_sample_ns = x;
	nodus__v_num(v, o, "tie_margin", 0, 1, 1, 0, &j->tie_margin);
	nodus__v_num(v, o, "tie_margin_short", 0, 1, 1, 0, &j->tie_margin_short);
	nodus__v_num(v, o, "process_sd", 0, 0, 1, 0, &j->process_sd);
	nodus__v_num(v, o, "min_timed_s", 0, 0, 3600, 0, &j->min_timed_s);
	if (nodus__v_int(v, o, "short_kernel_ns", 0, 10000000000LL, &x) == 1)
		j->short_kernel_ns = x;
	nodus__v_num(v, o, "confidence", 0.5, 0, 1, 1, &j->confidence);
	judge_int(v, o, "bootstrap_resamples", 100, 1000000, &j->bootstrap_resamples);
	nodus__v_num(v, o, "timeout_s", 0, 1, 86400, 0, &j->timeout_s);
	if (nodus__v_int(v, o, "address_space_mb", 0, (int64_t)1 << 30, &x) == 1)
		j->address_space_mb = x;
	judge_int(v, o, "cpu_time_s", 1, 604800, &j->cpu_time_s);
	judge_int(v, o, "open_files", 16, 65536, &j->open_files);
	judge_int(v, o, "processes", 1, 1000000, &j->processes);
	judge_int(v, o, "max_attempts", 1, 100, &j->max_attempts);
	judge_int(v, o, "oracle_group", 1, 16, &j->oracle_group);
	judge_retry(v, o, j);
	nodus__v_num(v, o, "isolation_max_busy_cores", 0, 0, 4096, 0,
		     &j->isolation_max_busy_cores);
	if (j->max_rounds < j->min_rounds)
		nodus__v_err_key(v, "max_rounds", 0, "expected max_rounds >= min_rounds (%d), got %d",
				 j->min_rounds, j->max_rounds);
	if (j->max_rounds_short >= 0 && j->max_rounds_short < j->min_rounds)
		nodus__v_err_key(v, "max_rounds_short", 0,
				 "expected max_rounds_short >= min_rounds (%d), got %d", j->min_rounds,
				 j->max_rounds_short);
	judge_tails(v, j);
	judge_tasks(v, o, c, j);
	nodus__v_pop(v);
}

/* ---- conditions and target ---- */

static void condition_one(nodus__vctx *v, const json_t *o, int backend, nodus_condition *cd)
{
	static const nodus__vfield iso_f[] = {{"name", 1}, {"kind", 1}, {"judge_preset", 0}};
	static const nodus__vfield replay_f[] = {
		{"name", 1}, {"kind", 1}, {"tenants", 1}, {"judge_preset", 0}};
	static const nodus__vfield load_f[] = {
		{"name", 1}, {"kind", 1},	      {"tenants", 1},	  {"load", 1},
		{"duty_cycle", 0}, {"active_thread_pct", 0}, {"judge_preset", 0}};
	memset(cd, 0, sizeof(*cd));
	if (!nodus__v_object(v, o, "a condition object {\"name\", \"kind\", ...}"))
		return;
	nodus__v_name(v, o, "name", cd->name, sizeof(cd->name));
	int k = -1;
	if (nodus__v_enum(v, o, "kind", cond_names, NODUS_ARRAY_SIZE(cond_names), &k) < 0)
		return;
	cd->kind = k + 1;
	if (k < 0)
		nodus__v_fields(v, o, iso_f, 3);
	else if (cd->kind == NODUS_COND_ISOLATED)
		nodus__v_fields(v, o, iso_f, 3);
	else if (cd->kind == NODUS_COND_REPLAY)
		nodus__v_fields(v, o, replay_f, 4);
	else if (cd->kind == NODUS_COND_MPS)
		nodus__v_fields(v, o, load_f, 7);
	else { /* every field but active_thread_pct */
		static const nodus__vfield f[] = {{"name", 1},	  {"kind", 1},
						  {"tenants", 1}, {"load", 1},
						  {"duty_cycle", 0}, {"judge_preset", 0}};
		nodus__v_fields(v, o, f, 6);
	}
	int preset = 0;
	if (nodus__v_enum(v, o, "judge_preset", preset_names, NODUS_ARRAY_SIZE(preset_names),
			  &preset) == 1)
		cd->judge_preset = preset;
	int gpu_only = cd->kind == NODUS_COND_TIMESLICE || cd->kind == NODUS_COND_MPS ||
		       cd->kind == NODUS_COND_STREAMS;
	if (gpu_only && backend == NODUS_BACKEND_CPU)
		nodus__v_err_key(v, "kind", 0,
				 "expected a condition kind for a cpu target (isolated, cpu-stress, "
				 "replay), got \"%s\"",
				 cond_names[k]);
	int64_t x;
	if (nodus__v_int(v, o, "tenants", 1, 1024, &x) == 1)
		cd->tenants = (int)x;
	int load;
	if (nodus__v_enum(v, o, "load", load_names, NODUS_ARRAY_SIZE(load_names), &load) == 1)
		cd->load = load + 1;
	if (cd->load) {
		cd->duty_cycle = 1;
		nodus__v_num(v, o, "duty_cycle", 0, 1, 1, 0, &cd->duty_cycle);
	}
	if (nodus__v_int(v, o, "active_thread_pct", 1, 100, &x) == 1)
		cd->active_thread_pct = (int)x;
}

static void load_conditions(nodus__vctx *v, const json_t *obj, nodus_campaign *c)
{
	json_t *arr = json_object_get(obj, "conditions");
	if (!arr)
		return;
	nodus__v_push_key(v, "conditions");
	int n = nodus__v_array(v, arr, 1, MAX_CONDITIONS, "conditions");
	c->conditions = calloc((size_t)(n > 0 ? n : 1), sizeof(*c->conditions));
	int where[MAX_CONDITIONS], isolated = -1;
	for (int k = 0; c->conditions && k < n; k++) {
		nodus_condition *cd = &c->conditions[c->n_conditions];
		nodus__v_push_index(v, (size_t)k);
		condition_one(v, json_array_get(arr, (size_t)k), c->target.backend, cd);
		if (cd->name[0]) {
			nodus__v_push_key(v, "name");
			if (check_unique(v, c->conditions, c->n_conditions, sizeof(*cd), where,
					 "condition", "conditions") == 0)
				where[c->n_conditions++] = k;
			nodus__v_pop(v);
		}
		/* the first isolated condition nodus judges is the baseline;
		 * later ones re-run it as a recheck of itself */
		if (cd->kind == NODUS_COND_ISOLATED && cd->judge_preset == NODUS_PRESET_NODUS &&
		    isolated < 0)
			isolated = k;
		nodus__v_pop(v);
	}
	if (n > 0 && isolated < 0)
		nodus__v_err(v, 0, "expected a condition of kind isolated without a judge_preset "
				   "(the baseline, judged by nodus), got none");
	nodus__v_pop(v);
}

static void load_target(nodus__vctx *v, const json_t *o, nodus_target *t)
{
	static const nodus__vfield f[] = {{"backend", 1},
					  {"profile", 0},
					  {"price_per_device_hour_usd", 1},
					  {"ceilings", 0},
					  {"python", 0}};
	static const nodus__vfield cf[] = {{"bytes_per_s", 0}, {"flops_per_s", 0}};
	memset(t, 0, sizeof(*t));
	if (!o)
		return;
	nodus__v_push_key(v, "target");
	if (nodus__v_object(v, o, "a target object {\"backend\", \"profile\", ...}")) {
		nodus__v_fields(v, o, f, NODUS_ARRAY_SIZE(f));
		int b;
		if (nodus__v_enum(v, o, "backend", backend_names, 2, &b) == 1)
			t->backend = b + 1;
		nodus__v_str(v, o, "profile", t->profile, sizeof(t->profile));
		/* the interpreter python solutions run with: an absolute path */
		if (nodus__v_str(v, o, "python", t->python, sizeof(t->python)) == 1 &&
		    (t->python[0] != '/' || strpbrk(t->python, "\"\\:\n"))) {
			nodus__v_err_key(v, "python", 0, "expected an absolute path without quotes, "
							 "backslashes or colons, got \"%s\"", t->python);
			t->python[0] = '\0';
		}
		json_t *price = json_object_get(o, "price_per_device_hour_usd");
		if (price && !json_is_null(price))
			t->has_price = nodus__v_num(v, o, "price_per_device_hour_usd", 0, 0, 1e6, 0,
						    &t->price_per_device_hour_usd) == 1;
		/* measured ceilings of the target: a time below the roofline they
		 * imply is not a speedup (the speed-of-light guard) */
		json_t *ceil = json_object_get(o, "ceilings");
		if (ceil) {
			nodus__v_push_key(v, "ceilings");
			if (nodus__v_object(v, ceil, "a ceilings object {\"bytes_per_s\", \"flops_per_s\"}")) {
				nodus__v_fields(v, ceil, cf, 2);
				if (json_object_get(ceil, "bytes_per_s"))
					nodus__v_num(v, ceil, "bytes_per_s", 0, 1, 1e16, 0,
						     &t->ceiling_bytes_per_s);
				if (json_object_get(ceil, "flops_per_s"))
					nodus__v_num(v, ceil, "flops_per_s", 0, 1, 1e19, 0,
						     &t->ceiling_flops_per_s);
			}
			nodus__v_pop(v);
		}
	}
	nodus__v_pop(v);
}

/* ---- campaign ---- */

static const nodus__vfield waiver_fields[] = {
	{"task", 1}, {"workload", 0}, {"check", 1}, {"reason", 1}};

/* "audit": {"waive": [{"task", "workload"?, "check", "reason"}]}: checks
 * of `nodus audit` a campaign deliberately accepts failing, each with why. */
static void load_audit(nodus__vctx *v, const json_t *o, nodus_campaign *c)
{
	static const nodus__vfield f[] = {{"waive", 0}};
	if (!o)
		return;
	nodus__v_push_key(v, "audit");
	if (!nodus__v_object(v, o, "an audit object {\"waive\": [...]}")) {
		nodus__v_pop(v);
		return;
	}
	nodus__v_fields(v, o, f, 1);
	json_t *arr = json_object_get(o, "waive");
	if (arr) {
		nodus__v_push_key(v, "waive");
		int n = nodus__v_array(v, arr, 0, NODUS_MAX_WAIVERS, "waivers");
		for (int k = 0; k < n; k++) {
			json_t *w = json_array_get(arr, (size_t)k);
			nodus_waiver *x = &c->waivers[c->n_waivers];
			memset(x, 0, sizeof(*x));
			nodus__v_push_index(v, (size_t)k);
			if (nodus__v_object(v, w, "a waiver {\"task\", \"check\", \"reason\"}")) {
				nodus__v_fields(v, w, waiver_fields, NODUS_ARRAY_SIZE(waiver_fields));
				int t = -1;
				if (nodus__v_name(v, w, "task", x->task, sizeof(x->task)) == 1 &&
				    (t = nodus_campaign_find_task(c, x->task)) < 0)
					nodus__v_err_key(v, "task", 0,
							 "expected a task of the campaign, got \"%s\"",
							 x->task);
				if (json_object_get(w, "workload") &&
				    nodus__v_name(v, w, "workload", x->workload,
						  sizeof(x->workload)) == 1) {
					int found = 0;
					for (int i = 0; i < c->n_workloads; i++)
						found |= strcmp(c->workloads[i].name, x->workload) == 0 &&
							 c->workloads[i].task == t;
					if (!found)
						nodus__v_err_key(v, "workload", 0,
								 "expected a workload of task \"%s\", "
								 "got \"%s\"",
								 x->task, x->workload);
				}
				if (nodus__v_str(v, w, "check", x->check, sizeof(x->check)) == 1 &&
				    !x->check[0])
					nodus__v_err_key(v, "check", 0,
							 "expected a check name of nodus audit, got \"\"");
				if (nodus__v_str(v, w, "reason", x->reason, sizeof(x->reason)) == 1 &&
				    !x->reason[0])
					nodus__v_err_key(v, "reason", 0,
							 "expected why the check is waived, got \"\"");
				c->n_waivers++;
			}
			nodus__v_pop(v);
		}
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

static void load_all(nodus__vctx *v, const json_t *obj, const char *dir, nodus_campaign *c,
		     nodus_diags *diags)
{
	loader l = {v, dir, diags, NODUS_BUF_INIT, ""};
	int *where = calloc(MAX_WORKLOADS + MAX_SOLUTIONS + MAX_TASKS, sizeof(int));
	if (!where) {
		nodus__v_err(v, 0, "expected to load the campaign, got out of memory");
		return;
	}
	nodus__v_fields(v, obj, campaign_fields, NODUS_ARRAY_SIZE(campaign_fields));
	nodus__v_name(v, obj, "name", c->name, sizeof(c->name));
	load_target(v, json_object_get(obj, "target"), &c->target);
	load_tasks(&l, obj, c, where);
	load_workloads(&l, obj, c, where + MAX_TASKS);
	load_solutions(&l, obj, c, where + MAX_TASKS + MAX_WORKLOADS);
	if (!c->tasks || !c->workloads || !c->solutions)
		nodus__v_err(v, 0, "expected to load the campaign, got out of memory");
	else
		load_pairs(v, obj, c);
	load_judge(v, json_object_get(obj, "judge"), c, &c->judge);
	if (c->judge.tie_margin_short < 0)
		c->judge.tie_margin_short = c->judge.tie_margin;
	if (c->judge.max_rounds_short < 0)
		c->judge.max_rounds_short = c->judge.max_rounds;
	load_conditions(v, obj, c);
	if (c->tasks && c->workloads)
		load_audit(v, json_object_get(obj, "audit"), c);
	nodus_buf_release(&l.text);
	free(where);
}

int nodus__campaign_load_text(const char *file, const char *text, size_t len, const char *dir,
			      nodus_campaign **out, nodus_diags *diags)
{
	*out = NULL;
	size_t before = diags->count;
	json_t *obj = NULL;
	int rc = nodus__spec_parse(file, text, len, &obj, diags);
	if (rc)
		return rc;
	nodus_campaign *c = calloc(1, sizeof(*c));
	if (!c) {
		json_decref(obj);
		return NODUS_ENOMEM;
	}
	snprintf(c->file, sizeof(c->file), "%s", file);
	c->json = obj;
	judge_defaults(&c->judge);
	nodus__vctx v;
	nodus__vctx_init(&v, file, text, len, diags);
	if (nodus__v_header(&v, obj, "campaign") == 0)
		load_all(&v, obj, dir, c, diags);
	nodus__vctx_release(&v);
	if (diags->count > before || v.n_errors) {
		nodus_campaign_free(c);
		return NODUS_EINVAL;
	}
	*out = c;
	return 0;
}

int nodus_campaign_load(const char *path, nodus_campaign **out, nodus_diags *diags)
{
	*out = NULL;
	nodus_buf text = NODUS_BUF_INIT;
	int rc = nodus__spec_read(path, NODUS__SPEC_MAX_BYTES, &text, NULL, diags);
	if (!rc) {
		char dir[512];
		nodus__path_dir(path, dir, sizeof(dir));
		rc = nodus__campaign_load_text(path, text.data, text.len, dir, out, diags);
	}
	nodus_buf_release(&text);
	return rc;
}

void nodus_campaign_free(nodus_campaign *c)
{
	if (!c)
		return;
	for (int k = 0; k < c->n_tasks; k++)
		nodus_task_release(&c->tasks[k]);
	for (int k = 0; k < c->n_workloads; k++)
		nodus_workload_release(&c->workloads[k]);
	for (int k = 0; k < c->n_solutions; k++)
		nodus_solution_release(&c->solutions[k]);
	free(c->tasks);
	free(c->workloads);
	free(c->solutions);
	free(c->pairs);
	free(c->conditions);
	json_decref(c->json);
	free(c);
}

int nodus_campaign_find_task(const nodus_campaign *c, const char *name)
{
	for (int k = 0; k < c->n_tasks; k++)
		if (strcmp(c->tasks[k].name, name) == 0)
			return k;
	return -1;
}

int nodus_campaign_find_solution(const nodus_campaign *c, const char *name)
{
	for (int k = 0; k < c->n_solutions; k++)
		if (strcmp(c->solutions[k].name, name) == 0)
			return k;
	return -1;
}

int nodus_campaign_find_workload(const nodus_campaign *c, const char *name)
{
	for (int k = 0; k < c->n_workloads; k++)
		if (strcmp(c->workloads[k].name, name) == 0)
			return k;
	return -1;
}

const char *nodus_condition_kind_name(int kind)
{
	return kind >= NODUS_COND_ISOLATED && kind <= NODUS_COND_REPLAY
		       ? cond_names[kind - NODUS_COND_ISOLATED]
		       : "?";
}

const char *nodus_judge_preset_name(int preset)
{
	return preset >= 0 && preset < (int)NODUS_ARRAY_SIZE(preset_names) ? preset_names[preset]
									     : "?";
}

const char *nodus_load_name(int load)
{
	return load >= NODUS_LOAD_MEMBW && load <= NODUS_LOAD_MIXED ? load_names[load - NODUS_LOAD_MEMBW]
								   : "none";
}
