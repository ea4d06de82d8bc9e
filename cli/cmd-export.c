/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-export.c: `nodus export SUBCOMMAND`, data sets made from a record
 * store.
 *
 *   dataset DB --holdout-families FILE -o DIR [--plan DIGEST]
 *           a plan's final records as JSONL rows, split into train and
 *           held-out by workload family (the pair's task) as FILE lists
 *           them, each row with its provenance and whether it is trusted
 *           (agrees with its isolated recheck), and a manifest
 *           (src/report/export.c, docs/export.md)
 *
 * The store is opened read-only, as for `nodus report`; DIR is written
 * beside itself and renamed into place, as `nodus report --format dataset`
 * writes its directory, so it is never half-written and never over files.
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"

static const char usage[] =
	"usage: nodus export dataset DB --holdout-families FILE -o DIR [--plan DIGEST]\n\n"
	"Writes data sets made from a record store (docs/export.md).\n\n"
	"subcommands:\n"
	"  dataset   a plan's final records as JSONL rows for training, split into\n"
	"            train and held-out by workload family, with a manifest\n\n"
	"'nodus export dataset --help' shows its options.\n";

static const char usage_dataset[] =
	"usage: nodus export dataset DB --holdout-families FILE -o DIR [--plan DIGEST]\n\n"
	"Writes every final record of a plan (one per pair and condition) as one JSON\n"
	"row, into DIR/train.jsonl or DIR/heldout.jsonl by its workload family, and\n"
	"DIR/manifest.json (nodus version, store, plan digest, the held-out list and\n"
	"its file's sha256, counts per split, status and label, every row field).\n"
	"A family is a task: all pairs of a task fall in one split. The split is FILE's\n"
	"alone, fixed before any result is read. Each row carries its provenance (plan\n"
	"digest, target hash, the sealed judge, attempt) and `trusted`: true only for\n"
	"an OK record labelled FASTER, SLOWER or TIED that agrees with its isolated\n"
	"recheck as `nodus report` computes agreement (a record under another condition\n"
	"is rechecked by the pair's baseline isolated record, the baseline record by\n"
	"the plan's later isolated conditions); otherwise `trusted_why` says why not.\n\n"
	"  --holdout-families FILE\n"
	"                   the held-out family (task) names, one a line; '#' starts a\n"
	"                   comment, blank lines are allowed, an empty FILE holds out\n"
	"                   nothing; a name the plan has no task of is an error at\n"
	"                   FILE:LINE (required)\n"
	"  -o, --output DIR a new or empty directory (required); written beside\n"
	"                   itself and renamed into place, never over files\n"
	"  --plan DIGEST    the plan to export (default: the latest plan in DB)\n\n"
	"Every option also takes the form --opt=value.\n"
	"exit status: 0 ok; 2 bad usage, DB missing or not a nodus store, an unknown\n"
	"plan, FILE unreadable or naming an unknown family, a plan without final\n"
	"records, DIR not empty or not writable; 3 store or internal error\n";

struct export_args {
	const char *db;               /* the store */
	const char *plan;             /* plan digest, or NULL for the latest */
	const char *holdout;          /* --holdout-families FILE */
	const char *out;              /* -o DIR */
};

/* The options and operands of the required arguments. Returns -1 when the
 * caller should return *exit_code (help or error). */
static int check_args(const struct export_args *a, int *exit_code)
{
	if (!a->db)
		*exit_code = nodus_cli_usage_error("export dataset", "missing the store file DB");
	else if (!a->holdout)
		*exit_code = nodus_cli_usage_error(
			"export dataset", "missing --holdout-families FILE (the held-out "
			"families, one a line; an empty file holds out none)");
	else if (!a->out)
		*exit_code = nodus_cli_usage_error("export dataset",
						   "missing -o DIR (a new or empty directory)");
	else
		return 0;
	return -1;
}

static int parse_args(int argc, char **argv, struct export_args *a, int *exit_code)
{
	static const struct option longopts[] = {
		{"plan", required_argument, NULL, 'p'},
		{"holdout-families", required_argument, NULL, 'H'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(usage_dataset, stdout);
			*exit_code = NODUS_EXIT_OK;
			return -1;
		case 'p':
			a->plan = optarg;
			break;
		case 'H':
			a->holdout = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		default:
			*exit_code = nodus_cli_option_error("export dataset", ch, argc, argv);
			return -1;
		}
	}
	if (optind < argc)
		a->db = argv[optind++];
	if (optind < argc) {
		*exit_code = nodus_cli_usage_error("export dataset", "unexpected argument '%s'",
						   argv[optind]);
		return -1;
	}
	return check_args(a, exit_code);
}

static int export_dataset(int argc, char **argv)
{
	struct export_args a = {0};
	nodus_report_data data;
	nodus_error err = {0};
	nodus_store *s = NULL;
	nodus_report_export_counts n = {0};
	int exit_code = NODUS_EXIT_OK;
	nodus_report_data_init(&data);
	if (parse_args(argc, argv, &a, &exit_code))
		return exit_code;
	char db_abs[PATH_MAX];
	/* the manifest names the store wherever the export is read */
	nodus_report_export_options o = {.holdout_path = a.holdout,
					 .db_path = realpath(a.db, db_abs) ? db_abs : a.db};
	int rc = nodus_store_open_readonly(a.db, &s, &err);
	if (rc == 0)
		rc = nodus_report_load(s, a.plan, &data, &err);
	if (rc == 0)
		rc = nodus_report_export(&data, &o, a.out, &n, &err);
	if (rc) {
		nodus_cli_print_error(&err);
		/* a DIR that is not empty or cannot be written is the user's to fix */
		exit_code = rc == NODUS_EIO ? NODUS_EXIT_USAGE : nodus_cli_exit_for(rc);
	} else {
		printf("export %s: %d row(s) in train.jsonl, %d in heldout.jsonl (%d of %d "
		       "families held out), %d trusted; %d pair-condition(s) without a final "
		       "record\n",
		       a.out, n.train, n.heldout, n.heldout_families, n.families, n.trusted,
		       n.missing);
	}
	nodus_report_data_release(&data);
	nodus_store_close(s);
	return exit_code;
}

int nodus_cmd_export(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc < 2) {
		fputs(usage, stderr);
		return NODUS_EXIT_USAGE;
	}
	if (nodus_cli_is_help(argv[1])) {
		fputs(usage, stdout);
		return NODUS_EXIT_OK;
	}
	if (strcmp(argv[1], "dataset") == 0)
		return export_dataset(argc - 1, argv + 1);
	if (argv[1][0] == '-') /* an option before the subcommand */
		return nodus_cli_usage_error("export", "unknown option '%s'", argv[1]);
	return nodus_cli_usage_error("export", "unknown subcommand '%s' (expected dataset)",
				     argv[1]);
}
