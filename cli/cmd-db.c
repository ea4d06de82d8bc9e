/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-db.c: `nodus db SUBCOMMAND DB`, maintenance of a record store.
 *
 *   info DB      schema version and row counts; opens the store read-only,
 *                so it never creates, migrates or writes a file
 *   info --checkpoint DB
 *                first folds the WAL into the main file (opens it read-write)
 *   migrate DB   brings an existing store to this binary's schema version
 *
 * A missing file or one that is not a nodus store is bad input (exit 2).
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "store/store.h"

static const char usage[] =
	"usage: nodus db info [--checkpoint] DB\n"
	"       nodus db migrate DB\n"
	"       nodus db merge DB SHARD...\n\n"
	"Inspects or maintains a nodus record store (an SQLite file).\n\n"
	"  info DB      print the schema version and the number of plans, pairs,\n"
	"               conditions, targets, records, final records and samples;\n"
	"               read-only: never creates or changes DB, nor a file beside it\n"
	"  info --checkpoint DB\n"
	"               first fold DB-wal (records a running or killed nodus run\n"
	"               wrote) into DB, so that DB copied alone is whole\n"
	"  migrate DB   apply the schema migrations DB lacks (DB must exist)\n"
	"  merge DB SHARD...\n"
	"               copy the records of stores written elsewhere (shards of a\n"
	"               campaign run on several machines) into DB, each shard in one\n"
	"               transaction; records DB already holds are not copied twice;\n"
	"               two shards that both decided a pair-condition are refused\n\n"
	"exit status: 0 ok, 2 DB missing or not a nodus store, 3 store error\n";

static int fail(const nodus_error *err)
{
	nodus_cli_print_error(err);
	return nodus_cli_exit_for(err->code);
}

static void print_info(const char *path, const nodus_store_info *info)
{
	printf("store: %s\n", path);
	printf("schema version: %d (this nodus: %d)\n", info->schema_version,
	       nodus_store_latest_version());
	printf("plans: %" PRId64 "\n", info->plans);
	printf("pairs: %" PRId64 "\n", info->pairs);
	printf("conditions: %" PRId64 "\n", info->conditions);
	printf("targets: %" PRId64 "\n", info->targets);
	printf("records: %" PRId64 "\n", info->records);
	printf("final records: %" PRId64 "\n", info->final_records);
	printf("samples: %" PRId64 "\n", info->samples);
}

/* Opens an existing store read-write (never creating one) and folds its
 * WAL into the main file. */
static int open_checkpoint(const char *path, nodus_store **s, nodus_error *err)
{
	struct stat sb;
	int log_frames = 0, done_frames = 0;
	if (stat(path, &sb) != 0)
		return NODUS_ERR(err, NODUS_ENOTFOUND, "%s: no such store", path);
	/* refuse a foreign file before opening it read-write */
	int rc = nodus_store_open_readonly(path, s, err);
	nodus_store_close(*s);
	*s = NULL;
	if (rc == 0)
		rc = nodus_store_open(path, s, err);
	if (rc == 0)
		rc = nodus_store_checkpoint(*s, &log_frames, &done_frames, err);
	if (rc == 0)
		printf("checkpoint: %d of %d WAL frame(s) folded into %s\n", done_frames,
		       log_frames, path);
	return rc;
}

static int db_info(const char *path, int do_checkpoint)
{
	nodus_error err = {0};
	nodus_store *s = NULL;
	nodus_store_info info;
	int rc = do_checkpoint ? open_checkpoint(path, &s, &err)
			       : nodus_store_open_readonly(path, &s, &err);
	if (rc == 0)
		rc = nodus_store_info_get(s, &info, &err);
	nodus_store_close(s);
	if (rc)
		return fail(&err);
	print_info(path, &info);
	return NODUS_EXIT_OK;
}

/* 1 if a and b name one file (same device and inode), whatever the names. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int db_merge(const char *path, int n, char **shards)
{
	nodus_error err = {0};
	nodus_store *s = NULL;
	for (int i = 0; i < n; i++)
		if (same_file(path, shards[i]))
			return nodus_cli_usage_error("db", "merge: shard '%s' is the store '%s' itself",
						     shards[i], path);
	/* every shard must be a store before DB is created or changed */
	for (int i = 0; i < n; i++) {
		nodus_store *shard = NULL;
		int src = nodus_store_open_readonly(shards[i], &shard, &err);
		nodus_store_close(shard);
		if (src)
			return fail(&err);
	}
	int rc = nodus_store_open(path, &s, &err);
	for (int i = 0; !rc && i < n; i++) {
		int merged = 0, present = 0;
		rc = nodus_store_merge(s, shards[i], &merged, &present, &err);
		if (!rc)
			printf("%s: %d record(s) merged, %d already present\n", shards[i], merged,
			       present);
	}
	nodus_store_close(s);
	return rc ? fail(&err) : NODUS_EXIT_OK;
}

static int db_migrate(const char *path)
{
	nodus_error err = {0};
	nodus_store *s = NULL;
	struct stat sb;
	/* migrate upgrades a store; creating one is nodus run's job */
	if (stat(path, &sb) != 0) {
		fprintf(stderr, "nodus db: '%s': no such store\n", path);
		return NODUS_EXIT_USAGE;
	}
	int rc = nodus_store_open(path, &s, &err);
	if (rc)
		return fail(&err);
	printf("%s: schema version %d\n", path, nodus_store_schema_version(s));
	nodus_store_close(s);
	return NODUS_EXIT_OK;
}

int nodus_cmd_db(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	static const struct option longopts[] = {
		{"checkpoint", no_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch, do_checkpoint = 0;
	(void)ctx;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage, stdout);
			return NODUS_EXIT_OK;
		} else if (ch == 'k') {
			do_checkpoint = 1;
		} else {
			return nodus_cli_option_error("db", ch, argc, argv);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return nodus_cli_usage_error("db", "missing subcommand (info, migrate or merge)");
	const char *sub = argv[0];
	if (strcmp(sub, "info") != 0 && strcmp(sub, "migrate") != 0 && strcmp(sub, "merge") != 0)
		return nodus_cli_usage_error("db", "unknown subcommand '%s'", sub);
	if (do_checkpoint && strcmp(sub, "info") != 0)
		return nodus_cli_usage_error("db", "--checkpoint goes with info, not %s", sub);
	if (strcmp(sub, "merge") == 0) {
		if (argc < 3)
			return nodus_cli_usage_error("db", "merge takes the store and one or more shards");
		return db_merge(argv[1], argc - 2, argv + 2);
	}
	if (argc != 2)
		return nodus_cli_usage_error("db", "%s takes exactly one argument, the store file",
					     sub);
	return strcmp(sub, "info") == 0 ? db_info(argv[1], do_checkpoint) : db_migrate(argv[1]);
}
