/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * plan.c: sealing a campaign into a plan file, verifying a plan, loading a
 * verified plan (see plan.h; the document's shape is in docs/formats.md,
 * section "Plan").
 *
 * The plan document is built by one function, plan_build(), from a loaded
 * campaign and the plan's directory. Sealing writes it; loading rebuilds it
 * from the files the plan names and requires the same document (digest and
 * created_by aside), so a plan can never describe other pairs, hashes or
 * judge values than the ones the runner will use. The digest is the
 * SHA-256 of the canonical JSON (sorted keys, compact) of the document
 * without its "digest" member.
 *
 * Paths inside a plan are relative to the plan file's directory, computed
 * between resolved (realpath) locations, so a plan moved together with its
 * campaign tree stays valid.
 * ------------------------------------------------------------------------ */
#include "plan.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec-internal.h"

#define PLAN_MAX_BYTES (64u << 20)

static const char *const backend_names[] = {"?", "cpu", "cuda"};
static const char *const cond_names[] = {"?", "isolated", "cpu-stress", "timeslice",
					 "mps", "streams", "replay"};
static const char *const load_names[] = {NULL, "membw", "compute", "mixed"};

int nodus__path_relative(const char *from, const char *target, char *out, size_t size)
{
	size_t common = 0, k = 0;
	/* the longest common prefix ending at a component boundary */
	while (from[k] && target[k] && from[k] == target[k]) {
		k++;
		if (from[k] == '/' || (!from[k] && (target[k] == '/' || !target[k])))
			common = k;
	}
	if (strcmp(from, "/") == 0)
		common = 0;
	nodus_buf b = NODUS_BUF_INIT;
	for (const char *p = from + common; *p; p++)
		if (*p == '/')
			nodus_buf_adds(&b, "../");
	const char *rest = target + common;
	while (*rest == '/')
		rest++;
	nodus_buf_adds(&b, rest);
	int n = snprintf(out, size, "%s", b.data);
	nodus_buf_release(&b);
	return n < 0 || (size_t)n >= size ? NODUS_EINVAL : 0;
}

typedef struct builder {
	const char *plan_dir;  /* resolved directory of the plan file */
	json_t *files;         /* [{path, sha256}] being filled */
	nodus_error *err;      /* first failure */
} builder;

/* Adds path (as the campaign names it) to the file list once; rel_out (may
 * be NULL) gets its plan-relative path, sha_out its hash. */
static int add_file(builder *b, const char *path, char *rel_out, char sha_out[NODUS_SHA256_HEX])
{
	char real[PATH_MAX], rel[PATH_MAX], sha[NODUS_SHA256_HEX];
	if (!realpath(path, real))
		return NODUS_ERR(b->err, NODUS_EIO, "cannot resolve '%s': %s", path,
				 strerror(errno));
	if (nodus__path_relative(b->plan_dir, real, rel, sizeof(rel)))
		return NODUS_ERR(b->err, NODUS_EINVAL, "path of '%s' too long", path);
	int rc = nodus_sha256_file(real, sha, b->err);
	if (rc)
		return rc;
	if (rel_out)
		strcpy(rel_out, rel);
	if (sha_out)
		strcpy(sha_out, sha);
	size_t i;
	json_t *f;
	json_array_foreach(b->files, i, f)
		if (strcmp(json_string_value(json_object_get(f, "path")), rel) == 0)
			return 0;
	if (json_array_append_new(b->files, json_pack("{s:s, s:s}", "path", rel, "sha256", sha)))
		return NODUS_ERR(b->err, NODUS_ENOMEM, "out of memory building the plan");
	return 0;
}

static int add_spec_files(builder *b, const nodus_campaign *c)
{
	int rc = 0;
	for (int k = 0; !rc && k < c->n_tasks; k++)
		rc = add_file(b, c->tasks[k].file, NULL, NULL);
	for (int k = 0; !rc && k < c->n_workloads; k++) {
		const nodus_workload *w = &c->workloads[k];
		rc = add_file(b, w->file, NULL, NULL);
		/* a file input's safetensors file: sealed like a source, so
		 * verify names it when it changes (its sha256 is in the
		 * workload as well); marked, for its larger size bound */
		for (int i = 0; !rc && w->task >= 0 && i < c->tasks[w->task].n_inputs; i++) {
			if (!nodus_workload_file_input(w, i))
				continue;
			const char *name = c->tasks[w->task].inputs[i].name;
			const char *rel = json_string_value(json_object_get(
				json_object_get(json_object_get(json_object_get(w->json, "inputs"), name),
						"init"),
				"path"));
			char dir[512], full[1024], prel[PATH_MAX];
			nodus__path_dir(w->file, dir, sizeof(dir));
			if (!rel || nodus__path_join(full, sizeof(full), dir, rel))
				return NODUS_ERR(b->err, NODUS_EINVAL, "file input path too long");
			if ((rc = add_file(b, full, prel, NULL)))
				break;
			size_t n;
			json_t *f;
			json_array_foreach(b->files, n, f)
				if (strcmp(json_string_value(json_object_get(f, "path")), prel) == 0)
					json_object_set_new(f, "input", json_true());
		}
	}
	for (int k = 0; !rc && k < c->n_solutions; k++) {
		const nodus_solution *s = &c->solutions[k];
		rc = add_file(b, s->file, NULL, NULL);
		for (int m = 0; !rc && m < s->n_sources; m++) {
			char full[1024];
			if (nodus__path_join(full, sizeof(full), s->dir, s->sources[m]))
				return NODUS_ERR(b->err, NODUS_EINVAL, "source path too long");
			rc = add_file(b, full, NULL, NULL);
		}
	}
	return rc;
}

/* The audit checks the campaign waives (docs/audit.md), in its order. */
static json_t *audit_json(const nodus_campaign *c)
{
	json_t *waive = json_array();
	for (int k = 0; k < c->n_waivers; k++) {
		const nodus_waiver *w = &c->waivers[k];
		json_array_append_new(waive, json_pack("{s:s, s:s?, s:s, s:s}", "task", w->task,
						       "workload", w->workload[0] ? w->workload : NULL,
						       "check", w->check, "reason", w->reason));
	}
	return json_pack("{s:o}", "waive", waive);
}

static json_t *judge_json_base(const nodus_judge *j)
{
	json_t *retry = json_array();
	for (int s = 0; s < NODUS_STATUS_COUNT_; s++)
		if (j->retry_on & (1u << s))
			json_array_append_new(retry, json_string(nodus_status_name(s)));
	return json_pack(
		"{s:I, s:i, s:i, s:b, s:i, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:I, s:f, s:f, s:I, s:f,"
		" s:i, s:f, s:I, s:i, s:i, s:i, s:i, s:o, s:f, s:i}",
		"seed", (json_int_t)j->seed, "trials", j->trials, "recheck_reps", j->recheck_reps,
		"determinism", j->determinism, "warmup_calls", j->warmup_calls, "warmup_ms",
		j->warmup_ms, "min_rounds", j->min_rounds, "max_rounds", j->max_rounds,
		"max_rounds_short", j->max_rounds_short, "look_every", j->look_every,
		"samples_per_round", j->samples_per_round, "input_copies", j->input_copies, "flush_cache", j->flush_cache, "min_sample_ns",
		(json_int_t)j->min_sample_ns, "tie_margin", j->tie_margin, "tie_margin_short",
		j->tie_margin_short, "short_kernel_ns", (json_int_t)j->short_kernel_ns, "confidence",
		j->confidence, "bootstrap_resamples", j->bootstrap_resamples, "timeout_s",
		j->timeout_s, "address_space_mb", (json_int_t)j->address_space_mb, "cpu_time_s",
		j->cpu_time_s, "open_files", j->open_files, "processes", j->processes,
		"max_attempts", j->max_attempts, "retry_on", retry, "isolation_max_busy_cores",
		j->isolation_max_busy_cores, "oracle_group", j->oracle_group);
}

/* The judge as sealed: min_timed_s, process_sd and tasks only when
 * declared, so that plans sealed before they existed still equal their
 * rebuilt selves. */
static json_t *judge_json(const nodus_judge *j)
{
	json_t *o = judge_json_base(j);
	if (o && j->min_timed_s > 0)
		json_object_set_new(o, "min_timed_s", json_real(j->min_timed_s));
	if (o && j->process_sd > 0)
		json_object_set_new(o, "process_sd", json_real(j->process_sd));
	if (o && j->n_task_judges > 0) {
		json_t *tasks = json_object();
		for (int k = 0; k < j->n_task_judges; k++) {
			const nodus_task_judge *tj = &j->task_judge[k];
			json_t *t = json_object();
			if (tj->tie_margin >= 0)
				json_object_set_new(t, "tie_margin", json_real(tj->tie_margin));
			if (tj->process_sd >= 0)
				json_object_set_new(t, "process_sd", json_real(tj->process_sd));
			json_object_set_new(tasks, tj->task, t);
		}
		json_object_set_new(o, "tasks", tasks);
	}
	return o;
}

static json_t *conditions_json(const nodus_campaign *c)
{
	json_t *arr = json_array();
	for (int k = 0; arr && k < c->n_conditions; k++) {
		const nodus_condition *cd = &c->conditions[k];
		json_t *o = json_pack("{s:s, s:s, s:i, s:f}", "name", cd->name, "kind",
				      cond_names[cd->kind], "tenants", cd->tenants, "duty_cycle",
				      cd->duty_cycle);
		json_object_set_new(o, "load",
				    cd->load ? json_string(load_names[cd->load]) : json_null());
		json_object_set_new(o, "active_thread_pct",
				    cd->active_thread_pct ? json_integer(cd->active_thread_pct)
							  : json_null());
		/* only when declared: plans sealed before presets keep their digest */
		if (cd->judge_preset != NODUS_PRESET_NODUS)
			json_object_set_new(o, "judge_preset",
					    json_string(nodus_judge_preset_name(cd->judge_preset)));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *solutions_json(const nodus_campaign *c)
{
	json_t *arr = json_array();
	for (int k = 0; arr && k < c->n_solutions; k++) {
		const nodus_solution *s = &c->solutions[k];
		json_t *libs = json_array();
		for (int m = 0; m < s->n_libs; m++)
			json_array_append_new(libs, json_string(s->libs[m]));
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", s->name,
						     "task", s->task_name, "hash", s->hash,
						     "backend", backend_names[s->backend], "libs",
						     libs));
	}
	return arr;
}

static json_t *pairs_json(const nodus_campaign *c)
{
	json_t *arr = json_array();
	for (int k = 0; arr && k < c->n_pairs; k++) {
		const nodus_pair_spec *p = &c->pairs[k];
		const nodus_workload *w = &c->workloads[p->workload];
		const nodus_solution *cand = &c->solutions[p->candidate];
		const nodus_solution *ref = &c->solutions[p->reference];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id", p->id, "task",
				      w->task_name, "workload", w->name, "candidate", cand->name,
				      "reference", ref->name, "candidate_hash", cand->hash,
				      "reference_hash", ref->hash);
		json_object_set_new(o, "expect", p->expect[0] ? json_string(p->expect) : json_null());
		/* only when declared: a plan without effects keeps its digest */
		if (p->has_effect)
			json_object_set_new(o, "effect", json_real(p->effect));
		/* enough of the workload for a report to stand alone (trace export) */
		const nodus_task *t = &c->tasks[w->task];
		json_t *axes = json_object(), *inputs = json_array();
		for (int a = 0; a < t->n_axes; a++)
			if (!t->axes[a].is_const)
				json_object_set_new(axes, t->axes[a].name, json_integer(w->axis_value[a]));
		json_t *files = json_array();
		for (int i = 0; i < t->n_inputs; i++) {
			json_array_append_new(inputs, json_string(t->inputs[i].name));
			if (nodus_workload_file_input(w, i))
				json_array_append_new(files, json_string(t->inputs[i].name));
		}
		json_object_set_new(o, "axes", axes);
		json_object_set_new(o, "inputs", inputs);
		/* the inputs whose values are a file's (a trace names them as
		 * safetensors inputs); only when there are any, so a plan
		 * without keeps its digest */
		if (json_array_size(files))
			json_object_set_new(o, "file_inputs", files);
		else
			json_decref(files);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* The plan document (without "digest") for a loaded campaign. */
static json_t *plan_build(const nodus_campaign *c, const char *plan_dir, nodus_error *err)
{
	builder b = {plan_dir, json_array(), err};
	char rel[PATH_MAX], sha[NODUS_SHA256_HEX];
	json_t *plan = NULL;
	if (!b.files) {
		NODUS_ERR(err, NODUS_ENOMEM, "out of memory building the plan");
		goto out;
	}
	if (add_file(&b, c->file, rel, sha) || add_spec_files(&b, c))
		goto out;
	const nodus_target *t = &c->target;
	json_t *target = json_pack("{s:s, s:s}", "backend", backend_names[t->backend], "profile",
				   t->profile);
	json_object_set_new(target, "price_per_device_hour_usd",
			    t->has_price ? json_real(t->price_per_device_hour_usd) : json_null());
	if (t->ceiling_bytes_per_s > 0 || t->ceiling_flops_per_s > 0) {
		json_t *ceil = json_object();
		if (t->ceiling_bytes_per_s > 0)
			json_object_set_new(ceil, "bytes_per_s", json_real(t->ceiling_bytes_per_s));
		if (t->ceiling_flops_per_s > 0)
			json_object_set_new(ceil, "flops_per_s", json_real(t->ceiling_flops_per_s));
		json_object_set_new(target, "ceilings", ceil);
	}
	plan = json_pack("{s:s, s:i, s:s, s:s, s:s, s:O, s:o, s:o, s:o, s:o, s:o, s:s}", "kind",
			 "plan", "format", 1, "campaign", c->name, "campaign_path", rel,
			 "campaign_sha256", sha, "files", b.files, "solutions", solutions_json(c),
			 "pairs", pairs_json(c), "judge", judge_json(&c->judge), "conditions",
			 conditions_json(c), "target", target, "created_by",
			 "nodus " NODUS_VERSION);
	if (!plan)
		NODUS_ERR(err, NODUS_ENOMEM, "out of memory building the plan");
	else
		json_object_set_new(plan, "audit", audit_json(c));
out:
	json_decref(b.files);
	return plan;
}

/* SHA-256 of the canonical form of plan without its "digest" member. */
static int plan_digest(const json_t *plan, char out[NODUS_SHA256_HEX])
{
	json_t *copy = json_copy((json_t *)plan);
	if (!copy)
		return NODUS_ENOMEM;
	json_object_del(copy, "digest");
	char *text = nodus_json_canonical(copy);
	json_decref(copy);
	if (!text)
		return NODUS_ENOMEM;
	nodus_sha256_hex(text, strlen(text), out);
	free(text);
	return 0;
}

static int resolve_dir(const char *file, char out[PATH_MAX], nodus_error *err)
{
	char dir[PATH_MAX];
	nodus__path_dir(file, dir, sizeof(dir));
	if (!realpath(dir, out))
		return NODUS_ERR(err, NODUS_EIO, "cannot resolve directory '%s': %s", dir,
				 strerror(errno));
	return 0;
}

static int write_all(int fd, const char *name, const char *text, nodus_error *err)
{
	size_t len = strlen(text), done = 0;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", name,
					 strerror(errno));
		done += (size_t)n;
	}
	return 0;
}

/* Writes text to path through a temporary file in the same directory and
 * rename(), so readers see the old plan or the new one, never a part. */
static int write_atomic(const char *path, const char *text, nodus_error *err)
{
	/* a rename over a FIFO, a terminal or /dev/null would put a regular
	 * file in its place (as root, /dev/null itself); a plan names its
	 * files relative to its own directory, so it is a file, never a stream */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return NODUS_ERR(err, NODUS_EUSAGE,
				 "-o %s: exists and is not a regular file; a plan is a file beside "
				 "the paths it names (name a file)",
				 path);
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return NODUS_ERR(err, NODUS_EINVAL, "plan path too long: '%s'", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", tmp, strerror(errno));
	int rc = write_all(fd, tmp, text, err);
	if (!rc && fsync(fd) != 0)
		rc = NODUS_ERR(err, NODUS_EIO, "cannot sync '%s': %s", tmp, strerror(errno));
	if (close(fd) != 0 && !rc)
		rc = NODUS_ERR(err, NODUS_EIO, "cannot close '%s': %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path) != 0)
		rc = NODUS_ERR(err, NODUS_EIO, "cannot rename '%s' to '%s': %s", tmp, path,
			       strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

static int refuse_output(const char *input, const char *out_path, const char *what,
			 nodus_error *err)
{
	return NODUS_ERR(err, NODUS_EUSAGE,
			 "-o %s: is the %s '%s', an input of this command; refusing to write "
			 "over it (name another file)",
			 out_path, what, input);
}

int nodus_campaign_check_output(const nodus_campaign *c, const char *out_path,
				nodus_error *err)
{
	if (nodus_same_file(c->file, out_path))
		return refuse_output(c->file, out_path, "campaign", err);
	for (int k = 0; k < c->n_tasks; k++)
		if (nodus_same_file(c->tasks[k].file, out_path))
			return refuse_output(c->tasks[k].file, out_path, "task file", err);
	for (int k = 0; k < c->n_workloads; k++)
		if (nodus_same_file(c->workloads[k].file, out_path))
			return refuse_output(c->workloads[k].file, out_path, "workload file", err);
	for (int k = 0; k < c->n_solutions; k++) {
		const nodus_solution *s = &c->solutions[k];
		if (nodus_same_file(s->file, out_path))
			return refuse_output(s->file, out_path, "solution file", err);
		for (int m = 0; m < s->n_sources; m++) {
			char full[1024];
			if (nodus__path_join(full, sizeof(full), s->dir, s->sources[m]) == 0 &&
			    nodus_same_file(full, out_path))
				return refuse_output(full, out_path, "source", err);
		}
	}
	return 0;
}

int nodus_plan_seal(const char *campaign_path, const char *out_path,
		    char digest_out[NODUS_SHA256_HEX], nodus_diags *diags, nodus_error *err)
{
	nodus_campaign *c = NULL;
	json_t *plan = NULL;
	char *text = NULL, plan_dir[PATH_MAX], digest[NODUS_SHA256_HEX];
	int rc = nodus_campaign_load(campaign_path, &c, diags);
	if (rc) {
		NODUS_ERR(err, rc, "campaign '%s' has faults", campaign_path);
		goto out;
	}
	if ((rc = nodus_campaign_check_output(c, out_path, err)))
		goto out;
	if ((rc = resolve_dir(out_path, plan_dir, err)))
		goto out;
	if (!(plan = plan_build(c, plan_dir, err))) {
		rc = err ? err->code : NODUS_ENOMEM;
		goto out;
	}
	if ((rc = plan_digest(plan, digest)) ||
	    json_object_set_new(plan, "digest", json_string(digest)) ||
	    !(text = json_dumps(plan, JSON_INDENT(2) | JSON_SORT_KEYS))) {
		rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory writing the plan");
		goto out;
	}
	nodus_buf body = NODUS_BUF_INIT;
	if (nodus_buf_adds(&body, text) || nodus_buf_adds(&body, "\n"))
		rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory writing the plan");
	else
		rc = write_atomic(out_path, body.data, err);
	nodus_buf_release(&body);
	if (!rc)
		memcpy(digest_out, digest, NODUS_SHA256_HEX);
out:
	free(text);
	json_decref(plan);
	nodus_campaign_free(c);
	return rc;
}

/* ---- verify ---- */

static void diag(nodus_diags *diags, int code, const char *file, const char *path,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void diag(nodus_diags *diags, int code, const char *file, const char *path,
		 const char *fmt, ...)
{
	nodus_error e;
	char msg[sizeof(e.message)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	NODUS_ERR_AT(&e, code, file, 0, 0, path, "%s", msg);
	nodus_diags_push(diags, &e);
}

static int is_sha_hex(const json_t *j)
{
	const char *s = json_string_value(j);
	if (!s || strlen(s) != 64)
		return 0;
	return strspn(s, "0123456789abcdef") == 64;
}

/* Reads plan_path into *out after checking the members verify relies on. */
static int plan_read(const char *plan_path, json_t **out, nodus_diags *diags)
{
	nodus_buf text = NODUS_BUF_INIT;
	*out = NULL;
	int rc = nodus__spec_read(plan_path, PLAN_MAX_BYTES, &text, NULL, diags);
	if (rc)
		goto out;
	json_t *plan = NULL;
	if ((rc = nodus__spec_parse(plan_path, text.data, text.len, &plan, diags)))
		goto out;
	json_t *files = json_object_get(plan, "files");
	int ok = json_is_object(plan) &&
		 json_is_string(json_object_get(plan, "kind")) &&
		 strcmp(json_string_value(json_object_get(plan, "kind")), "plan") == 0 &&
		 json_integer_value(json_object_get(plan, "format")) == 1 &&
		 is_sha_hex(json_object_get(plan, "digest")) && json_is_array(files) &&
		 json_is_string(json_object_get(plan, "campaign_path"));
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
		ok = ok && json_is_string(json_object_get(f, "path")) &&
		     is_sha_hex(json_object_get(f, "sha256"));
	if (!ok) {
		diag(diags, NODUS_EPARSE, plan_path, "$",
		     "expected a plan written by nodus plan (kind \"plan\", format 1, digest, "
		     "files), got something else");
		json_decref(plan);
		rc = NODUS_EPARSE;
		goto out;
	}
	*out = plan;
out:
	nodus_buf_release(&text);
	return rc;
}

/* Lexically resolves "." and ".." in path (absolute, under a directory
 * with no symbolic link in it) into out. */
static void normalise(const char *path, char *out, size_t size)
{
	size_t n = 0;
	out[0] = '\0';
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[--n] != '/')
				;
			out[n] = '\0';
		} else if (!(len == 1 && p[0] == '.') && n + len + 2 < size) {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
			out[n] = '\0';
		}
		p += len;
	}
	if (n == 0)
		snprintf(out, size, "/");
}

/* 1 when a symbolic link now stands on the way from real_dir (resolved) to
 * rel: sealing stored every path resolved, so a link there appeared after
 * sealing (a source turned into a link to /etc/passwd or /dev/zero). */
static int link_on_path(const char *real_dir, const char *rel, char *target, size_t size)
{
	char joined[PATH_MAX], lexical[PATH_MAX], real[PATH_MAX];
	if (nodus__path_join(joined, sizeof(joined), real_dir, rel))
		return 0;
	normalise(joined, lexical, sizeof(lexical));
	if (!realpath(joined, real))
		return 0; /* missing: the hash reports it */
	snprintf(target, size, "%s", real);
	return strcmp(lexical, real) != 0;
}

/* Checks every sealed file: no symbolic link on its way, a regular file of
 * at most the size check allows (the same function and words as check),
 * the sealed hash. shown_dir is the plan's directory as the user wrote it
 * (files are named through it), real_dir the same resolved. */
static int verify_files(const json_t *plan, const char *shown_dir, const char *real_dir,
			nodus_diags *diags)
{
	int rc = 0;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(plan, "files"), i, f) {
		char full[PATH_MAX], sha[NODUS_SHA256_HEX], target[PATH_MAX];
		const char *want = json_string_value(json_object_get(f, "sha256"));
		const char *rel = json_string_value(json_object_get(f, "path"));
		struct stat st;
		if (nodus__path_join(full, sizeof(full), shown_dir, rel)) {
			rc = NODUS_ECHANGED;
			continue;
		}
		if (lstat(full, &st) != 0) {
			diag(diags, NODUS_ECHANGED, full, "",
			     "changed since sealing: expected sha256 %s, got no file (%s)", want,
			     strerror(errno));
			rc = NODUS_ECHANGED;
		} else if (nodus__spec_hash_file(full,
						 json_is_true(json_object_get(f, "input"))
							 ? NODUS__FILE_INPUT_MAX_BYTES
							 : NODUS__SOURCE_MAX_BYTES,
						 sha, diags)) {
			rc = NODUS_ECHANGED; /* the diag says why, in check's words */
		} else if (link_on_path(real_dir, rel, target, sizeof(target))) {
			diag(diags, NODUS_ECHANGED, full, "",
			     "changed since sealing: expected the sealed file, got a symbolic link "
			     "on its path to \"%s\" (guard sealed_link)",
			     target);
			rc = NODUS_ECHANGED;
		} else if (strcmp(sha, want) != 0) {
			diag(diags, NODUS_ECHANGED, full, "",
			     "changed since sealing: expected sha256 %s, got %s", want, sha);
			rc = NODUS_ECHANGED;
		}
	}
	return rc;
}

static int verify_open(const char *plan_path, json_t **plan_out, char plan_dir[PATH_MAX],
		       nodus_diags *diags)
{
	json_t *plan = NULL;
	nodus_error e;
	*plan_out = NULL;
	int rc = plan_read(plan_path, &plan, diags);
	if (rc)
		return rc;
	if ((rc = resolve_dir(plan_path, plan_dir, &e))) {
		e.code = rc;
		snprintf(e.file, sizeof(e.file), "%s", plan_path);
		nodus_diags_push(diags, &e);
		json_decref(plan);
		return rc;
	}
	char digest[NODUS_SHA256_HEX];
	if ((rc = plan_digest(plan, digest))) {
		json_decref(plan);
		return rc;
	}
	const char *want = json_string_value(json_object_get(plan, "digest"));
	if (strcmp(digest, want) != 0) {
		diag(diags, NODUS_ECHANGED, plan_path, "$.digest",
		     "expected %s (the digest of the plan's content), got %s: the plan was "
		     "edited after sealing",
		     digest, want);
		rc = NODUS_ECHANGED;
	}
	char shown_dir[PATH_MAX];
	nodus__path_dir(plan_path, shown_dir, sizeof(shown_dir));
	int frc = verify_files(plan, shown_dir, plan_dir, diags); /* names files as the user reaches them */
	*plan_out = plan;
	return rc ? rc : frc;
}

/* An array entry's id, or its name, or NULL. */
static const char *entry_name(const json_t *e)
{
	const char *id = json_string_value(json_object_get(e, "id"));
	return id ? id : json_string_value(json_object_get(e, "name"));
}

/* Appends to b, for one member of the plan document, what differs between
 * the sealed value and the one the files give now: an object's keys with
 * both values, an array's entries (by id or name) sealed only or now only. */
static void describe_member(nodus_buf *b, const char *member, json_t *was, json_t *now)
{
	const char *key;
	json_t *v;
	if (json_is_object(was) && json_is_object(now)) {
		json_object_foreach(was, key, v) {
			json_t *w = json_object_get(now, key);
			if (json_equal(v, w))
				continue;
			size_t flags = JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10);
			char *a = json_dumps(v, flags);
			char *n = w ? json_dumps(w, flags) : NULL;
			nodus_buf_addf(b, "; %s.%s: sealed %.60s, now %.60s", member, key, a ? a : "?",
				       n ? n : "absent");
			free(a);
			free(n);
		}
		json_object_foreach(now, key, v)
			if (!json_object_get(was, key))
				nodus_buf_addf(b, "; %s.%s: new", member, key);
		return;
	}
	if (json_is_array(was) && json_is_array(now)) {
		nodus_buf_addf(b, "; %s: %zu sealed, %zu now", member, json_array_size(was),
			       json_array_size(now));
		for (int side = 0; side < 2; side++) {
			json_t *from = side ? now : was, *other = side ? was : now, *e;
			size_t i;
			json_array_foreach(from, i, e) {
				const char *id = entry_name(e);
				int same = 0, named = 0;
				size_t j;
				json_t *o;
				json_array_foreach(other, j, o) {
					same |= json_equal(e, o);
					named |= id && entry_name(o) && strcmp(id, entry_name(o)) == 0;
				}
				if (same || (side && named)) /* a changed entry is named once */
					continue;
				nodus_buf_addf(b, ", %s %s", named ? "changed" : side ? "new" : "gone",
					       id ? id : "(an entry)");
			}
		}
		return;
	}
	nodus_buf_addf(b, "; %s differs", member);
}

/* After a file of the plan changed: what the change means for the plan,
 * from the campaign as its files now resolve (one diag on the plan). Says
 * nothing when the files no longer load (their faults are for check). */
static void explain_change(const json_t *plan, const char *plan_dir, const char *plan_path,
			   nodus_diags *diags)
{
	static const char *const members[] = {"pairs", "solutions", "judge", "conditions",
					      "target", "audit"};
	char campaign[PATH_MAX];
	nodus_campaign *c = NULL;
	nodus_diags ignored = NODUS_DIAGS_INIT;
	nodus_error e;
	json_t *now = NULL;
	nodus_buf b = NODUS_BUF_INIT;
	const char *rel = json_string_value(json_object_get(plan, "campaign_path"));
	if (!rel || nodus__path_join(campaign, sizeof(campaign), plan_dir, rel) ||
	    nodus_campaign_load(campaign, &c, &ignored) || !(now = plan_build(c, plan_dir, &e)))
		goto out;
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(members); k++)
		if (!json_equal(json_object_get(plan, members[k]), json_object_get(now, members[k])))
			describe_member(&b, members[k], json_object_get(plan, members[k]),
					json_object_get(now, members[k]));
	diag(diags, NODUS_ECHANGED, plan_path, "$",
	     "the files now give %s%s; seal the campaign again ('nodus plan %s -o %s'): a new "
	     "plan, whose records are kept apart from this one's",
	     b.len ? "another plan" : "the same pairs, judge, conditions and target (only the "
				     "file bytes changed)",
	     b.len ? b.data : "", campaign, plan_path);
out:
	nodus_buf_release(&b);
	json_decref(now);
	nodus_campaign_free(c);
	nodus_diags_release(&ignored);
}

/* explain_change() for a plan whose own digest holds: a plan edited by
 * hand has nothing to explain, it is simply not sealed. */
static void explain_if_sealed(const json_t *plan, const char *plan_dir, const char *plan_path,
			      nodus_diags *diags)
{
	char digest[NODUS_SHA256_HEX];
	const char *want = json_string_value(json_object_get(plan, "digest"));
	if (plan && want && plan_digest(plan, digest) == 0 && strcmp(digest, want) == 0)
		explain_change(plan, plan_dir, plan_path, diags);
}

int nodus_plan_verify(const char *plan_path, nodus_diags *diags)
{
	json_t *plan = NULL;
	char plan_dir[PATH_MAX];
	int rc = verify_open(plan_path, &plan, plan_dir, diags);
	if (rc == NODUS_ECHANGED)
		explain_if_sealed(plan, plan_dir, plan_path, diags);
	json_decref(plan);
	return rc;
}

/* ---- load ---- */

/* Compares the sealed plan with the one rebuilt from the loaded files,
 * member by member (digest and created_by aside). */
static int plan_compare(const char *plan_path, const json_t *sealed, const json_t *rebuilt,
			nodus_diags *diags)
{
	static const char *const members[] = {"kind",  "format",    "campaign",
					      "campaign_path", "campaign_sha256", "files",
					      "solutions", "pairs", "judge", "conditions", "target",
					      "audit"};
	int rc = 0;
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(members); k++) {
		if (json_equal(json_object_get(sealed, members[k]),
			       json_object_get(rebuilt, members[k])))
			continue;
		char path[64];
		snprintf(path, sizeof(path), "$.%s", members[k]);
		diag(diags, NODUS_ECHANGED, plan_path, path,
		     "expected the campaign's files to resolve to the sealed %s, got a "
		     "different value (sealed by another nodus version?)",
		     members[k]);
		rc = NODUS_ECHANGED;
	}
	return rc;
}

int nodus_plan_load(const char *plan_path, nodus_plan **out, nodus_diags *diags)
{
	json_t *plan = NULL, *rebuilt = NULL;
	nodus_campaign *c = NULL;
	char plan_dir[PATH_MAX], campaign[PATH_MAX];
	nodus_error e;
	*out = NULL;
	int rc = verify_open(plan_path, &plan, plan_dir, diags);
	if (rc == NODUS_ECHANGED)
		explain_if_sealed(plan, plan_dir, plan_path, diags);
	if (rc)
		goto out;
	if (nodus__path_join(campaign, sizeof(campaign), plan_dir,
			     json_string_value(json_object_get(plan, "campaign_path")))) {
		rc = NODUS_EINVAL;
		goto out;
	}
	if ((rc = nodus_campaign_load(campaign, &c, diags)))
		goto out;
	if (!(rebuilt = plan_build(c, plan_dir, &e))) {
		rc = e.code;
		snprintf(e.file, sizeof(e.file), "%s", plan_path);
		nodus_diags_push(diags, &e);
		goto out;
	}
	if ((rc = plan_compare(plan_path, plan, rebuilt, diags)))
		goto out;
	nodus_plan *p = calloc(1, sizeof(*p));
	if (!p) {
		rc = NODUS_ENOMEM;
		goto out;
	}
	snprintf(p->path, sizeof(p->path), "%s", plan_path);
	snprintf(p->digest, sizeof(p->digest), "%s",
		 json_string_value(json_object_get(plan, "digest")));
	p->json = plan;
	p->campaign = c;
	plan = NULL;
	c = NULL;
	*out = p;
out:
	json_decref(plan);
	json_decref(rebuilt);
	nodus_campaign_free(c);
	return rc;
}

void nodus_plan_free(nodus_plan *p)
{
	if (!p)
		return;
	json_decref(p->json);
	nodus_campaign_free(p->campaign);
	free(p);
}
