/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-slurm.c: `nodus slurm PLAN --db DB --array N` - a plan as a Slurm job
 * array, one shard per task, and a merge job after it (docs/DESIGN.md,
 * "Slurm").
 *
 * Each task runs `nodus run PLAN --shard I/N --resume` into a store of its
 * own (SQLite is not for concurrent writers over a network filesystem) and
 * leaves a marker when it ends well. The merge job runs after every task
 * has ended, however it ended (afterany): it merges the shards into DB
 * only when every marker is there, and otherwise says which tasks to
 * submit again (they resume their own stores) and exits 1, so that no
 * store is merged half-done and nothing is silently left out. Every path
 * in the scripts is absolute, since Slurm runs them elsewhere.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "common/common.h"
#include "exec/exec.h"

#define MAX_SBATCH_ARGS 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nodus slurm PLAN.json --db DB --array N [-o DIR] [--partition P]\n"
		"                   [--time T] [--cache DIR] [--condition NAME] [--sbatch ARG]...\n"
		"                   [--submit]\n\n"
		"Writes a Slurm job array that evaluates the sealed plan on N tasks, one\n"
		"shard each (nodus run --shard I/N --resume, into DIR/shards/shard-I.db),\n"
		"and a merge job that runs after every task has ended: it merges the\n"
		"shards into DB (nodus db merge) when every task completed, and otherwise\n"
		"names the tasks to submit again and exits 1.\n\n"
		"  --db DB           the store the shards are merged into\n"
		"  --array N         tasks, 1..10000\n"
		"  -o, --output DIR  where the scripts, shard stores and logs go (new or empty;\n"
		"                    default DB.slurm beside DB)\n"
		"  --partition P     sbatch --partition for every job\n"
		"  --time T          sbatch --time for each task (Slurm's format, e.g. 2:00:00)\n"
		"  --cache DIR       compiled solutions, shared by the tasks (default:\n"
		"                    DIR/shards/nodus-cache)\n"
		"  --condition NAME  run only this condition\n"
		"  --sbatch ARG      one more #SBATCH line for the tasks (e.g. --gres=gpu:1);\n"
		"                    repeatable\n"
		"  --submit          also submit: DIR/submit.sh (sbatch the array, then the\n"
		"                    merge with --dependency=afterany on it)\n\n"
		"DIR/submit.sh --array=LIST submits only those tasks again, and a merge after\n"
		"them. Exit 0 when the scripts were written (and submitted), 2 for bad usage,\n"
		"1 when sbatch refused.\n");
}

/* An absolute path for path (its directory must exist), into out. */
static int absolute(const char *path, char *out, size_t size)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!realpath(dir, real))
		return -1;
	int n = snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Only what a shell word may hold without quoting problems: the scripts
 * quote every path, so refuse a quote or a newline in one. */
static int shell_safe(const char *s)
{
	return !strpbrk(s, "'\n\r");
}

static int write_file(const char *path, const char *text, int executable)
{
	FILE *f = fopen(path, "wx");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	if (ok && executable)
		ok = chmod(path, 0755) == 0;
	return ok ? 0 : -1;
}

/* DIR must not exist, or be an empty directory: nothing is overwritten. */
static int prepare_dir(const char *dir)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	int rc = rmdir(dir); /* empty: removed and made again */
	return rc == 0 ? mkdir(dir, 0755) : -2;
}

int nodus_cmd_slurm(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},	    {"array", required_argument, NULL, 'a'},
		{"output", required_argument, NULL, 'o'},   {"partition", required_argument, NULL, 'p'},
		{"time", required_argument, NULL, 't'},	    {"cache", required_argument, NULL, 'C'},
		{"condition", required_argument, NULL, 'c'}, {"sbatch", required_argument, NULL, 'S'},
		{"submit", no_argument, NULL, 's'},	    {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = NULL, *out = NULL, *partition = NULL, *time_limit = NULL, *cache = NULL,
		   *condition = NULL, *extra[MAX_SBATCH_ARGS];
	int n_extra = 0, submit = 0, ch;
	long tasks = 0;
	opterr = 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		char *end = NULL;
		switch (ch) {
		case 'h':
			usage(stdout);
			return NODUS_EXIT_OK;
		case 'd': db = optarg; break;
		case 'o': out = optarg; break;
		case 'p': partition = optarg; break;
		case 't': time_limit = optarg; break;
		case 'C': cache = optarg; break;
		case 'c': condition = optarg; break;
		case 's': submit = 1; break;
		case 'S':
			if (n_extra == MAX_SBATCH_ARGS)
				return nodus_cli_usage_error("slurm", "--sbatch: at most %d",
							     MAX_SBATCH_ARGS);
			extra[n_extra++] = optarg;
			break;
		case 'a':
			errno = 0;
			tasks = strtol(optarg, &end, 10);
			if (errno || !*optarg || *end || tasks < 1 || tasks > 10000)
				return nodus_cli_usage_error("slurm", "--array: expected a number of "
							     "tasks in 1..10000, got '%s'", optarg);
			break;
		default:
			return nodus_cli_option_error("slurm", ch, argc, argv);
		}
	}
	const char *plan_path = optind < argc ? argv[optind++] : NULL;
	if (optind < argc)
		return nodus_cli_usage_error("slurm", "unexpected argument '%s'", argv[optind]);
	if (!plan_path)
		return nodus_cli_usage_error("slurm", "no plan given");
	if (!db)
		return nodus_cli_usage_error("slurm", "no --db given");
	if (!tasks)
		return nodus_cli_usage_error("slurm", "no --array N given");
	json_error_t jerr;
	json_t *plan = json_load_file(plan_path, 0, &jerr);
	const char *d = json_string_value(json_object_get(plan, "digest"));
	if (!plan || !d || strlen(d) < 12) {
		json_decref(plan);
		return nodus_cli_usage_error("slurm", "%s: not a sealed plan (%s)", plan_path,
					     plan ? "no digest" : jerr.text);
	}
	char digest[NODUS_SHA256_HEX + 1], short_digest[13];
	snprintf(digest, sizeof(digest), "%s", d);
	snprintf(short_digest, sizeof(short_digest), "%s", d);
	json_decref(plan);
	char self[PATH_MAX], plan_abs[PATH_MAX], db_abs[PATH_MAX], dir[PATH_MAX],
		cache_abs[PATH_MAX] = "";
	if (!realpath(ctx->self_path, self))
		return nodus_cli_usage_error("slurm", "cannot resolve the nodus binary '%s'",
					     ctx->self_path);
	if (absolute(plan_path, plan_abs, sizeof(plan_abs)) ||
	    absolute(db, db_abs, sizeof(db_abs)))
		return nodus_cli_usage_error("slurm", "the directory of '%s' or '%s' does not exist",
					     plan_path, db);
	if (out ? absolute(out, dir, sizeof(dir))
		: snprintf(dir, sizeof(dir), "%s.slurm", db_abs) >= (int)sizeof(dir))
		return nodus_cli_usage_error("slurm", "the directory of -o '%s' does not exist",
					     out);
	if (cache && absolute(cache, cache_abs, sizeof(cache_abs)))
		return nodus_cli_usage_error("slurm", "the directory of --cache '%s' does not "
					     "exist", cache);
	const char *words[] = {self, plan_abs, db_abs, dir, cache_abs, condition ? condition : "",
			       partition ? partition : "", time_limit ? time_limit : ""};
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(words); i++)
		if (!shell_safe(words[i]))
			return nodus_cli_usage_error("slurm", "'%s' holds a quote or a newline, "
						     "which the job scripts cannot carry", words[i]);
	for (int i = 0; i < n_extra; i++)
		if (strchr(extra[i], '\n') || extra[i][0] != '-')
			return nodus_cli_usage_error("slurm", "--sbatch: expected one sbatch "
						     "option (e.g. --gres=gpu:1), got '%s'", extra[i]);
	int prc = prepare_dir(dir);
	if (prc)
		return nodus_cli_usage_error("slurm", prc == -2 ? "%s exists and is not empty: "
							      "nothing is overwritten; remove it "
							      "or name another with -o"
							    : "cannot create %s",
					     dir);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/shards", dir);
	int rc = mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/logs", dir);
	rc |= mkdir(path, 0755);

	nodus_buf b = NODUS_BUF_INIT;
	/* the tasks */
	nodus_buf_addf(&b, "#!/bin/bash\n#SBATCH --job-name=nodus-%s\n#SBATCH --array=0-%ld\n"
		       "#SBATCH --output=%s/logs/shard-%%a.out\n", short_digest, tasks - 1, dir);
	if (partition)
		nodus_buf_addf(&b, "#SBATCH --partition=%s\n", partition);
	if (time_limit)
		nodus_buf_addf(&b, "#SBATCH --time=%s\n", time_limit);
	for (int i = 0; i < n_extra; i++)
		nodus_buf_addf(&b, "#SBATCH %s\n", extra[i]);
	nodus_buf_addf(&b,
		       "# written by nodus slurm for plan %s: task I runs shard I/%ld\n"
		       "# into a store of its own; shard-I.done says it completed\n"
		       "set -u\n"
		       "i=$SLURM_ARRAY_TASK_ID\n"
		       "rm -f '%s/shards/shard-'$i.done\n"
		       "'%s' run '%s' --db '%s/shards/shard-'$i.db --shard $i/%ld --resume",
		       digest, tasks, dir, self, plan_abs, dir, tasks);
	if (cache_abs[0])
		nodus_buf_addf(&b, " --cache '%s'", cache_abs);
	if (condition)
		nodus_buf_addf(&b, " --condition '%s'", condition);
	nodus_buf_addf(&b, "\nrc=$?\n[ $rc -eq 0 ] && touch '%s/shards/shard-'$i.done\nexit $rc\n",
		       dir);
	snprintf(path, sizeof(path), "%s/array.sbatch", dir);
	rc |= write_file(path, b.data, 1);

	/* the merge */
	nodus_buf_release(&b);
	nodus_buf_addf(&b, "#!/bin/bash\n#SBATCH --job-name=nodus-%s-merge\n"
		       "#SBATCH --output=%s/logs/merge.out\n", short_digest, dir);
	if (partition)
		nodus_buf_addf(&b, "#SBATCH --partition=%s\n", partition);
	nodus_buf_addf(&b,
		       "# written by nodus slurm for plan %s: after every task has ended,\n"
		       "# the shards into the store, only when every task completed\n"
		       "set -u\n"
		       "missing=()\n"
		       "for i in $(seq 0 %ld); do\n"
		       "\t[ -f '%s/shards/shard-'$i.done ] || missing+=(\"$i\")\n"
		       "done\n"
		       "if [ ${#missing[@]} -gt 0 ]; then\n"
		       "\tlist=$(IFS=,; echo \"${missing[*]}\")\n"
		       "\techo \"nodus slurm: tasks $list did not complete (logs: %s/logs/shard-N.out); "
		       "nothing was merged. Submit them again (each resumes its own store) with a "
		       "merge after them: bash '%s/submit.sh' --array=$list\" >&2\n"
		       "\texit 1\n"
		       "fi\n"
		       "shards=()\n"
		       "for i in $(seq 0 %ld); do shards+=('%s/shards/shard-'$i.db); done\n"
		       "exec '%s' db merge '%s' \"${shards[@]}\"\n",
		       digest, tasks - 1, dir, dir, dir, tasks - 1, dir, self, db_abs);
	snprintf(path, sizeof(path), "%s/merge.sbatch", dir);
	rc |= write_file(path, b.data, 1);

	/* submitting */
	nodus_buf_release(&b);
	nodus_buf_addf(&b,
		       "#!/bin/bash\n"
		       "# submit.sh [--array=LIST]: the tasks (all, or LIST again), then the merge\n"
		       "# once they have all ended (afterany: the merge itself checks they completed)\n"
		       "set -euo pipefail\n"
		       "cd '%s'\n"
		       "job=$(sbatch --parsable \"$@\" array.sbatch)\n"
		       "job=${job%%%%;*}\n"
		       "merge=$(sbatch --parsable --dependency=afterany:$job merge.sbatch)\n"
		       "merge=${merge%%%%;*}\n"
		       "echo \"nodus slurm: array job $job, merge job $merge (logs in %s/logs)\"\n",
		       dir, dir);
	snprintf(path, sizeof(path), "%s/submit.sh", dir);
	rc |= write_file(path, b.data, 1);
	nodus_buf_release(&b);
	if (rc) {
		fprintf(stderr, "nodus slurm: cannot write the scripts into %s: %s\n", dir,
			strerror(errno));
		return NODUS_EXIT_INTERNAL;
	}
	printf("wrote %s/array.sbatch (%ld tasks), merge.sbatch and submit.sh\n", dir, tasks);
	if (!submit) {
		printf("submit with: bash '%s/submit.sh'\n", dir);
		return NODUS_EXIT_OK;
	}
	const char *sub_argv[] = {"bash", path, NULL};
	nodus_child_opts co;
	memset(&co, 0, sizeof(co));
	co.argv = sub_argv;
	co.stdin_fd = -2;
	nodus_child kid;
	nodus_error err;
	if (nodus_child_start(&kid, &co, &err)) {
		nodus_cli_print_error(&err);
		return NODUS_EXIT_CHECK;
	}
	int code = nodus_child_finish(&kid);
	if (code != 0) {
		fprintf(stderr, "nodus slurm: submitting failed (exit %d); the scripts are in %s: "
			"fix what sbatch said and run bash '%s' yourself\n", code, dir, path);
		return NODUS_EXIT_CHECK;
	}
	return NODUS_EXIT_OK;
}
