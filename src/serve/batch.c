/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * batch.c: the batcher, the thread that turns queued submissions into
 * sealed plans and runs them.
 *
 * A batch is a campaign written beside the store: the base campaign's
 * tasks, workloads, judge, conditions and target (by absolute path, so the
 * base files are hashed into the plan where they are), the references the
 * batch's pairs use, and one candidate per submission, named serve_ID.
 * Its directory is DB.serve/batch/SHA (SHA-256 of the campaign's text),
 * each candidate's DB.serve/cand/SHA (of its solution and name): the same
 * content always lands in the same place, and a directory once complete is
 * never written again (written under a temporary name, then renamed).
 * nodus_plan_seal seals DB.serve/batch/SHA/plan.json, once.
 *
 * Each plan runs as `nodus run PLAN --db DB --resume`, the nodus binary as
 * a child (the one timing protocol, never a second copy), dying with this
 * thread (PR_SET_PDEATHSIG) so that a killed server leaves no orchestrator
 * holding the run lock. --resume does the rest after a restart: a
 * pair-condition with a final record is not redone.
 *
 * Order of work, every pass: sealed batches that are not done (a restart
 * finds them; a failed run is tried again, opts.run_attempts times), then
 * the queue: once a submission is queued it waits batch_wait_ms for
 * company, then at most batch_max of one base campaign become a batch.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec.h"
#include "plan/plan.h"
#include "serve/serve-internal.h"

static const char *str_or(const char *s)
{
	return s ? s : "";
}

static void logf_(nodus__serve *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(nodus__serve *sv, const char *fmt, ...)
{
	if (!sv->o.log)
		return;
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&sv->lock);
	fprintf(sv->o.log, "nodus serve: ");
	vfprintf(sv->o.log, fmt, ap);
	fputc('\n', sv->o.log);
	fflush(sv->o.log);
	pthread_mutex_unlock(&sv->lock);
	va_end(ap);
}

int nodus__serve_publish_dir(const char *dir, nodus__serve_fill_fn fill, void *ctx,
			     nodus_error *err)
{
	struct stat st;
	char tmp[1500];
	if (stat(dir, &st) == 0)
		return 0;
	/* unique: an HTTP thread and the batcher may publish the same one */
	snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", dir);
	if (!mkdtemp(tmp) || chmod(tmp, 0755))
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", tmp, strerror(errno));
	int rc = fill(tmp, ctx, err);
	if (!rc && rename(tmp, dir) && errno != EEXIST && errno != ENOTEMPTY)
		rc = NODUS_ERR(err, NODUS_EIO, "cannot rename '%s' to '%s': %s", tmp, dir,
			       strerror(errno));
	nodus_remove_tree(tmp); /* left only when the rename lost to an existing dir */
	return rc;
}

typedef struct cand_ctx {
	const char *solution_json;
	const char *name;
} cand_ctx;

static int fill_cand(const char *dir, void *ctx, nodus_error *err)
{
	const cand_ctx *c = ctx;
	return nodus__serve_write_solution(c->solution_json, c->name, dir, 1, err);
}

static int fill_campaign(const char *dir, void *ctx, nodus_error *err)
{
	char path[1400];
	const char *text = ctx;
	snprintf(path, sizeof(path), "%s/campaign.json", dir);
	FILE *f = fopen(path, "wx");
	if (!f)
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", path, strerror(errno));
	int bad = fputs(text, f) < 0;
	bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	return bad ? NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path, strerror(errno)) : 0;
}

static int fill_nothing(const char *dir, void *ctx, nodus_error *err)
{
	(void)dir;
	(void)ctx;
	(void)err;
	return 0;
}

/* Adds path to arr unless it is there. */
static void add_unique(json_t *arr, const char *path)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (strcmp(json_string_value(v), path) == 0)
			return;
	json_array_append_new(arr, json_string(path));
}

/* Appends file, as a path relative to a batch directory (all are one
 * level below DB.serve/batch), to arr unless it is there: a campaign names
 * its files relative to itself. */
static int add_file(const nodus__serve *sv, json_t *arr, const char *file, nodus_error *err)
{
	char real[PATH_MAX], from[1300], rel[PATH_MAX];
	if (!realpath(file, real))
		return NODUS_ERR(err, NODUS_EIO, "serve: '%s': %s", file, strerror(errno));
	snprintf(from, sizeof(from), "%s/batch/x", sv->files_dir);
	if (nodus__path_relative(from, real, rel, sizeof(rel)))
		return NODUS_ERR(err, NODUS_EINVAL, "serve: '%s': path too long", real);
	add_unique(arr, rel);
	return 0;
}

/* The batch's campaign text and the pair id of each submission. */
static int batch_campaign(nodus__serve *sv, const nodus__serve_base *base,
			  const nodus__sq_sub *subs, int n, char (*pair_ids)[NODUS_PAIR_ID_MAX],
			  char **text, nodus_error *err)
{
	const nodus_campaign *c = base->c;
	json_t *doc = json_deep_copy(c->json), *tasks = json_array(), *wls = json_array();
	json_t *sols = json_array(), *pairs = json_array();
	int rc = 0;
	if (!doc || !tasks || !wls || !sols || !pairs) {
		rc = NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory writing a batch");
		goto out;
	}
	for (int i = 0; i < c->n_tasks && !rc; i++)
		rc = add_file(sv, tasks, c->tasks[i].file, err);
	for (int i = 0; i < c->n_workloads && !rc; i++)
		rc = add_file(sv, wls, c->workloads[i].file, err);
	if (rc)
		goto out;
	for (int i = 0; i < n; i++) {
		char name[64], dir[1300], sha[NODUS_SHA256_HEX];
		snprintf(name, sizeof(name), "serve_%lld", (long long)subs[i].id);
		nodus_buf key = NODUS_BUF_INIT;
		nodus_buf_addf(&key, "%s\n%s", name, subs[i].solution_json);
		nodus_sha256_hex(key.data, key.len, sha);
		nodus_buf_release(&key);
		snprintf(dir, sizeof(dir), "%s/cand/%s", sv->files_dir, sha);
		cand_ctx cc = {subs[i].solution_json, name};
		if ((rc = nodus__serve_publish_dir(dir, fill_cand, &cc, err)))
			goto out;
		int r = nodus_campaign_find_solution(c, subs[i].reference);
		if (r < 0) {
			rc = NODUS_ERR(err, NODUS_EINVAL, "serve: campaign \"%s\" has no solution "
				       "\"%s\" any more", c->name, subs[i].reference);
			goto out;
		}
		strcat(dir, "/solution.json");
		if ((rc = add_file(sv, sols, c->solutions[r].file, err)) ||
		    (rc = add_file(sv, sols, dir, err)))
			goto out;
		json_array_append_new(pairs, json_pack("{s:s, s:s, s:s}", "workload",
						       subs[i].workload, "candidate", name,
						       "reference", subs[i].reference));
		snprintf(pair_ids[i], NODUS_PAIR_ID_MAX, "%s/%s/%s", subs[i].workload, name,
			 subs[i].reference);
	}
	json_object_set(doc, "tasks", tasks);
	json_object_set(doc, "workloads", wls);
	json_object_set(doc, "solutions", sols);
	json_object_set(doc, "pairs", pairs);
	*text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!*text)
		rc = NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory writing a batch");
out:
	json_decref(doc);
	json_decref(tasks);
	json_decref(wls);
	json_decref(sols);
	json_decref(pairs);
	return rc;
}

/* Formats diags into one message (at most size bytes). */
static void diags_text(const nodus_diags *d, char *out, size_t size)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < d->count && len + 1 < size; i++) {
		char line[2048];
		nodus_error_format(&d->items[i], line, sizeof(line));
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "; " : "", line);
	}
}

/* Seals subs into a plan and marks them batched. A campaign the sealer
 * refuses (the audit of the judge, say) fails its submissions, saying
 * why; *sealed 0 then. */
static int seal_batch(nodus__serve *sv, sqlite3 *db, const nodus__sq_sub *subs, int n,
		      int *sealed, nodus_error *err)
{
	const nodus__serve_base *base = subs[0].upload_path ? NULL
				      : nodus__serve_find_base(sv, subs[0].campaign);
	char (*pair_ids)[NODUS_PAIR_ID_MAX] = calloc((size_t)n, sizeof(*pair_ids));
	char dir[1300], plan[1400], digest[NODUS_SHA256_HEX], sha[NODUS_SHA256_HEX], why[4096];
	char *text = NULL;
	nodus_diags diags = NODUS_DIAGS_INIT;
	int rc = 0;
	int64_t batch_id = 0, last = 0;
	*sealed = 0;
	if (!pair_ids)
		return NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
	if (!base && !subs[0].upload_path) {
		/* the server was restarted without that campaign */
		snprintf(why, sizeof(why), "campaign \"%s\" is not served any more (restart nodus "
			 "serve with --campaign naming it)", subs[0].campaign);
		rc = nodus__sq_fail_subs(db, subs, n, why, &last, err);
		goto out;
	}
	if (subs[0].upload_path) {
		/* a whole campaign: its plan beside its files would write into a
		 * finished directory, so it goes into a batch directory of its own */
		nodus_sha256_hex(subs[0].upload_path, strlen(subs[0].upload_path), sha);
		snprintf(dir, sizeof(dir), "%s/batch/%s", sv->files_dir, sha);
		if ((rc = nodus__serve_publish_dir(dir, fill_nothing, NULL, err)))
			goto out;
		snprintf(plan, sizeof(plan), "%s/plan.json", dir);
		snprintf(dir, sizeof(dir), "%s", subs[0].upload_path);
		free(pair_ids);
		pair_ids = NULL;
		/* its own tasks, workloads and references: audited as nodus
		 * plan audits them, before its plan is sealed */
		if (access(plan, F_OK) != 0) {
			nodus_campaign *c = NULL;
			rc = nodus_campaign_load(dir, &c, &diags);
			if (!rc)
				rc = nodus__serve_audit(sv, c, why, sizeof(why), err);
			nodus_campaign_free(c);
			if (rc == 1 || (rc && diags.count)) {
				if (rc != 1)
					diags_text(&diags, why, sizeof(why));
				logf_(sv, "a campaign submission was refused: %s", why);
				rc = nodus__sq_fail_subs(db, subs, n, why, &last, err);
				goto out;
			}
			if (rc)
				goto out;
		}
	} else {
		if ((rc = batch_campaign(sv, base, subs, n, pair_ids, &text, err)))
			goto out;
		nodus_sha256_hex(text, strlen(text), sha);
		snprintf(dir, sizeof(dir), "%s/batch/%s", sv->files_dir, sha);
		if ((rc = nodus__serve_publish_dir(dir, fill_campaign, text, err)))
			goto out;
		snprintf(plan, sizeof(plan), "%s/plan.json", dir);
		strcat(dir, "/campaign.json");
	}
	json_t *old = json_load_file(plan, 0, NULL); /* sealed before a kill: never resealed */
	const char *d = json_string_value(json_object_get(old, "digest"));
	if (d)
		snprintf(digest, sizeof(digest), "%s", d);
	json_decref(old);
	if (!d && nodus_plan_seal(dir, plan, digest, &diags, err)) {
		diags_text(&diags, why, sizeof(why));
		if (!diags.count)
			nodus_error_format(err, why, sizeof(why));
		logf_(sv, "a batch of %d did not seal: %s", n, why);
		rc = nodus__sq_fail_subs(db, subs, n, why, &last, err);
		goto out;
	}
	if ((rc = nodus__sq_seal(db, digest, plan, subs, pair_ids, n, &batch_id, err)))
		goto out;
	*sealed = 1;
	logf_(sv, "batch %lld sealed: %d submission(s), plan %s", (long long)batch_id, n, plan);
out:
	if (last) {
		pthread_mutex_lock(&sv->lock);
		if (last > sv->done_seq)
			sv->done_seq = last;
		pthread_cond_broadcast(&sv->cv);
		pthread_mutex_unlock(&sv->lock);
	}
	nodus_diags_release(&diags);
	free(text);
	free(pair_ids);
	return rc;
}

static void sleep_ms(int ms);

/* The last bytes of the run's log, for a failed run's message. */
static void log_tail(const char *path, char *out, size_t size)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0) {
		long end = ftell(f);
		fseek(f, end > (long)size - 1 ? end - (long)size + 1 : 0, SEEK_SET);
	}
	size_t n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
}

/* The target price and the baseline condition of the plan b runs. */
static void plan_facts(const nodus__sq_batch *b, double *price, char *baseline, size_t size)
{
	json_t *plan = json_load_file(b->plan_path, 0, NULL);
	json_t *p = json_object_get(json_object_get(plan, "target"), "price_per_device_hour_usd");
	size_t i;
	json_t *c;
	*price = json_is_number(p) ? json_number_value(p) : NAN;
	snprintf(baseline, size, "isolated");
	json_array_foreach(json_object_get(plan, "conditions"), i, c) {
		if (strcmp(str_or(json_string_value(json_object_get(c, "kind"))), "isolated") == 0 &&
		    !json_object_get(c, "judge_preset")) {
			snprintf(baseline, size, "%s", json_string_value(json_object_get(c, "name")));
			break;
		}
	}
	json_decref(plan);
}

/* Runs b's plan to the end (`nodus run --resume`), then takes its results. */
static int run_batch(nodus__serve *sv, sqlite3 *db, const nodus__sq_batch *b, nodus_error *err)
{
	char logp[1400], why[4096];
	snprintf(logp, sizeof(logp), "%s.run-%d.log", b->plan_path, b->run_failures + 1);
	int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", logp, strerror(errno));
	const char *argv[12];
	int k = 0;
	argv[k++] = sv->o.self_path;
	argv[k++] = "run";
	argv[k++] = b->plan_path;
	argv[k++] = "--db";
	argv[k++] = sv->db_abs;
	argv[k++] = "--resume";
	argv[k++] = "-q";
	if (sv->o.cache_dir) {
		argv[k++] = "--cache";
		argv[k++] = sv->o.cache_dir;
	}
	argv[k] = NULL;
	nodus_child_opts co;
	nodus_child ch;
	memset(&co, 0, sizeof(co));
	co.argv = argv;
	co.stdin_fd = -2;
	co.stdout_fd = fd;
	co.stderr_fd = fd;
	co.die_with_parent = 1;
	logf_(sv, "batch %lld: running %s", (long long)b->id, b->plan_path);
	int rc = nodus_child_start(&ch, &co, err);
	close(fd);
	if (rc)
		return rc;
	int status = nodus_child_finish(&ch);
	int64_t last = 0;
	if (status == 0) {
		double price;
		char baseline[NODUS_NAME_MAX];
		plan_facts(b, &price, baseline, sizeof(baseline));
		rc = nodus__sq_finish_batch(db, b, price, baseline, &last, err);
		logf_(sv, "batch %lld done", (long long)b->id);
	} else {
		int ended = 0;
		char tail[1500];
		log_tail(logp, tail, sizeof(tail));
		snprintf(why, sizeof(why), "nodus run exited %d (%s): %s", status, logp, tail);
		rc = nodus__sq_fail_run(db, b, why, sv->o.run_attempts, &ended, &last, err);
		logf_(sv, "batch %lld: %s%s", (long long)b->id, why,
		      ended ? "; its submissions failed" : "; it will be run again");
		sleep_ms(1000); /* not at once: what failed may need a moment (a disk, a lock) */
	}
	pthread_mutex_lock(&sv->lock);
	if (last > sv->done_seq)
		sv->done_seq = last;
	pthread_cond_broadcast(&sv->cv);
	pthread_mutex_unlock(&sv->lock);
	return rc;
}

/* Waits until a submission is queued after gen, or timeout_ms pass. */
static void wait_queued(nodus__serve *sv, int64_t gen, int timeout_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&sv->lock);
	while (!sv->stop && sv->queued_gen == gen)
		if (pthread_cond_timedwait(&sv->cv, &sv->lock, &ts))
			break;
	pthread_mutex_unlock(&sv->lock);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* One pass: the sealed batches, then one batch from the queue. Returns 1
 * when it did work (so the next pass starts at once). */
static int pass(nodus__serve *sv, sqlite3 *db, nodus_error *err)
{
	nodus__sq_batch b;
	int found = 0, n = 0, sealed = 0, rc;
	if ((rc = nodus__sq_next_batch(db, &b, &found, err)))
		return rc;
	if (found)
		return run_batch(sv, db, &b, err) ? -1 : 1;
	nodus__sq_sub *subs = NULL;
	if ((rc = nodus__sq_take_queued(db, sv->o.batch_max, &subs, &n, err)))
		return rc;
	if (n > 0 && n < sv->o.batch_max) {
		/* company for the first: a batch shares its workers' start-up */
		nodus__sq_subs_free(subs, n);
		sleep_ms(sv->o.batch_wait_ms);
		if ((rc = nodus__sq_take_queued(db, sv->o.batch_max, &subs, &n, err)))
			return rc;
	}
	if (n > 0)
		rc = seal_batch(sv, db, subs, n, &sealed, err);
	nodus__sq_subs_free(subs, n);
	return rc ? rc : n > 0;
}

void *nodus__serve_batcher(void *arg)
{
	nodus__serve *sv = arg;
	sqlite3 *db = NULL;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	if (nodus__sq_open(sv->db_abs, &db, &err)) {
		char line[2048];
		nodus_error_format(&err, line, sizeof(line));
		logf_(sv, "the batcher cannot open the store: %s; no batch will run", line);
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&sv->lock);
		int64_t gen = sv->queued_gen;
		int stop = sv->stop;
		pthread_mutex_unlock(&sv->lock);
		if (stop)
			break;
		memset(&err, 0, sizeof(err));
		int rc = pass(sv, db, &err);
		if (rc < 0) {
			/* the store or the disk failed: say so, and try again later
			 * rather than end the service (nothing is lost: the state
			 * is in the store) */
			char line[2048];
			nodus_error_format(&err, line, sizeof(line));
			logf_(sv, "batcher: %s (trying again in 1 s)", line);
			sleep_ms(1000);
		} else if (rc == 0) {
			wait_queued(sv, gen, 1000);
		}
	}
	sqlite3_close(db);
	return NULL;
}
