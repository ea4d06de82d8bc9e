/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-calibrate.c: `nodus calibrate PLAN --db DB` - runs the plan's A/A
 * pairs (a reference timed against itself) and reports the noise floor the
 * tie margin must exceed: an A/A interval wider than [1/(1+d), 1+d] means
 * that under this condition a pair with no real difference cannot be
 * called TIED, so d is too small for this machine and condition.
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/common.h"
#include "plan/plan.h"
#include "store/store.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nodus calibrate PLAN.json --db DB [--condition NAME] [--cache DIR]\n\n"
		"Runs only the A/A pairs of the plan (candidate == reference) and prints, per\n"
		"condition, each A/A interval and the noise floor: the largest relative\n"
		"half-width max(hi - 1, 1/lo - 1), and the isolated A/A estimates' rms log (their\n"
		"spread about 1: well above the half-widths, an offset between the two sides'\n"
		"processes that the judge's process_sd should cover). The tie margin declared in the judge must\n"
		"exceed the floor of the isolated condition (shared conditions are reported:\n"
		"their floors say how much sharing blurs labels). Records go into DB like any run's (a later `nodus run --resume`\n"
		"reuses them). Exit 0 when the tie margin exceeds the floor everywhere, 1 when\n"
		"it does not, 2 for bad usage or when the plan has no A/A pair.\n");
}

struct floor_ctx {
	const nodus_campaign *c; /* the plan's campaign: which pairs are A/A */
	const char *digest;
	double tie_margin;
	double floor;        /* over the isolated condition's A/A pairs */
	int n;
	int not_tied;        /* isolated A/A pairs not TIED */
	double log_sq;       /* sum of their squared log estimates (truth: 0) */
	int n_cond;          /* conditions seen */
	char cond[16][64];   /* their names */
	double cond_floor[16];
	int cond_n[16];
};

static int is_isolated(const struct floor_ctx *c, const char *name)
{
	for (int i = 0; i < c->c->n_conditions; i++)
		if (strcmp(c->c->conditions[i].name, name) == 0)
			return c->c->conditions[i].kind == NODUS_COND_ISOLATED;
	return 0;
}

static int on_record(const nodus_record *r, void *arg)
{
	struct floor_ctx *c = arg;
	/* A/A: candidate and reference are the same code (one content hash) */
	int aa = 0;
	for (int p = 0; p < c->c->n_pairs && !aa; p++)
		aa = strcmp(c->c->pairs[p].id, r->pair_id) == 0 &&
		     strcmp(c->c->solutions[c->c->pairs[p].candidate].hash,
			    c->c->solutions[c->c->pairs[p].reference].hash) == 0;
	if (!aa)
		return 0;
	if (r->status != NODUS_STATUS_OK || isnan(r->ci_lo) || isnan(r->ci_hi)) {
		printf("  %-56s %-12s %s\n", r->pair_id, r->condition, nodus_status_name(r->status));
		return 0;
	}
	double half = fmax(r->ci_hi - 1.0, 1.0 / r->ci_lo - 1.0);
	int k = 0;
	while (k < c->n_cond && strcmp(c->cond[k], r->condition) != 0)
		k++;
	if (k == c->n_cond && k < 16) {
		snprintf(c->cond[k], sizeof(c->cond[k]), "%s", r->condition);
		c->cond_floor[k] = 0;
		c->cond_n[k] = 0;
		c->n_cond++;
	}
	if (k < 16) {
		c->cond_floor[k] = fmax(c->cond_floor[k], half);
		c->cond_n[k]++;
	}
	if (is_isolated(c, r->condition)) {
		c->floor = fmax(c->floor, half);
		c->n++;
		c->not_tied += r->label != NODUS_LABEL_TIED;
		c->log_sq += log(r->speedup) * log(r->speedup);
	}
	printf("  %-56s %-12s %7.4f [%7.4f, %7.4f]  %-9s half-width %.2f%%  %.0f ns\n", r->pair_id,
	       r->condition, r->speedup, r->ci_lo, r->ci_hi, nodus_label_name(r->label),
	       100 * half, r->ref_ns_median);
	return 0;
}

int nodus_cmd_calibrate(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	nodus_run_opts o;
	memset(&o, 0, sizeof(o));
	o.self_path = ctx->self_path;
	o.only_aa = 1;
	o.resume = 1;
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"condition", required_argument, NULL, 'c'},
		{"cache", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			return NODUS_EXIT_OK;
		} else if (ch == 'd') {
			o.db_path = optarg;
		} else if (ch == 'c') {
			o.condition = optarg;
		} else if (ch == 'C') {
			o.cache_dir = optarg;
		} else {
			return nodus_cli_option_error("calibrate", ch, argc, argv);
		}
	}
	if (optind < argc)
		o.plan_path = argv[optind++];
	if (optind < argc)
		return nodus_cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
	if (!o.plan_path || !o.db_path)
		return nodus_cli_usage_error("calibrate", "need PLAN and --db DB");
	if ((ch = nodus_cli_check_dir("calibrate", "--cache", o.cache_dir)))
		return ch;
	o.progress = stdout;
	int rc = nodus_cli_run_plan(&o);
	if (rc)
		return rc;

	nodus_error err;
	memset(&err, 0, sizeof(err));
	nodus_plan *plan = NULL;
	nodus_diags diags = NODUS_DIAGS_INIT;
	if ((rc = nodus_plan_load(o.plan_path, &plan, &diags))) {
		nodus_diags_release(&diags);
		return nodus_cli_exit_for(rc);
	}
	nodus_diags_release(&diags);
	nodus_store *store = NULL;
	struct floor_ctx fc;
	memset(&fc, 0, sizeof(fc));
	fc.c = plan->campaign;
	fc.digest = plan->digest;
	fc.tie_margin = plan->campaign->judge.tie_margin;
	double plan_process_sd = plan->campaign->judge.process_sd;
	if (!(rc = nodus_store_open(o.db_path, &store, &err))) {
		printf("\nA/A calibration (plan %.12s):\n", plan->digest);
		rc = nodus_store_foreach_record(store, plan->digest, 1, 0, on_record, &fc, &err);
	}
	nodus_store_close(store);
	nodus_plan_free(plan);
	if (rc) {
		nodus_cli_print_error(&err);
		return nodus_cli_exit_for(rc);
	}
	for (int k = 0; k < fc.n_cond; k++)
		printf("noise floor under %s: %.2f%% over %d A/A pair(s)\n", fc.cond[k],
		       100 * fc.cond_floor[k], fc.cond_n[k]);
	if (fc.n == 0) {
		fprintf(stderr, "nodus calibrate: no A/A pair with a timing record under an isolated "
				"condition\n");
		return NODUS_EXIT_USAGE;
	}
	/* each pair's two sides ran in two processes, whose offset no round
	 * sees (docs/statistics.md, "Between processes"): the estimates'
	 * spread about 1 shows it where it is well above their intervals */
	printf("A/A estimates under isolated: rms log %.4f over %d pair(s) (judge process_sd %g; "
	       "an rms well above the half-widths is an offset between processes that "
	       "process_sd should cover)\n",
	       sqrt(fc.log_sq / fc.n), fc.n, plan_process_sd);
	printf("tie margin %.2f%% against the isolated floor %.2f%%: %s\n", 100 * fc.tie_margin,
	       100 * fc.floor,
	       fc.tie_margin > fc.floor && fc.not_tied == 0
		       ? "ok, it exceeds the floor"
		       : "TOO SMALL: raise tie_margin above the floor (or run more rounds)");
	return fc.tie_margin > fc.floor && fc.not_tied == 0 ? NODUS_EXIT_OK : NODUS_EXIT_CHECK;
}
