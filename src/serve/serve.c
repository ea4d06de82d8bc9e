/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * serve.c: the life cycle of `nodus serve` (serve.h).
 *
 * Start, in order, so that nothing is accepted before it can be kept:
 *   1. options checked: a bind that is not loopback needs a token;
 *   2. the store opened (created, migrated to the schema with the serve
 *      tables) and closed again through the library, then a connection of
 *      our own for the HTTP threads; the files directory DB.serve;
 *   3. the base campaigns loaded and validated (nodus_campaign_load), and
 *      their judge audited as nodus plan audits it (audit.c);
 *   4. the listening socket bound (TCP, or a Unix socket, 0600);
 *   5. the batcher started: it first runs the sealed batches a killed
 *      server left, then batches the queue;
 *   6. libmicrohttpd on the socket; the ready line printed.
 * Then it runs until a signal ends the process: main's handlers kill the
 * running `nodus run` and its workers, and whatever was in flight is in
 * the store to be resumed by the next start. There is no state outside
 * the store to save.
 * ------------------------------------------------------------------------ */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "exec/exec.h"
#include "serve/serve-internal.h"
#include "store/store.h"

static void fill_defaults(nodus_serve_opts *o)
{
	if (o->queue_max <= 0)
		o->queue_max = 10000;
	if (o->batch_max <= 0)
		o->batch_max = 64;
	if (o->batch_wait_ms <= 0)
		o->batch_wait_ms = 200;
	if (o->body_max_bytes == 0)
		o->body_max_bytes = 1 << 20;
	if (o->run_attempts <= 0)
		o->run_attempts = 3;
	if (!o->listen)
		o->listen = "127.0.0.1:0";
}

/* The absolute path of a file that may not exist yet (its directory must). */
static int abs_path(const char *path, char *out, size_t size, nodus_error *err)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	if (!realpath(dir, real))
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: '%s': its directory %s: %s", path, dir,
				 strerror(errno));
	if ((size_t)snprintf(out, size, "%s/%s", strcmp(real, "/") ? real : "", base) >= size)
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: '%s': path too long", path);
	return 0;
}

static int mkdir_p1(const char *dir, nodus_error *err)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		return NODUS_ERR(err, NODUS_EIO, "serve: cannot create '%s': %s", dir,
				 strerror(errno));
	return 0;
}

static int prepare_files(nodus__serve *sv, nodus_error *err)
{
	char d[1300];
	int rc;
	snprintf(sv->files_dir, sizeof(sv->files_dir), "%s.serve", sv->db_abs);
	if ((rc = mkdir_p1(sv->files_dir, err)))
		return rc;
	/* scratch of a killed server: nothing in it was acknowledged */
	snprintf(d, sizeof(d), "%s/tmp", sv->files_dir);
	nodus_remove_tree(d);
	const char *subs[] = {"tmp", "cand", "batch", "upload"};
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(subs); i++) {
		snprintf(d, sizeof(d), "%s/%s", sv->files_dir, subs[i]);
		if ((rc = mkdir_p1(d, err)))
			return rc;
	}
	return 0;
}

static int load_bases(nodus__serve *sv, nodus_error *err)
{
	if (sv->o.n_campaigns < 1)
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: no --campaign given (the base campaign "
				 "submissions are judged against)");
	if (sv->o.n_campaigns > NODUS_SERVE_MAX_BASES)
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: at most %d --campaign", NODUS_SERVE_MAX_BASES);
	for (int i = 0; i < sv->o.n_campaigns; i++) {
		nodus__serve_base *b = &sv->bases[i];
		nodus_diags diags = NODUS_DIAGS_INIT;
		if (!realpath(sv->o.campaigns[i], b->path))
			return NODUS_ERR(err, NODUS_EUSAGE, "serve: --campaign '%s': %s",
					 sv->o.campaigns[i], strerror(errno));
		int rc = nodus_campaign_load(b->path, &b->c, &diags);
		if (rc) {
			if (diags.count)
				*err = diags.items[0];
			else
				NODUS_ERR(err, rc, "serve: --campaign '%s' does not load", b->path);
			nodus_diags_release(&diags);
			return rc;
		}
		nodus_diags_release(&diags);
		sv->n_bases = i + 1;
		/* the judge audit nodus plan runs: once here, since a batch
		 * changes none of the base's tasks, workloads or references */
		char why[8192];
		rc = nodus__serve_audit(sv, b->c, why, sizeof(why), err);
		if (rc == 1) {
			fprintf(stderr, "%s\n", why);
			return NODUS_ERR(err, NODUS_EUSAGE, "serve: --campaign '%s': the judge audit "
					 "failed (above); nothing is served", b->path);
		}
		if (rc)
			return rc;
		for (int k = 0; k < i; k++)
			if (strcmp(sv->bases[k].c->name, b->c->name) == 0)
				return NODUS_ERR(err, NODUS_EUSAGE, "serve: two --campaign are named "
						 "\"%s\" (%s, %s): submissions name a campaign by name",
						 b->c->name, sv->bases[k].path, b->path);
	}
	return 0;
}

static int read_token(nodus__serve *sv, nodus_error *err)
{
	if (!sv->o.token_file)
		return 0;
	nodus_buf b = NODUS_BUF_INIT;
	if (nodus_buf_read_file(&b, sv->o.token_file))
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: --token-file '%s': %s", sv->o.token_file,
				 strerror(errno));
	while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r' ||
			 b.data[b.len - 1] == ' '))
		b.data[--b.len] = '\0';
	int rc = 0;
	if (b.len < 16 || b.len >= sizeof(sv->token) || strlen(b.data) != b.len)
		rc = NODUS_ERR(err, NODUS_EUSAGE, "serve: --token-file '%s': expected one line of "
			       "16 to 255 bytes (say, openssl rand -hex 32)", sv->o.token_file);
	else
		memcpy(sv->token, b.data, b.len + 1), sv->token_len = b.len;
	nodus_buf_release(&b);
	return rc;
}

/* Splits HOST:PORT ([V6]:PORT too). */
static int split_hostport(const char *s, char *host, size_t size, char *port, size_t psize)
{
	const char *colon = strrchr(s, ':');
	if (!colon || !colon[1] || strlen(colon + 1) >= psize)
		return -1;
	const char *h = s;
	size_t n = (size_t)(colon - s);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		h = s + 1, n -= 2;
	if (n == 0 || n >= size)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, psize, "%s", colon + 1);
	for (const char *p = port; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	return 0;
}

static int is_loopback(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	if (a->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return 0;
}

static int listen_tcp(nodus__serve *sv, int *fd_out, char *url, size_t size, nodus_error *err)
{
	char host[256], port[16];
	if (split_hostport(sv->o.listen, host, sizeof(host), port, sizeof(port)))
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: --listen: expected HOST:PORT (port 0: "
				 "any free one), got '%s'", sv->o.listen);
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	int g = getaddrinfo(host, port, &hints, &res);
	if (g)
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: --listen '%s': %s", sv->o.listen,
				 gai_strerror(g));
	int rc = 0, fd = -1;
	if (!is_loopback(res->ai_addr) && !sv->token_len) {
		rc = NODUS_ERR(err, NODUS_EUSAGE, "serve: --listen '%s' is not a loopback address: "
			       "give --token-file (clients then send Authorization: Bearer TOKEN)",
			       sv->o.listen);
		goto out;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 256)) {
		rc = NODUS_ERR(err, NODUS_EIO, "serve: cannot listen on '%s': %s", sv->o.listen,
			       strerror(errno));
		goto out;
	}
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char num[INET6_ADDRSTRLEN] = "";
	getsockname(fd, (struct sockaddr *)&ss, &len);
	int is6 = ss.ss_family == AF_INET6;
	inet_ntop(ss.ss_family, is6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
				    : (void *)&((struct sockaddr_in *)&ss)->sin_addr, num, sizeof(num));
	snprintf(url, size, "http://%s%s%s:%u", is6 ? "[" : "", num, is6 ? "]" : "",
		 ntohs(is6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
			   : ((struct sockaddr_in *)&ss)->sin_port));
	*fd_out = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	return rc;
}

static int listen_unix(nodus__serve *sv, int *fd_out, char *url, size_t size, nodus_error *err)
{
	struct sockaddr_un a;
	struct stat st;
	const char *p = sv->o.socket_path;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(p) >= sizeof(a.sun_path))
		return NODUS_ERR(err, NODUS_EUSAGE, "serve: --socket '%s': longer than %zu bytes", p,
				 sizeof(a.sun_path) - 1);
	memcpy(a.sun_path, p, strlen(p) + 1);
	/* a killed server's socket file: only a socket is removed, never a file */
	if (lstat(p, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(p);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || chmod(p, 0600) ||
	    listen(fd, 256)) {
		int rc = NODUS_ERR(err, NODUS_EIO, "serve: cannot listen on '%s': %s", p,
				   strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	snprintf(url, size, "unix:%s", p);
	*fd_out = fd;
	return 0;
}

static int open_store(nodus__serve *sv, nodus_error *err)
{
	nodus_store *s = NULL;
	int rc = abs_path(sv->o.db_path, sv->db_abs, sizeof(sv->db_abs), err);
	if (rc)
		return rc;
	/* creates and migrates: the serve tables come with migration 4 */
	if ((rc = nodus_store_open(sv->db_abs, &s, err)))
		return rc;
	nodus_store_close(s);
	if ((rc = nodus__sq_open(sv->db_abs, &sv->db, err)))
		return rc;
	return nodus__sq_last_seq(sv->db, &sv->done_seq, err);
}

int nodus_serve(const nodus_serve_opts *opts, nodus_error *err)
{
	nodus__serve *sv = calloc(1, sizeof(*sv));
	if (!sv)
		return NODUS_ERR(err, NODUS_ENOMEM, "serve: out of memory");
	sv->o = *opts;
	fill_defaults(&sv->o);
	pthread_mutex_init(&sv->db_lock, NULL);
	pthread_mutex_init(&sv->lock, NULL);
	pthread_cond_init(&sv->cv, NULL);
	char url[300];
	int fd = -1, rc;
	void *daemon = NULL;
	pthread_t batcher;
	if (!sv->o.db_path) {
		rc = NODUS_ERR(err, NODUS_EUSAGE, "serve: no --db given");
		goto out;
	}
	if ((rc = read_token(sv, err)) || (rc = open_store(sv, err)) ||
	    (rc = prepare_files(sv, err)) || (rc = load_bases(sv, err)))
		goto out;
	rc = sv->o.socket_path ? listen_unix(sv, &fd, url, sizeof(url), err)
			       : listen_tcp(sv, &fd, url, sizeof(url), err);
	if (rc)
		goto out;
	if (pthread_create(&batcher, NULL, nodus__serve_batcher, sv)) {
		rc = NODUS_ERR(err, NODUS_EINTERNAL, "serve: cannot start the batcher thread");
		goto out;
	}
	if ((rc = nodus__http_start(sv, fd, &daemon, err))) {
		pthread_mutex_lock(&sv->lock);
		sv->stop = 1;
		pthread_cond_broadcast(&sv->cv);
		pthread_mutex_unlock(&sv->lock);
		pthread_join(batcher, NULL);
		goto out;
	}
	fd = -1; /* libmicrohttpd's now */
	if (sv->o.log) {
		pthread_mutex_lock(&sv->lock);
		fprintf(sv->o.log, "nodus serve: listening on %s\n", url);
		fflush(sv->o.log);
		pthread_mutex_unlock(&sv->lock);
	}
	/* the batcher runs until the process ends: a signal (main's handler
	 * kills the children and ends it) */
	pthread_join(batcher, NULL);
	nodus__http_stop(daemon);
	rc = NODUS_ERR(err, NODUS_EINTERNAL, "serve: the batcher ended (its reason is the line "
		       "above); acknowledged submissions stay in the store for the next start");
out:
	if (fd >= 0)
		close(fd);
	sqlite3_close(sv->db);
	for (int i = 0; i < sv->n_bases; i++)
		nodus_campaign_free(sv->bases[i].c);
	pthread_cond_destroy(&sv->cv);
	pthread_mutex_destroy(&sv->lock);
	pthread_mutex_destroy(&sv->db_lock);
	free(sv);
	return rc;
}
