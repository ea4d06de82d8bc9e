/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * serve.h: `nodus serve`, a long-running evaluation service (docs/serve.md).
 *
 * Clients POST candidates (a solution with its sources inline, judged
 * against a workload and reference of a base campaign the server was
 * started with); each is committed to the store (serve_submissions,
 * migration 4) before it is acknowledged. A batcher thread seals queued
 * submissions into plans in batches (nodus_plan_seal) and runs each plan
 * with the nodus binary itself as a child (`nodus run PLAN --resume`: one
 * timing protocol, the ordinary one), while HTTP keeps accepting. Results
 * are read back from the records that run wrote.
 *
 * Files of the service (serve-internal.h): queue.c the two tables,
 * submission.c parsing and validating a submission, batch.c sealing and
 * running batches, http.c the HTTP layer (libmicrohttpd), serve.c the life
 * cycle (below).
 *
 * Restart-safe: every state change is a transaction; on start, sealed
 * batches that are not done are run again (--resume does not redo a
 * pair-condition with a final record) before queued submissions are
 * batched. The run lock of a killed server's child is a flock the kernel
 * dropped when it died (runlock.c); the child dies with the batcher
 * (PR_SET_PDEATHSIG).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SERVE_H
#define NODUS_SERVE_H

#include <stddef.h>
#include <stdio.h>

#include "common/common.h"

/* Zero means default for every member. */
typedef struct nodus_serve_opts {
	const char *db_path;          /* the store (created if missing); required */
	const char *self_path;        /* the nodus binary, run as `nodus run` for each batch */
	const char *listen;           /* HOST:PORT to bind (port 0: the kernel picks one);
				       * NULL = 127.0.0.1:0 */
	const char *socket_path;      /* a Unix socket to listen on instead of TCP, or NULL */
	const char *token_file;       /* file holding the bearer token; NULL = no token, refused
				       * for a bind that is not loopback */
	const char *cache_dir;        /* compiled solutions; NULL = nodus run's default */
	const char *const *campaigns; /* base campaign files, n_campaigns of them (>= 1) */
	int n_campaigns;
	int queue_max;                /* submissions not yet ended, at most (then 503); 0 = 10000 */
	int batch_max;                /* submissions per batch at most; 0 = 64 */
	int batch_wait_ms;            /* a batch waits this long for more after its first; 0 = 200 */
	size_t body_max_bytes;        /* a request body above this is refused (413); 0 = 1 MiB */
	int run_attempts;             /* runs of a batch's plan before its submissions fail; 0 = 3 */
	FILE *log;                    /* the ready line, one line per batch; NULL = none */
} nodus_serve_opts;

/* Runs the service until SIGINT or SIGTERM (then returns 0) or a failure
 * to start: a bad option, a store that does not open, a base campaign that
 * does not load, an address that does not bind (err says which, and what
 * to do). Prints "nodus serve: listening on URL" to opts->log once it
 * accepts connections. */
int nodus_serve(const nodus_serve_opts *opts, nodus_error *err);

#endif
