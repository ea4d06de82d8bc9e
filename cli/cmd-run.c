/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-run.c: `nodus run PLAN --db DB` - evaluate every pair of a verified
 * plan under every condition, writing one record per attempt.
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/common.h"
#include "run/run.h"
#include "store/store.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nodus run PLAN.json --db DB [--resume] [--condition NAME] [--cache DIR] [-q]\n"
		"                [--shard I/N | --devices LIST]\n\n"
		"Evaluates every (pair, condition) of a sealed plan and stores one record per\n"
		"attempt in DB (SQLite, created if missing). The plan is verified first: a plan\n"
		"whose files changed since sealing is refused (exit 1, naming each file).\n\n"
		"  --db DB           the record store\n"
		"  --resume          continue a store that already holds records of this plan;\n"
		"                    pair-conditions with a final record are skipped\n"
		"  --condition NAME  run only this condition (any order, each resumable)\n"
		"  --cache DIR       compiled solutions (default: nodus-cache beside DB)\n"
		"  --shard I/N       only pairs p with p %% N == I (replay conditions start N\n"
		"                    such orchestrators side by side themselves)\n"
		"  --devices LIST    a cuda plan over several GPUs of this host: one\n"
		"                    orchestrator per entry (GPU ordinals, e.g. 0,1,2,3, or\n"
		"                    all; within CUDA_VISIBLE_DEVICES when it is set), each a\n"
		"                    shard on its GPU, all into DB; refused unless every GPU\n"
		"                    is one profile. A repeat (0,0) runs two on one GPU\n"
		"  --progress=FORM   text (the default: a line per record, with k of N,\n"
		"                    elapsed time and ETA), json (one JSON object per line,\n"
		"                    flushed at once: condition_start, record, condition_end,\n"
		"                    run_complete; src/run/progress.c lists the fields) or none\n"
		"  -q, --quiet       no progress lines (--progress=none)\n\n"
		"Every option also takes the form --opt=value.\n"
		"Failing candidates are results (records), not errors: exit 0 when the run\n"
		"completed, 1 if the plan does not verify, 2 for bad usage, 3 internal error.\n");
}

/* Reads "I/N" into o; returns 0, or an exit status. */
static int parse_shard(const char *s, nodus_run_opts *o)
{
	int used = -1;
	if (sscanf(s, "%d/%d%n", &o->shard_index, &o->shard_count, &used) != 2 || s[used] != '\0' ||
	    o->shard_count < 1 || o->shard_index < 0 || o->shard_index >= o->shard_count)
		return nodus_cli_usage_error("run", "--shard wants I/N with 0 <= I < N, got '%s'", s);
	return 0;
}

int nodus_cmd_run(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"resume", no_argument, NULL, 'r'},
		{"condition", required_argument, NULL, 'c'},
		{"cache", required_argument, NULL, 'C'},
		{"shard", required_argument, NULL, 's'},
		{"devices", required_argument, NULL, 'D'},
		{"quiet", no_argument, NULL, 'q'},
		{"progress", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	nodus_run_opts o;
	const char *devices = NULL;
	int ch, rc;
	memset(&o, 0, sizeof(o));
	o.self_path = ctx->self_path;
	o.progress = stdout;
	opterr = 0;
	optind = 0; /* glibc: start afresh (demo runs several commands in one process) */
	while ((ch = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(stdout);
			return NODUS_EXIT_OK;
		case 'd':
			o.db_path = optarg;
			break;
		case 'r':
			o.resume = 1;
			break;
		case 'c':
			o.condition = optarg;
			break;
		case 'C':
			o.cache_dir = optarg;
			break;
		case 'q':
			o.progress = NULL;
			break;
		case 'p':
			if (strcmp(optarg, "none") == 0) {
				o.progress = NULL;
			} else if (strcmp(optarg, "json") == 0 || strcmp(optarg, "text") == 0) {
				o.progress = stdout;
				o.progress_json = optarg[0] == 'j';
			} else {
				return nodus_cli_usage_error("run", "--progress: expected text, json or "
							     "none, got '%s'", optarg);
			}
			break;
		case 's':
			if ((rc = parse_shard(optarg, &o)))
				return rc;
			break;
		case 'D':
			devices = optarg;
			break;
		default:
			return nodus_cli_option_error("run", ch, argc, argv);
		}
	}
	if (optind < argc)
		o.plan_path = argv[optind++];
	if (optind < argc)
		return nodus_cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
	if (!o.plan_path)
		return nodus_cli_usage_error("run", "no plan given");
	if (!o.db_path)
		return nodus_cli_usage_error("run", "no --db given");
	if ((rc = nodus_cli_check_dir("run", "--cache", o.cache_dir)))
		return rc;
	if (devices && o.shard_count > 0)
		return nodus_cli_usage_error("run", "--devices makes the shards itself: give "
					     "--devices or --shard, not both");
	if (devices) {
		nodus_error err;
		memset(&err, 0, sizeof(err));
		if ((rc = nodus_run_devices(&o, devices, &err))) {
			nodus_cli_print_error(&err);
			return nodus_cli_exit_for(rc);
		}
		if (o.progress)
			printf("run complete on %s: every orchestrator ended; nodus report %s reads "
			       "them together\n", devices, o.db_path);
		return NODUS_EXIT_OK;
	}
	return nodus_cli_run_plan(&o);
}

/* Checks what can be checked before anything is stored: --condition
 * names a condition of the plan. Fills digest (empty when the plan cannot
 * be read: nodus_run then says why, before it opens the store). Returns 0,
 * or an exit status. */
static int preflight(const nodus_run_opts *o, char *digest, size_t size)
{
	json_t *plan = json_load_file(o->plan_path, 0, NULL);
	const char *d = json_string_value(json_object_get(plan, "digest"));
	json_t *conds = json_object_get(plan, "conditions");
	int rc = 0;
	snprintf(digest, size, "%s", d ? d : "");
	if (plan && o->condition) {
		char names[1024] = "";
		size_t i, len = 0;
		json_t *c;
		int found = 0;
		json_array_foreach(conds, i, c) {
			const char *name = json_string_value(json_object_get(c, "name"));
			if (!name)
				continue;
			found |= strcmp(name, o->condition) == 0;
			if (len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s'%s'",
							len ? ", " : "", name);
		}
		if (!found)
			rc = nodus_cli_usage_error("run", "%s: the plan has no condition named '%s' "
						   "(it has %s)", o->plan_path, o->condition,
						   names[0] ? names : "none");
	}
	json_decref(plan);
	return rc;
}

int nodus_cli_run_plan(const nodus_run_opts *o)
{
	nodus_run_summary sum;
	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_error err;
	nodus_runlock *lock = NULL;
	char digest[NODUS_SHA256_HEX + 1];
	memset(&err, 0, sizeof(err));
	int rc = preflight(o, digest, sizeof(digest));
	if (rc)
		return rc;
	/* held until nodus_run has closed the store */
	if (digest[0] &&
	    (rc = nodus_runlock_open(o->db_path, digest, o->shard_index, o->shard_count, &lock,
				     &err))) {
		nodus_cli_print_error(&err);
		return nodus_cli_exit_for(rc);
	}
	rc = nodus_run(o, &sum, &diags, &err);
	nodus_runlock_close(lock);
	for (size_t i = 0; i < diags.count; i++)
		nodus_cli_print_error(&diags.items[i]);
	int had_diags = diags.count > 0;
	nodus_diags_release(&diags);
	if (rc) {
		if (!had_diags)
			nodus_cli_print_error(&err);
		if (rc == NODUS_ECHANGED)
			fprintf(stderr, "nodus run: the plan does not verify; refusing to run it\n");
		return nodus_cli_exit_for(rc);
	}
	if (o->progress && o->shard_count == 0 && o->progress_json)
		printf("{\"event\":\"run_complete\",\"pair_conditions\":%d,\"already_final\":%d,"
		       "\"records\":%d,\"final_failures\":%d}\n",
		       sum.pair_conditions, sum.skipped, sum.records, sum.failures);
	else if (o->progress && o->shard_count == 0)
		printf("run complete: %d pair-condition(s), %d already final, %d record(s) written, "
		       "%d final failure(s)\n",
		       sum.pair_conditions, sum.skipped, sum.records, sum.failures);
	return NODUS_EXIT_OK;
}
