/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * submission.c: a submission's JSON (docs/serve.md), parsed and validated
 * before it is stored, and its candidate written out as a solution file
 * when it is batched.
 *
 * A submission names a base campaign (optional when the server has one),
 * a workload of it and a reference solution of it (optional: the
 * reference of the campaign's first pair on that workload), and carries
 * the candidate as the JSON a solution file holds, with two differences:
 * "name" may be left out (the batch names it), "task" too (the workload's
 * task), and each entry of "sources" is {"path": NAME, "content": TEXT}
 * instead of a path. The solution goes through nodus_solution_from_json,
 * the check `nodus check` applies to a solution file, on its sources
 * written to a scratch directory; its faults come back with their JSON
 * path in the request body, its line and column. Unknown fields are
 * faults, as everywhere in nodus.
 *
 * A source's path is one file name of [A-Za-z0-9._-] (not "." or "..",
 * at most 128 bytes): it is written to disk before the checker sees it,
 * so nothing it names may leave the directory.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "import/kernelbench.h"
#include "serve/serve-internal.h"

static const char *str_or(const char *s)
{
	return s ? s : "";
}
#include "spec/jsonpos.h"

/* Adds a fault at json_path of the body (located in it by idx when found). */
static void fault(nodus_diags *d, const nodus__jsonpos *idx, int code, const char *path,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void fault(nodus_diags *d, const nodus__jsonpos *idx, int code, const char *path,
		  const char *fmt, ...)
{
	nodus_error e;
	memset(&e, 0, sizeof(e));
	e.code = code;
	snprintf(e.file, sizeof(e.file), "request");
	snprintf(e.json_path, sizeof(e.json_path), "%s", path);
	if (idx)
		nodus__jsonpos_find(idx, path, 0, &e.line, &e.column);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	nodus_diags_push(d, &e);
}

const nodus__serve_base *nodus__serve_find_base(const nodus__serve *sv, const char *name)
{
	for (int i = 0; i < sv->n_bases; i++)
		if (strcmp(sv->bases[i].c->name, name) == 0)
			return &sv->bases[i];
	return NULL;
}

/* An optional string member into dst; a fault when present and not a
 * string of 1..size-1 bytes. */
static void opt_str(json_t *obj, const char *key, char *dst, size_t size, const char *path,
		    const nodus__jsonpos *idx, nodus_diags *d)
{
	json_t *v = json_object_get(obj, key);
	dst[0] = '\0';
	if (!v)
		return;
	const char *s = json_string_value(v);
	if (!s || !s[0] || strlen(s) >= size) {
		fault(d, idx, NODUS_EINVAL, path, "expected a string of 1 to %zu bytes", size - 1);
		return;
	}
	snprintf(dst, size, "%s", s);
}

static int safe_file_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 128 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* Checks sources' form ([{path, content}], unique safe paths); 0 if good. */
static int check_sources(json_t *sources, const nodus__jsonpos *idx, nodus_diags *d)
{
	size_t i, before = d->count;
	json_t *e;
	char path[96];
	if (!json_is_array(sources) || json_array_size(sources) == 0) {
		fault(d, idx, NODUS_EINVAL, "$.solution.sources", "expected a non-empty array of "
		      "{\"path\": FILE_NAME, \"content\": TEXT}");
		return -1;
	}
	json_array_foreach(sources, i, e) {
		snprintf(path, sizeof(path), "$.solution.sources[%zu]", i);
		const char *p = json_string_value(json_object_get(e, "path"));
		if (!json_is_object(e) || json_object_size(e) != 2 || !p ||
		    !json_is_string(json_object_get(e, "content"))) {
			fault(d, idx, NODUS_EINVAL, path, "expected {\"path\": FILE_NAME, \"content\": "
			      "TEXT} and no other member");
			continue;
		}
		if (!safe_file_name(p))
			fault(d, idx, NODUS_EINVAL, path, "path: expected one file name of letters, "
			      "digits, '.', '_' and '-' (at most 128 bytes, not '.' or '..'), got "
			      "\"%.128s\"", p);
		for (size_t k = 0; k < i; k++)
			if (strcmp(str_or(json_string_value(json_object_get(json_array_get(sources, k),
								     "path"))), p) == 0)
				fault(d, idx, NODUS_EINVAL, path, "path: \"%s\" is given twice", p);
	}
	return d->count > before ? -1 : 0;
}

/* Writes a new file; durable: fsync it too (what a batch is sealed over
 * must be whole; a scratch copy for a check need not be). */
static int write_all(const char *path, const char *data, size_t len, int durable,
		     nodus_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", path, strerror(errno));
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int rc = NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path,
					   strerror(errno));
			close(fd);
			return rc;
		}
		done += (size_t)w;
	}
	if ((durable && fsync(fd)) || close(fd))
		return NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int nodus__serve_write_solution(const char *solution_json, const char *name, const char *dir,
				int durable, nodus_error *err)
{
	json_t *sol = json_loads(solution_json, 0, NULL);
	json_t *paths = json_array();
	char path[1400];
	int rc = 0;
	if (!sol || !paths) {
		rc = NODUS_ERR(err, NODUS_EINTERNAL, "serve: a stored solution does not parse");
		goto out;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(sol, "sources"), i, e) {
		const char *p = json_string_value(json_object_get(e, "path"));
		const char *text = json_string_value(json_object_get(e, "content"));
		if (!p || !text || !safe_file_name(p)) {
			rc = NODUS_ERR(err, NODUS_EINTERNAL, "serve: a stored solution's source is "
				       "not {path, content}");
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, p);
		if ((rc = write_all(path, text, json_string_length(json_object_get(e, "content")),
				    durable, err)))
			goto out;
		json_array_append_new(paths, json_string(p));
	}
	json_object_set(sol, "sources", paths);
	json_object_set_new(sol, "name", json_string(name));
	char *text = json_dumps(sol, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text) {
		rc = NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/solution.json", dir);
	rc = write_all(path, text, strlen(text), durable, err);
	free(text);
out:
	json_decref(sol);
	json_decref(paths);
	return rc;
}

/* Runs the solution checker on sol (sources inline) in a scratch
 * directory; its faults are moved under $.solution. */
static int check_solution(nodus__serve *sv, json_t *sol, const char *want_task, int backend,
			  const nodus__jsonpos *idx, nodus_diags *d)
{
	char dir[1200], *text = json_dumps(sol, JSON_COMPACT);
	nodus_error err;
	memset(&err, 0, sizeof(err));
	snprintf(dir, sizeof(dir), "%s/tmp/check-XXXXXX", sv->files_dir);
	if (!text)
		return NODUS_ENOMEM;
	if (!mkdtemp(dir)) {
		free(text);
		fault(d, NULL, NODUS_EIO, "", "serve: cannot make a scratch directory under %s/tmp: "
		      "%s", sv->files_dir, strerror(errno));
		return NODUS_EIO;
	}
	int rc = nodus__serve_write_solution(text, "candidate", dir, 0, &err);
	free(text);
	if (rc) {
		nodus_diags_push(d, &err);
		nodus_remove_tree(dir);
		return rc;
	}
	json_t *written = json_load_file(strcat(dir, "/solution.json"), 0, NULL);
	dir[strlen(dir) - strlen("/solution.json")] = '\0';
	nodus_solution s;
	nodus_diags sd = NODUS_DIAGS_INIT;
	memset(&s, 0, sizeof(s));
	rc = written ? nodus_solution_from_json(written, "request", NULL, dir, &s, &sd)
		     : NODUS_EINTERNAL;
	for (size_t i = 0; i < sd.count; i++) {
		char path[256];
		const char *jp = sd.items[i].json_path;
		snprintf(path, sizeof(path), "$.solution%s", jp[0] == '$' ? jp + 1 : "");
		fault(d, idx, sd.items[i].code, path, "%s", sd.items[i].message);
	}
	if (!rc && strcmp(s.task_name, want_task) != 0)
		rc = (fault(d, idx, NODUS_EINVAL, "$.solution.task", "expected \"%s\" (the "
			    "workload's task), got \"%s\"", want_task, s.task_name), NODUS_EINVAL);
	if (!rc && s.backend != backend)
		rc = (fault(d, idx, NODUS_EINVAL, "$.solution.backend", "expected the base "
			    "campaign's backend (%s)", backend == NODUS_BACKEND_CPU ? "cpu" : "cuda"),
		      NODUS_EINVAL);
	nodus_diags_release(&sd);
	nodus_solution_release(&s);
	json_decref(written);
	nodus_remove_tree(dir);
	return rc;
}

/* A KernelBench ModelNew source ({"path": NAME.py, "content": TEXT}) as
 * the solution `nodus import kernelbench-candidate` makes of it: module
 * style, entry ModelNew, the reference's python.init and python.params
 * (the reference must be a python module solution, as an imported
 * KernelBench problem's is). NULL, with a fault, when it cannot be. */
static json_t *kb_solution(const nodus__serve_base *base, const char *reference, json_t *kb,
			   const nodus__jsonpos *idx, nodus_diags *d)
{
	const nodus_campaign *c = base->c;
	const char *path = json_string_value(json_object_get(kb, "path"));
	json_t *content = json_object_get(kb, "content");
	if (!json_is_object(kb) || json_object_size(kb) != 2 || !path || !json_is_string(content)) {
		fault(d, idx, NODUS_EINVAL, "$.kernelbench", "expected {\"path\": FILE.py, "
		      "\"content\": the ModelNew module's source} and no other member");
		return NULL;
	}
	int r = nodus_campaign_find_solution(c, reference);
	const nodus_solution *ref = r >= 0 ? &c->solutions[r] : NULL;
	if (!ref || ref->language != NODUS_LANG_PYTHON || ref->py_style != NODUS_PY_MODULE) {
		fault(d, idx, NODUS_EINVAL, "$.reference", "a kernelbench candidate needs a reference "
		      "that is a python module solution (as `nodus import kernelbench` makes), got "
		      "\"%s\"", reference);
		return NULL;
	}
	json_t *py = json_object_get(ref->json, "python");
	json_t *sol = nodus__kb_candidate("candidate", ref->task_name, path,
					  json_object_get(py, "init"), json_object_get(py, "params"));
	if (!sol)
		return NULL;
	json_object_set_new(sol, "backend", json_string(c->target.backend == NODUS_BACKEND_CPU
								? "cpu" : "cuda"));
	json_object_set_new(sol, "sources", json_pack("[{s:s, s:O}]", "path", path, "content",
						      content));
	return sol;
}

/* A path of a whole campaign's file: 1 to 4 safe file names joined by '/'. */
static int safe_rel_path(const char *p)
{
	char buf[600];
	int parts = 0;
	if (strlen(p) >= sizeof(buf))
		return 0;
	snprintf(buf, sizeof(buf), "%s", p);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!safe_file_name(c) || ++parts > 4)
			return 0;
	}
	return parts > 0 && p[0] != '/' && p[strlen(p) - 1] != '/' && !strstr(p, "//");
}

/* Writes the files (path -> text) under dir, making the folders. */
static int write_tree(json_t *files, const char *dir, int durable, nodus_error *err)
{
	const char *rel;
	json_t *v;
	char path[1600];
	json_object_foreach(files, rel, v) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
			*s = '\0';
			if (mkdir(path, 0755) && errno != EEXIST)
				return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", path,
						 strerror(errno));
			*s = '/';
		}
		int rc = write_all(path, json_string_value(v), json_string_length(v), durable, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* 1 when every file the campaign loaded lies under dir (its own tree):
 * a campaign's paths may hold "..", and a client may not make the server
 * read its other files. */
static int inside(const nodus_campaign *c, const char *dir, char *bad, size_t size)
{
	char real[PATH_MAX];
	size_t n = strlen(dir);
	for (int k = 0; k < c->n_tasks + c->n_workloads + c->n_solutions; k++) {
		const char *f = k < c->n_tasks ? c->tasks[k].file
			: k < c->n_tasks + c->n_workloads ? c->workloads[k - c->n_tasks].file
			: c->solutions[k - c->n_tasks - c->n_workloads].file;
		if (!realpath(f, real) || strncmp(real, dir, n) != 0 || real[n] != '/') {
			snprintf(bad, size, "%s", f);
			return 0;
		}
	}
	return 1;
}

/* Validates the whole campaign in tmp (nodus_campaign_load: the checks of
 * `nodus check`); its faults named by their file in campaign_files. */
static int check_campaign(const char *tmp, char *name, size_t size, const nodus__jsonpos *idx,
			  nodus_diags *d)
{
	char path[1300], real[PATH_MAX], bad[600];
	nodus_campaign *c = NULL;
	nodus_diags cd = NODUS_DIAGS_INIT;
	snprintf(path, sizeof(path), "%s/campaign.json", tmp);
	int rc = nodus_campaign_load(path, &c, &cd);
	size_t n = strlen(tmp);
	for (size_t i = 0; i < cd.count; i++) {
		nodus_error e = cd.items[i];
		const char *f = strncmp(e.file, tmp, n) == 0 && e.file[n] == '/' ? e.file + n + 1
										 : e.file;
		char file[sizeof(e.file)];
		snprintf(file, sizeof(file), "campaign_files/%.480s", f);
		memcpy(e.file, file, sizeof(e.file));
		nodus_diags_push(d, &e);
	}
	nodus_diags_release(&cd);
	if (!rc && (!realpath(tmp, real) || !inside(c, real, bad, sizeof(bad)))) {
		fault(d, idx, NODUS_EINVAL, "$.campaign_files", "every file the campaign names must "
		      "be one of campaign_files; it names %s", bad);
		rc = NODUS_EINVAL;
	}
	if (!rc)
		snprintf(name, size, "%s", c->name);
	nodus_campaign_free(c);
	return rc ? (rc == NODUS_ENOMEM ? rc : NODUS_EINVAL) : 0;
}

typedef struct tree_ctx {
	json_t *files;
} tree_ctx;

static int fill_tree(const char *dir, void *ctx, nodus_error *err)
{
	return write_tree(((tree_ctx *)ctx)->files, dir, 1, err);
}

/* A whole campaign: {"campaign_files": {"campaign.json": TEXT, "tasks/t.json": TEXT, ...},
 * "label", "idempotency_key"}. Checked in a scratch directory, then
 * written to DB.serve/upload/SHA (SHA of the files). */
static int parse_campaign(nodus__serve *sv, json_t *doc, nodus__serve_sub *out,
			  const nodus__jsonpos *idx, nodus_diags *d)
{
	json_t *files = json_object_get(doc, "campaign_files"), *v;
	const char *key;
	size_t before = d->count;
	json_object_foreach(doc, key, v)
		if (strcmp(key, "campaign_files") && strcmp(key, "label") &&
		    strcmp(key, "idempotency_key"))
			fault(d, idx, NODUS_EINVAL, "$", "unknown field \"%.64s\" beside campaign_files "
			      "(expected label, idempotency_key)", key);
	opt_str(doc, "label", out->label, sizeof(out->label), "$.label", idx, d);
	opt_str(doc, "idempotency_key", out->idem_key, sizeof(out->idem_key), "$.idempotency_key",
		idx, d);
	if (!json_is_object(files) || !json_is_string(json_object_get(files, "campaign.json")) ||
	    json_object_size(files) > 512) {
		fault(d, idx, NODUS_EINVAL, "$.campaign_files", "expected an object of at most 512 "
		      "files, path -> text, with \"campaign.json\" among them");
		return NODUS_EINVAL;
	}
	json_object_foreach(files, key, v)
		if (!json_is_string(v) || !safe_rel_path(key))
			fault(d, idx, NODUS_EINVAL, "$.campaign_files", "\"%.128s\": expected a text "
			      "under a relative path of 1 to 4 names of letters, digits, '.', '_' and "
			      "'-'", key);
	if (d->count > before)
		return NODUS_EINVAL;
	char *canon = json_dumps(files, JSON_COMPACT | JSON_SORT_KEYS), sha[NODUS_SHA256_HEX];
	char tmp[1200], dir[1300];
	nodus_error err;
	memset(&err, 0, sizeof(err));
	if (!canon)
		return NODUS_ENOMEM;
	nodus_sha256_hex(canon, strlen(canon), sha);
	free(canon);
	snprintf(tmp, sizeof(tmp), "%s/tmp/campaign-XXXXXX", sv->files_dir);
	snprintf(dir, sizeof(dir), "%s/upload/%s", sv->files_dir, sha);
	if (!mkdtemp(tmp)) {
		fault(d, NULL, NODUS_EIO, "", "serve: cannot make a scratch directory: %s",
		      strerror(errno));
		return NODUS_EIO;
	}
	int rc = write_tree(files, tmp, 0, &err);
	if (!rc)
		rc = check_campaign(tmp, out->campaign, sizeof(out->campaign), idx, d);
	else
		nodus_diags_push(d, &err);
	nodus_remove_tree(tmp);
	tree_ctx tc = {files};
	if (!rc && (rc = nodus__serve_publish_dir(dir, fill_tree, &tc, &err)))
		nodus_diags_push(d, &err);
	if (!rc)
		snprintf(out->upload_path, sizeof(out->upload_path), "%s/campaign.json", dir);
	return rc;
}

static const char *const sub_keys[] = {"campaign", "workload", "reference", "solution",
				       "kernelbench", "label", "idempotency_key"};

/* The members of the submission object; fills out, faults to d. */
static void read_members(nodus__serve *sv, json_t *doc, nodus__serve_sub *out,
			 const nodus__serve_base **base, int *wl, const nodus__jsonpos *idx,
			 nodus_diags *d)
{
	const char *key;
	json_t *v;
	json_object_foreach(doc, key, v) {
		int known = 0;
		for (size_t i = 0; i < NODUS_ARRAY_SIZE(sub_keys); i++)
			known |= strcmp(key, sub_keys[i]) == 0;
		if (!known)
			fault(d, idx, NODUS_EINVAL, "$", "unknown field \"%.64s\" (expected campaign, "
			      "workload, reference, solution or kernelbench, label, idempotency_key)",
			      key);
	}
	opt_str(doc, "campaign", out->campaign, sizeof(out->campaign), "$.campaign", idx, d);
	opt_str(doc, "workload", out->workload, sizeof(out->workload), "$.workload", idx, d);
	opt_str(doc, "reference", out->reference, sizeof(out->reference), "$.reference", idx, d);
	opt_str(doc, "label", out->label, sizeof(out->label), "$.label", idx, d);
	opt_str(doc, "idempotency_key", out->idem_key, sizeof(out->idem_key), "$.idempotency_key",
		idx, d);
	if (!out->campaign[0] && sv->n_bases == 1)
		snprintf(out->campaign, sizeof(out->campaign), "%s", sv->bases[0].c->name);
	*base = out->campaign[0] ? nodus__serve_find_base(sv, out->campaign) : NULL;
	if (!*base) {
		char names[512] = "";
		for (int i = 0, len = 0; i < sv->n_bases && len < (int)sizeof(names); i++)
			len += snprintf(names + len, sizeof(names) - (size_t)len, "%s\"%s\"",
					i ? ", " : "", sv->bases[i].c->name);
		fault(d, idx, NODUS_EINVAL, "$.campaign", "expected one of this server's campaigns "
		      "(%s), got \"%s\"", names, out->campaign);
		return;
	}
	const nodus_campaign *c = (*base)->c;
	if (!out->workload[0] || (*wl = nodus_campaign_find_workload(c, out->workload)) < 0) {
		fault(d, idx, NODUS_EINVAL, "$.workload", "expected a workload of campaign \"%s\", "
		      "got \"%s\"", c->name, out->workload);
		return;
	}
	if (!out->reference[0])
		for (int p = 0; p < c->n_pairs && !out->reference[0]; p++)
			if (c->pairs[p].workload == *wl)
				snprintf(out->reference, sizeof(out->reference), "%s",
					 c->solutions[c->pairs[p].reference].name);
	int r = out->reference[0] ? nodus_campaign_find_solution(c, out->reference) : -1;
	if (r < 0 || strcmp(c->solutions[r].task_name, c->tasks[c->workloads[*wl].task].name))
		fault(d, idx, NODUS_EINVAL, "$.reference", "expected a solution of campaign \"%s\" "
		      "for task \"%s\" (none given: the reference of the campaign's first pair on "
		      "the workload), got \"%s\"", c->name, c->tasks[c->workloads[*wl].task].name,
		      out->reference);
}

int nodus__serve_sub_parse(nodus__serve *sv, const char *body, size_t len,
			   nodus__serve_sub *out, nodus_diags *diags)
{
	memset(out, 0, sizeof(*out));
	json_error_t je;
	json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		nodus_error e;
		memset(&e, 0, sizeof(e));
		e.code = NODUS_EPARSE;
		snprintf(e.file, sizeof(e.file), "request");
		e.line = je.line;
		e.column = je.column;
		snprintf(e.message, sizeof(e.message), "%s (at byte %d)", je.text, je.position);
		nodus_diags_push(diags, &e);
		return NODUS_EPARSE;
	}
	nodus__jsonpos *idx = NULL;
	nodus__jsonpos_build(body, len, &idx); /* positions only; NULL leaves them out */
	const nodus__serve_base *base = NULL;
	json_t *made = NULL; /* the solution made of a kernelbench source */
	int wl = -1, rc = 0;
	size_t before = diags->count;
	if (!json_is_object(doc)) {
		fault(diags, idx, NODUS_EINVAL, "$", "expected a submission object");
		goto out;
	}
	if (json_object_get(doc, "campaign_files")) {
		rc = parse_campaign(sv, doc, out, idx, diags);
		goto out;
	}
	read_members(sv, doc, out, &base, &wl, idx, diags);
	json_t *sol = json_object_get(doc, "solution"), *kb = json_object_get(doc, "kernelbench");
	if (sol && kb) {
		fault(diags, idx, NODUS_EINVAL, "$.kernelbench", "give solution or kernelbench, "
		      "not both");
		goto out;
	}
	if (kb) {
		if (!base || wl < 0 || diags->count > before)
			goto out;
		if (!(made = kb_solution(base, out->reference, kb, idx, diags)))
			goto out;
		sol = made;
	}
	if (!json_is_object(sol)) {
		fault(diags, idx, NODUS_EINVAL, "$.solution", "expected a solution object (the JSON "
		      "a solution file holds, its sources inline)");
		goto out;
	}
	if (check_sources(json_object_get(sol, "sources"), idx, diags) || !base || wl < 0 ||
	    diags->count > before)
		goto out;
	/* name and task may be left out: the batch names the candidate, and
	 * its task is the workload's */
	sol = json_deep_copy(sol);
	const char *task = base->c->tasks[base->c->workloads[wl].task].name;
	if (!json_object_get(sol, "name"))
		json_object_set_new(sol, "name", json_string("candidate"));
	if (!json_object_get(sol, "task"))
		json_object_set_new(sol, "task", json_string(task));
	json_decref(made);
	made = NULL;
	rc = check_solution(sv, sol, task, base->c->target.backend, idx, diags);
	if (!rc && diags->count == before) {
		json_object_del(sol, "name");
		out->solution_json = json_dumps(sol, JSON_COMPACT | JSON_SORT_KEYS);
		if (!out->solution_json)
			rc = NODUS_ENOMEM;
	}
	json_decref(sol);
out:
	json_decref(made);
	nodus__jsonpos_free(idx);
	json_decref(doc);
	if (!rc && diags->count > before)
		rc = NODUS_EINVAL;
	return rc;
}

void nodus__serve_sub_release(nodus__serve_sub *s)
{
	free(s->solution_json);
	s->solution_json = NULL;
}
