/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-report.c: `nodus report DB`, does each condition's labels agree with
 * the baseline's, and what did the agreeing records cost. Opens the store
 * read-only (a report may run while `nodus run` is still writing), lets
 * src/report/ compute and render, and writes stdout or -o FILE (through a
 * temporary file and rename, so FILE is never half-written). The dataset
 * format also loads the sealed plan file (--plan-file), whose verified
 * campaign has the tensors and sources the store does not keep, and writes
 * a directory (src/report/dataset.c, renamed into place the same way).
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "plan/plan.h"
#include "report/report.h"

static const char usage[] =
	"usage: nodus report DB [--plan DIGEST] [--baseline NAME] [--conditions A,B]\n"
	"                    [--format text|json|csv|trace|html] [-o FILE]\n"
	"       nodus report DB --format dataset --plan-file PLAN -o DIR\n\n"
	"Compares, over the pairs of a plan, each condition's final labels with those of\n"
	"the baseline condition: agreement matrix (failures and AMBIGUOUS included),\n"
	"agreement rate and Cohen's kappa with bootstrap intervals over tasks, pairs\n"
	"FASTER under a condition but not in the baseline, cost per condition (every\n"
	"attempt, retries and failures included) and agreeing records per dollar.\n"
	"Pairs whose targets differ from the baseline's are excluded and listed.\n\n"
	"  --plan DIGEST    the plan to report on (default: the latest plan in DB)\n"
	"  --baseline NAME  the condition compared against (default: the plan's\n"
	"                   condition of kind isolated)\n"
	"  --conditions A,B only these conditions, beside the baseline (a study of\n"
	"                   many conditions read a few at a time; not for trace or\n"
	"                   dataset, which hold every condition)\n"
	"  --format F       text (default), json (docs/report.md), csv (one row per\n"
	"                   pair and condition), trace (FlashInfer-Bench Trace JSONL,\n"
	"                   one line per final record that is the candidate's outcome;\n"
	"                   harness failures such as NOT_ISOLATED are left out and\n"
	"                   counted on stderr), html (one page with the tables and an\n"
	"                   interval figure per condition) or dataset (a\n"
	"                   FlashInfer-Bench dataset directory: definitions, solutions,\n"
	"                   workloads and traces, one definition per task and\n"
	"                   condition, harness failures in nodus/harness-failures.jsonl)\n"
	"  --plan-file PLAN the sealed plan file (nodus plan -o PLAN), needed by\n"
	"                   --format dataset for the tasks' tensors and the solutions'\n"
	"                   sources, verified against their hashes; names the plan\n"
	"                   reported on unless --plan does (they must agree)\n"
	"  -o, --output FILE\n"
	"                   write the report to FILE instead of standard output\n"
	"                   (never the store itself); for dataset a new or empty\n"
	"                   directory, required\n\n"
	"Every option also takes the form --opt=value.\n"
	"exit status: 0 ok, 1 a file of --plan-file changed since sealing, 2 bad usage,\n"
	"missing store or plan, an -o that cannot be written (dataset: a directory that\n"
	"is not empty), what a dataset cannot hold, 3 store error\n";

struct report_args {
	const char *db;               /* the store */
	const char *plan;             /* plan digest, or NULL for the latest */
	const char *out;              /* output file (dataset: directory), or NULL for stdout */
	const char *plan_file;        /* the sealed plan file (dataset), or NULL */
	nodus_report_options opt;     /* baseline */
	nodus_report_format format;   /* text, json, csv, trace, html or dataset */
};

static int parse_format(const char *s, nodus_report_format *f)
{
	if (strcmp(s, "text") == 0)
		*f = NODUS_REPORT_TEXT;
	else if (strcmp(s, "json") == 0)
		*f = NODUS_REPORT_JSON;
	else if (strcmp(s, "trace") == 0)
		*f = NODUS_REPORT_TRACE;
	else if (strcmp(s, "html") == 0)
		*f = NODUS_REPORT_HTML;
	else if (strcmp(s, "csv") == 0)
		*f = NODUS_REPORT_CSV;
	else if (strcmp(s, "dataset") == 0)
		*f = NODUS_REPORT_DATASET;
	else
		return -1;
	return 0;
}

/* --plan-file and -o DIR belong to the dataset format and it needs both.
 * Returns -1 (with *exit_code) when they do not fit. */
static int check_dataset_args(const struct report_args *a, int *exit_code)
{
	int dataset = a->format == NODUS_REPORT_DATASET;
	if (dataset && !a->plan_file)
		*exit_code = nodus_cli_usage_error(
			"report", "--format dataset: missing --plan-file PLAN (the store keeps the "
			"plan document, not the tasks' tensors or the solutions' sources)");
	else if (dataset && !a->out)
		*exit_code = nodus_cli_usage_error(
			"report", "--format dataset: missing -o DIR (a dataset is a directory)");
	else if (!dataset && a->plan_file)
		*exit_code = nodus_cli_usage_error(
			"report", "--plan-file: only --format dataset reads the plan file");
	else
		return 0;
	return -1;
}

/* Returns -1 when the caller should return *exit_code (help or error). */
static int parse_args(int argc, char **argv, struct report_args *a, int *exit_code)
{
	static const struct option longopts[] = {
		{"plan", required_argument, NULL, 'p'},
		{"baseline", required_argument, NULL, 'b'},
		{"conditions", required_argument, NULL, 'c'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"plan-file", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh (demo runs several commands in one process) */
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(usage, stdout);
			*exit_code = NODUS_EXIT_OK;
			return -1;
		case 'p':
			a->plan = optarg;
			break;
		case 'b':
			a->opt.baseline = optarg;
			break;
		case 'c':
			a->opt.conditions = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'P':
			a->plan_file = optarg;
			break;
		case 'f':
			if (parse_format(optarg, &a->format) == 0)
				break;
			*exit_code = nodus_cli_usage_error(
				"report",
				"--format: expected text, json, csv, trace, html or dataset, got '%s'",
				optarg);
			return -1;
		default:
			*exit_code = nodus_cli_option_error("report", ch, argc, argv);
			return -1;
		}
	}
	if (optind < argc)
		a->db = argv[optind++];
	if (optind < argc) {
		*exit_code = nodus_cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!a->db) {
		*exit_code = nodus_cli_usage_error("report", "missing the store file DB");
		return -1;
	}
	if (check_dataset_args(a, exit_code))
		return -1;
	if (a->opt.conditions &&
	    (a->format == NODUS_REPORT_TRACE || a->format == NODUS_REPORT_DATASET)) {
		*exit_code = nodus_cli_usage_error(
			"report", "--conditions: the text, json, csv and html reports take it; a "
			"trace or a dataset holds every condition's records");
		return -1;
	}
	if (a->out) { /* the store and its side files are inputs */
		char side[4096];
		const char *suffix[] = {"", "-wal", "-shm"};
		for (size_t k = 0; k < NODUS_ARRAY_SIZE(suffix); k++) {
			snprintf(side, sizeof(side), "%s%s", a->db, suffix[k]);
			if (nodus_same_file(side, a->out)) {
				*exit_code = nodus_cli_usage_error(
					"report", "-o %s: is the store file '%s', an input of this "
					"command; refusing to write over it (name another file)",
					a->out, side);
				return -1;
			}
		}
	}
	return 0;
}

static int write_out(const char *path, const nodus_buf *text)
{
	char tmp[4096];
	if (!path) {
		fwrite(text->data, 1, text->len, stdout);
		return NODUS_EXIT_OK;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) { /* a path the user named: a missing directory, no permission */
		fprintf(stderr, "nodus report: -o %s: cannot create '%s': %m\n", path, tmp);
		return NODUS_EXIT_USAGE;
	}
	size_t n = fwrite(text->data, 1, text->len, f);
	int bad = n != text->len || ferror(f);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		fprintf(stderr, "nodus report: cannot write '%s': %m\n", path);
		remove(tmp);
		return NODUS_EXIT_INTERNAL;
	}
	return NODUS_EXIT_OK;
}

/* --format dataset: loads and verifies the plan file, writes the directory
 * and says what it holds. */
static int export_dataset(const struct report_args *a, nodus_store *s, nodus_report_data *data)
{
	nodus_plan *plan = NULL;
	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_error err = {0};
	nodus_report_dataset_counts n;
	int rc = nodus_plan_load(a->plan_file, &plan, &diags);
	for (size_t i = 0; i < diags.count; i++)
		nodus_cli_print_error(&diags.items[i]);
	nodus_diags_release(&diags);
	if (rc)
		return nodus_cli_exit_for(rc);
	rc = nodus_report_load(s, a->plan ? a->plan : plan->digest, data, &err);
	if (rc == 0)
		rc = nodus_report_dataset(data, plan, a->out, &n, &err);
	nodus_plan_free(plan);
	if (rc) {
		nodus_cli_print_error(&err);
		return rc == NODUS_EIO ? NODUS_EXIT_USAGE : nodus_cli_exit_for(rc);
	}
	printf("dataset %s: %d definition(s), %d solution(s), %d workload(s), %d trace(s), "
	       "%d harness failure(s) in nodus/harness-failures.jsonl\n",
	       a->out, n.definitions, n.solutions, n.workloads, n.traces, n.harness_failures);
	return NODUS_EXIT_OK;
}

/* Every other format: into text. */
static int render(const struct report_args *a, const nodus_report_data *data, nodus_buf *text,
		  nodus_error *err)
{
	if (a->format != NODUS_REPORT_TRACE) {
		json_t *report = NULL;
		int rc = nodus_report_compute(data, &a->opt, &report, err);
		if (rc == 0)
			rc = nodus_report_render(report, a->format, text, err);
		json_decref(report);
		return rc;
	}
	int left_out = 0;
	int rc = nodus_report_trace(data, text, &left_out, err);
	if (rc == 0 && left_out)
		fprintf(stderr, "nodus report: %d final record(s) are harness failures (not the "
			"candidate's: NOT_ISOLATED, INVALID_REFERENCE ...), left out of the trace; "
			"--format dataset keeps them in nodus/harness-failures.jsonl\n", left_out);
	return rc;
}

int nodus_cmd_report(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	struct report_args a = {.format = NODUS_REPORT_TEXT};
	nodus_report_data data;
	nodus_error err = {0};
	nodus_store *s = NULL;
	nodus_buf text = NODUS_BUF_INIT;
	int exit_code = NODUS_EXIT_OK;
	(void)ctx;
	nodus_report_data_init(&data);
	if (parse_args(argc, argv, &a, &exit_code))
		return exit_code;
	int rc = nodus_store_open_readonly(a.db, &s, &err);
	if (rc == 0 && a.format == NODUS_REPORT_DATASET) {
		exit_code = export_dataset(&a, s, &data);
		goto out;
	}
	if (rc == 0)
		rc = nodus_report_load(s, a.plan, &data, &err);
	if (rc == 0)
		rc = render(&a, &data, &text, &err);
	if (rc) {
		nodus_cli_print_error(&err);
		exit_code = nodus_cli_exit_for(rc);
		goto out;
	}
	exit_code = write_out(a.out, &text);
out:
	nodus_buf_release(&text);
	nodus_report_data_release(&data);
	nodus_store_close(s);
	return exit_code;
}
