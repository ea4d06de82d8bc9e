/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-jail.c: the hidden `nodus __jail` (a tool chain program under a
 * Landlock ruleset, started by the build: src/run/build.c) and
 * `nodus __audit` (the judge audit's reference calls in a sandboxed
 * process, started by `nodus plan` and `nodus audit`: src/audit/audit.c).
 * ------------------------------------------------------------------------ */
#include <stdio.h>

#include "cmd.h"
#include "audit/audit.h"
#include "exec/landlock.h"

int nodus_cmd_jail(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && nodus_cli_is_help(argv[1])) {
		printf("usage: nodus __jail [--read P|--exec P|--write P]... -- PROG ARG...\n"
		       "(internal: runs PROG restricted to the paths named; started by the build)\n");
		return NODUS_EXIT_OK;
	}
	return nodus_jail_main(argc, argv);
}

int nodus_cmd_audit_worker(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && nodus_cli_is_help(argv[1])) {
		printf("usage: nodus __audit CAMPAIGN WORKLOAD SOLUTION HASH OBJECT\n"
		       "(internal: the judge audit's reference calls, started by plan and audit)\n");
		return NODUS_EXIT_OK;
	}
	return nodus_audit_worker_main(argc, argv);
}
