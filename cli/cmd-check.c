/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-check.c: `nodus check FILE...` validates task, workload, solution
 * and campaign files (the kind is read from each file's "kind" field) and
 * prints every fault as FILE:LINE:COLUMN: $.json.path: message, one per
 * line on stderr, all files and all faults of each file. A campaign is
 * checked with every file it names. Exit 0 when every file is valid, 2 when
 * any is not, 3 on an internal error (out of memory).
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/common.h"
#include "spec/spec.h"

static int usage(void)
{
	printf("usage: nodus check FILE...\n\n"
	       "Validates task, workload, solution and campaign files (docs/formats.md).\n"
	       "Every fault is printed as FILE:LINE:COLUMN: $.json.path: message.\n"
	       "A campaign is checked together with every file it names; a lone workload\n"
	       "only as far as it can be without its task.\n\n"
	       "exit status: 0 all files valid, 2 a file has faults, 3 internal error\n");
	return NODUS_EXIT_OK;
}

int nodus_cmd_check(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	(void)ctx;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h')
			return usage();
		return nodus_cli_option_error("check", ch, argc, argv);
	}
	int first = optind; /* "--" ends the options: a file may start with '-' */
	if (first >= argc)
		return nodus_cli_usage_error("check", "expected at least one FILE");
	int status = NODUS_EXIT_OK;
	for (int k = first; k < argc; k++) {
		nodus_diags diags = NODUS_DIAGS_INIT;
		int rc = nodus_spec_check_file(argv[k], &diags);
		for (size_t d = 0; d < diags.count; d++) {
			char line[2048];
			nodus_error_format(&diags.items[d], line, sizeof(line));
			fprintf(stderr, "%s\n", line);
		}
		if (!rc) {
			printf("%s: ok\n", argv[k]);
		} else {
			/* a faulty or unreadable file is bad input; only running out
			 * of memory is an internal error */
			int ex = rc == NODUS_ENOMEM ? NODUS_EXIT_INTERNAL : NODUS_EXIT_USAGE;
			if (diags.count == 0)
				fprintf(stderr, "%s: %s\n", argv[k], nodus_strerror(rc));
			if (ex > status)
				status = ex;
		}
		nodus_diags_release(&diags);
	}
	return status;
}
