/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * common.c: error names and messages, the growable buffer, located errors,
 * SHA-256 and clocks. See common.h for the contracts.
 * ------------------------------------------------------------------------ */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/evp.h>

char nodus__buf_empty[1];

_Noreturn void nodus__bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

const char *nodus_err_name(int code)
{
	switch (code) {
	case NODUS_OK:
		return "NODUS_OK";
#define X(name, msg)           \
	case NODUS_E##name:    \
		return "NODUS_E" #name;
		NODUS_ERRNO_MAP(X)
#undef X
	}
	return "NODUS_E?";
}

const char *nodus_strerror(int code)
{
	switch (code) {
	case NODUS_OK:
		return "success";
#define X(name, msg)        \
	case NODUS_E##name: \
		return msg;
		NODUS_ERRNO_MAP(X)
#undef X
	}
	return "unknown error";
}

static const char *const status_names[] = {
#define X(name, msg) #name,
	NODUS_STATUS_MAP(X)
#undef X
};

const char *nodus_status_name(int status)
{
	if (status < 0 || status >= NODUS_STATUS_COUNT_)
		return "?";
	return status_names[status];
}

int nodus_status_from_name(const char *name)
{
	for (int i = 0; i < NODUS_STATUS_COUNT_; i++)
		if (strcmp(status_names[i], name) == 0)
			return i;
	return -1;
}

static const char *const label_names[] = {
#define X(name, msg) #name,
	NODUS_LABEL_MAP(X)
#undef X
};

const char *nodus_label_name(int label)
{
	if (label < 0 || label >= NODUS_LABEL_COUNT_)
		return "NONE";
	return label_names[label];
}

int nodus_label_from_name(const char *name)
{
	for (int i = 0; i < NODUS_LABEL_COUNT_; i++)
		if (strcmp(label_names[i], name) == 0)
			return i;
	return -1;
}

static const char *const verdict_names[] = {
	"NONE",
#define X(name, msg) #name,
	NODUS_VERDICT_MAP(X)
#undef X
};

const char *nodus_verdict_name(int verdict)
{
	if (verdict <= NODUS_VERDICT_NONE || verdict >= NODUS_VERDICT_COUNT_)
		return "NONE";
	return verdict_names[verdict];
}

int nodus_verdict_from_name(const char *name)
{
	for (int i = NODUS_VERDICT_NONE + 1; i < NODUS_VERDICT_COUNT_; i++)
		if (strcmp(verdict_names[i], name) == 0)
			return i;
	return NODUS_VERDICT_NONE;
}

/* ---- buffer ---- */

void nodus_buf_init(nodus_buf *b)
{
	b->data = nodus__buf_empty;
	b->len = 0;
	b->alloc = 0;
}

void nodus_buf_release(nodus_buf *b)
{
	if (b->alloc)
		free(b->data);
	nodus_buf_init(b);
}

void nodus_buf_reset(nodus_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->data[0] = '\0';
}

static int buf_grow(nodus_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		return NODUS_ENOMEM;
	size_t need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	size_t n = b->alloc ? b->alloc : 64;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	char *p = b->alloc ? realloc(b->data, n) : malloc(n);
	if (!p)
		return NODUS_ENOMEM;
	if (!b->alloc)
		p[0] = '\0';
	b->data = p;
	b->alloc = n;
	return 0;
}

int nodus_buf_reserve(nodus_buf *b, size_t extra)
{
	return buf_grow(b, extra);
}

int nodus_buf_add(nodus_buf *b, const void *data, size_t len)
{
	if (buf_grow(b, len))
		return NODUS_ENOMEM;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int nodus_buf_adds(nodus_buf *b, const char *s)
{
	return nodus_buf_add(b, s, strlen(s));
}

int nodus_buf_vaddf(nodus_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return NODUS_EINVAL;
	if (buf_grow(b, (size_t)n))
		return NODUS_ENOMEM;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int nodus_buf_addf(nodus_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = nodus_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *nodus_buf_detach(nodus_buf *b)
{
	char *s = b->alloc ? b->data : strdup("");
	nodus_buf_init(b);
	return s;
}

int nodus_buf_read_file(nodus_buf *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NODUS_EIO;
	char chunk[65536];
	size_t n;
	int rc = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (nodus_buf_add(b, chunk, n)) {
			rc = NODUS_ENOMEM;
			break;
		}
	}
	if (!rc && ferror(f))
		rc = NODUS_EIO;
	fclose(f);
	return rc;
}

/* ---- errors ---- */

static void copy_str(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "";
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int nodus__error_at(nodus_error *err, const char *src_file, int src_line, int code,
		    const char *file, int line, int column, const char *json_path,
		    const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	err->src_file = src_file;
	err->src_line = src_line;
	copy_str(err->file, sizeof(err->file), file);
	err->line = line;
	err->column = column;
	copy_str(err->json_path, sizeof(err->json_path), json_path);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

int nodus__error_set(nodus_error *err, const char *src_file, int src_line, int code,
		     const char *fmt, ...)
{
	if (!err)
		return code;
	memset(err, 0, sizeof(*err));
	err->code = code;
	err->src_file = src_file;
	err->src_line = src_line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

void nodus_error_format(const nodus_error *err, char *out, size_t out_size)
{
	nodus_buf b = NODUS_BUF_INIT;
	if (err->file[0]) {
		nodus_buf_adds(&b, err->file);
		if (err->line > 0) {
			nodus_buf_addf(&b, ":%d", err->line);
			if (err->column > 0)
				nodus_buf_addf(&b, ":%d", err->column);
		}
		nodus_buf_adds(&b, ": ");
	}
	if (err->json_path[0])
		nodus_buf_addf(&b, "%s: ", err->json_path);
	nodus_buf_adds(&b, err->message[0] ? err->message : nodus_strerror(err->code));
	copy_str(out, out_size, b.data);
	nodus_buf_release(&b);
}

void nodus_diags_release(nodus_diags *d)
{
	free(d->items);
	d->items = NULL;
	d->count = d->alloc = 0;
}

void nodus_diags_push(nodus_diags *d, const nodus_error *e)
{
	if (d->count == d->alloc) {
		size_t n = d->alloc ? d->alloc * 2 : 8;
		nodus_error *p = realloc(d->items, n * sizeof(*p));
		if (!p)
			return;
		d->items = p;
		d->alloc = n;
	}
	d->items[d->count++] = *e;
}

/* ---- hashing ---- */

static void hex_encode(const unsigned char *md, unsigned len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < len; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[2 * len] = '\0';
}

void nodus_sha256_hex(const void *data, size_t len, char out[NODUS_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned md_len = 0;
	if (!EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL))
		NODUS_BUG("EVP_Digest(sha256) failed");
	hex_encode(md, md_len, out);
}

int nodus_sha256_file(const char *path, char out[NODUS_SHA256_HEX], nodus_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NODUS_ERR(err, NODUS_EIO, "cannot open '%s': %s", path, strerror(errno));
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx) {
		fclose(f);
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory hashing '%s'", path);
	}
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	unsigned char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		EVP_DigestUpdate(ctx, chunk, n);
	int rc = 0;
	if (ferror(f))
		rc = NODUS_ERR(err, NODUS_EIO, "cannot read '%s'", path);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned md_len = 0;
	EVP_DigestFinal_ex(ctx, md, &md_len);
	EVP_MD_CTX_free(ctx);
	fclose(f);
	if (!rc)
		hex_encode(md, md_len, out);
	return rc;
}

uint64_t nodus_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int nodus_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

double nodus_wall_time_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
