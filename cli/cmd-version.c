/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-version.c: `nodus version` prints what a record's provenance needs:
 * version, git commit, compiler, and whether the CUDA backend was built and
 * can be loaded on this machine.
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd.h"

int nodus_cmd_version(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && nodus_cli_is_help(argv[1])) {
		printf("usage: nodus version\n\n"
		       "Prints the nodus version, git commit, the C compiler it was built with,\n"
		       "the operating system kernel, and whether the CUDA backend was built.\n");
		return NODUS_EXIT_OK;
	}
	if (argc > 1)
		return nodus_cli_usage_error("version", "unexpected argument '%s'", argv[1]);
	struct utsname u;
	uname(&u);
	printf("nodus %s\n", NODUS_VERSION);
	printf("commit: %s\n", NODUS_GIT_COMMIT);
	printf("compiler: %s\n", NODUS_C_COMPILER);
	printf("os: %s %s %s\n", u.sysname, u.release, u.machine);
	printf("cuda backend: %s\n",
	       NODUS_HAVE_CUDA ? "built (loaded at run time when a GPU is present)"
			       : "not built (CUDA toolkit not found at build time)");
	return NODUS_EXIT_OK;
}
