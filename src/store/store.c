/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * store.c: the record store on SQLite (see store.h for the contract and
 * schema.sql for every table and column).
 *
 * Opening: set the pragmas (WAL, synchronous=FULL so a committed record
 * survives a SIGKILL or a power cut, foreign keys, busy timeout), read the
 * version from schema_version, then apply the missing migrations of the
 * embedded schema.sql inside one BEGIN IMMEDIATE transaction, re-reading the
 * version inside it so two processes opening a fresh store at once do not
 * both migrate. A read-only handle does none of the writing steps.
 *
 * Files beside the store. SQLite's WAL needs DB-wal and DB-shm while a
 * connection is open, and a read-only connection creates them too. A
 * reader therefore opens the file `immutable` (no locks, no side files,
 * the WAL not read) when DB-wal does not exist, which means no writer has
 * the store open and every record is in the main file; when DB-wal and
 * DB-shm exist it opens `mode=ro` and reads through them; DB-wal without
 * DB-shm (a copy taken mid-run) is refused with what to do. An immutable
 * reader sees no locks, so a writer that starts during its read must not
 * change the main file under it: writers turn SQLite's automatic
 * checkpoint off and checkpoint themselves (every CHECKPOINT_EVERY_S after
 * an insert, and on close) only while holding an exclusive flock() on the
 * file, which an immutable reader holds shared for as long as it reads.
 * flock() and SQLite's fcntl() locks do not interact on Linux; the fd that
 * holds the flock stays open until after sqlite3_close_v2(), since closing
 * any fd of a file drops the process's fcntl locks on it.
 *
 * Every statement that takes data is prepared and bound; sqlite3_exec()
 * only runs constant text (pragmas, the embedded schema). NaN doubles are
 * bound as NULL and NULL reads back as NAN.
 * ------------------------------------------------------------------------ */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/schema-sql.h"

#define BUSY_TIMEOUT_MS 30000
#define CHECKPOINT_EVERY_S 10.0 /* a writer's WAL is folded in at least this often */
#define MIGRATION_MARK "-- @migration "

struct nodus_store {
	sqlite3 *db;             /* the connection, owned */
	int version;             /* schema version after open (and migration) */
	int readonly;            /* 1: opened by nodus_store_open_readonly() */
	int immutable;           /* 1: read-only, opened immutable (no DB-wal existed) */
	int fd;                  /* the file, for flock(); -1 if none; closed after db */
	double last_checkpoint_s;/* wall time of the last checkpoint (or of the open) */
	char path[512];          /* the database file, for messages */
};

/* ---- errors ---- */

/* Fills err from the connection's last error. Constraint violations are
 * data the schema refuses (NODUS_EINVAL); anything else is a store fault. */
static int db_fail(nodus_store *s, nodus_error *err, const char *what)
{
	int rc = sqlite3_extended_errcode(s->db);
	int code = (rc & 0xff) == SQLITE_CONSTRAINT ? NODUS_EINVAL : NODUS_ESTORE;
	if (s->readonly && ((rc & 0xff) == SQLITE_READONLY))
		return NODUS_ERR(err, NODUS_ESTORE, "%s: %s: store opened read-only", s->path,
				 what);
	return NODUS_ERR(err, code, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int prepare(nodus_store *s, const char *sql, sqlite3_stmt **st, nodus_error *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(s, err, "preparing a statement");
	return 0;
}

/* ---- binding and reading ---- */

static int bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* Empty strings become NULL: used for optional fields such as expect. */
static int bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	return bind_text(st, i, v && *v ? v : NULL);
}

static int bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_double(st, i, v);
}

static double column_real(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, i);
}

static void column_copy(sqlite3_stmt *st, int i, char *dst, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

/* Runs a prepared statement that returns no rows, then finalizes it. */
static int step_done(nodus_store *s, sqlite3_stmt *st, const char *what, nodus_error *err)
{
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(s, err, what);
	sqlite3_finalize(st);
	return rc;
}

static int exec_const(nodus_store *s, const char *sql, const char *what, nodus_error *err)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, err, what);
	return 0;
}

static void rollback(nodus_store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- migrations ---- */

/* Finds migration number n (1-based) in the embedded schema: *text points
 * at its first statement, *len is its length. Returns 0 if there is none. */
static int migration_find(int n, const char **text, size_t *len)
{
	const char *p = nodus__schema_sql;
	const char *start = NULL;
	size_t mark_len = strlen(MIGRATION_MARK);
	while ((p = strstr(p, MIGRATION_MARK)) != NULL) {
		if (p != nodus__schema_sql && p[-1] != '\n') {
			p += mark_len;
			continue;
		}
		if (start) {
			*text = start;
			*len = (size_t)(p - start);
			return 1;
		}
		if (atoi(p + mark_len) == n) {
			start = strchr(p, '\n');
			if (!start)
				NODUS_BUG("schema.sql: migration mark without a body");
		}
		p += mark_len;
	}
	if (!start)
		return 0;
	*text = start;
	*len = strlen(start);
	return 1;
}

int nodus_store_latest_version(void)
{
	const char *text;
	size_t len;
	int n = 0;
	while (migration_find(n + 1, &text, &len))
		n++;
	return n;
}

/* Reads the schema version: 0 for a store without any table (a new or
 * empty file). Returns NODUS_EINVAL for a file that is not a nodus store. */
static int read_version(nodus_store *s, int *version, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, "SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
			    "AND name = 'schema_version'), (SELECT COUNT(*) FROM sqlite_master "
			    "WHERE name NOT LIKE 'sqlite_%')", &st, err);
	if (rc) {
		int sq = sqlite3_errcode(s->db);
		if (sq == SQLITE_NOTADB || sq == SQLITE_CORRUPT)
			rc = NODUS_ERR(err, NODUS_EINVAL,
				       "%s: not a nodus store (not an SQLite database)", s->path);
		return rc;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_fail(s, err, "reading the schema");
		goto out;
	}
	int has_version = sqlite3_column_int(st, 0);
	int objects = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	*version = 0;
	if (!has_version) {
		if (objects > 0)
			rc = NODUS_ERR(err, NODUS_EINVAL,
				       "%s: not a nodus store (an SQLite database without a "
				       "schema_version table)", s->path);
		goto out;
	}
	rc = prepare(s, "SELECT COALESCE(MAX(version), 0) FROM schema_version", &st, err);
	if (rc)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_fail(s, err, "reading schema_version");
		goto out;
	}
	*version = sqlite3_column_int(st, 0);
out:
	sqlite3_finalize(st);
	return rc;
}

static int check_not_newer(nodus_store *s, nodus_error *err)
{
	int latest = nodus_store_latest_version();
	if (s->version > latest)
		return NODUS_ERR(err, NODUS_EINVAL,
				 "%s: store schema version %d is newer than this nodus knows "
				 "(%d); use a newer nodus", s->path, s->version, latest);
	return 0;
}

static int apply_migration(nodus_store *s, int n, nodus_error *err)
{
	const char *text;
	size_t len;
	if (!migration_find(n, &text, &len))
		NODUS_BUG("schema.sql: migration numbers are not consecutive");
	char *sql = strndup(text, len);
	if (!sql)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	char what[64];
	snprintf(what, sizeof(what), "applying migration %d", n);
	int rc = exec_const(s, sql, what, err);
	free(sql);
	if (rc)
		return rc;
	sqlite3_stmt *st = NULL;
	rc = prepare(s, "INSERT INTO schema_version (version, applied_at) VALUES (?1, ?2)", &st,
		     err);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 1, n);
	sqlite3_bind_double(st, 2, nodus_wall_time_s());
	return step_done(s, st, what, err);
}

static int migrate(nodus_store *s, nodus_error *err)
{
	int latest = nodus_store_latest_version();
	int rc = exec_const(s, "BEGIN IMMEDIATE", "starting the migration", err);
	if (rc)
		return rc;
	rc = read_version(s, &s->version, err);
	if (rc == 0)
		rc = check_not_newer(s, err);
	while (rc == 0 && s->version < latest) {
		rc = apply_migration(s, s->version + 1, err);
		if (rc == 0)
			s->version++;
	}
	if (rc == 0)
		rc = exec_const(s, "COMMIT", "committing the migration", err);
	if (rc)
		rollback(s);
	return rc;
}

/* ---- open and close ---- */

/* Writes "file:" and path percent-encoded as an SQLite URI, then query
 * (e.g. "?immutable=1"). Returns -1 if it does not fit. */
static int path_uri(const char *path, const char *query, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	int w = snprintf(out, size, "file:");
	if (w < 0 || (size_t)w >= size)
		return -1;
	n = (size_t)w;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || strchr("/-._~", *p);
		if (n + 4 >= size)
			return -1;
		if (plain) {
			out[n++] = (char)*p;
		} else {
			out[n++] = '%';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		}
	}
	w = snprintf(out + n, size - n, "%s", query);
	return w < 0 || (size_t)w >= size - n ? -1 : 0;
}

/* Opens path (as a URI with query when query is not NULL). */
static int open_common(const char *path, const char *query, int flags, nodus_store **out,
		       nodus_error *err)
{
	char uri[4096];
	nodus_store *s = calloc(1, sizeof(*s));
	if (!s)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	s->fd = -1;
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->readonly = !(flags & SQLITE_OPEN_READWRITE);
	s->last_checkpoint_s = nodus_wall_time_s();
	if (query && path_uri(path, query, uri, sizeof(uri))) {
		free(s);
		return NODUS_ERR(err, NODUS_EINVAL, "%.200s: path too long", path);
	}
	if (sqlite3_open_v2(query ? uri : path, &s->db, flags | (query ? SQLITE_OPEN_URI : 0),
			    NULL) != SQLITE_OK) {
		int rc = s->db ? NODUS_ERR(err, NODUS_ESTORE, "%s: cannot open: %s", path,
					   sqlite3_errmsg(s->db))
			       : NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		nodus_store_close(s);
		return rc;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	*out = s;
	return 0;
}

/* flock(fd, how | LOCK_NB), retried for up to BUSY_TIMEOUT_MS when wait.
 * Returns 0 when held. */
static int flock_wait(int fd, int how, int wait)
{
	struct timespec pause = {0, 20 * 1000 * 1000};
	for (int k = 0; k <= BUSY_TIMEOUT_MS / 20; k++) {
		if (flock(fd, how | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (!wait)
			return -1;
		nanosleep(&pause, NULL);
	}
	return -1;
}

/* Folds the WAL into the main file (mode: SQLITE_CHECKPOINT_*) under an
 * exclusive flock, so that no immutable reader is reading the file. With
 * wait, waits for readers up to BUSY_TIMEOUT_MS; without, returns 1 at
 * once if one reads. *log_frames and *done_frames as sqlite3_wal_checkpoint_v2. */
static int checkpoint(nodus_store *s, int mode, int wait, int *log_frames, int *done_frames,
		      nodus_error *err)
{
	if (s->fd < 0 || flock_wait(s->fd, LOCK_EX, wait) != 0) {
		if (!wait)
			return 1;
		return NODUS_ERR(err, NODUS_ESTORE,
				 "%s: checkpoint: a reader held the store for %d s", s->path,
				 BUSY_TIMEOUT_MS / 1000);
	}
	int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, mode, log_frames, done_frames);
	flock(s->fd, LOCK_UN);
	s->last_checkpoint_s = nodus_wall_time_s();
	if (rc != SQLITE_OK)
		return db_fail(s, err, "checkpointing the WAL");
	return 0;
}

int nodus_store_checkpoint(nodus_store *s, int *log_frames, int *done_frames, nodus_error *err)
{
	int lf = 0, df = 0;
	if (s->readonly)
		return NODUS_ERR(err, NODUS_ESTORE, "%s: checkpoint: store opened read-only",
				 s->path);
	int rc = checkpoint(s, SQLITE_CHECKPOINT_TRUNCATE, 1, &lf, &df, err);
	if (log_frames)
		*log_frames = lf;
	if (done_frames)
		*done_frames = df;
	return rc;
}

int nodus_store_open(const char *path, nodus_store **out, nodus_error *err)
{
	nodus_store *s = NULL;
	*out = NULL;
	int rc = open_common(path, NULL, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &s, err);
	if (rc)
		return rc;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		rc = NODUS_ERR(err, NODUS_ESTORE, "%s: cannot open: %s", path, strerror(errno));
		nodus_store_close(s);
		return rc;
	}
	/* read_version first: it tells a foreign file from a store before any
	 * pragma writes to it. */
	rc = read_version(s, &s->version, err);
	if (rc == 0)
		rc = check_not_newer(s, err);
	if (rc == 0)
		rc = exec_const(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; "
				"PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 0",
				"setting pragmas", err);
	if (rc == 0 && s->version < nodus_store_latest_version())
		rc = migrate(s, err);
	if (rc) {
		nodus_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* 1 if path with suffix exists. */
static int side_file_exists(const char *path, const char *suffix)
{
	char side[4096];
	struct stat sb;
	snprintf(side, sizeof(side), "%s%s", path, suffix);
	return stat(side, &sb) == 0;
}

/* Opens path for reading without creating a file (see the file header):
 * immutable when no DB-wal exists, mode=ro through an existing DB-wal and
 * DB-shm, refused for DB-wal without DB-shm. */
static int open_reader(const char *path, nodus_store **out, nodus_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EINVAL, "%s: cannot read: %s", path, strerror(errno));
	/* shared while reading: a writer checkpoints only under LOCK_EX */
	if (flock_wait(fd, LOCK_SH, 1) != 0) {
		close(fd);
		return NODUS_ERR(err, NODUS_ESTORE, "%s: a writer held the store for %d s", path,
				 BUSY_TIMEOUT_MS / 1000);
	}
	int wal = side_file_exists(path, "-wal"), shm = side_file_exists(path, "-shm");
	if (wal && !shm) {
		close(fd);
		return NODUS_ERR(err, NODUS_EINVAL,
				 "%s: %s-wal exists without %s-shm (a copy taken while nodus run was "
				 "writing?): copy %s-shm with it, or fold the WAL into the store with "
				 "'nodus db info --checkpoint %s'",
				 path, path, path, path, path);
	}
	int rc = open_common(path, wal ? "?mode=ro" : "?immutable=1", SQLITE_OPEN_READONLY, out,
			     err);
	if (rc) {
		close(fd);
		return rc;
	}
	(*out)->fd = fd;
	(*out)->immutable = !wal;
	if (wal) /* SQLite's own locks protect a mode=ro reader */
		flock(fd, LOCK_UN);
	return 0;
}

int nodus_store_open_readonly(const char *path, nodus_store **out, nodus_error *err)
{
	struct stat sb;
	nodus_store *s = NULL;
	*out = NULL;
	if (stat(path, &sb) != 0)
		return NODUS_ERR(err, NODUS_ENOTFOUND, "%s: no such store", path);
	if (!S_ISREG(sb.st_mode))
		return NODUS_ERR(err, NODUS_EINVAL, "%s: not a nodus store (not a regular file)",
				 path);
	int rc = open_reader(path, &s, err);
	if (rc)
		return rc;
	rc = read_version(s, &s->version, err);
	if (rc == 0 && s->version == 0)
		rc = NODUS_ERR(err, NODUS_EINVAL, "%s: not a nodus store (no schema)", path);
	if (rc == 0)
		rc = check_not_newer(s, err);
	if (rc == 0 && s->version < nodus_store_latest_version()) /* the user's move: exit 2 */
		rc = NODUS_ERR(err, NODUS_EINVAL,
			       "%s: store schema version %d is older than this nodus (%d); "
			       "migrate it with 'nodus db migrate'", path, s->version,
			       nodus_store_latest_version());
	if (rc == 0)
		rc = exec_const(s, "PRAGMA foreign_keys = ON; PRAGMA query_only = ON",
				"setting pragmas", err);
	if (rc) {
		nodus_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int nodus_store_is_immutable(const nodus_store *s)
{
	return s->immutable;
}

void nodus_store_close(nodus_store *s)
{
	if (!s)
		return;
	if (s->db && !s->readonly && s->fd >= 0) {
		/* fold the WAL in, so that a copy of the main file alone is whole,
		 * and let SQLite's own close (which checkpoints again and removes
		 * DB-wal) run under the same lock; if a reader kept the lock, SQLite
		 * must not checkpoint under it */
		int lf, df;
		if (checkpoint(s, SQLITE_CHECKPOINT_TRUNCATE, 1, &lf, &df, NULL) == 0 &&
		    flock_wait(s->fd, LOCK_EX, 0) == 0) {
			sqlite3_close_v2(s->db);
			s->db = NULL;
		} else {
			sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		}
	}
	sqlite3_close_v2(s->db);
	if (s->fd >= 0)
		close(s->fd); /* after the connection: it drops this process's fcntl locks */
	free(s);
}

int nodus_store_schema_version(nodus_store *s)
{
	return s->version;
}

/* ---- plans, pairs, conditions, targets ---- */

int nodus_store_put_pair(nodus_store *s, const char *digest, const char *pair_id,
			 const char *task, const char *workload, const char *candidate,
			 const char *reference, const char *cand_hash, const char *ref_hash,
			 const char *expect, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, "INSERT OR IGNORE INTO pairs (plan_digest, pair_id, task, workload, "
			    "candidate, reference, cand_hash, ref_hash, expect) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, digest);
	bind_text(st, 2, pair_id);
	bind_text(st, 3, task);
	bind_text(st, 4, workload);
	bind_text(st, 5, candidate);
	bind_text(st, 6, reference);
	bind_text_or_null(st, 7, cand_hash);
	bind_text_or_null(st, 8, ref_hash);
	bind_text_or_null(st, 9, expect);
	return step_done(s, st, "storing a pair", err);
}

int nodus_store_put_condition(nodus_store *s, const char *digest, const char *name,
			      const char *kind, const char *params_json, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, "INSERT OR IGNORE INTO conditions (plan_digest, name, kind, "
			    "params_json) VALUES (?1, ?2, ?3, ?4)", &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, digest);
	bind_text(st, 2, name);
	bind_text(st, 3, kind);
	bind_text_or_null(st, 4, params_json);
	return step_done(s, st, "storing a condition", err);
}

int nodus_store_put_target(nodus_store *s, const char *target_hash,
			   const char *fingerprint_json, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, "INSERT OR IGNORE INTO targets (target_hash, fingerprint_json, "
			    "stored_at) VALUES (?1, ?2, ?3)", &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, target_hash);
	bind_text(st, 2, fingerprint_json);
	sqlite3_bind_double(st, 3, nodus_wall_time_s());
	return step_done(s, st, "storing a target", err);
}

/* A string member of a plan's array element, or NULL. */
static const char *member_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int plan_pairs(nodus_store *s, const char *digest, json_t *plan, nodus_error *err)
{
	json_t *pairs = json_object_get(plan, "pairs");
	size_t i;
	json_t *p;
	json_array_foreach(pairs, i, p) {
		const char *id = member_str(p, "id"), *task = member_str(p, "task");
		const char *wl = member_str(p, "workload"), *cand = member_str(p, "candidate");
		const char *ref = member_str(p, "reference");
		/* An incomplete entry is left to nodus_store_put_pair(), which the
		 * caller uses with the resolved campaign. */
		if (!id || !task || !wl || !cand || !ref)
			continue;
		int rc = nodus_store_put_pair(s, digest, id, task, wl, cand, ref,
					      member_str(p, "candidate_hash"),
					      member_str(p, "reference_hash"),
					      member_str(p, "expect"), err);
		if (rc)
			return rc;
	}
	return 0;
}

static int plan_conditions(nodus_store *s, const char *digest, json_t *plan, nodus_error *err)
{
	json_t *conds = json_object_get(plan, "conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *name = member_str(c, "name"), *kind = member_str(c, "kind");
		if (!name || !kind)
			continue; /* left to nodus_store_put_condition() */
		char *params = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
		if (!params)
			return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		int rc = nodus_store_put_condition(s, digest, name, kind, params, err);
		free(params);
		if (rc)
			return rc;
	}
	return 0;
}

/* Inserts the plan row; *added = 1 when it was not there yet. */
static int plan_row(nodus_store *s, const char *digest, const char *name, const char *plan_json,
		    int *added, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, "INSERT OR IGNORE INTO plans (digest, name, plan_json, stored_at) "
			    "VALUES (?1, ?2, ?3, ?4)", &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, digest);
	bind_text(st, 2, name);
	bind_text(st, 3, plan_json);
	sqlite3_bind_double(st, 4, nodus_wall_time_s());
	rc = step_done(s, st, "storing the plan", err);
	*added = rc == 0 && sqlite3_changes(s->db) > 0;
	return rc;
}

int nodus_store_put_plan(nodus_store *s, const char *digest, const char *name,
			 const char *plan_json, nodus_error *err)
{
	json_error_t jerr;
	int added = 0;
	json_t *plan = json_loads(plan_json, 0, &jerr);
	if (!plan || !json_is_object(plan)) {
		json_decref(plan);
		return NODUS_ERR(err, NODUS_EPARSE, "plan %s: not a JSON object: %s", digest,
				 plan ? "another JSON value" : jerr.text);
	}
	int rc = exec_const(s, "BEGIN IMMEDIATE", "storing the plan", err);
	if (rc)
		goto out;
	rc = plan_row(s, digest, name, plan_json, &added, err);
	if (rc == 0 && added)
		rc = plan_pairs(s, digest, plan, err);
	if (rc == 0 && added)
		rc = plan_conditions(s, digest, plan, err);
	if (rc == 0)
		rc = exec_const(s, "COMMIT", "committing the plan", err);
	if (rc)
		rollback(s);
out:
	json_decref(plan);
	return rc;
}

/* ---- records ---- */

static const char insert_record_sql[] =
	"INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, guard, "
	"label, speedup, ci_lo, ci_hi, rounds, looks, cand_ns_median, ref_ns_median, "
	"max_abs_err, max_rel_err, matched_ratio, device_s, charge_share, compile_s, "
	"compile_cache_hits, validation_s, wall_s, target_hash, message, detail_json, "
	"started_at, finished_at, verdict) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
	"?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, "
	"?29, ?30)";

static void bind_record(sqlite3_stmt *st, const nodus_record *r)
{
	bind_text(st, 1, r->plan_digest);
	bind_text(st, 2, r->pair_id);
	bind_text(st, 3, r->condition);
	sqlite3_bind_int(st, 4, r->attempt);
	sqlite3_bind_int(st, 5, r->final ? 1 : 0);
	bind_text(st, 6, nodus_status_name(r->status));
	bind_text(st, 7, r->guard);
	bind_text(st, 8, r->label == NODUS_LABEL_NONE ? NULL : nodus_label_name(r->label));
	bind_real(st, 9, r->speedup);
	bind_real(st, 10, r->ci_lo);
	bind_real(st, 11, r->ci_hi);
	sqlite3_bind_int(st, 12, r->rounds);
	sqlite3_bind_int(st, 13, r->looks);
	bind_real(st, 14, r->cand_ns_median);
	bind_real(st, 15, r->ref_ns_median);
	bind_real(st, 16, r->max_abs_err);
	bind_real(st, 17, r->max_rel_err);
	bind_real(st, 18, r->matched_ratio);
	bind_real(st, 19, r->device_s);
	bind_real(st, 20, r->charge_share);
	bind_real(st, 21, r->compile_s);
	sqlite3_bind_int(st, 22, r->compile_cache_hits);
	bind_real(st, 23, r->validation_s);
	bind_real(st, 24, r->wall_s);
	bind_text(st, 25, r->target_hash);
	bind_text(st, 26, r->message);
	bind_text(st, 27, r->detail_json);
	bind_real(st, 28, r->started_at);
	bind_real(st, 29, r->finished_at);
	bind_text(st, 30, r->verdict == NODUS_VERDICT_NONE ? NULL : nodus_verdict_name(r->verdict));
}

static int insert_samples(nodus_store *s, int64_t record_id, const nodus_record *r,
			  nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, "INSERT INTO samples (record_id, round, seq, role, copy, batch, "
			    "flags, ns, host_ns, sm_clock_mhz) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", &st, err);
	for (int i = 0; rc == 0 && i < r->n_samples; i++) {
		const nodus_sample *x = &r->samples[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, record_id);
		sqlite3_bind_int(st, 2, x->round);
		sqlite3_bind_int(st, 3, x->seq);
		sqlite3_bind_int(st, 4, x->role);
		sqlite3_bind_int(st, 5, x->copy);
		sqlite3_bind_int(st, 6, x->batch);
		sqlite3_bind_int(st, 7, x->flags);
		sqlite3_bind_int64(st, 8, x->ns);
		sqlite3_bind_int64(st, 9, x->host_ns);
		sqlite3_bind_int(st, 10, x->sm_clock_mhz);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = db_fail(s, err, "storing a sample");
	}
	sqlite3_finalize(st);
	return rc;
}

static int check_record(const nodus_record *r, nodus_error *err)
{
	if (r->status < 0 || r->status >= NODUS_STATUS_COUNT_)
		return NODUS_ERR(err, NODUS_EINVAL, "record %s/%s: status %d out of range",
				 r->pair_id, r->condition, r->status);
	if (r->label < NODUS_LABEL_NONE || r->label >= NODUS_LABEL_COUNT_)
		return NODUS_ERR(err, NODUS_EINVAL, "record %s/%s: label %d out of range",
				 r->pair_id, r->condition, r->label);
	if (r->verdict < NODUS_VERDICT_NONE || r->verdict >= NODUS_VERDICT_COUNT_)
		return NODUS_ERR(err, NODUS_EINVAL, "record %s/%s: verdict %d out of range",
				 r->pair_id, r->condition, r->verdict);
	if (r->n_samples < 0 || (r->n_samples > 0 && !r->samples))
		return NODUS_ERR(err, NODUS_EINVAL, "record %s/%s: %d samples but no array",
				 r->pair_id, r->condition, r->n_samples);
	return 0;
}

int nodus_store_insert_record(nodus_store *s, const nodus_record *r, int64_t *record_id,
			      nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = check_record(r, err);
	if (rc)
		return rc;
	rc = exec_const(s, "BEGIN IMMEDIATE", "storing a record", err);
	if (rc)
		return rc;
	rc = prepare(s, insert_record_sql, &st, err);
	if (rc)
		goto out;
	bind_record(st, r);
	if (sqlite3_step(st) != SQLITE_DONE) {
		char what[512];
		snprintf(what, sizeof(what), "storing record %s / %s attempt %d", r->pair_id,
			 r->condition, r->attempt);
		rc = db_fail(s, err, what);
		goto out;
	}
	int64_t id = sqlite3_last_insert_rowid(s->db);
	rc = insert_samples(s, id, r, err);
	if (rc == 0)
		rc = exec_const(s, "COMMIT", "committing a record", err);
	if (rc == 0 && record_id)
		*record_id = id;
out:
	sqlite3_finalize(st);
	if (rc)
		rollback(s);
	/* a copy of the main file alone, or after a kill, loses at most the
	 * last CHECKPOINT_EVERY_S of records; a reader reading now only delays it */
	if (rc == 0 && nodus_wall_time_s() - s->last_checkpoint_s >= CHECKPOINT_EVERY_S) {
		int lf, df;
		checkpoint(s, SQLITE_CHECKPOINT_PASSIVE, 0, &lf, &df, NULL);
	}
	return rc;
}

/* ---- queries ---- */

int nodus_store_progress(nodus_store *s, const char *digest, const char *pair_id,
			 const char *condition, int *attempts, int *has_final, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	/* a final NOT_ISOLATED record decides nothing for good: --resume retries it */
	int rc = prepare(s, "SELECT COUNT(*), COALESCE(MAX(final = 1 AND status <> 'NOT_ISOLATED'), "
			    "0) FROM records WHERE plan_digest = ?1 AND pair_id = ?2 AND "
			    "condition = ?3", &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, digest);
	bind_text(st, 2, pair_id);
	bind_text(st, 3, condition);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*attempts = sqlite3_column_int(st, 0);
		*has_final = sqlite3_column_int(st, 1);
	} else {
		rc = db_fail(s, err, "reading progress");
	}
	sqlite3_finalize(st);
	return rc;
}

int nodus_store_info_get(nodus_store *s, nodus_store_info *out, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	memset(out, 0, sizeof(*out));
	out->schema_version = s->version;
	int rc = prepare(s, "SELECT (SELECT COUNT(*) FROM plans), (SELECT COUNT(*) FROM pairs), "
			    "(SELECT COUNT(*) FROM conditions), (SELECT COUNT(*) FROM targets), "
			    "(SELECT COUNT(*) FROM records), "
			    "(SELECT COUNT(*) FROM records WHERE final = 1), "
			    "(SELECT COUNT(*) FROM samples)", &st, err);
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		out->plans = sqlite3_column_int64(st, 0);
		out->pairs = sqlite3_column_int64(st, 1);
		out->conditions = sqlite3_column_int64(st, 2);
		out->targets = sqlite3_column_int64(st, 3);
		out->records = sqlite3_column_int64(st, 4);
		out->final_records = sqlite3_column_int64(st, 5);
		out->samples = sqlite3_column_int64(st, 6);
	} else {
		rc = db_fail(s, err, "counting rows");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Record columns in the order read_record() expects; id is column 0. */
static const char select_records_sql[] =
	"SELECT id, plan_digest, pair_id, condition, attempt, final, status, guard, label, "
	"speedup, ci_lo, ci_hi, rounds, looks, cand_ns_median, ref_ns_median, max_abs_err, "
	"max_rel_err, matched_ratio, device_s, charge_share, compile_s, compile_cache_hits, "
	"validation_s, wall_s, target_hash, message, detail_json, started_at, finished_at, "
	"verdict FROM records WHERE (?1 IS NULL OR plan_digest = ?1) AND (?2 = 0 OR final = 1) "
	"ORDER BY id";

/* Fills r from the current row. Strings message and detail_json point
 * into the statement's row, valid until the next step. */
static void read_record(sqlite3_stmt *st, nodus_record *r)
{
	memset(r, 0, sizeof(*r));
	column_copy(st, 1, r->plan_digest, sizeof(r->plan_digest));
	column_copy(st, 2, r->pair_id, sizeof(r->pair_id));
	column_copy(st, 3, r->condition, sizeof(r->condition));
	r->attempt = sqlite3_column_int(st, 4);
	r->final = sqlite3_column_int(st, 5);
	r->status = nodus_status_from_name((const char *)sqlite3_column_text(st, 6));
	column_copy(st, 7, r->guard, sizeof(r->guard));
	const unsigned char *label = sqlite3_column_text(st, 8);
	r->label = label ? nodus_label_from_name((const char *)label) : NODUS_LABEL_NONE;
	r->speedup = column_real(st, 9);
	r->ci_lo = column_real(st, 10);
	r->ci_hi = column_real(st, 11);
	r->rounds = sqlite3_column_int(st, 12);
	r->looks = sqlite3_column_int(st, 13);
	r->cand_ns_median = column_real(st, 14);
	r->ref_ns_median = column_real(st, 15);
	r->max_abs_err = column_real(st, 16);
	r->max_rel_err = column_real(st, 17);
	r->matched_ratio = column_real(st, 18);
	r->device_s = column_real(st, 19);
	r->charge_share = column_real(st, 20);
	r->compile_s = column_real(st, 21);
	r->compile_cache_hits = sqlite3_column_int(st, 22);
	r->validation_s = column_real(st, 23);
	r->wall_s = column_real(st, 24);
	column_copy(st, 25, r->target_hash, sizeof(r->target_hash));
	/* The record type holds non-const pointers; callbacks only read them. */
	r->message = (char *)sqlite3_column_text(st, 26);
	r->detail_json = (char *)sqlite3_column_text(st, 27);
	r->started_at = column_real(st, 28);
	r->finished_at = column_real(st, 29);
	const unsigned char *verdict = sqlite3_column_text(st, 30);
	r->verdict = verdict ? nodus_verdict_from_name((const char *)verdict) : NODUS_VERDICT_NONE;
}

/* Reads the samples of record id into *buf (grown as needed). */
static int read_samples(nodus_store *s, sqlite3_stmt *st, int64_t id, nodus_sample **buf,
			int *alloc, int *n, nodus_error *err)
{
	int rc;
	*n = 0;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == *alloc) {
			int grow = *alloc ? *alloc * 2 : 64;
			nodus_sample *p = realloc(*buf, (size_t)grow * sizeof(**buf));
			if (!p)
				return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
			*buf = p;
			*alloc = grow;
		}
		nodus_sample *x = &(*buf)[(*n)++];
		memset(x, 0, sizeof(*x));
		x->round = sqlite3_column_int(st, 0);
		x->seq = sqlite3_column_int(st, 1);
		x->role = sqlite3_column_int(st, 2);
		x->copy = sqlite3_column_int(st, 3);
		x->batch = sqlite3_column_int(st, 4);
		x->flags = sqlite3_column_int(st, 5);
		x->ns = sqlite3_column_int64(st, 6);
		x->host_ns = sqlite3_column_int64(st, 7);
		x->sm_clock_mhz = sqlite3_column_int(st, 8);
	}
	return rc == SQLITE_DONE ? 0 : db_fail(s, err, "reading samples");
}

int nodus_store_foreach_record(nodus_store *s, const char *digest, int final_only,
			       int with_samples, nodus_record_fn fn, void *ctx, nodus_error *err)
{
	sqlite3_stmt *st = NULL, *sst = NULL;
	nodus_sample *samples = NULL;
	int alloc = 0, step;
	int rc = prepare(s, select_records_sql, &st, err);
	if (rc == 0 && with_samples)
		rc = prepare(s, "SELECT round, seq, role, copy, batch, flags, ns, host_ns, "
			     "sm_clock_mhz FROM samples WHERE record_id = ?1 ORDER BY rowid",
			     &sst, err);
	if (rc)
		goto out;
	bind_text(st, 1, digest);
	sqlite3_bind_int(st, 2, final_only ? 1 : 0);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		nodus_record r;
		read_record(st, &r);
		if (with_samples) {
			rc = read_samples(s, sst, sqlite3_column_int64(st, 0), &samples, &alloc,
					  &r.n_samples, err);
			if (rc)
				goto out;
			r.samples = samples;
		}
		rc = fn(&r, ctx);
		if (rc)
			goto out;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(s, err, "reading records");
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sst);
	free(samples);
	return rc;
}

/* Runs a one-column, one-row query bound to key and returns the text as a
 * heap string, or NODUS_ENOTFOUND naming what. */
static int get_text(nodus_store *s, const char *sql, const char *key, const char *what,
		    char **out, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	*out = NULL;
	int rc = prepare(s, sql, &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, key);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		*out = strdup(t ? (const char *)t : "");
		if (!*out)
			rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	} else if (step == SQLITE_DONE) {
		rc = NODUS_ERR(err, NODUS_ENOTFOUND, "%s: no %s%s%s", s->path, what,
			       key ? " " : "", key ? key : "");
	} else {
		rc = db_fail(s, err, "reading");
	}
	sqlite3_finalize(st);
	return rc;
}

int nodus_store_get_plan(nodus_store *s, const char *digest, char **out_json, nodus_error *err)
{
	return get_text(s, "SELECT plan_json FROM plans WHERE ?1 IS NULL OR digest = ?1 "
			"ORDER BY stored_at DESC, rowid DESC LIMIT 1", digest, "plan", out_json,
			err);
}

int nodus_store_get_target(nodus_store *s, const char *target_hash, char **out_json,
			   nodus_error *err)
{
	return get_text(s, "SELECT fingerprint_json FROM targets WHERE target_hash = ?1",
			target_hash, "target", out_json, err);
}

/* ---- merging shards ---- */

/* A record's columns but id, in three parts around attempt, final and
 * detail_json, which a record kept as a new attempt has changed. */
#define RECORD_KEY_COLUMNS "plan_digest, pair_id, condition, "
#define RECORD_MID_COLUMNS                                                                 \
	"status, guard, label, speedup, ci_lo, ci_hi, rounds, looks, cand_ns_median, "     \
	"ref_ns_median, max_abs_err, max_rel_err, matched_ratio, device_s, charge_share, " \
	"compile_s, compile_cache_hits, validation_s, wall_s, target_hash, message, "
#define RECORD_TAIL_COLUMNS "started_at, finished_at, verdict"
#define RECORD_COLUMNS                                                                   \
	RECORD_KEY_COLUMNS "attempt, final, " RECORD_MID_COLUMNS "detail_json, " RECORD_TAIL_COLUMNS
/* What a record measured: every column but id, attempt and final (the
 * detail_json is read apart, see content_hash) */
#define RECORD_CONTENT_COLUMNS RECORD_KEY_COLUMNS RECORD_MID_COLUMNS RECORD_TAIL_COLUMNS
#define SAMPLE_COLUMNS "round, seq, role, copy, batch, flags, ns, host_ns, sm_clock_mhz"

/* The key of detail_json under which a merge records where a record kept
 * as a new attempt came from; it is provenance, not measurement. */
#define MERGED_KEY "merged"

static const char *const merge_tables_sql[] = {
	"INSERT OR IGNORE INTO plans (digest, name, plan_json, stored_at) "
	"SELECT digest, name, plan_json, stored_at FROM shard.plans",
	"INSERT OR IGNORE INTO pairs (plan_digest, pair_id, task, workload, candidate, reference, "
	"cand_hash, ref_hash, expect) SELECT plan_digest, pair_id, task, workload, candidate, "
	"reference, cand_hash, ref_hash, expect FROM shard.pairs",
	"INSERT OR IGNORE INTO conditions (plan_digest, name, kind, params_json) "
	"SELECT plan_digest, name, kind, params_json FROM shard.conditions",
	"INSERT OR IGNORE INTO targets (target_hash, fingerprint_json, stored_at) "
	"SELECT target_hash, fingerprint_json, stored_at FROM shard.targets",
};

/* Appends column i of st's row to b, typed, so that NULL, 1, 1.0 and "1"
 * differ; a double as %a, which is exact. */
static int add_column(nodus_buf *b, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return nodus_buf_adds(b, "N;");
	case SQLITE_INTEGER:
		return nodus_buf_addf(b, "I%lld;", (long long)sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return nodus_buf_addf(b, "F%a;", sqlite3_column_double(st, i));
	default: {
		const void *t = sqlite3_column_blob(st, i);
		int n = sqlite3_column_bytes(st, i);
		int rc = nodus_buf_addf(b, "T%d:", n);
		return rc || !n ? rc : nodus_buf_add(b, t, (size_t)n);
	}
	}
}

/* Appends a record's detail_json to b without its MERGED_KEY (a copy kept
 * as a new attempt carries it; the measurement is the same), re-encoded
 * canonically, and with an empty object written as NULL is (a detail that
 * held only the key was NULL in the shard). Text that is not a JSON object
 * goes in as it is. */
static int add_detail(nodus_buf *b, const char *text)
{
	json_t *d = text ? json_loads(text, 0, NULL) : NULL;
	if (!json_is_object(d)) {
		json_decref(d);
		if (!text)
			return nodus_buf_adds(b, "N;");
		int rc = nodus_buf_addf(b, "T%zu:", strlen(text));
		return rc ? rc : nodus_buf_adds(b, text);
	}
	json_object_del(d, MERGED_KEY);
	int rc = 0;
	if (json_object_size(d) == 0) {
		rc = nodus_buf_adds(b, "N;");
	} else {
		char *canon = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
		rc = canon ? nodus_buf_addf(b, "J%zu:%s", strlen(canon), canon) : NODUS_ENOMEM;
		free(canon);
	}
	json_decref(d);
	return rc;
}

/* What a record measured, for comparing a shard's record with the store's:
 * the SHA-256 of every column but id, attempt and final (detail_json less
 * MERGED_KEY) and of its samples in order. [0] reads main, [1] the shard. */
static const char *const content_sql[2] = {
	"SELECT " RECORD_CONTENT_COLUMNS ", detail_json FROM main.records WHERE id = ?1",
	"SELECT " RECORD_CONTENT_COLUMNS ", detail_json FROM shard.records WHERE id = ?1",
};
static const char *const content_samples_sql[2] = {
	"SELECT " SAMPLE_COLUMNS " FROM main.samples WHERE record_id = ?1 ORDER BY " SAMPLE_COLUMNS,
	"SELECT " SAMPLE_COLUMNS " FROM shard.samples WHERE record_id = ?1 ORDER BY " SAMPLE_COLUMNS,
};

static int content_hash(nodus_store *s, int in_shard, int64_t id, char out[NODUS_SHA256_HEX],
			nodus_error *err)
{
	nodus_buf b;
	nodus_buf_init(&b);
	sqlite3_stmt *st = NULL;
	int rc = prepare(s, content_sql[in_shard], &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_fail(s, err, "reading a record to compare");
	} else {
		int n = sqlite3_column_count(st) - 1; /* the last is detail_json */
		int brc = 0;
		for (int i = 0; !brc && i < n; i++)
			brc = add_column(&b, st, i);
		if (!brc)
			brc = add_detail(&b, (const char *)sqlite3_column_text(st, n));
		if (brc)
			rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	}
	sqlite3_finalize(st);
	if (!rc && !(rc = prepare(s, content_samples_sql[in_shard], &st, err))) {
		sqlite3_bind_int64(st, 1, id);
		int step = SQLITE_DONE, brc = 0;
		while (!brc && (step = sqlite3_step(st)) == SQLITE_ROW)
			for (int i = 0; !brc && i < sqlite3_column_count(st); i++)
				brc = add_column(&b, st, i);
		if (brc)
			rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		else if (step != SQLITE_DONE)
			rc = db_fail(s, err, "reading samples to compare");
		sqlite3_finalize(st);
	}
	if (!rc)
		nodus_sha256_hex(b.data, b.len, out);
	nodus_buf_release(&b);
	return rc;
}

/* Copies one shard record (and its samples) under a new id: as it is when
 * attempt is 0, else with this attempt, final flag and detail_json. */
static int merge_record(nodus_store *s, int64_t old_id, int attempt, int final,
			const char *detail, nodus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(s,
			 attempt ? "INSERT INTO records (" RECORD_COLUMNS ") SELECT " RECORD_KEY_COLUMNS
				   "?2, ?3, " RECORD_MID_COLUMNS "?4, " RECORD_TAIL_COLUMNS
				   " FROM shard.records WHERE id = ?1"
				 : "INSERT INTO records (" RECORD_COLUMNS ") SELECT " RECORD_COLUMNS
				   " FROM shard.records WHERE id = ?1",
			 &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, old_id);
	if (attempt) {
		sqlite3_bind_int(st, 2, attempt);
		sqlite3_bind_int(st, 3, final);
		bind_text(st, 4, detail);
	}
	if ((rc = step_done(s, st, "merging a record", err)))
		return rc;
	int64_t new_id = sqlite3_last_insert_rowid(s->db);
	rc = prepare(s,
		     "INSERT INTO samples (record_id, " SAMPLE_COLUMNS ") SELECT ?1, " SAMPLE_COLUMNS
		     " FROM shard.samples WHERE record_id = ?2",
		     &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, new_id);
	sqlite3_bind_int64(st, 2, old_id);
	return step_done(s, st, "merging samples", err);
}

/* The shard record's detail with MERGED_KEY added, heap, caller frees:
 * where it came from, the attempt and final flag it had there and its
 * content hash. A record that already carries the key (merged before,
 * from a store it was kept in as a new attempt) keeps the first one,
 * which names the run that measured it. NULL with *enomem unset when the
 * detail is not a JSON object (it is kept as it is). */
static char *detail_with_origin(const char *detail, const char *shard_path, int attempt,
				int final, const char *hash, int *enomem)
{
	json_t *d = detail ? json_loads(detail, 0, NULL) : json_object();
	*enomem = 0;
	if (!json_is_object(d)) {
		json_decref(d);
		*enomem = !detail;
		return NULL;
	}
	if (!json_object_get(d, MERGED_KEY))
		json_object_set_new(d, MERGED_KEY,
				    json_pack("{s:s,s:i,s:b,s:s}", "from", shard_path, "attempt",
					      attempt, "final", final, "content", hash));
	char *out = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(d);
	*enomem = !out;
	return out;
}

/* What the store holds of one pair-condition, beside a shard's record. */
struct pc_state {
	int identical;      /* 1: a record of the same content */
	int clash;          /* 1: a record at the shard record's attempt */
	int max_attempt;    /* the highest attempt, 0 if none */
	int decider;        /* the final record that is not NOT_ISOLATED, its attempt; 0 if none */
};

static int pc_state_get(nodus_store *s, const char *digest, const char *pair_id,
			const char *condition, int attempt, const char *hash,
			struct pc_state *pc, nodus_error *err)
{
	memset(pc, 0, sizeof(*pc));
	sqlite3_stmt *st = NULL;
	int rc = prepare(s,
			 "SELECT id, attempt, final = 1 AND status <> 'NOT_ISOLATED' FROM main.records "
			 "WHERE plan_digest = ?1 AND pair_id = ?2 AND condition = ?3",
			 &st, err);
	if (rc)
		return rc;
	bind_text(st, 1, digest);
	bind_text(st, 2, pair_id);
	bind_text(st, 3, condition);
	int step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int a = sqlite3_column_int(st, 1);
		char h[NODUS_SHA256_HEX];
		if ((rc = content_hash(s, 0, sqlite3_column_int64(st, 0), h, err)))
			break;
		pc->identical |= strcmp(h, hash) == 0;
		pc->clash |= a == attempt;
		pc->max_attempt = a > pc->max_attempt ? a : pc->max_attempt;
		if (sqlite3_column_int(st, 2))
			pc->decider = a;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(s, err, "reading the store's records");
	sqlite3_finalize(st);
	return rc;
}

/* Merges shard record id (st's row: id, plan, pair, condition, attempt,
 * final, decides, detail_json) by the rules of docs/store.md. */
static int merge_one(nodus_store *s, const char *shard_path, sqlite3_stmt *row, int flags,
		     nodus_merge_counts *counts, nodus_merge_fn fn, void *ctx, nodus_error *err)
{
	int64_t id = sqlite3_column_int64(row, 0);
	nodus_merge_note n = {
		.plan_digest = (const char *)sqlite3_column_text(row, 1),
		.pair_id = (const char *)sqlite3_column_text(row, 2),
		.condition = (const char *)sqlite3_column_text(row, 3),
		.shard_attempt = sqlite3_column_int(row, 4),
		.shard_final = sqlite3_column_int(row, 5),
	};
	int decides = sqlite3_column_int(row, 6);
	char hash[NODUS_SHA256_HEX];
	struct pc_state pc;
	int rc = content_hash(s, 1, id, hash, err);
	if (!rc)
		rc = pc_state_get(s, n.plan_digest, n.pair_id, n.condition, n.shard_attempt, hash,
				  &pc, err);
	if (rc)
		return rc;
	if (pc.identical) {
		counts->identical++;
		return 0;
	}
	int second_decider = decides && pc.decider;
	if (!pc.clash && !second_decider) {
		rc = merge_record(s, id, 0, 0, NULL, err);
		counts->merged += !rc;
		return rc;
	}
	/* another measurement of a pair-condition the store holds */
	n.clash = pc.clash;
	n.decider = pc.decider;
	if (!(flags & NODUS_MERGE_KEEP_BOTH)) {
		counts->conflicts++;
		if (fn)
			fn(&n, ctx);
		return 0;
	}
	int enomem;
	n.attempt = pc.max_attempt + 1;
	n.final = n.shard_final && !second_decider;
	char *detail = detail_with_origin((const char *)sqlite3_column_text(row, 7), shard_path,
					  n.shard_attempt, n.shard_final, hash, &enomem);
	if (enomem)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	rc = merge_record(s, id, n.attempt, n.final,
			  detail ? detail : (const char *)sqlite3_column_text(row, 7), err);
	free(detail);
	if (rc)
		return rc;
	counts->kept++;
	if (n.final && decides)
		n.decider = n.attempt;
	if (fn)
		fn(&n, ctx);
	return 0;
}

int nodus_store_merge(nodus_store *s, const char *shard_path, int flags,
		      nodus_merge_counts *counts, nodus_merge_fn fn, void *ctx, nodus_error *err)
{
	memset(counts, 0, sizeof(*counts));
	nodus_store *shard = NULL;
	int rc = nodus_store_open_readonly(shard_path, &shard, err);
	if (rc)
		return rc;
	int shard_version = shard->version;
	nodus_store_close(shard);
	if (shard_version != s->version)
		return NODUS_ERR(err, NODUS_EINVAL,
				 "%s: schema version %d, expected %d (run `nodus db migrate` on it)",
				 shard_path, shard_version, s->version);
	sqlite3_stmt *st = NULL;
	if ((rc = prepare(s, "ATTACH DATABASE ?1 AS shard", &st, err)))
		return rc;
	bind_text(st, 1, shard_path);
	if ((rc = step_done(s, st, "attaching the shard", err)))
		return rc;
	if ((rc = exec_const(s, "BEGIN IMMEDIATE", "starting the merge", err)))
		goto detach;
	for (size_t i = 0; !rc && i < sizeof(merge_tables_sql) / sizeof(merge_tables_sql[0]); i++)
		if (!(rc = prepare(s, merge_tables_sql[i], &st, err)))
			rc = step_done(s, st, "merging plans, pairs, conditions and targets", err);
	/* in attempt order per pair-condition, so that a run's attempts kept
	 * as new attempts stay in their order */
	if (!rc)
		rc = prepare(s,
			     "SELECT id, plan_digest, pair_id, condition, attempt, final, "
			     "final = 1 AND status <> 'NOT_ISOLATED', detail_json FROM shard.records "
			     "ORDER BY plan_digest, pair_id, condition, attempt, id",
			     &st, err);
	if (!rc) {
		int step = SQLITE_DONE;
		while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
			rc = merge_one(s, shard_path, st, flags, counts, fn, ctx, err);
		if (!rc && step != SQLITE_DONE)
			rc = db_fail(s, err, "reading the shard's records");
		sqlite3_finalize(st);
	}
	if (rc || counts->conflicts)
		rollback(s); /* nothing of a failed or refused merge stays */
	else
		rc = exec_const(s, "COMMIT", "committing the merge", err);
detach:
	exec_const(s, "DETACH DATABASE shard", "detaching the shard", NULL);
	return rc;
}
