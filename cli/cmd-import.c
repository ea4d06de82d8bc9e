/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-import.c: `nodus import kernelbench PROBLEM.py... -o DIR` and
 * `nodus import kernelbench-candidate FILE.py --problem NAME -o DIR`:
 * KernelBench-format Python files as nodus files (docs/import.md).
 *
 *   kernelbench         for each problem: DIR/tasks/NAME.json,
 *                       DIR/workloads/NAME.json, DIR/solutions/NAME_ref.json
 *                       and the problem file itself beside it, the reference
 *                       (module style, entry Model); NAME is the file's name
 *                       (src/import/kernelbench.h says how)
 *   kernelbench-candidate
 *                       DIR/solutions/CAND.json and the file beside it
 *                       (entry ModelNew, the reference's python.init), and
 *                       with --campaign C.json the pair in a campaign: a new
 *                       one, or one more pair in an existing one, whose
 *                       previous content is kept as C.json.bakN first
 *
 * Every problem is probed and every file it would write is checked before
 * anything is written, so a refused import writes nothing. A file that
 * exists is never overwritten; a source that exists with the same bytes is
 * kept (so DIR may hold the sources already: suites/torch/kernelbench).
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "import/flashinfer.h"
#include "import/kernelbench.h"

static const char usage[] =
	"usage: nodus import kernelbench PROBLEM.py... -o DIR [--python PATH]\n"
	"                         [--backend cpu|cuda] [--timeout S] [--atol X] [--rtol X]\n"
	"                         [--keep-going]\n"
	"       nodus import flashinfer DATASET -o DIR [--python PATH] [--backend cpu|cuda]\n"
	"       nodus import kernelbench-candidate FILE.py --problem NAME -o DIR\n"
	"                         [--name CAND] [--campaign C.json [--expect LABEL]]\n"
	"                         [--python PATH]\n\n"
	"kernelbench: each KernelBench problem (class Model(nn.Module), get_inputs(),\n"
	"get_init_inputs()) becomes DIR/tasks/NAME.json, DIR/workloads/NAME.json and the\n"
	"reference DIR/solutions/NAME_ref.json beside a copy of the file (NAME: the file's\n"
	"name; a leading digit gets 'kb_'). Shapes and dtypes come from running the file\n"
	"once with the interpreter (get_init_inputs(), get_inputs(), one forward call on\n"
	"the cpu, or the GPU: --backend); the values are nodus's declared draws, not get_inputs()'s: floating\n"
	"inputs normal(0, 1) with variants, integer inputs the range get_inputs() gave\n"
	"(said on stderr and in the task's description).\n\n"
	"flashinfer: a FlashInfer-Bench dataset (DATASET/definitions, .json; workloads,\n"
	"   .jsonl; solutions, .json) becomes a task and a reference per definition, a\n"
	"   workload per workload line, a python solution per python or triton solution,\n"
	"   and DIR/campaign.json with every solution against its definition's reference\n"
	"   on every workload (backend cuda unless --backend says cpu). What nodus cannot\n"
	"   take yet is left out, a line each on stderr (exit 1). Nothing is run.\n\n"
	"kernelbench-candidate: a ModelNew file becomes the solution DIR/solutions/CAND.json\n"
	"(CAND: the file's name, or --name) of the problem NAME imported into DIR; it\n"
	"prints the campaign pair to add, or with --campaign adds it: a new campaign C.json\n"
	"(the pair, the reference against itself, an isolated condition), or one more pair\n"
	"in an existing one after keeping its content as C.json.bakN.\n\n"
	"  -o, --output DIR   where the files go (created when missing)\n"
	"  --python PATH      the interpreter, absolute, that imports torch (default\n"
	"                     /usr/bin/python3; it also becomes a new campaign's\n"
	"                     target.python)\n"
	"  --backend B        where the problem's solutions run, cpu (default) or cuda;\n"
	"                     a candidate takes its problem's, and so does a new\n"
	"                     campaign's target; with cuda the probe's forward call\n"
	"                     runs on the GPU where torch sees one\n"
	"  --timeout S        seconds one problem's probe may take (default 300)\n"
	"  --atol X, --rtol X the task's tolerance (default 1e-4 for float32/float64\n"
	"                     outputs, 1e-3 float16, 1e-2 bfloat16)\n"
	"  --keep-going       kernelbench: import every problem that can be, and say\n"
	"                     for each of the others why not (a whole KernelBench level\n"
	"                     at once); without it one bad problem writes nothing\n"
	"  --expect LABEL     the pair's expect in the campaign (FASTER, TIED, EQUIVALENT,\n"
	"                     a status name ...; docs/formats.md)\n\n"
	"The problem file runs unconfined, as KernelBench runs it: import only files you\n"
	"would run. A file that exists is never overwritten.\n"
	"exit status: 0 written, 1 some problems refused with --keep-going (the others\n"
	"written), 2 bad usage, a bad problem, a file exists, 3 I/O error\n";

#define MAX_PROBLEMS 256

struct import_args {
	const char *sub;                    /* kernelbench or kernelbench-candidate */
	char **files;                       /* the problem or candidate files */
	int n_files;
	const char *dir;                    /* -o */
	const char *python;                 /* --python */
	const char *backend;                /* --backend: "cpu" or "cuda" */
	int timeout_s;                      /* --timeout */
	nodus_kb_tolerance tol;             /* --atol, --rtol; < 0 = default */
	const char *problem;                /* --problem */
	const char *name;                   /* --name */
	const char *campaign;               /* --campaign */
	const char *expect;                 /* --expect */
	int keep_going;                     /* --keep-going */
	int backend_set;                    /* --backend was given */
};

/* One problem, probed and made into documents, not yet written. */
struct problem {
	const char *path;                   /* as given */
	char name[NODUS_KB_NAME_MAX + 1];   /* the task's name */
	json_t *task, *workload, *solution; /* owned */
	nodus_buf notes;                    /* the draws, one line each */
	int refused;                        /* --keep-going: left out, said why */
};

static int number(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out >= 0))
		return nodus_cli_usage_error("import", "%s: expected a number >= 0, got '%s'", opt, s);
	return 0;
}

static int parse_option(int ch, struct import_args *a)
{
	double v;
	switch (ch) {
	case 'o': a->dir = optarg; return 0;
	case 'p': a->python = optarg; return 0;
	case 'b':
		if (strcmp(optarg, "cpu") != 0 && strcmp(optarg, "cuda") != 0)
			return nodus_cli_usage_error("import", "--backend: expected cpu or cuda, got "
						     "'%s'", optarg);
		a->backend = optarg;
		a->backend_set = 1;
		return 0;
	case 'P': a->problem = optarg; return 0;
	case 'n': a->name = optarg; return 0;
	case 'c': a->campaign = optarg; return 0;
	case 'e': a->expect = optarg; return 0;
	case 'k': a->keep_going = 1; return 0;
	case 'a': return number("--atol", optarg, &a->tol.atol);
	case 'r': return number("--rtol", optarg, &a->tol.rtol);
	case 't':
		if (number("--timeout", optarg, &v))
			return NODUS_EXIT_USAGE;
		if (v < 1 || v > 86400)
			return nodus_cli_usage_error("import", "--timeout: expected seconds in "
						     "[1, 86400], got '%s'", optarg);
		a->timeout_s = (int)v;
		return 0;
	}
	return -1;
}

static int parse_args(int argc, char **argv, struct import_args *a, int *exit_code)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"python", required_argument, NULL, 'p'},
		{"timeout", required_argument, NULL, 't'}, {"atol", required_argument, NULL, 'a'},
		{"rtol", required_argument, NULL, 'r'},   {"problem", required_argument, NULL, 'P'},
		{"name", required_argument, NULL, 'n'},   {"campaign", required_argument, NULL, 'c'},
		{"expect", required_argument, NULL, 'e'}, {"help", no_argument, NULL, 'h'},
		{"backend", required_argument, NULL, 'b'},
		{"keep-going", no_argument, NULL, 'k'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage, stdout);
			*exit_code = NODUS_EXIT_OK;
			return -1;
		}
		int rc = parse_option(ch, a);
		if (rc < 0)
			rc = nodus_cli_option_error("import", ch, argc, argv);
		if (rc) {
			*exit_code = rc;
			return -1;
		}
	}
	if (optind >= argc) {
		*exit_code = nodus_cli_usage_error("import", "expected kernelbench or "
						   "kernelbench-candidate, then files");
		return -1;
	}
	a->sub = argv[optind];
	a->files = argv + optind + 1;
	a->n_files = argc - optind - 1;
	return 0;
}

/* Creates DIR and DIR/SUB when missing. */
static int make_dirs(const char *dir)
{
	static const char *const subs[] = {"tasks", "workloads", "solutions"};
	char path[PATH_MAX];
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(subs); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subs[k]);
		if (mkdir(path, 0755) && errno != EEXIST)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "nodus import: cannot create directories in '%s': %s\n", dir,
		strerror(errno));
	return NODUS_EXIT_USAGE;
}

/* 0 when path does not exist yet; else says why not. */
static int must_be_new(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0 && errno == ENOENT)
		return 0;
	return nodus_cli_usage_error("import", "'%s' exists: nodus import never overwrites a file",
				     path);
}

/* 1 when the files at a and b hold the same bytes (or are one file). */
static int same_bytes(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	if (sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
		return 1;
	nodus_buf x = NODUS_BUF_INIT, y = NODUS_BUF_INIT;
	int same = nodus_buf_read_file(&x, a) == 0 && nodus_buf_read_file(&y, b) == 0 &&
		   x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
	nodus_buf_release(&x);
	nodus_buf_release(&y);
	return same;
}

/* 0 when the source can go to DIR/solutions/BASE: absent there, or there
 * with the same bytes (*keep = 1). */
static int source_ok(const char *src, const char *dir, char *dst, size_t n, int *keep)
{
	const char *base = strrchr(src, '/');
	snprintf(dst, n, "%s/solutions/%s", dir, base ? base + 1 : src);
	*keep = 0;
	if (access(dst, F_OK) != 0)
		return 0;
	if (same_bytes(src, dst)) {
		*keep = 1;
		return 0;
	}
	return nodus_cli_usage_error("import", "'%s' exists with other content than '%s': nodus "
				     "import never overwrites a file", dst, src);
}

/* Copies src to dst, which must not exist. */
static int copy_file(const char *src, const char *dst)
{
	nodus_buf b = NODUS_BUF_INIT;
	int rc = nodus_buf_read_file(&b, src) ? NODUS_EXIT_USAGE : NODUS_EXIT_OK;
	if (rc) {
		fprintf(stderr, "nodus import: cannot read '%s': %s\n", src, strerror(errno));
		goto out;
	}
	FILE *f = fopen(dst, "wx");
	if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
		fprintf(stderr, "nodus import: cannot write '%s': %s\n", dst, strerror(errno));
		rc = NODUS_EXIT_INTERNAL;
		goto out;
	}
	printf("wrote %s\n", dst);
out:
	nodus_buf_release(&b);
	return rc;
}

static int write_json(const char *path, json_t *doc)
{
	FILE *f = fopen(path, "wx");
	if (!f) {
		fprintf(stderr, "nodus import: cannot create '%s': %s\n", path, strerror(errno));
		return errno == EEXIST ? NODUS_EXIT_USAGE : NODUS_EXIT_INTERNAL;
	}
	int bad = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0;
	bad |= fputc('\n', f) == EOF;
	bad |= fclose(f) != 0;
	if (bad) {
		fprintf(stderr, "nodus import: cannot write '%s'\n", path);
		return NODUS_EXIT_INTERNAL;
	}
	printf("wrote %s\n", path);
	return NODUS_EXIT_OK;
}

/* The paths of one problem's three documents. */
static void problem_paths(const char *dir, const char *name, char paths[3][PATH_MAX])
{
	snprintf(paths[0], PATH_MAX, "%s/tasks/%s.json", dir, name);
	snprintf(paths[1], PATH_MAX, "%s/workloads/%s.json", dir, name);
	snprintf(paths[2], PATH_MAX, "%s/solutions/%s_ref.json", dir, name);
}

/* Probes p->path and builds its documents; prints the error. */
static int probe_problem(const struct import_args *a, struct problem *p)
{
	nodus_error err;
	json_t *probe = NULL;
	const char *base = strrchr(p->path, '/');
	nodus__kb_name(p->path, p->name, sizeof(p->name));
	int rc = nodus__kb_probe(a->python, p->path, a->backend, a->timeout_s * 1000, &probe, &err);
	if (!rc)
		rc = nodus__kb_problem(p->name, p->path, base ? base + 1 : p->path, probe, &a->tol,
				       &p->task, &p->workload, &p->solution, &p->notes, &err);
	json_decref(probe);
	if (!rc)
		json_object_set_new(p->solution, "backend", json_string(a->backend));
	if (rc) {
		nodus_cli_print_error(&err);
		return nodus_cli_exit_for(rc);
	}
	return 0;
}

/* Every file of every problem is free (or an identical source), and no
 * two problems share a name. */
static int check_targets(const struct import_args *a, struct problem *ps, int n)
{
	char paths[3][PATH_MAX], dst[PATH_MAX];
	int keep;
	for (int k = 0; k < n; k++) {
		for (int j = 0; j < k; j++)
			if (strcmp(ps[j].name, ps[k].name) == 0)
				return nodus_cli_usage_error("import", "'%s' and '%s' both make the "
							     "task '%s'", ps[j].path, ps[k].path,
							     ps[k].name);
		problem_paths(a->dir, ps[k].name, paths);
		for (int i = 0; i < 3; i++)
			if (must_be_new(paths[i]))
				return NODUS_EXIT_USAGE;
		if (source_ok(ps[k].path, a->dir, dst, sizeof(dst), &keep))
			return NODUS_EXIT_USAGE;
	}
	return 0;
}

static int write_problem(const struct import_args *a, struct problem *p)
{
	char paths[3][PATH_MAX], dst[PATH_MAX];
	int keep, rc = source_ok(p->path, a->dir, dst, sizeof(dst), &keep);
	problem_paths(a->dir, p->name, paths);
	if (!rc)
		rc = write_json(paths[0], p->task);
	if (!rc)
		rc = write_json(paths[1], p->workload);
	if (!rc)
		rc = write_json(paths[2], p->solution);
	if (!rc && !keep)
		rc = copy_file(p->path, dst);
	return rc;
}

static int import_problems(const struct import_args *a)
{
	if (a->n_files < 1 || a->n_files > MAX_PROBLEMS)
		return nodus_cli_usage_error("import", "kernelbench: expected 1 to %d problem files",
					     MAX_PROBLEMS);
	struct problem *ps = calloc((size_t)a->n_files, sizeof(*ps));
	int rc = ps ? 0 : NODUS_EXIT_INTERNAL, refused = 0, first = -1;
	for (int k = 0; !rc && k < a->n_files; k++) {
		ps[k].path = a->files[k];
		nodus_buf_init(&ps[k].notes);
		rc = probe_problem(a, &ps[k]);
		/* --keep-going: a problem that cannot be imported (its file and
		 * line were printed), or whose files are taken, is left out */
		if (rc && a->keep_going) {
			ps[k].refused = 1;
			rc = 0;
		}
		for (int j = 0; a->keep_going && !ps[k].refused && j < k; j++)
			if (!ps[j].refused && strcmp(ps[j].name, ps[k].name) == 0) {
				fprintf(stderr, "nodus import: '%s' and '%s' both make the task '%s': "
					"the second is left out\n", ps[j].path, ps[k].path, ps[k].name);
				ps[k].refused = 1;
			}
		if (!ps[k].refused && a->keep_going && check_targets(a, &ps[k], 1))
			ps[k].refused = 1;
		refused += ps[k].refused;
		if (!ps[k].refused && first < 0)
			first = k;
	}
	if (!rc && !a->keep_going)
		rc = check_targets(a, ps, a->n_files);
	if (!rc && first < 0) {
		fprintf(stderr, "nodus import: none of the %d problem(s) could be imported\n",
			a->n_files);
		rc = NODUS_EXIT_USAGE;
	}
	if (!rc)
		rc = make_dirs(a->dir);
	for (int k = 0; !rc && k < a->n_files; k++) {
		if (ps[k].refused)
			continue;
		for (char *line = ps[k].notes.data, *end; *line; line = end + 1) {
			end = strchr(line, '\n');
			fprintf(stderr, "nodus import: %s: %.*s\n", ps[k].path, (int)(end - line), line);
		}
		rc = write_problem(a, &ps[k]);
	}
	if (!rc && refused) {
		fprintf(stderr, "nodus import: imported %d of %d problem(s); left out:", a->n_files - refused,
			a->n_files);
		for (int k = 0; k < a->n_files; k++)
			if (ps[k].refused)
				fprintf(stderr, " %s", ps[k].path);
		fprintf(stderr, " (each said why above)\n");
	}
	if (!rc)
		printf("\nnext: nodus import kernelbench-candidate FILE.py --problem %s -o %s "
		       "--campaign %s/campaign.json\n", ps[first].name, a->dir, a->dir);
	if (!rc && refused)
		rc = 1;
	for (int k = 0; ps && k < a->n_files; k++) {
		json_decref(ps[k].task);
		json_decref(ps[k].workload);
		json_decref(ps[k].solution);
		nodus_buf_release(&ps[k].notes);
	}
	free(ps);
	return rc;
}


/* A note on stderr when the file does not mention ModelNew (its run would
 * be LOAD_ERROR: that is a result, not an import error). */
static void warn_no_modelnew(const char *path)
{
	nodus_buf b = NODUS_BUF_INIT;
	if (nodus_buf_read_file(&b, path) == 0 && !strstr(b.data, "ModelNew"))
		fprintf(stderr, "nodus import: %s: warning: no 'ModelNew' in the file; its runs "
			"will be LOAD_ERROR\n", path);
	nodus_buf_release(&b);
}

/* out = target relative to the directory of the file campaign. */
static int relative(const char *campaign, const char *target, char *out, size_t n)
{
	char dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", campaign);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	if (!realpath(slash ? dir : ".", from) || !realpath(target, to))
		return -1;
	size_t common = 0, k = 0;
	for (; from[k] && from[k] == to[k]; k++)
		if (from[k] == '/')
			common = k;
	if (!from[k] && to[k] == '/')
		common = k;
	size_t used = 0;
	out[0] = 0;
	for (const char *p = from + common; *p; p++)
		if (*p == '/' && used + 4 < n)
			used += (size_t)snprintf(out + used, n - used, "../");
	snprintf(out + used, n - used, "%s", to + common + 1);
	return 0;
}

/* Appends the string s to the array at key unless it is there. */
static void add_unique(json_t *c, const char *key, const char *s)
{
	json_t *list = json_object_get(c, key), *e;
	size_t i;
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(c, key, list);
	}
	json_array_foreach(list, i, e)
		if (json_is_string(e) && strcmp(json_string_value(e), s) == 0)
			return;
	json_array_append_new(list, json_string(s));
}

static json_t *pair(const char *w, const char *cand, const char *ref, const char *expect)
{
	json_t *p = json_pack("{s:s, s:s, s:s}", "workload", w, "candidate", cand, "reference", ref);
	if (p && expect)
		json_object_set_new(p, "expect", json_string(expect));
	return p;
}

/* A new campaign: the pair, the reference's A/A pair, isolated; on cuda
 * the judge declares the offset between two processes that host-bound
 * torch calls showed on the H200 (docs/statistics.md, "Between processes"),
 * as `nodus import flashinfer` does. */
static json_t *fresh_campaign(const struct import_args *a, const char *ref, const char *backend)
{
	json_t *c = json_pack("{s:s, s:i, s:s, s:[], s:[], s:[], s:[o], s:{s:i}, s:[{s:s, s:s}],"
			 " s:{s:s, s:s, s:n, s:s}}",
			 "kind", "campaign", "format", 1, "name", a->problem, "tasks", "workloads",
			 "solutions", "pairs", pair(a->problem, ref, ref, "EQUIVALENT"), "judge",
			 "seed", 1, "conditions", "name", "isolated", "kind", "isolated", "target",
			 "backend", backend, "profile",
			 strcmp(backend, "cuda") == 0 ? "this machine's GPU" : "this machine's CPU",
			 "price_per_device_hour_usd", "python", a->python);
	if (c && strcmp(backend, "cuda") == 0)
		json_object_set_new(json_object_get(c, "judge"), "process_sd", json_real(0.03));
	return c;
}

/* The existing campaign, or a message and NULL. */
static json_t *load_campaign(const char *path)
{
	json_error_t je;
	json_t *c = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	const char *kind = json_string_value(json_object_get(c, "kind"));
	if (!c)
		fprintf(stderr, "nodus import: %s:%d:%d: %s\n", path, je.line, je.column, je.text);
	else if (!kind || strcmp(kind, "campaign") != 0 || !json_is_array(json_object_get(c, "pairs")))
		fprintf(stderr, "nodus import: %s: expected a campaign file with pairs; it is left "
			"as it was\n", path);
	else
		return c;
	json_decref(c);
	return NULL;
}

/* Adds the files and the pair to c; 0, or refuses a pair c already has. */
static int add_pair(const struct import_args *a, json_t *c, const char *cand, const char *ref)
{
	static const char *const keys[] = {"tasks", "workloads", "solutions", "solutions"};
	char files[4][PATH_MAX], rel[PATH_MAX];
	snprintf(files[0], PATH_MAX, "%s/tasks/%s.json", a->dir, a->problem);
	snprintf(files[1], PATH_MAX, "%s/workloads/%s.json", a->dir, a->problem);
	snprintf(files[2], PATH_MAX, "%s/solutions/%s.json", a->dir, ref);
	snprintf(files[3], PATH_MAX, "%s/solutions/%s.json", a->dir, cand);
	for (int k = 0; k < 4; k++) {
		if (relative(a->campaign, files[k], rel, sizeof(rel)))
			return nodus_cli_usage_error("import", "--campaign %s: cannot resolve '%s' "
						     "from it: %s", a->campaign, files[k],
						     strerror(errno));
		add_unique(c, keys[k], rel);
	}
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(c, "pairs"), i, p) {
		const char *w = json_string_value(json_object_get(p, "workload"));
		const char *pc = json_string_value(json_object_get(p, "candidate"));
		const char *pr = json_string_value(json_object_get(p, "reference"));
		if (w && pc && pr && !strcmp(w, a->problem) && !strcmp(pc, cand) && !strcmp(pr, ref))
			return nodus_cli_usage_error("import", "%s already has the pair %s/%s/%s; "
						     "it is left as it was", a->campaign, w, pc, pr);
	}
	json_array_append_new(json_object_get(c, "pairs"), pair(a->problem, cand, ref, a->expect));
	json_t *target = json_object_get(c, "target");
	if (json_is_object(target) && !json_object_get(target, "python")) {
		json_object_set_new(target, "python", json_string(a->python));
		fprintf(stderr, "nodus import: %s: target.python set to %s (python solutions need "
			"it)\n", a->campaign, a->python);
	}
	return 0;
}

/* Keeps path's content as path.bakN (the first N free); 0 or -1. */
static int keep_backup(const char *path, char *bak, size_t n)
{
	for (int k = 1; k < 1000; k++) {
		snprintf(bak, n, "%s.bak%d", path, k);
		if (link(path, bak) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* Writes c over the campaign at path through a temporary file and rename. */
static int replace_campaign(const char *path, json_t *c)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
	int rc = write_json(tmp, c);
	if (!rc && rename(tmp, path) != 0) {
		fprintf(stderr, "nodus import: cannot rename '%s' to '%s': %s\n", tmp, path,
			strerror(errno));
		rc = NODUS_EXIT_INTERNAL;
	}
	if (rc)
		unlink(tmp);
	return rc;
}

static int import_campaign(const struct import_args *a, const char *cand, const char *ref,
			   const char *backend)
{
	char bak[PATH_MAX];
	int exists = access(a->campaign, F_OK) == 0;
	json_t *c = exists ? load_campaign(a->campaign) : fresh_campaign(a, ref, backend);
	if (!c)
		return NODUS_EXIT_USAGE;
	int rc = add_pair(a, c, cand, ref);
	if (!rc && !exists)
		rc = write_json(a->campaign, c);
	if (!rc && exists) {
		if (keep_backup(a->campaign, bak, sizeof(bak))) {
			fprintf(stderr, "nodus import: cannot keep '%s' as a backup: %s; it is left as "
				"it was\n", a->campaign, strerror(errno));
			rc = NODUS_EXIT_INTERNAL;
		} else if (!(rc = replace_campaign(a->campaign, c))) {
			printf("kept the previous %s as %s\n", a->campaign, bak);
		}
	}
	json_decref(c);
	if (!rc)
		printf("added the pair %s/%s/%s to %s\n\nnext: nodus plan %s -o plan.json && nodus "
		       "run plan.json --db records.db && nodus report records.db\n", a->problem,
		       cand, ref, a->campaign, a->campaign);
	return rc;
}

/* The candidate's solution, from the imported problem's reference. */
static int candidate_doc(const struct import_args *a, const char *cand, const char *src,
			 json_t **doc)
{
	char path[PATH_MAX];
	json_error_t je;
	snprintf(path, sizeof(path), "%s/solutions/%s_ref.json", a->dir, a->problem);
	json_t *ref = json_load_file(path, 0, &je);
	const json_t *py = json_object_get(ref, "python");
	if (!json_is_object(py)) {
		json_decref(ref);
		return nodus_cli_usage_error("import", "--problem %s: no imported problem in '%s' "
					     "(%s: %s); run 'nodus import kernelbench' first",
					     a->problem, a->dir, path, je.text[0] ? je.text
									: "not a python solution");
	}
	const char *base = strrchr(src, '/');
	*doc = nodus__kb_candidate(cand, a->problem, base ? base + 1 : src,
				   json_object_get(py, "init"), json_object_get(py, "params"));
	/* the problem's backend, whatever --backend says: a pair has one */
	const char *backend = json_string_value(json_object_get(ref, "backend"));
	if (*doc && backend)
		json_object_set_new(*doc, "backend", json_string(backend));
	json_decref(ref);
	return *doc ? 0 : NODUS_EXIT_INTERNAL;
}

static int import_candidate(const struct import_args *a)
{
	char cand[NODUS_KB_NAME_MAX + 1], path[PATH_MAX], dst[PATH_MAX];
	json_t *doc = NULL;
	int keep;
	if (a->n_files != 1 || !a->problem)
		return nodus_cli_usage_error("import", "kernelbench-candidate: expected one FILE.py "
					     "and --problem NAME");
	if (a->expect && !a->campaign)
		return nodus_cli_usage_error("import", "--expect goes with --campaign");
	nodus__kb_name(a->name ? a->name : a->files[0], cand, sizeof(cand));
	if (a->name && strcmp(cand, a->name) != 0)
		return nodus_cli_usage_error("import", "--name: expected [A-Za-z_][A-Za-z0-9_]*, at "
					     "most %d, got '%s'", NODUS_KB_NAME_MAX, a->name);
	int rc = candidate_doc(a, cand, a->files[0], &doc);
	snprintf(path, sizeof(path), "%s/solutions/%s.json", a->dir, cand);
	if (!rc && access(a->files[0], R_OK) != 0)
		rc = nodus_cli_usage_error("import", "cannot read '%s': %s", a->files[0],
					   strerror(errno));
	if (!rc && (must_be_new(path) || source_ok(a->files[0], a->dir, dst, sizeof(dst), &keep)))
		rc = NODUS_EXIT_USAGE;
	if (!rc)
		warn_no_modelnew(a->files[0]);
	if (!rc)
		rc = write_json(path, doc);
	if (!rc && !keep)
		rc = copy_file(a->files[0], dst);
	char backend[8];
	snprintf(backend, sizeof(backend), "%s",
		 doc && json_string_value(json_object_get(doc, "backend"))
			 ? json_string_value(json_object_get(doc, "backend"))
			 : "cpu");
	json_decref(doc);
	if (rc)
		return rc;
	char ref[NODUS_KB_NAME_MAX + 8];
	snprintf(ref, sizeof(ref), "%s_ref", a->problem);
	if (a->campaign)
		return import_campaign(a, cand, ref, backend);
	printf("\nthe pair, for a campaign's \"pairs\" (with solutions/%s.json in its \"solutions\"):\n"
	       "  {\"workload\": \"%s\", \"candidate\": \"%s\", \"reference\": \"%s\"}\n"
	       "or run again with --campaign C.json to add it\n", cand, a->problem, cand, ref);
	return 0;
}

static int import_flashinfer(const struct import_args *a)
{
	if (a->n_files != 1)
		return nodus_cli_usage_error("import", "flashinfer: expected one dataset directory");
	if (a->problem || a->name || a->campaign || a->expect || a->keep_going)
		return nodus_cli_usage_error("import", "flashinfer takes -o, --python and --backend");
	nodus_fi_opts o = {.python = a->python, .backend = a->backend_set ? a->backend : "cuda"};
	nodus_fi_counts n;
	nodus_buf notes = NODUS_BUF_INIT;
	nodus_error err;
	int rc = nodus__fi_import(a->files[0], a->dir, &o, &n, &notes, &err);
	for (char *line = notes.data, *end; line && *line; line = end + 1) {
		end = strchr(line, '\n');
		fprintf(stderr, "nodus import: %.*s\n", (int)(end - line), line);
	}
	nodus_buf_release(&notes);
	if (rc) {
		nodus_cli_print_error(&err);
		return nodus_cli_exit_for(rc);
	}
	printf("wrote %s: %d definition(s), %d workload(s), %d solution(s), %d pair(s)%s\n",
	       a->dir, n.definitions, n.workloads, n.solutions, n.pairs,
	       n.left_out ? "; left out what stderr names" : "");
	printf("\nnext: nodus plan %s/campaign.json -o plan.json && nodus run plan.json --db "
	       "records.db && nodus report records.db\n", a->dir);
	return n.left_out ? 1 : NODUS_EXIT_OK;
}

int nodus_cmd_import(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	struct import_args a = {.python = "/usr/bin/python3", .backend = "cpu", .timeout_s = 300,
				.tol = {.atol = -1, .rtol = -1}};
	int exit_code = NODUS_EXIT_OK;
	(void)ctx;
	if (parse_args(argc, argv, &a, &exit_code))
		return exit_code;
	if (!a.dir)
		return nodus_cli_usage_error("import", "expected -o DIR");
	if (a.python[0] != '/' || access(a.python, X_OK) != 0)
		return nodus_cli_usage_error("import", "--python '%s': expected an executable "
					     "interpreter, an absolute path", a.python);
	if (strcmp(a.sub, "kernelbench") == 0) {
		if (a.problem || a.name || a.campaign || a.expect)
			return nodus_cli_usage_error("import", "--problem, --name, --campaign and "
						     "--expect go with kernelbench-candidate");
		return import_problems(&a);
	}
	if (strcmp(a.sub, "kernelbench-candidate") == 0)
		return import_candidate(&a);
	if (strcmp(a.sub, "flashinfer") == 0)
		return import_flashinfer(&a);
	return nodus_cli_usage_error("import", "expected kernelbench, kernelbench-candidate or "
				     "flashinfer, got '%s'", a.sub);
}
