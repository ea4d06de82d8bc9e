/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd.h: the nodus command line, one subcommand per file (git's builtins).
 *
 * Adding a command:
 *   1. write cli/cmd-NAME.c exporting nodus_cmd_NAME(argc, argv, ctx),
 *      which parses its options with getopt_long() (opterr = 0, optind =
 *      0 so that glibc starts afresh, optstring starting with ':', errors through
 *      nodus_cli_option_error()) and handles -h/--help itself (print
 *      usage to stdout, return 0); a file it writes is -o/--output;
 *   2. declare it below;
 *   3. add {name, function, flags, summary} to the table in cli/main.c,
 *      keeping it sorted by name;
 *   4. add an end-to-end test tests/e2e/tNNNN-NAME-*.sh;
 *   5. document it in README.md (commands) and, if it reads files, in
 *      docs/formats.md.
 *
 * argv[0] is the command name. The return value is the exit status:
 * ------------------------------------------------------------------------ */
#ifndef NODUS_CMD_H
#define NODUS_CMD_H

#include <stdio.h>

#include "nodus/nodus.h"
#include "run/run.h"

/* Exit statuses of every command (documented in README.md). */
enum nodus_exit {
	NODUS_EXIT_OK = 0,       /* success */
	NODUS_EXIT_CHECK = 1,    /* a check failed, e.g. verify found changed files */
	NODUS_EXIT_USAGE = 2,    /* bad usage or bad input */
	NODUS_EXIT_INTERNAL = 3  /* internal error (I/O, database, out of memory) */
};

typedef struct nodus_cli_ctx {
	const char *self_path;   /* absolute path of the running nodus binary (for workers) */
} nodus_cli_ctx;

typedef int (*nodus_cmd_fn)(int argc, char **argv, const nodus_cli_ctx *ctx);

/* Prints "nodus CMD: MESSAGE" to stderr and returns NODUS_EXIT_USAGE,
 * followed by a pointer to --help. */
int nodus_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* For getopt_long() run with opterr = 0 and an optstring starting with ':'
 * (every command parses that way, so that all take --opt=value, --opt value
 * and their short forms alike): prints the error for ch ('?': an unknown
 * option, ':': an option without its value) naming the argument, and
 * returns NODUS_EXIT_USAGE. */
int nodus_cli_option_error(const char *cmd, int ch, int argc, char **argv);
/* For an option naming a directory the command writes (--cache, --out):
 * 0 when path is NULL, a directory, or absent with a directory above it;
 * else prints why (naming opt) and returns NODUS_EXIT_USAGE, so a bad path
 * is refused before anything is written. */
int nodus_cli_check_dir(const char *cmd, const char *opt, const char *path);
/* Prints a nodus_error as "nodus: FILE:LINE:COL: PATH: MESSAGE". */
void nodus_cli_print_error(const nodus_error *err);
/* Maps a library error code to an exit status (EINVAL/EPARSE/ENOTFOUND/
 * EUSAGE -> 2, ECHANGED -> 1, others -> 3). */
int nodus_cli_exit_for(int code);
/* 1 if s is "-h" or "--help". */
int nodus_cli_is_help(const char *s);

int nodus_cmd_calibrate(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_check(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_db(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_demo(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_export(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_gpustress(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_audit_worker(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_import(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_jail(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_help(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_new(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_plan(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_audit(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_report(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_run(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_serve(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_show(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_verify(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_version(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_stress(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_target(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_slurm(int argc, char **argv, const nodus_cli_ctx *ctx);
int nodus_cmd_worker(int argc, char **argv, const nodus_cli_ctx *ctx);

/* Runs a plan as `nodus run` does and prints the outcome; shared by run,
 * calibrate and demo. Returns an exit status. */
int nodus_cli_run_plan(const nodus_run_opts *o);

#endif
