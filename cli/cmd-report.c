/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-report.c: `nodus report DB`, does each condition's labels agree with
 * the baseline's, and what did the agreeing records cost. Opens the store
 * read-only (a report may run while `nodus run` is still writing), lets
 * src/report/ compute and render, and writes stdout or -o FILE (through a
 * temporary file and rename, so FILE is never half-written).
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"

static const char usage[] =
	"usage: nodus report DB [--plan DIGEST] [--baseline NAME]\n"
	"                    [--format text|json|csv|trace|html] [-o FILE]\n\n"
	"Compares, over the pairs of a plan, each condition's final labels with those of\n"
	"the baseline condition: agreement matrix (failures and AMBIGUOUS included),\n"
	"agreement rate and Cohen's kappa with bootstrap intervals over tasks, pairs\n"
	"FASTER under a condition but not in the baseline, cost per condition (every\n"
	"attempt, retries and failures included) and agreeing records per dollar.\n"
	"Pairs whose targets differ from the baseline's are excluded and listed.\n\n"
	"  --plan DIGEST    the plan to report on (default: the latest plan in DB)\n"
	"  --baseline NAME  the condition compared against (default: the plan's\n"
	"                   condition of kind isolated)\n"
	"  --format F       text (default), json (docs/report.md), csv (one row per\n"
	"                   pair and condition) or trace (FlashInfer-Bench Trace JSONL,\n"
	"                   one line per final record) or html (one page with the\n"
	"                   tables and an interval figure per condition)\n"
	"  -o, --output FILE\n"
	"                   write the report to FILE instead of standard output\n"
	"                   (never the store itself)\n\n"
	"Every option also takes the form --opt=value.\n"
	"exit status: 0 ok, 2 bad usage, missing store or plan, an -o that cannot be\n"
	"written, 3 store error\n";

struct report_args {
	const char *db;               /* the store */
	const char *plan;             /* plan digest, or NULL for the latest */
	const char *out;              /* output file, or NULL for stdout */
	nodus_report_options opt;     /* baseline */
	nodus_report_format format;   /* text, json, csv or trace */
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
	else
		return -1;
	return 0;
}

/* Returns -1 when the caller should return *exit_code (help or error). */
static int parse_args(int argc, char **argv, struct report_args *a, int *exit_code)
{
	static const struct option longopts[] = {
		{"plan", required_argument, NULL, 'p'},
		{"baseline", required_argument, NULL, 'b'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
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
		case 'o':
			a->out = optarg;
			break;
		case 'f':
			if (parse_format(optarg, &a->format) == 0)
				break;
			*exit_code = nodus_cli_usage_error(
				"report", "--format: expected text, json, csv, trace or html, got '%s'",
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

int nodus_cmd_report(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	struct report_args a = {.format = NODUS_REPORT_TEXT};
	nodus_report_data data;
	nodus_error err = {0};
	nodus_store *s = NULL;
	json_t *report = NULL;
	nodus_buf text = NODUS_BUF_INIT;
	int exit_code = NODUS_EXIT_OK;
	(void)ctx;
	nodus_report_data_init(&data);
	if (parse_args(argc, argv, &a, &exit_code))
		return exit_code;
	int rc = nodus_store_open_readonly(a.db, &s, &err);
	if (rc == 0)
		rc = nodus_report_load(s, a.plan, &data, &err);
	if (rc == 0 && a.format == NODUS_REPORT_TRACE) {
		rc = nodus_report_trace(&data, &text, &err);
	} else {
		if (rc == 0)
			rc = nodus_report_compute(&data, &a.opt, &report, &err);
		if (rc == 0)
			rc = nodus_report_render(report, a.format, &text, &err);
	}
	if (rc) {
		nodus_cli_print_error(&err);
		exit_code = nodus_cli_exit_for(rc);
		goto out;
	}
	exit_code = write_out(a.out, &text);
out:
	nodus_buf_release(&text);
	json_decref(report);
	nodus_report_data_release(&data);
	nodus_store_close(s);
	return exit_code;
}
