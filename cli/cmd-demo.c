/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-demo.c: `nodus demo` - the main job on the bundled default campaign:
 * seal it, run every condition (isolated first, as the plan orders them),
 * print the text report and write the JSON report. On a machine where the
 * cuda backend loads and sees a GPU it runs the GPU campaign, and says so.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cmd.h"
#include "common/common.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nodus demo [--campaign FILE] [--out DIR] [--cpu] [--resume]\n\n"
		"Seals the bundled default campaign, runs it under every condition it declares,\n"
		"prints the text report and writes DIR/report.json and the page DIR/report.html\n"
		"(its path printed last; DIR defaults to 'demo'\n"
		"beside the nodus binary, i.e. build/demo). Uses suites/cuda/campaign.json when a\n"
		"GPU is usable, suites/cpu/campaign.json otherwise (--cpu forces the latter).\n"
		"Each demo starts a fresh record store unless --resume is given.\n");
}

static int gpu_usable(char *why, size_t size)
{
	const nodus_backend_ops *ops;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	if (nodus_backend_cuda_load(&ops, &err)) {
		nodus_error_format(&err, why, size);
		return 0;
	}
	void *dev = NULL;
	if (ops->open(&dev, &err)) {
		nodus_error_format(&err, why, size);
		return 0;
	}
	ops->close(dev);
	return 1;
}

static void suites_dir(const char *self, char *out, size_t size)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", self);
	snprintf(out, size, "%s/../suites", dirname(tmp));
	char probe[PATH_MAX + 32];
	snprintf(probe, sizeof(probe), "%s/cpu/campaign.json", out);
	if (access(probe, R_OK) != 0)
		snprintf(out, size, "%s/suites", NODUS_SOURCE_DIR);
}

int nodus_cmd_demo(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	const char *campaign = NULL, *out = NULL;
	int force_cpu = 0, resume = 0, ch;
	static const struct option longopts[] = {
		{"campaign", required_argument, NULL, 'c'},
		{"out", required_argument, NULL, 'O'},
		{"cpu", no_argument, NULL, 'u'},
		{"resume", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			return NODUS_EXIT_OK;
		} else if (ch == 'c') {
			campaign = optarg;
		} else if (ch == 'O') {
			out = optarg;
		} else if (ch == 'u') {
			force_cpu = 1;
		} else if (ch == 'r') {
			resume = 1;
		} else {
			return nodus_cli_option_error("demo", ch, argc, argv);
		}
	}
	if (optind < argc)
		return nodus_cli_usage_error("demo", "unexpected argument '%s'", argv[optind]);
	if ((ch = nodus_cli_check_dir("demo", "--out", out)))
		return ch;
	char suites[PATH_MAX], camp[PATH_MAX + 64], outdir[PATH_MAX], why[1024] = "";
	suites_dir(ctx->self_path, suites, sizeof(suites));
	if (!campaign) {
		int gpu = !force_cpu && gpu_usable(why, sizeof(why));
		snprintf(camp, sizeof(camp), "%s/%s/campaign.json", suites, gpu ? "cuda" : "cpu");
		if (gpu)
			printf("nodus demo: a GPU is usable: running the GPU campaign %s\n", camp);
		else if (force_cpu)
			printf("nodus demo: running the CPU campaign %s\n", camp);
		else
			printf("nodus demo: running the CPU campaign %s (no GPU: %s)\n", camp, why);
		campaign = camp;
	}
	if (out) {
		snprintf(outdir, sizeof(outdir), "%s", out);
	} else {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%s", ctx->self_path);
		snprintf(outdir, sizeof(outdir), "%s/demo", dirname(tmp));
	}
	if (mkdir(outdir, 0755) && errno != EEXIST) { /* a path the user may have named */
		fprintf(stderr, "nodus demo: cannot create '%s': %s\n", outdir, strerror(errno));
		return NODUS_EXIT_USAGE;
	}
	char plan[PATH_MAX + 16], db[PATH_MAX + 16], report[PATH_MAX + 16], side[PATH_MAX + 32];
	char page[PATH_MAX + 16];
	snprintf(plan, sizeof(plan), "%s/plan.json", outdir);
	snprintf(db, sizeof(db), "%s/records.db", outdir);
	snprintf(report, sizeof(report), "%s/report.json", outdir);
	snprintf(page, sizeof(page), "%s/report.html", outdir);
	if (!resume) {
		unlink(db);
		snprintf(side, sizeof(side), "%s-wal", db);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", db);
		unlink(side);
	}

	char *plan_argv[] = {"plan", (char *)campaign, "-o", plan, NULL};
	int rc = nodus_cmd_plan(4, plan_argv, ctx);
	if (rc)
		return rc;
	fflush(stdout);

	nodus_run_opts o;
	memset(&o, 0, sizeof(o));
	o.plan_path = plan;
	o.db_path = db;
	o.self_path = ctx->self_path;
	o.resume = resume;
	o.progress = stdout;
	if ((rc = nodus_cli_run_plan(&o)))
		return rc;
	fflush(stdout);

	char *text_argv[] = {"report", db, "--format", "text", NULL};
	if ((rc = nodus_cmd_report(4, text_argv, ctx)))
		return rc;
	char *json_argv[] = {"report", db, "--format", "json", "-o", report, NULL};
	if ((rc = nodus_cmd_report(6, json_argv, ctx)))
		return rc;
	char *html_argv[] = {"report", db, "--format", "html", "-o", page, NULL};
	if ((rc = nodus_cmd_report(6, html_argv, ctx)))
		return rc;
	printf("\nnodus demo: plan %s, records %s, JSON report %s\n", plan, db, report);
	printf("nodus demo: the report page: %s\n", page);
	return NODUS_EXIT_OK;
}
