/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-new.c: `nodus new task|solution|campaign NAME` writes a starting
 * point that `nodus check` accepts, so that bringing one's own kernel is
 * editing files, not learning 85 keys first (docs/tutorial.md):
 *
 *   task NAME           DIR/tasks/NAME.json (y = f(x), element-wise, with
 *                       every required key) and DIR/workloads/NAME_65536.json
 *   solution NAME --task TASK
 *                       DIR/solutions/NAME.json and NAME.c: the entry
 *                       function with a pointer of the right C type to
 *                       every tensor of TASK, the ABI's rules in comments,
 *                       and one loop marked TODO
 *   campaign NAME --reference R [--candidate C]...
 *                       DIR/NAME.json: R's task and its workloads, each
 *                       candidate against R and R against itself (A/A),
 *                       isolated and one cpu-stress condition
 *
 * JSON has no comments and nodus refuses unknown keys, so the comments are
 * the C file's, the task's description and what the command prints: every
 * file written, and what to edit next. A file that exists is never
 * overwritten (exit 2).
 * ------------------------------------------------------------------------ */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"

static const char usage[] =
	"usage: nodus new task NAME [--dir DIR]\n"
	"       nodus new solution NAME --task TASK [--dir DIR]\n"
	"       nodus new campaign NAME --reference SOLUTION [--candidate SOLUTION]...\n"
	"                         [--dir DIR]\n\n"
	"Writes a starting point that 'nodus check' accepts (docs/tutorial.md):\n"
	"  task      DIR/tasks/NAME.json and a workload DIR/workloads/NAME_65536.json\n"
	"  solution  DIR/solutions/NAME.json and NAME.c, an entry function for TASK's\n"
	"            tensors with the ABI's rules in comments and one loop to write\n"
	"  campaign  DIR/NAME.json: the reference's task and workloads, each candidate\n"
	"            against the reference, the reference against itself (A/A), an\n"
	"            isolated and a cpu-stress condition\n\n"
	"  --dir DIR   where the files go (default: the current directory)\n\n"
	"A file that already exists is never overwritten.\n"
	"exit status: 0 written, 2 bad usage, a bad name, a file exists, 3 I/O error\n";

#define MAX_CANDIDATES 16

struct new_args {
	const char *kind;                       /* task, solution or campaign */
	const char *name;                       /* NAME */
	const char *dir;                        /* --dir, default "." */
	const char *task;                       /* --task */
	const char *reference;                  /* --reference */
	const char *candidates[MAX_CANDIDATES]; /* --candidate, in order */
	int n_candidates;
};

static int parse_args(int argc, char **argv, struct new_args *a, int *exit_code)
{
	static const struct option longopts[] = {
		{"dir", required_argument, NULL, 'd'},
		{"task", required_argument, NULL, 't'},
		{"reference", required_argument, NULL, 'r'},
		{"candidate", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage, stdout);
			*exit_code = NODUS_EXIT_OK;
			return -1;
		} else if (ch == 'd') {
			a->dir = optarg;
		} else if (ch == 't') {
			a->task = optarg;
		} else if (ch == 'r') {
			a->reference = optarg;
		} else if (ch == 'c' && a->n_candidates < MAX_CANDIDATES) {
			a->candidates[a->n_candidates++] = optarg;
		} else if (ch == 'c') {
			*exit_code = nodus_cli_usage_error("new", "at most %d --candidate", MAX_CANDIDATES);
			return -1;
		} else {
			*exit_code = nodus_cli_option_error("new", ch, argc, argv);
			return -1;
		}
	}
	if (argc - optind != 2) {
		*exit_code = nodus_cli_usage_error("new", "expected task, solution or campaign, "
						   "then NAME");
		return -1;
	}
	a->kind = argv[optind];
	a->name = argv[optind + 1];
	return 0;
}

/* 1 if name is a C identifier (it becomes the entry symbol and file names). */
static int good_name(const char *name)
{
	if (!name[0] || strlen(name) > 64 || !(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
					      (name[0] >= 'a' && name[0] <= 'z')))
		return 0;
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= 'a' && *p <= 'z')))
			return 0;
	return 1;
}

/* Creates DIR/SUB (and DIR) when missing. */
static int make_dir(const char *dir, const char *sub)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	if (sub[0] && mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* Opens path for writing only if it does not exist; prints why not. */
static FILE *create(const char *path, int *exit_code)
{
	FILE *f = fopen(path, "wx");
	if (!f) {
		if (errno == EEXIST) {
			*exit_code = nodus_cli_usage_error("new", "'%s' exists: nodus new never "
							   "overwrites a file", path);
		} else {
			fprintf(stderr, "nodus new: cannot create '%s': %s\n", path, strerror(errno));
			*exit_code = NODUS_EXIT_USAGE;
		}
	}
	return f;
}

static int write_json(const char *path, json_t *doc)
{
	int exit_code = NODUS_EXIT_OK;
	FILE *f = create(path, &exit_code);
	if (!f)
		return exit_code;
	int bad = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0;
	bad |= fputc('\n', f) == EOF;
	bad |= fclose(f) != 0;
	if (bad) {
		fprintf(stderr, "nodus new: cannot write '%s'\n", path);
		return NODUS_EXIT_INTERNAL;
	}
	printf("wrote %s\n", path);
	return NODUS_EXIT_OK;
}

static int new_task(const struct new_args *a)
{
	char path[4096], wl[160];
	if (make_dir(a->dir, "tasks") || make_dir(a->dir, "workloads")) {
		fprintf(stderr, "nodus new: cannot create directories in '%s': %s\n", a->dir,
			strerror(errno));
		return NODUS_EXIT_USAGE;
	}
	json_t *task = json_pack(
		"{s:s, s:i, s:s, s:s, s:{s:{s:s}}, s:[{s:s, s:s, s:[s], s:{s:s, s:i, s:i}, s:[s, s]}],"
		" s:[{s:s, s:s, s:[s]}], s:{s:f, s:f}, s:{s:s, s:s}}",
		"kind", "task", "format", 1, "name", a->name, "description",
		"y = 2 x + 1, element-wise (a template from 'nodus new task': edit the axes, "
		"the inputs and how they are drawn, the outputs, the tolerance and the roofline; "
		"docs/formats.md)",
		"axes", "n", "type", "var", "inputs", "name", "x", "dtype", "float32", "shape", "n",
		"init", "dist", "normal", "mean", 0, "std", 1, "variants", "scale_3", "negate",
		"outputs", "name", "y", "dtype", "float32", "shape", "n", "tolerance", "atol", 1e-6,
		"rtol", 1e-6, "roofline", "flops", "2*n", "bytes", "8*n");
	snprintf(path, sizeof(path), "%s/tasks/%s.json", a->dir, a->name);
	int rc = write_json(path, task);
	json_decref(task);
	if (rc)
		return rc;
	snprintf(wl, sizeof(wl), "%s_65536", a->name);
	json_t *w = json_pack("{s:s, s:i, s:s, s:s, s:{s:i}}", "kind", "workload", "format", 1,
			      "name", wl, "task", a->name, "axes", "n", 65536);
	snprintf(path, sizeof(path), "%s/workloads/%s.json", a->dir, wl);
	rc = write_json(path, w);
	json_decref(w);
	if (rc)
		return rc;
	printf("\nnext: edit %s/tasks/%s.json (what the kernel computes, docs/formats.md),\n"
	       "then write its reference: nodus new solution %s_ref --task %s --dir %s\n",
	       a->dir, a->name, a->name, a->name, a->dir);
	return NODUS_EXIT_OK;
}

/* The C type of a dtype name, or NULL. */
static const char *c_type(const char *dtype)
{
	static const char *const map[][2] = {
		{"float32", "float"},    {"float64", "double"},  {"float16", "uint16_t"},
		{"bfloat16", "uint16_t"}, {"int32", "int32_t"},  {"int64", "int64_t"},
		{"uint8", "uint8_t"},
	};
	for (size_t k = 0; dtype && k < NODUS_ARRAY_SIZE(map); k++)
		if (strcmp(map[k][0], dtype) == 0)
			return map[k][1];
	return NULL;
}

/* The task's tensors as C declarations and comment lines. Returns 0, or
 * an exit status when the task file cannot be read. */
static int task_tensors(const char *dir, const char *task, json_t **doc)
{
	char path[4096];
	json_error_t je;
	snprintf(path, sizeof(path), "%s/tasks/%s.json", dir, task);
	*doc = json_load_file(path, 0, &je);
	if (!*doc || !json_is_array(json_object_get(*doc, "inputs")) ||
	    !json_is_array(json_object_get(*doc, "outputs"))) {
		fprintf(stderr, "nodus new: %s: expected a task file with inputs and outputs (%s); "
			"'nodus check %s' says what is wrong\n", path, *doc ? "none" : je.text, path);
		json_decref(*doc);
		*doc = NULL;
		return NODUS_EXIT_USAGE;
	}
	return 0;
}

static void write_c_tensors(FILE *f, json_t *list, const char *member, int is_input)
{
	size_t i;
	json_t *t;
	json_array_foreach(list, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *dtype = json_string_value(json_object_get(t, "dtype"));
		const char *type = c_type(dtype);
		fprintf(f, "\t%s%s *%s = call->%s[%zu].data; /* %s%s */\n", is_input ? "const " : "",
			type ? type : "void", name ? name : "t", member, i, dtype ? dtype : "?",
			strncmp(dtype ? dtype : "", "b", 1) == 0 || strcmp(dtype ? dtype : "", "float16") == 0
				? ", raw bits"
				: "");
		if (is_input)
			fprintf(f, "\t(void)%s;\n", name ? name : "t");
	}
}

static int write_solution_c(const struct new_args *a, json_t *task)
{
	char path[4096];
	int exit_code = NODUS_EXIT_OK;
	snprintf(path, sizeof(path), "%s/solutions/%s.c", a->dir, a->name);
	FILE *f = create(path, &exit_code);
	if (!f)
		return exit_code;
	json_t *ins = json_object_get(task, "inputs"), *outs = json_object_get(task, "outputs");
	fprintf(f,
		"/* %s.c: a solution of task %s (a template from 'nodus new solution').\n"
		" *\n"
		" * nodus builds this file into a shared object and calls %s(call) with the\n"
		" * task's tensors in the task's order (include/nodus/solution.h):\n"
		" *   - call->inputs[k]: read only; writing one is INPUT_MUTATED;\n"
		" *   - call->outputs[k]: poisoned before every call: write every element, or\n"
		" *     the attempt is INCORRECT_SHAPE;\n"
		" *   - sizes: .numel, .shape[], .ndim of each tensor; the workload's axis\n"
		" *     values: call->axis_values[i] for call->axis_names[i];\n"
		" *   - call->stream is the cudaStream_t to use on cuda (NULL on cpu).\n"
		" * Return 0, or anything else for an error (RUNTIME_ERROR). The call runs in a\n"
		" * sandbox: no threads, files, sockets or processes (docs/sandbox.md). Every\n"
		" * file the build reads must be listed in %s.json's sources.\n"
		" */\n"
		"#include <stdint.h>\n\n#include \"nodus/solution.h\"\n\n"
		"int %s(const nodus_call *call)\n{\n",
		a->name, a->task, a->name, a->name, a->name);
	write_c_tensors(f, ins, "inputs", 1);
	write_c_tensors(f, outs, "outputs", 0);
	size_t i;
	json_t *t;
	json_array_foreach(outs, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		fprintf(f, "\tfor (int64_t i = 0; i < call->outputs[%zu].numel; i++)\n"
			   "\t\t%s[i] = 0; /* TODO: compute %s here */\n",
			i, name ? name : "t", name ? name : "the output");
	}
	fprintf(f, "\treturn 0;\n}\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "nodus new: cannot write '%s'\n", path);
		return NODUS_EXIT_INTERNAL;
	}
	printf("wrote %s\n", path);
	return NODUS_EXIT_OK;
}

static int new_solution(const struct new_args *a)
{
	char path[4096], src[128];
	json_t *task = NULL;
	if (!a->task)
		return nodus_cli_usage_error("new", "solution needs --task TASK");
	int rc = task_tensors(a->dir, a->task, &task);
	if (rc)
		return rc;
	if (make_dir(a->dir, "solutions")) {
		json_decref(task);
		fprintf(stderr, "nodus new: cannot create '%s/solutions': %s\n", a->dir,
			strerror(errno));
		return NODUS_EXIT_USAGE;
	}
	snprintf(src, sizeof(src), "%s.c", a->name);
	json_t *sol = json_pack("{s:s, s:i, s:s, s:s, s:s, s:[s], s:s, s:{s:[s]}, s:s, s:[]}",
				"kind", "solution", "format", 1, "name", a->name, "task", a->task,
				"backend", "cpu", "sources", src, "entry", a->name, "build", "flags",
				"-O2", "author", "you", "tags");
	snprintf(path, sizeof(path), "%s/solutions/%s.json", a->dir, a->name);
	rc = write_json(path, sol);
	json_decref(sol);
	if (rc == 0)
		rc = write_solution_c(a, task);
	json_decref(task);
	if (rc == 0)
		printf("\nnext: write the loop in %s/solutions/%s.c; a second solution is another\n"
		       "'nodus new solution'; then: nodus new campaign NAME --reference REFERENCE "
		       "--candidate CANDIDATE --dir %s\n", a->dir, a->name, a->dir);
	return rc;
}

/* The task named by solution name's file, borrowed from *doc (freed by the
 * caller), or NULL with a message. */
static const char *solution_task(const char *dir, const char *name, json_t **doc)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/solutions/%s.json", dir, name);
	*doc = json_load_file(path, 0, NULL);
	const char *task = json_string_value(json_object_get(*doc, "task"));
	if (!task)
		fprintf(stderr, "nodus new: %s: expected a solution file naming its task\n", path);
	return task;
}

/* Appends "workloads/F" for every workload file in DIR/workloads of task;
 * returns how many were found. */
static int task_workloads(const char *dir, const char *task, json_t *files, json_t *names)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/workloads", dir);
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		char file[4096 + 256];
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		json_t *w = json_load_file(file, 0, NULL);
		const char *t = json_string_value(json_object_get(w, "task"));
		const char *name = json_string_value(json_object_get(w, "name"));
		if (t && name && strcmp(t, task) == 0) {
			char rel[300];
			snprintf(rel, sizeof(rel), "workloads/%s", e->d_name);
			json_array_append_new(files, json_string(rel));
			json_array_append_new(names, json_string(name));
			n++;
		}
		json_decref(w);
	}
	if (d)
		closedir(d);
	return n;
}

static json_t *campaign_pairs(const struct new_args *a, json_t *workloads)
{
	json_t *pairs = json_array(), *w;
	size_t i;
	json_array_foreach(workloads, i, w) {
		for (int k = 0; k < a->n_candidates; k++)
			json_array_append_new(pairs, json_pack("{s:O, s:s, s:s}", "workload", w,
							       "candidate", a->candidates[k],
							       "reference", a->reference));
		/* A/A: the noise floor the tie margin must exceed */
		json_array_append_new(pairs, json_pack("{s:O, s:s, s:s, s:s}", "workload", w,
						       "candidate", a->reference, "reference",
						       a->reference, "expect", "EQUIVALENT"));
	}
	return pairs;
}

static int new_campaign(const struct new_args *a)
{
	char path[4096], rel[300];
	json_t *ref = NULL, *files = json_array(), *names = json_array(), *sols = json_array();
	int rc = NODUS_EXIT_USAGE;
	if (!a->reference) {
		rc = nodus_cli_usage_error("new", "campaign needs --reference SOLUTION");
		goto out;
	}
	const char *task = solution_task(a->dir, a->reference, &ref);
	if (!task)
		goto out;
	if (task_workloads(a->dir, task, files, names) == 0) {
		fprintf(stderr, "nodus new: no workload of task '%s' in %s/workloads\n", task, a->dir);
		goto out;
	}
	snprintf(rel, sizeof(rel), "solutions/%s.json", a->reference);
	json_array_append_new(sols, json_string(rel));
	for (int k = 0; k < a->n_candidates; k++) {
		snprintf(rel, sizeof(rel), "solutions/%s.json", a->candidates[k]);
		json_array_append_new(sols, json_string(rel));
	}
	snprintf(rel, sizeof(rel), "tasks/%s.json", task);
	json_t *c = json_pack(
		"{s:s, s:i, s:s, s:[s], s:O, s:O, s:o, s:{s:i}, s:[{s:s, s:s}, {s:s, s:s, s:i, s:s, "
		"s:f}], s:{s:s, s:s, s:n}}",
		"kind", "campaign", "format", 1, "name", a->name, "tasks", rel, "workloads", files,
		"solutions", sols, "pairs", campaign_pairs(a, names), "judge", "seed", 1,
		"conditions", "name", "isolated", "kind", "isolated", "name", "stress-membw-1", "kind",
		"cpu-stress", "tenants", 1, "load", "membw", "duty_cycle", 0.5, "target", "backend",
		"cpu", "profile", "this machine's CPU", "price_per_device_hour_usd");
	snprintf(path, sizeof(path), "%s/%s.json", a->dir, a->name);
	rc = c ? write_json(path, c) : NODUS_EXIT_INTERNAL;
	json_decref(c);
	if (rc == 0)
		printf("\nnext: nodus check %s && nodus plan %s -o %s/plan.json && nodus run "
		       "%s/plan.json --db %s/records.db && nodus report %s/records.db\n",
		       path, path, a->dir, a->dir, a->dir, a->dir);
out:
	json_decref(ref);
	json_decref(files);
	json_decref(names);
	json_decref(sols);
	return rc;
}

int nodus_cmd_new(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	struct new_args a = {.dir = "."};
	int exit_code = NODUS_EXIT_OK;
	(void)ctx;
	if (parse_args(argc, argv, &a, &exit_code))
		return exit_code;
	if (!good_name(a.name))
		return nodus_cli_usage_error("new", "NAME: expected a C identifier "
					     "([A-Za-z_][A-Za-z0-9_]*, at most 64), got '%s'", a.name);
	for (int k = 0; k < a.n_candidates; k++)
		if (!good_name(a.candidates[k]))
			return nodus_cli_usage_error("new", "--candidate: expected a solution name, "
						     "got '%s'", a.candidates[k]);
	if (strcmp(a.kind, "task") == 0)
		return new_task(&a);
	if (strcmp(a.kind, "solution") == 0)
		return new_solution(&a);
	if (strcmp(a.kind, "campaign") == 0)
		return new_campaign(&a);
	return nodus_cli_usage_error("new", "expected task, solution or campaign, got '%s'", a.kind);
}
