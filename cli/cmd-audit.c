/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-audit.c: `nodus audit CAMPAIGN.json` asks, per task and workload,
 * whether the judge's inputs can tell a right kernel from a wrong one
 * (src/audit/audit.h, docs/audit.md). `nodus plan` runs the same audit and
 * refuses to seal a campaign that fails it.
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "cmd.h"
#include "common/common.h"
#include "plan/plan.h"
#include "run/build.h"

static int usage(void)
{
	printf("usage: nodus audit CAMPAIGN.json [--format text|json] [-o FILE] [--cache DIR]\n"
	       "                   [--static]\n\n"
	       "Audits the judge of every task and workload a pair measures: constant inputs\n"
	       "(weight = 1, bias = 0 ...), inputs the output does not depend on, draws of one\n"
	       "sign, references whose output is constant or below atol, tolerances a bfloat16\n"
	       "result passes, and wrong affine formulas (a dropped weight or bias, 1 + w for\n"
	       "w, scale and shift exchanged, the shift before the scale) the judge would\n"
	       "accept. The reference is called in a child process; on a backend this machine\n"
	       "lacks, those checks are skipped and say so. A check the campaign waives\n"
	       "(audit.waive) is shown as waived.\n\n"
	       "  --format text|json   report format (default text)\n"
	       "  -o, --output FILE    write the report there instead of standard output\n"
	       "  --cache DIR          compiled references (default: nodus-cache)\n"
	       "  --static             only the checks that need no call of the reference\n\n"
	       "exit status: 0 every task passes, 1 a task fails, 2 bad usage or campaign\n"
	       "faults, 3 internal error\n");
	return NODUS_EXIT_OK;
}

int nodus_cmd_audit(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	const char *campaign = NULL, *out = NULL, *format = "text", *cache = "nodus-cache";
	int run_refs = 1, ch;
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"cache", required_argument, NULL, 'C'},
		{"static", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		if (ch == 'h')
			return usage();
		else if (ch == 'o')
			out = optarg;
		else if (ch == 'f')
			format = optarg;
		else if (ch == 'C')
			cache = optarg;
		else if (ch == 's')
			run_refs = 0;
		else
			return nodus_cli_option_error("audit", ch, argc, argv);
	}
	if (optind < argc)
		campaign = argv[optind++];
	if (optind < argc)
		return nodus_cli_usage_error("audit", "unexpected argument '%s'", argv[optind]);
	if (!campaign)
		return nodus_cli_usage_error("audit", "expected CAMPAIGN.json");
	int bad = nodus_cli_check_dir("audit", "--cache", cache);
	if (bad)
		return bad;
	if (strcmp(format, "text") && strcmp(format, "json"))
		return nodus_cli_usage_error("audit", "--format: expected text or json, got '%s'",
					     format);
	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_campaign *c = NULL;
	int rc = nodus_campaign_load(campaign, &c, &diags);
	for (size_t k = 0; k < diags.count; k++) {
		char line[2048];
		nodus_error_format(&diags.items[k], line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
	nodus_diags_release(&diags);
	if (rc)
		return NODUS_EXIT_USAGE;
	nodus_error err = {0};
	if (out && nodus_campaign_check_output(c, out, &err)) {
		nodus_campaign_free(c);
		nodus_cli_print_error(&err);
		return NODUS_EXIT_USAGE;
	}
	char inc[1024];
	nodus_audit_opts o = {cache, nodus_build_include_dir(ctx->self_path, inc, sizeof(inc)),
			      run_refs, ctx->self_path};
	json_t *report = NULL;
	int failed = 0;
	rc = nodus_audit_campaign(c, &o, &report, &failed, &err);
	nodus_campaign_free(c);
	if (rc) {
		nodus_cli_print_error(&err);
		return NODUS_EXIT_INTERNAL;
	}
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		json_decref(report);
		return nodus_cli_usage_error("audit", "cannot write '%s'", out);
	}
	if (strcmp(format, "json") == 0) {
		json_dumpf(report, f, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', f);
	} else {
		nodus_audit_print(report, f);
	}
	int write_failed = out ? fclose(f) != 0 : fflush(f) != 0;
	json_decref(report);
	if (write_failed)
		return nodus_cli_usage_error("audit", "cannot write '%s'", out ? out : "stdout");
	return failed ? NODUS_EXIT_CHECK : NODUS_EXIT_OK;
}
