/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-serve.c: `nodus serve --db DB --campaign BASE.json` - the evaluation
 * service (src/serve/, docs/serve.md).
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "serve/serve.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nodus serve --db DB --campaign BASE.json [--campaign ...]\n"
		"                   [--listen HOST:PORT | --socket PATH] [--token-file F]\n"
		"                   [--queue-max N] [--batch-max N] [--batch-wait-ms MS]\n"
		"                   [--body-max BYTES] [--run-attempts N] [--cache DIR]\n\n"
		"A long-running evaluation service (docs/serve.md). Clients POST candidates\n"
		"(a solution with its sources inline, judged against a workload and reference\n"
		"of a base campaign) to /v1/submissions; each is committed to DB before the\n"
		"202 that acknowledges it. Queued submissions are sealed into plans in batches\n"
		"(files in DB.serve/, content-addressed) and run with `nodus run --resume`;\n"
		"results come from GET /v1/submissions/ID and GET /v1/results?after=SEQ&wait=S\n"
		"(NDJSON). Killed and restarted on the same DB, it finishes what it acknowledged,\n"
		"each submission once. It prints \"nodus serve: listening on URL\" when ready.\n\n"
		"  --db DB              the record store (created if missing)\n"
		"  --campaign FILE      a base campaign: its tasks, workloads, references, judge,\n"
		"                       conditions and target (repeatable; named by its name)\n"
		"  --listen HOST:PORT   TCP address (default 127.0.0.1:0; port 0: a free one,\n"
		"                       printed in the ready line)\n"
		"  --socket PATH        a Unix socket (mode 0600) instead of TCP\n"
		"  --token-file F       bearer token (one line, 16-255 bytes): every request then\n"
		"                       needs Authorization: Bearer TOKEN; required for a bind\n"
		"                       that is not loopback\n"
		"  --queue-max N        submissions not yet ended, at most (default 10000); a\n"
		"                       full queue answers 503 with Retry-After, never drops\n"
		"  --batch-max N        submissions per batch (plan), at most (default 64)\n"
		"  --batch-wait-ms MS   how long a batch waits for more after its first\n"
		"                       (default 200)\n"
		"  --body-max BYTES     largest request body (default 1048576); larger: 413\n"
		"  --run-attempts N     runs of a batch's plan before its submissions fail\n"
		"                       (default 3)\n"
		"  --cache DIR          compiled solutions (default: nodus-cache beside DB)\n\n"
		"Every option also takes the form --opt=value. It runs until SIGINT or\n"
		"SIGTERM; exit 2 for bad usage or a bad campaign, 3 when it cannot start.\n");
}

/* Reads a positive int option into *out; 0, or an exit status. */
static int int_opt(const char *name, const char *s, long max, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!s[0] || *end || v < 1 || v > max)
		return nodus_cli_usage_error("serve", "--%s: expected an integer 1..%ld, got '%s'",
					     name, max, s);
	*out = v;
	return 0;
}

int nodus_cmd_serve(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"campaign", required_argument, NULL, 'c'},
		{"listen", required_argument, NULL, 'l'},
		{"socket", required_argument, NULL, 's'},
		{"token-file", required_argument, NULL, 't'},
		{"queue-max", required_argument, NULL, 'Q'},
		{"batch-max", required_argument, NULL, 'B'},
		{"batch-wait-ms", required_argument, NULL, 'W'},
		{"body-max", required_argument, NULL, 'M'},
		{"run-attempts", required_argument, NULL, 'A'},
		{"cache", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *campaigns[16];
	nodus_serve_opts o;
	long v = 0;
	int ch, rc;
	memset(&o, 0, sizeof(o));
	o.self_path = ctx->self_path;
	o.campaigns = campaigns;
	o.log = stdout;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(stdout);
			return NODUS_EXIT_OK;
		case 'd':
			o.db_path = optarg;
			break;
		case 'c':
			if (o.n_campaigns == 16)
				return nodus_cli_usage_error("serve", "at most 16 --campaign");
			campaigns[o.n_campaigns++] = optarg;
			break;
		case 'l':
			o.listen = optarg;
			break;
		case 's':
			o.socket_path = optarg;
			break;
		case 't':
			o.token_file = optarg;
			break;
		case 'C':
			o.cache_dir = optarg;
			break;
		case 'Q':
		case 'B':
		case 'W':
		case 'M':
		case 'A': {
			const char *name = ch == 'Q' ? "queue-max" : ch == 'B' ? "batch-max"
					 : ch == 'W' ? "batch-wait-ms" : ch == 'M' ? "body-max"
					 : "run-attempts";
			if ((rc = int_opt(name, optarg, ch == 'M' ? (1L << 30) : 1000000, &v)))
				return rc;
			if (ch == 'Q')
				o.queue_max = (int)v;
			else if (ch == 'B')
				o.batch_max = (int)v;
			else if (ch == 'W')
				o.batch_wait_ms = (int)v;
			else if (ch == 'M')
				o.body_max_bytes = (size_t)v;
			else
				o.run_attempts = (int)v;
			break;
		}
		default:
			return nodus_cli_option_error("serve", ch, argc, argv);
		}
	}
	if (optind < argc)
		return nodus_cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	if (!o.db_path)
		return nodus_cli_usage_error("serve", "no --db given");
	if (!o.n_campaigns)
		return nodus_cli_usage_error("serve", "no --campaign given (the base campaign "
					     "submissions are judged against)");
	if (o.listen && o.socket_path)
		return nodus_cli_usage_error("serve", "give --listen or --socket, not both");
	if ((rc = nodus_cli_check_dir("serve", "--cache", o.cache_dir)))
		return rc;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	rc = nodus_serve(&o, &err);
	if (rc) {
		nodus_cli_print_error(&err);
		return nodus_cli_exit_for(rc);
	}
	return NODUS_EXIT_OK;
}
