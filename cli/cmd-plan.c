/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-plan.c: `nodus plan CAMPAIGN.json -o PLAN.json` seals a campaign:
 * validates it with every file it names, writes the plan atomically, loads
 * the written plan back (which re-verifies every hash) and prints its
 * digest, pair count, conditions and the target's declared price.
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "run/python.h"
#include "cmd.h"
#include "common/common.h"
#include "plan/plan.h"
#include "run/build.h"

static int usage(void)
{
	printf("usage: nodus plan CAMPAIGN.json -o PLAN.json [--cache DIR]\n\n"
	       "Seals a campaign into a plan: the pairs, the judge with every default filled\n"
	       "in, the conditions, the target, the audit checks the campaign waives, and the\n"
	       "SHA-256 of every file the pairs depend on. Measurement runs only from a plan;\n"
	       "'nodus verify' checks one. First the judge is audited ('nodus audit'): a task\n"
	       "failing a check the campaign does not waive is refused, and nothing is written.\n\n"
	       "  -o, --output PLAN.json   where to write the plan: a regular file, replaced\n"
	       "                           atomically (never a FIFO, a device or a directory)\n"
	       "  --cache DIR              compiled references for the audit\n"
	       "                           (default: nodus-cache beside the plan)\n\n"
	       "exit status: 0 sealed, 1 the audit failed, 2 bad usage or campaign faults,\n"
	       "3 internal error\n");
	return NODUS_EXIT_OK;
}

static void print_diags(const nodus_diags *d)
{
	for (size_t k = 0; k < d->count; k++) {
		char line[2048];
		nodus_error_format(&d->items[k], line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
}

static void print_summary(const nodus_plan *p)
{
	const nodus_campaign *c = p->campaign;
	printf("sealed %s\n", p->path);
	printf("digest: %s\n", p->digest);
	printf("pairs: %d\n", c->n_pairs);
	printf("conditions: %d (", c->n_conditions);
	for (int k = 0; k < c->n_conditions; k++)
		printf("%s%s", k ? ", " : "", c->conditions[k].name);
	printf(")\n");
	printf("target: %s \"%s\", ", c->target.backend == NODUS_BACKEND_CUDA ? "cuda" : "cpu",
	       c->target.profile);
	if (c->target.has_price)
		printf("price %.4g USD per device-hour\n", c->target.price_per_device_hour_usd);
	else
		printf("price unknown (null): costs will be reported as unknown\n");
}

/* Runs the judge audit; 0 when every task passes or is waived, 1 when one
 * fails, 2 when the target cannot run its python solutions, -1 on an internal
 * error, -2 when -o names an input. Campaign
 * faults are left to the sealing that follows, which reports them. */
static int audit_campaign(const char *campaign, const char *out, const char *cache,
			  const nodus_cli_ctx *ctx)
{
	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_campaign *c = NULL;
	int rc = nodus_campaign_load(campaign, &c, &diags);
	nodus_diags_release(&diags);
	if (rc)
		return 0;
	nodus_error oerr = {0};
	if (nodus_campaign_check_output(c, out, &oerr)) { /* before the audit writes its cache */
		nodus_campaign_free(c);
		nodus_cli_print_error(&oerr);
		return -2;
	}
	char inc[1024], dir[1024];
	if (!cache) {
		snprintf(dir, sizeof(dir), "%s", out);
		char *slash = strrchr(dir, '/');
		snprintf(slash ? slash + 1 : dir, sizeof(dir) - (size_t)(slash ? slash + 1 - dir : 0),
			 "nodus-cache");
		cache = dir;
	}
	/* python solutions: the target's interpreter must run them (torch
	 * importable, its files readable by a worker; tvm_ffi importable for
	 * a module that names it), said before anything is sealed rather
	 * than by every record of the run */
	for (int k = 0; k < c->n_solutions; k++) {
		const nodus_python_info *py;
		const nodus_solution *s = &c->solutions[k];
		nodus_error perr = {0};
		char src[2 * sizeof(s->dir) + 2];
		if (s->language != NODUS_LANG_PYTHON)
			continue;
		snprintf(src, sizeof(src), "%s/%s", s->dir[0] ? s->dir : ".", s->sources[0]);
		if (nodus__python_probe(c->target.python, &py, &perr) ||
		    (nodus__python_source_names(src, "tvm_ffi") &&
		     nodus__python_need_tvm_ffi(py, s->name, &perr))) {
			fprintf(stderr, "%s: %s\n", campaign, perr.message);
			nodus_campaign_free(c);
			return 2;
		}
	}
	nodus_audit_opts o = {cache, nodus_build_include_dir(ctx->self_path, inc, sizeof(inc)), 1,
			      ctx->self_path};
	json_t *report = NULL;
	int failed = 0;
	nodus_error err = {0};
	rc = nodus_audit_campaign(c, &o, &report, &failed, &err);
	nodus_campaign_free(c);
	if (rc) {
		nodus_cli_print_error(&err);
		return -1;
	}
	if (failed)
		nodus_audit_print(report, stderr);
	else
		printf("audit: %zu task-workload(s) pass\n", json_array_size(json_object_get(report, "items")));
	json_decref(report);
	if (failed)
		fprintf(stderr, "nodus plan: the judge audit failed for %d task-workload(s): fix the "
			"task or workload, or waive the named check in the campaign's audit.waive "
			"(docs/audit.md); no plan written\n",
			failed);
	return failed ? 1 : 0;
}

int nodus_cmd_plan(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"cache", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *campaign = NULL, *out = NULL, *cache = NULL;
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh (demo runs several commands in one process) */
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		if (ch == 'h')
			return usage();
		else if (ch == 'o')
			out = optarg;
		else if (ch == 'C')
			cache = optarg;
		else
			return nodus_cli_option_error("plan", ch, argc, argv);
	}
	if (optind < argc)
		campaign = argv[optind++];
	if (optind < argc)
		return nodus_cli_usage_error("plan", "unexpected argument '%s'", argv[optind]);
	if (!campaign || !out || !out[0])
		return nodus_cli_usage_error("plan", "expected CAMPAIGN.json -o PLAN.json");
	int bad = nodus_cli_check_dir("plan", "--cache", cache);
	if (bad)
		return bad;
	/* the audit's cache goes beside the plan: a bad -o must not read as a
	 * failed audit */
	char dir[4096];
	struct stat sb;
	snprintf(dir, sizeof(dir), "%s", out);
	if (stat(dirname(dir), &sb) != 0 || !S_ISDIR(sb.st_mode))
		return nodus_cli_usage_error("plan", "-o %s: '%s' is not a directory", out, dir);
	/* before the audit: nodus_plan_seal refuses it too, but only after */
	if (stat(out, &sb) == 0 && !S_ISREG(sb.st_mode))
		return nodus_cli_usage_error("plan",
					     "-o %s: exists and is not a regular file; a plan is a "
					     "file beside the paths it names (name a file)",
					     out);

	int audit = audit_campaign(campaign, out, cache, ctx);
	if (audit)
		return audit == -2 || audit == 2 ? NODUS_EXIT_USAGE
		       : audit < 0 ? NODUS_EXIT_INTERNAL : NODUS_EXIT_CHECK;

	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_error err = {0};
	nodus_plan *p = NULL;
	char digest[NODUS_SHA256_HEX];
	int rc = nodus_plan_seal(campaign, out, digest, &diags, &err);
	if (!rc)
		rc = nodus_plan_load(out, &p, &diags);
	print_diags(&diags);
	if (rc && !diags.count)
		nodus_cli_print_error(&err);
	if (!rc)
		print_summary(p);
	nodus_plan_free(p);
	nodus_diags_release(&diags);
	if (rc == NODUS_EIO && err.code == 0)
		return NODUS_EXIT_USAGE; /* the campaign itself could not be read */
	return nodus_cli_exit_for(rc);
}
