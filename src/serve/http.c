/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * http.c: the HTTP API of `nodus serve` (docs/serve.md), on libmicrohttpd
 * (docs/dependencies.md says why that library).
 *
 *   POST /v1/submissions      a submission (submission.c); 202 {"id", ...}
 *                             once it is committed to the store
 *   GET  /v1/submissions/ID   one submission, its state and result
 *   GET  /v1/results?after=SEQ&wait=S&limit=N
 *                             ended submissions with seq > SEQ, oldest
 *                             first, as NDJSON; waits up to S seconds (at
 *                             most 30) for the first when there is none
 *   GET  /v1/health           counts of the queue
 *
 * Every answer but a result stream is one JSON object; a fault is
 * {"error": what, "faults": [{"path", "line", "column", "message"}]}.
 * A request body above body_max_bytes is refused with 413 as soon as its
 * Content-Length (or the bytes received) says so, without reading on; a
 * full queue answers 503 with Retry-After, and stores nothing. With a
 * token, every request needs "Authorization: Bearer TOKEN", compared in
 * constant time (SHA-256 of both, CRYPTO_memcmp): 401 otherwise.
 *
 * libmicrohttpd runs a thread per connection (a long-poll blocks only its
 * own); each takes sv->db_lock for its statements.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve-internal.h"

#define MAX_WAIT_S 30
#define MAX_RESULTS 10000
#define DEFAULT_RESULTS 1000
#define DRAIN_FACTOR 16 /* bodies up to this many times the limit are drained, then 413 */

/* One request's state across libmicrohttpd's calls of the handler. */
typedef struct request {
	nodus_buf body;       /* the body received so far */
	int too_big;          /* 1: the body passed body_max_bytes; the rest is dropped */
} request;

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *ctype,
			     char *text, const char *retry_after)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text,
								 MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (retry_after)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry_after);
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Sends obj (taken) as JSON, with a final newline. */
static enum MHD_Result reply_json(struct MHD_Connection *conn, unsigned status, json_t *obj,
				  const char *retry_after)
{
	char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(obj);
	if (!text)
		return MHD_NO;
	size_t n = strlen(text);
	char *t = realloc(text, n + 2);
	if (!t) {
		free(text);
		return MHD_NO;
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	return reply(conn, status, "application/json", t, retry_after);
}

static enum MHD_Result reply_error(struct MHD_Connection *conn, unsigned status, const char *msg)
{
	return reply_json(conn, status, json_pack("{s:s}", "error", msg), NULL);
}

static enum MHD_Result reply_nodus_error(struct MHD_Connection *conn, const nodus_error *err)
{
	char line[2048];
	nodus_error_format(err, line, sizeof(line));
	return reply_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, line);
}

/* 1 when the request carries the token (or none is required). */
static int authorized(const nodus__serve *sv, struct MHD_Connection *conn)
{
	if (!sv->token_len)
		return 1;
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h || strncmp(h, "Bearer ", 7) != 0)
		return 0;
	/* equal-length digests, so neither the length nor a prefix of the
	 * token shows in the time the comparison takes */
	char got[NODUS_SHA256_HEX], want[NODUS_SHA256_HEX];
	nodus_sha256_hex(h + 7, strlen(h + 7), got);
	nodus_sha256_hex(sv->token, sv->token_len, want);
	return CRYPTO_memcmp(got, want, 64) == 0;
}

static json_t *faults_json(const nodus_diags *d)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < d->count; i++) {
		const nodus_error *e = &d->items[i];
		char line[2048];
		nodus_error_format(e, line, sizeof(line));
		json_array_append_new(arr, json_pack("{s:s, s:i, s:i, s:s, s:s}", "path",
						     e->json_path, "line", e->line, "column",
						     e->column, "message", e->message, "text", line));
	}
	return arr;
}

static enum MHD_Result post_submission(nodus__serve *sv, struct MHD_Connection *conn,
				       request *rq)
{
	nodus__serve_sub sub;
	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	int rc = nodus__serve_sub_parse(sv, rq->body.data, rq->body.len, &sub, &diags);
	enum MHD_Result ret;
	if (rc == NODUS_EPARSE || rc == NODUS_EINVAL) {
		const char *what = rc == NODUS_EPARSE ? "the body is not JSON"
						      : "the submission is not valid";
		ret = reply_json(conn, MHD_HTTP_BAD_REQUEST,
				 json_pack("{s:s, s:o}", "error", what, "faults", faults_json(&diags)),
				 NULL);
		goto out;
	}
	if (rc) {
		ret = diags.count ? reply_nodus_error(conn, &diags.items[0])
				  : reply_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, nodus_strerror(rc));
		goto out;
	}
	const char *hkey = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Idempotency-Key");
	if (hkey && sub.idem_key[0] && strcmp(hkey, sub.idem_key) != 0) {
		ret = reply_error(conn, MHD_HTTP_BAD_REQUEST, "the Idempotency-Key header and "
				  "$.idempotency_key differ: give one, or the same in both");
		goto out;
	}
	if (hkey && !sub.idem_key[0]) {
		if (!hkey[0] || strlen(hkey) >= sizeof(sub.idem_key)) {
			ret = reply_error(conn, MHD_HTTP_BAD_REQUEST, "Idempotency-Key: expected 1 to "
					  "255 bytes");
			goto out;
		}
		snprintf(sub.idem_key, sizeof(sub.idem_key), "%s", hkey);
	}
	char sha[NODUS_SHA256_HEX];
	nodus_sha256_hex(rq->body.data, rq->body.len, sha);
	int64_t id = 0;
	int outcome = 0;
	pthread_mutex_lock(&sv->db_lock);
	rc = nodus__sq_submit(sv->db, sub.idem_key, sha, sub.campaign, sub.workload, sub.reference,
			      sub.label, sub.solution_json, sub.upload_path[0] ? sub.upload_path : NULL,
			      sv->o.queue_max, &id, &outcome, &err);
	pthread_mutex_unlock(&sv->db_lock);
	if (rc) {
		ret = reply_nodus_error(conn, &err);
	} else if (outcome == NODUS__SQ_FULL) {
		ret = reply_json(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				 json_pack("{s:s, s:i}", "error", "the queue is full: retry after "
					   "the seconds Retry-After says", "queue_max", sv->o.queue_max),
				 "1");
	} else if (outcome == NODUS__SQ_CONFLICT) {
		ret = reply_json(conn, MHD_HTTP_CONFLICT,
				 json_pack("{s:s, s:I}", "error", "this idempotency key was used "
					   "for another body", "id", (json_int_t)id), NULL);
	} else {
		if (outcome == NODUS__SQ_NEW) {
			pthread_mutex_lock(&sv->lock);
			sv->queued_gen++;
			pthread_cond_broadcast(&sv->cv);
			pthread_mutex_unlock(&sv->lock);
		}
		ret = reply_json(conn, MHD_HTTP_ACCEPTED,
				 json_pack("{s:I, s:b}", "id", (json_int_t)id, "duplicate",
					   outcome == NODUS__SQ_EXISTING), NULL);
	}
out:
	nodus_diags_release(&diags);
	nodus__serve_sub_release(&sub);
	return ret;
}

/* Parses a decimal integer in [lo, hi]; 0 when s is a valid one. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = s ? strtoll(s, &end, 10) : 0;
	if (!s || !s[0] || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static enum MHD_Result get_submission(nodus__serve *sv, struct MHD_Connection *conn,
				      const char *idtext)
{
	int64_t id;
	if (parse_int(idtext, 1, INT64_MAX, &id))
		return reply_error(conn, MHD_HTTP_NOT_FOUND, "expected /v1/submissions/ID with a "
				   "positive integer ID");
	json_t *o = NULL;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	pthread_mutex_lock(&sv->db_lock);
	int rc = nodus__sq_get(sv->db, id, &o, &err);
	pthread_mutex_unlock(&sv->db_lock);
	if (rc)
		return reply_nodus_error(conn, &err);
	if (!o)
		return reply_error(conn, MHD_HTTP_NOT_FOUND, "no such submission");
	return reply_json(conn, MHD_HTTP_OK, o, NULL);
}

/* Waits until a submission with seq > after has ended, or wait_s pass. */
static void wait_done(nodus__serve *sv, int64_t after, int64_t wait_s)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += wait_s;
	pthread_mutex_lock(&sv->lock);
	while (!sv->stop && sv->done_seq <= after)
		if (pthread_cond_timedwait(&sv->cv, &sv->lock, &ts))
			break;
	pthread_mutex_unlock(&sv->lock);
}

static enum MHD_Result get_results(nodus__serve *sv, struct MHD_Connection *conn)
{
	int64_t after = 0, wait_s = 0, limit = DEFAULT_RESULTS;
	const char *a = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "after");
	const char *w = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "wait");
	const char *l = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limit");
	if ((a && parse_int(a, 0, INT64_MAX, &after)) || (w && parse_int(w, 0, MAX_WAIT_S, &wait_s)) ||
	    (l && parse_int(l, 1, MAX_RESULTS, &limit)))
		return reply_error(conn, MHD_HTTP_BAD_REQUEST, "expected after=SEQ (an integer >= 0), "
				   "wait=SECONDS (0 to 30), limit=N (1 to 10000)");
	if (wait_s > 0)
		wait_done(sv, after, wait_s);
	json_t *arr = json_array();
	nodus_error err;
	memset(&err, 0, sizeof(err));
	pthread_mutex_lock(&sv->db_lock);
	int rc = nodus__sq_results_after(sv->db, after, (int)limit, arr, &err);
	pthread_mutex_unlock(&sv->db_lock);
	if (rc) {
		json_decref(arr);
		return reply_nodus_error(conn, &err);
	}
	nodus_buf out = NODUS_BUF_INIT;
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o) {
		char *t = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		if (!t || nodus_buf_addf(&out, "%s\n", t)) {
			free(t);
			nodus_buf_release(&out);
			json_decref(arr);
			return MHD_NO;
		}
		free(t);
	}
	json_decref(arr);
	char *text = nodus_buf_detach(&out);
	return text ? reply(conn, MHD_HTTP_OK, "application/x-ndjson", text, NULL) : MHD_NO;
}

static enum MHD_Result get_health(nodus__serve *sv, struct MHD_Connection *conn)
{
	int64_t seq = 0;
	pthread_mutex_lock(&sv->lock);
	seq = sv->done_seq;
	pthread_mutex_unlock(&sv->lock);
	return reply_json(conn, MHD_HTTP_OK, json_pack("{s:b, s:I, s:i}", "ok", 1, "last_seq",
						       (json_int_t)seq, "queue_max", sv->o.queue_max),
			  NULL);
}

static enum MHD_Result route(nodus__serve *sv, struct MHD_Connection *conn, const char *url,
			     const char *method, request *rq)
{
	int get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
	int post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
	if (strcmp(url, "/v1/submissions") == 0) {
		if (!post)
			return reply_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "expected POST");
		if (rq->too_big)
			return reply_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is too large "
					   "(nodus serve --body-max)");
		return post_submission(sv, conn, rq);
	}
	if (!get)
		return reply_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "expected GET");
	if (strncmp(url, "/v1/submissions/", 16) == 0)
		return get_submission(sv, conn, url + 16);
	if (strcmp(url, "/v1/results") == 0)
		return get_results(sv, conn);
	if (strcmp(url, "/v1/health") == 0)
		return get_health(sv, conn);
	return reply_error(conn, MHD_HTTP_NOT_FOUND, "no such endpoint (expected /v1/submissions, "
			   "/v1/submissions/ID, /v1/results, /v1/health)");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	nodus__serve *sv = cls;
	request *rq = *con_cls;
	(void)version;
	if (!rq) {
		/* first call: headers only. Refuse what needs no body first */
		if (!authorized(sv, conn))
			return reply_error(conn, MHD_HTTP_UNAUTHORIZED, "expected the header "
					   "Authorization: Bearer TOKEN (nodus serve --token-file)");
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);
		int64_t n;
		/* a body somewhat too large is read and dropped, so that the
		 * client, still sending, gets the 413 instead of a broken pipe;
		 * one far too large is refused before it is sent */
		if (cl && !parse_int(cl, 0, INT64_MAX, &n) &&
		    (uint64_t)n > DRAIN_FACTOR * (uint64_t)sv->o.body_max_bytes)
			return reply_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is too large "
					   "(nodus serve --body-max)");
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		nodus_buf_init(&rq->body);
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!rq->too_big && rq->body.len + *upload_size <= sv->o.body_max_bytes) {
			if (nodus_buf_add(&rq->body, upload, *upload_size))
				return MHD_NO;
		} else {
			rq->too_big = 1;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	return route(sv, conn, url, method, rq);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	request *rq = *con_cls;
	(void)cls;
	(void)conn;
	(void)toe;
	if (rq) {
		nodus_buf_release(&rq->body);
		free(rq);
	}
	*con_cls = NULL;
}

int nodus__http_start(nodus__serve *sv, int fd, void **daemon_out, nodus_error *err)
{
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
		0, NULL, NULL, handle, sv, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_NOTIFY_COMPLETED, completed, sv,
		/* an idle or trickling client is dropped: it cannot hold a thread */
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
	if (!d)
		return NODUS_ERR(err, NODUS_EIO, "serve: libmicrohttpd did not start on the listening "
				 "socket");
	*daemon_out = d;
	return 0;
}

void nodus__http_stop(void *daemon)
{
	if (daemon)
		MHD_stop_daemon(daemon);
}
