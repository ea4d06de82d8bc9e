/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-db.c: `nodus db SUBCOMMAND DB`, maintenance of a record store.
 *
 *   info DB      schema version and row counts; opens the store read-only,
 *                so it never creates, migrates or writes a file
 *   info --checkpoint DB
 *                first folds the WAL into the main file (opens it read-write)
 *   migrate DB   brings an existing store to this binary's schema version
 *   merge [--keep-both] DB SHARD...
 *                copies shards' records into DB, never dropping one that
 *                differs (refused, exit 1, or kept as a new attempt)
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
	"       nodus db merge [--keep-both] DB SHARD...\n\n"
	"Inspects or maintains a nodus record store (an SQLite file).\n\n"
	"  info DB      print the schema version and the number of plans, pairs,\n"
	"               conditions, targets, records, final records and samples;\n"
	"               read-only: never creates or changes DB, nor a file beside it\n"
	"  info --checkpoint DB\n"
	"               first fold DB-wal (records a running or killed nodus run\n"
	"               wrote) into DB, so that DB copied alone is whole\n"
	"  migrate DB   apply the schema migrations DB lacks (DB must exist)\n"
	"  merge [--keep-both] DB SHARD...\n"
	"               copy the records of stores written elsewhere (shards of a\n"
	"               campaign run on several machines) into DB, each shard in one\n"
	"               transaction; a record DB holds with the same content (its\n"
	"               columns but id, attempt and final, and its samples) is not\n"
	"               copied twice. A record that is another measurement of a\n"
	"               pair-condition DB holds (another record at its attempt, or a\n"
	"               second deciding one: a second run of the same work) is never\n"
	"               dropped: the shard is refused (exit 1), naming each one, and\n"
	"               DB is unchanged by it; the other shards are merged. Prints\n"
	"               per shard the records merged, identical (skipped) and kept\n"
	"               as new attempts, and for each one kept which attempt decides\n"
	"  --keep-both  (merge) keep such records as the next free attempts, with\n"
	"               detail.merged naming the shard, their attempt and final flag\n"
	"               there; final only where DB had no deciding record, so the\n"
	"               record DB held first still decides the label\n\n"
	"exit status: 0 ok, 1 merge refused a shard (conflicting records),\n"
	"             2 DB missing or not a nodus store, 3 store error\n";

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

struct merge_print {
	const char *db;     /* the store merged into */
	const char *shard;  /* the shard being merged */
};

/* One record that is another measurement of a pair-condition DB holds:
 * kept (stdout, part of the summary) or refused (stderr, why exit 1). */
static void print_note(const nodus_merge_note *n, void *ctx)
{
	const struct merge_print *m = ctx;
	char was[160], decides[96];
	if (n->clash)
		snprintf(was, sizeof(was), "%s holds another attempt %d", m->db, n->shard_attempt);
	else
		snprintf(was, sizeof(was), "it is final and %s's attempt %d already decides", m->db,
			 n->decider);
	if (n->decider)
		snprintf(decides, sizeof(decides), "attempt %d decides", n->decider);
	else
		snprintf(decides, sizeof(decides), "no attempt decides yet");
	if (n->attempt)
		printf("%s: %s %s (plan %.12s): attempt %d%s kept as attempt %d%s (%s); %s\n",
		       m->shard, n->pair_id, n->condition, n->plan_digest, n->shard_attempt,
		       n->shard_final ? " (final)" : "", n->attempt, n->final ? ", final" : ", not final",
		       was, decides);
	else
		fprintf(stderr, "nodus db: merge: %s: %s %s (plan %.12s): attempt %d%s differs: %s\n",
			m->shard, n->pair_id, n->condition, n->plan_digest, n->shard_attempt,
			n->shard_final ? " (final)" : "", was);
}

static int db_merge(const char *path, int n, char **shards, int flags)
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
	int rc = nodus_store_open(path, &s, &err), refused = 0;
	/* a refused shard does not stop the others: each is its own
	 * transaction, and every conflict is named in one go */
	for (int i = 0; !rc && i < n; i++) {
		nodus_merge_counts c;
		struct merge_print m = {path, shards[i]};
		rc = nodus_store_merge(s, shards[i], flags, &c, print_note, &m, &err);
		if (rc)
			break;
		if (c.conflicts) {
			refused++;
			fprintf(stderr,
				"nodus db: merge: %s: refused, nothing merged: %d record(s) are other "
				"measurements of pair-conditions %s holds (a second run of the same "
				"work?); --keep-both keeps them as new attempts\n",
				shards[i], c.conflicts, path);
			continue;
		}
		printf("%s: %d record(s) merged, %d identical (already present), %d kept as new "
		       "attempts\n",
		       shards[i], c.merged, c.identical, c.kept);
	}
	nodus_store_close(s);
	if (rc)
		return fail(&err);
	return refused ? NODUS_EXIT_CHECK : NODUS_EXIT_OK;
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
		{"keep-both", no_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch, do_checkpoint = 0, keep_both = 0;
	(void)ctx;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage, stdout);
			return NODUS_EXIT_OK;
		} else if (ch == 'k') {
			do_checkpoint = 1;
		} else if (ch == 'b') {
			keep_both = 1;
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
	if (keep_both && strcmp(sub, "merge") != 0)
		return nodus_cli_usage_error("db", "--keep-both goes with merge, not %s", sub);
	if (strcmp(sub, "merge") == 0) {
		if (argc < 3)
			return nodus_cli_usage_error("db", "merge takes the store and one or more shards");
		return db_merge(argv[1], argc - 2, argv + 2, keep_both ? NODUS_MERGE_KEEP_BOTH : 0);
	}
	if (argc != 2)
		return nodus_cli_usage_error("db", "%s takes exactly one argument, the store file",
					     sub);
	return strcmp(sub, "info") == 0 ? db_info(argv[1], do_checkpoint) : db_migrate(argv[1]);
}
