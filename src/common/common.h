/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * common.h: helpers shared by every module of the library (not public).
 *
 * nodus_buf is the one growable string buffer (git's strbuf): after
 * nodus_buf_init() data is never NULL and always NUL-terminated. On
 * allocation failure the buffer keeps its old content and the call returns
 * NODUS_ENOMEM.
 *
 * nodus__error_set() fills a nodus_error; the NODUS_ERR() macro adds the C
 * file and line. The library reports through nodus_error and never prints.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_COMMON_H
#define NODUS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "nodus/nodus.h"

#define NODUS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NODUS_BUG(msg) nodus__bug(__FILE__, __LINE__, (msg))
_Noreturn void nodus__bug(const char *file, int line, const char *msg);

/* ---- growable buffer ---- */
typedef struct nodus_buf {
	char *data;    /* never NULL after init; NUL-terminated */
	size_t len;    /* bytes used, not counting the NUL */
	size_t alloc;  /* bytes allocated; 0 while data points at a static "" */
} nodus_buf;

#define NODUS_BUF_INIT {nodus__buf_empty, 0, 0}
extern char nodus__buf_empty[1];

void nodus_buf_init(nodus_buf *b);
void nodus_buf_release(nodus_buf *b);
int nodus_buf_add(nodus_buf *b, const void *data, size_t len);
/* Makes room for extra more bytes without changing len. */
int nodus_buf_reserve(nodus_buf *b, size_t extra);
int nodus_buf_adds(nodus_buf *b, const char *s);
int nodus_buf_addf(nodus_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int nodus_buf_vaddf(nodus_buf *b, const char *fmt, va_list ap);
void nodus_buf_reset(nodus_buf *b);
/* Returns the heap string (caller frees with free()) and re-inits b. */
char *nodus_buf_detach(nodus_buf *b);
/* Reads a whole file into b (appending). Returns 0, NODUS_EIO or NODUS_ENOMEM. */
int nodus_buf_read_file(nodus_buf *b, const char *path);

/* ---- errors ---- */
int nodus__error_set(nodus_error *err, const char *src_file, int src_line, int code,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Sets a located error: FILE:LINE:COLUMN: PATH: message. */
int nodus__error_at(nodus_error *err, const char *src_file, int src_line, int code,
		    const char *file, int line, int column, const char *json_path,
		    const char *fmt, ...) __attribute__((format(printf, 9, 10)));

/* NODUS_ERR(err, NODUS_EIO, "cannot open '%s'", path) returns the code. */
#define NODUS_ERR(err, code, ...) nodus__error_set((err), __FILE__, __LINE__, (code), __VA_ARGS__)
#define NODUS_ERR_AT(err, code, file, line, col, path, ...)                                  \
	nodus__error_at((err), __FILE__, __LINE__, (code), (file), (line), (col), (path),     \
			__VA_ARGS__)

/* A list of errors, for validators that report every fault of a file. */
typedef struct nodus_diags {
	nodus_error *items; /* count entries, heap */
	size_t count;       /* errors collected */
	size_t alloc;       /* capacity of items */
} nodus_diags;

#define NODUS_DIAGS_INIT {NULL, 0, 0}
void nodus_diags_release(nodus_diags *d);
/* Appends a copy of e; silently keeps the count when memory runs out. */
void nodus_diags_push(nodus_diags *d, const nodus_error *e);

/* ---- hashing (OpenSSL SHA-256) ---- */
#define NODUS_SHA256_HEX 65 /* 64 hex digits and a NUL */
void nodus_sha256_hex(const void *data, size_t len, char out[NODUS_SHA256_HEX]);
/* Hashes a file's bytes; returns 0 or NODUS_EIO (err filled). */
int nodus_sha256_file(const char *path, char out[NODUS_SHA256_HEX], nodus_error *err);

/* ---- files ---- */
/* 1 if paths a and b both exist and are one file (same device and inode),
 * whatever their names: links, "./", symlinks. 0 otherwise. */
int nodus_same_file(const char *a, const char *b);

/* ---- time ---- */
uint64_t nodus_now_ns(void);           /* CLOCK_MONOTONIC in ns */
double nodus_wall_time_s(void);        /* CLOCK_REALTIME in seconds */

#endif
