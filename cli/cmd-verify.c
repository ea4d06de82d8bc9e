/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-verify.c: `nodus verify PLAN.json` re-hashes every file a plan names
 * and checks the plan's own digest. Each changed or missing file is named
 * on its own line with the expected and found hash. Exit 0 when everything
 * matches, 1 when something changed, 2 when the plan cannot be read.
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/common.h"
#include "plan/plan.h"

static int usage(void)
{
	printf("usage: nodus verify PLAN.json\n\n"
	       "Re-hashes every file the plan was sealed with (campaign, tasks, workloads,\n"
	       "solutions and their sources) and the plan itself, and names each change.\n\n"
	       "exit status: 0 unchanged, 1 a file changed or is missing, 2 unreadable plan,\n"
	       "3 internal error\n");
	return NODUS_EXIT_OK;
}

int nodus_cmd_verify(int argc, char **argv, const nodus_cli_ctx *ctx)
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
		return nodus_cli_option_error("verify", ch, argc, argv);
	}
	if (argc - optind != 1)
		return nodus_cli_usage_error("verify", "expected exactly one PLAN.json");
	const char *path = argv[optind];
	nodus_diags diags = NODUS_DIAGS_INIT;
	int rc = nodus_plan_verify(path, &diags);
	for (size_t k = 0; k < diags.count; k++) {
		char line[2048];
		nodus_error_format(&diags.items[k], line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
	nodus_diags_release(&diags);
	if (rc == NODUS_ECHANGED) {
		fprintf(stderr, "%s: changed since sealing\n", path);
		return NODUS_EXIT_CHECK;
	}
	if (rc == NODUS_ENOMEM)
		return NODUS_EXIT_INTERNAL;
	if (rc)
		return NODUS_EXIT_USAGE;
	json_t *plan = json_load_file(path, 0, NULL);
	printf("%s: ok, digest %s, %zu files unchanged\n", path,
	       json_string_value(json_object_get(plan, "digest")),
	       json_array_size(json_object_get(plan, "files")));
	json_decref(plan);
	return NODUS_EXIT_OK;
}
