/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * main.c: dispatches `nodus COMMAND ...` through one sorted, constant
 * command table, and checks that stdout was written completely before
 * reporting success (a full disk must not pass as success).
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "common/common.h"
#include "exec/exec.h"

#define CMD_HIDDEN 0x1 /* internal: not listed by `nodus help` */

struct command {
	const char *name;
	nodus_cmd_fn fn;
	int flags;
	const char *summary;
};

static const struct command commands[] = {
	{"__audit", nodus_cmd_audit_worker, CMD_HIDDEN, "internal: the audit's reference calls"},
	{"__gpustress", nodus_cmd_gpustress, CMD_HIDDEN, "internal: a GPU co-tenant process"},
	{"__jail", nodus_cmd_jail, CMD_HIDDEN, "internal: a tool chain program under Landlock"},
	{"__stress", nodus_cmd_stress, CMD_HIDDEN, "internal: a cpu stressor process"},
	{"__target", nodus_cmd_target, CMD_HIDDEN, "internal: a device's fingerprint"},
	{"__worker", nodus_cmd_worker, CMD_HIDDEN, "internal: a worker process"},
	{"audit", nodus_cmd_audit, 0, "can the judge's inputs tell right kernels from wrong ones?"},
	{"calibrate", nodus_cmd_calibrate, 0, "run the A/A pairs and report the noise floor"},
	{"check", nodus_cmd_check, 0, "validate task, workload, solution and campaign files"},
	{"db", nodus_cmd_db, 0, "inspect or migrate a record store"},
	{"demo", nodus_cmd_demo, 0, "seal and run the bundled default campaign, print the report"},
	{"export", nodus_cmd_export, 0, "records as JSONL rows for training: train and held-out by family"},
	{"help", nodus_cmd_help, 0, "list commands, or show one command's help"},
	{"import", nodus_cmd_import, 0, "KernelBench problems and candidates as nodus files"},
	{"new", nodus_cmd_new, 0, "write a task, solution or campaign to start from"},
	{"plan", nodus_cmd_plan, 0, "seal a campaign into a plan of pairs, judge and hashes"},
	{"report", nodus_cmd_report, 0, "agreement of labels with the baseline, false-fast pairs, cost"},
	{"run", nodus_cmd_run, 0, "evaluate every pair of a sealed plan under every condition"},
	{"serve", nodus_cmd_serve, 0, "an evaluation service: candidates in over HTTP, results streamed"},
	{"show", nodus_cmd_show, 0, "every attempt of one pair in full: message, figures, detail"},
	{"slurm", nodus_cmd_slurm, 0, "a plan as a Slurm job array of shards and a merge after it"},
	{"verify", nodus_cmd_verify, 0, "check that a plan's files are unchanged since sealing"},
	{"version", nodus_cmd_version, 0, "print version, commit, compiler and CUDA support"},
};

int nodus_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "nodus %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'nodus %s --help')\n", cmd);
	return NODUS_EXIT_USAGE;
}

int nodus_cli_option_error(const char *cmd, int ch, int argc, char **argv)
{
	const char *arg = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
	if (ch == ':')
		return nodus_cli_usage_error(cmd, "option '%s' needs a value", arg);
	return nodus_cli_usage_error(cmd, "unknown option '%s'", arg);
}

int nodus_cli_check_dir(const char *cmd, const char *opt, const char *path)
{
	struct stat sb;
	char parent[4096];
	if (!path)
		return 0;
	if (stat(path, &sb) == 0)
		return S_ISDIR(sb.st_mode) ? 0
					   : nodus_cli_usage_error(cmd, "%s %s: not a directory", opt,
								   path);
	snprintf(parent, sizeof(parent), "%s", path);
	const char *up = dirname(parent);
	if (stat(up, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return nodus_cli_usage_error(cmd, "%s %s: '%s' is not a directory, so it cannot "
					     "be created", opt, path, up);
	return 0;
}

void nodus_cli_print_error(const nodus_error *err)
{
	char line[2048];
	nodus_error_format(err, line, sizeof(line));
	fprintf(stderr, "nodus: %s\n", line);
}

int nodus_cli_exit_for(int code)
{
	switch (code) {
	case NODUS_OK:
		return NODUS_EXIT_OK;
	case NODUS_EINVAL:
	case NODUS_EPARSE:
	case NODUS_ENOTFOUND:
	case NODUS_EUSAGE:
	case NODUS_EUNAVAILABLE:
		return NODUS_EXIT_USAGE;
	case NODUS_ECHANGED:
		return NODUS_EXIT_CHECK;
	default:
		return NODUS_EXIT_INTERNAL;
	}
}

int nodus_cli_is_help(const char *s)
{
	return s && (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0);
}

int nodus_cmd_help(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	if (argc >= 2 && !nodus_cli_is_help(argv[1])) {
		for (size_t i = 0; i < NODUS_ARRAY_SIZE(commands); i++) {
			if (strcmp(commands[i].name, argv[1]) == 0) {
				char *sub[] = {argv[1], "--help", NULL};
				return commands[i].fn(2, sub, ctx);
			}
		}
		return nodus_cli_usage_error("help", "unknown command '%s'", argv[1]);
	}
	printf("usage: nodus COMMAND [ARGS]\n\n"
	       "nodus checks whether a kernel's speedup label survives an isolated recheck.\n\n"
	       "commands:\n");
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(commands); i++)
		if (!(commands[i].flags & CMD_HIDDEN))
			printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	printf("\n'nodus COMMAND --help' shows a command's options.\n"
	       "exit status: 0 ok, 1 a check failed, 2 bad usage or bad input, 3 internal error\n");
	return NODUS_EXIT_OK;
}

static const char *resolve_self(char *buf, size_t size, const char *argv0)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	if (n > 0) {
		buf[n] = '\0';
		return buf;
	}
	return argv0;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	/* progress lines reach a log file as they happen, not at exit */
	setvbuf(stdout, NULL, _IOLBF, 0);
	nodus_cli_ctx ctx = {resolve_self(self, sizeof(self), argv[0])};

	if (argc < 2 || nodus_cli_is_help(argv[1])) {
		char *sub[] = {"help", NULL};
		int rc = nodus_cmd_help(1, sub, &ctx);
		return argc < 2 ? NODUS_EXIT_USAGE : rc;
	}
	if (strcmp(argv[1], "--version") == 0)
		argv[1] = "version";

	const struct command *cmd = NULL;
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, argv[1]) == 0)
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "nodus: '%s' is not a nodus command (see 'nodus help')\n", argv[1]);
		return NODUS_EXIT_USAGE;
	}

	/* workers and stressors are killed by their parent; only the parent
	 * kills its children when it is interrupted */
	if (cmd->name[0] != '_')
		nodus_exec_install_signal_handlers();
	/* The commands that start workers: no process of the same user may
	 * ptrace them or read their /proc/PID/{mem,environ,fd}, and nothing a
	 * worker orphans escapes nodus run (docs/sandbox.md). */
	if (strcmp(cmd->name, "run") == 0 || strcmp(cmd->name, "plan") == 0 ||
	    strcmp(cmd->name, "audit") == 0)
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (strcmp(cmd->name, "run") == 0)
		nodus_exec_become_subreaper();
	int rc = cmd->fn(argc - 1, argv + 1, &ctx);

	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		fprintf(stderr, "nodus: failed to write standard output: %s\n", strerror(errno));
		return NODUS_EXIT_INTERNAL;
	}
	return rc;
}
