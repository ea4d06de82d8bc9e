/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * spec.c: reading and parsing spec files, the checks shared by every kind
 * ("kind", "format", relative paths), `nodus check`'s entry point, the
 * canonical JSON form and the dtype table.
 *
 * Files are opened non-blocking and must be regular files of bounded size,
 * so a campaign naming /dev/zero or a FIFO is a fault, not a hang. jansson
 * parses with duplicate keys and NUL characters rejected; its syntax faults
 * are re-located to the start of the offending token (jansson points at its
 * end) and reworded as "expected ..., got ...".
 * ------------------------------------------------------------------------ */
#include "spec-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

/* ---- dtypes ---- */

static const struct {
	const char *name; /* as written in task files */
	size_t size;      /* bytes per element */
} dtypes[] = {
	[NODUS_DTYPE_FLOAT32] = {"float32", 4}, [NODUS_DTYPE_FLOAT64] = {"float64", 8},
	[NODUS_DTYPE_FLOAT16] = {"float16", 2}, [NODUS_DTYPE_BFLOAT16] = {"bfloat16", 2},
	[NODUS_DTYPE_INT32] = {"int32", 4},     [NODUS_DTYPE_INT64] = {"int64", 8},
	[NODUS_DTYPE_UINT8] = {"uint8", 1},
};

size_t nodus_dtype_size(int dtype)
{
	if (dtype <= 0 || (size_t)dtype >= NODUS_ARRAY_SIZE(dtypes))
		return 0;
	return dtypes[dtype].size;
}

const char *nodus_dtype_name(int dtype)
{
	if (dtype <= 0 || (size_t)dtype >= NODUS_ARRAY_SIZE(dtypes))
		return "?";
	return dtypes[dtype].name;
}

int nodus_dtype_from_name(const char *name)
{
	for (size_t k = 1; k < NODUS_ARRAY_SIZE(dtypes); k++)
		if (strcmp(dtypes[k].name, name) == 0)
			return (int)k;
	return -1;
}

char *nodus_json_canonical(const json_t *obj)
{
	return json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

/* ---- paths ---- */

int nodus__path_join(char *out, size_t size, const char *dir, const char *rel)
{
	int n;
	if (rel[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
		n = snprintf(out, size, "%s", rel);
	else
		n = snprintf(out, size, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
	return n < 0 || (size_t)n >= size ? NODUS_EINVAL : 0;
}

void nodus__path_dir(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		snprintf(out, size, ".");
		return;
	}
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= size)
		n = size - 1;
	memcpy(out, path, n);
	out[n] = '\0';
}

int nodus__v_relpath(nodus__vctx *v, const json_t *j, int allow_dotdot, char *out, size_t size)
{
	char got[96];
	nodus__v_describe(j, got, sizeof(got));
	if (!json_is_string(j) || json_string_length(j) == 0) {
		nodus__v_err(v, 0, "expected a relative path, got %s", got);
		return -1;
	}
	const char *s = json_string_value(j);
	if (json_string_length(j) >= size) {
		nodus__v_err(v, 0, "expected a path of at most %zu bytes, got %zu bytes", size - 1,
			     json_string_length(j));
		return -1;
	}
	if (s[0] == '/') {
		nodus__v_err(v, 0, "expected a relative path, got absolute path %s", got);
		return -1;
	}
	for (const char *p = s; !allow_dotdot && *p;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			nodus__v_err(v, 0, "expected a path without \"..\" components, got %s",
				     got);
			return -1;
		}
		p += n + (end ? 1 : 0);
	}
	memcpy(out, s, json_string_length(j) + 1);
	return 1;
}

/* ---- reading and parsing ---- */

static int read_fail(nodus__vctx *v, nodus_diags *diags, const char *path, int code,
		     const char *why)
{
	if (v) {
		nodus__v_err(v, 0, "expected a readable regular file, got \"%s\": %s", path, why);
	} else {
		nodus_error e;
		NODUS_ERR_AT(&e, code, path, 0, 0, "", "expected a readable regular file, got %s",
			     why);
		nodus_diags_push(diags, &e);
	}
	return code;
}

/* Opens path for reading when it is a regular file of at most max bytes
 * (non-blocking, so a FIFO is refused rather than waited on); else reports
 * as read_fail does. The one check `check`, `plan`, `verify` and `run`
 * share, so every command refuses the same files with the same words. */
static int open_regular(const char *path, size_t max, nodus__vctx *v, nodus_diags *diags,
			int *fd_out)
{
	*fd_out = -1;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return read_fail(v, diags, path, errno == ENOENT ? NODUS_ENOTFOUND : NODUS_EIO,
				 strerror(errno));
	int rc = 0;
	struct stat st;
	char why[96];
	if (fstat(fd, &st) != 0) {
		rc = read_fail(v, diags, path, NODUS_EIO, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = read_fail(v, diags, path, NODUS_EINVAL,
			       S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
	} else if ((uint64_t)st.st_size > max) {
		snprintf(why, sizeof(why), "%lld bytes, more than the limit of %zu",
			 (long long)st.st_size, max);
		rc = read_fail(v, diags, path, NODUS_EINVAL, why);
	}
	if (rc)
		close(fd);
	else
		*fd_out = fd;
	return rc;
}

/* Reads at most max bytes of fd, handing each chunk to take(ctx); a file
 * that grows past max while being read is refused. */
static int read_bounded(int fd, const char *path, size_t max, nodus__vctx *v, nodus_diags *diags,
			int (*take)(void *ctx, const char *p, size_t n), void *ctx)
{
	char chunk[65536];
	size_t total = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return read_fail(v, diags, path, NODUS_EIO, strerror(errno));
		if (n == 0)
			return 0;
		total += (size_t)n;
		if (total > max)
			return read_fail(v, diags, path, NODUS_EINVAL, "it grew while being read");
		if (take(ctx, chunk, (size_t)n))
			return read_fail(v, diags, path, NODUS_ENOMEM, "out of memory");
	}
}

static int take_into_buf(void *ctx, const char *p, size_t n)
{
	return nodus_buf_add(ctx, p, n);
}

static int take_into_digest(void *ctx, const char *p, size_t n)
{
	return EVP_DigestUpdate(ctx, p, n) ? 0 : NODUS_ENOMEM;
}

int nodus__spec_read(const char *path, size_t max, nodus_buf *out, nodus__vctx *v,
		     nodus_diags *diags)
{
	int fd;
	nodus_buf_reset(out);
	int rc = open_regular(path, max, v, diags, &fd);
	if (rc)
		return rc;
	rc = read_bounded(fd, path, max, v, diags, take_into_buf, out);
	close(fd);
	return rc;
}

int nodus__spec_hash_file(const char *path, size_t max, char sha[NODUS_SHA256_HEX],
			  nodus_diags *diags)
{
	int fd;
	int rc = open_regular(path, max, NULL, diags, &fd);
	if (rc)
		return rc;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		rc = read_fail(NULL, diags, path, NODUS_ENOMEM, "out of memory");
	else
		rc = read_bounded(fd, path, max, NULL, diags, take_into_digest, ctx);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	if (!rc && EVP_DigestFinal_ex(ctx, md, &len))
		for (unsigned k = 0; k < len; k++)
			snprintf(sha + 2 * k, 3, "%02x", md[k]);
	EVP_MD_CTX_free(ctx);
	close(fd);
	return rc;
}

int nodus__path_inside(const char *dir, const char *path, char *resolved, size_t size)
{
	char real_dir[PATH_MAX], real[PATH_MAX];
	resolved[0] = '\0';
	if (!realpath(path, real))
		return 0; /* a missing file is reported by the read that follows */
	snprintf(resolved, size, "%s", real);
	if (!realpath(dir[0] ? dir : ".", real_dir))
		return -1;
	size_t n = strlen(real_dir);
	if (n == 1) /* the directory is "/" */
		return 0;
	return strncmp(real, real_dir, n) == 0 && real[n] == '/' ? 0 : -1;
}

/* Offset of the first byte that does not start or continue a valid UTF-8
 * sequence (overlong forms, surrogates and code points past U+10FFFF
 * included); fallback when there is none. */
static size_t first_bad_utf8(const char *text, size_t len, size_t fallback)
{
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		unsigned c = s[i];
		size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (n == 0 || (n == 2 && c < 0xC2) || i + n > len)
			return i;
		unsigned cp = n == 1 ? c : c & (0x7Fu >> n);
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return i + k;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
		    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
			return i;
		i += n;
	}
	return fallback;
}

/* Where a jansson syntax fault starts: jansson's offset is just past the
 * token it quotes, so back up over the quoted token when it matches. */
static size_t fault_offset(const char *text, size_t len, const json_error_t *e)
{
	size_t pos = e->position > 0 ? (size_t)e->position : 0;
	if (pos > len)
		pos = len;
	if (strncmp(e->text, "unable to decode byte", 21) == 0)
		return first_bad_utf8(text, len, pos);
	const char *near = strstr(e->text, "near '");
	const char *end = near ? strrchr(e->text, '\'') : NULL;
	if (near && end > near + 5) {
		size_t n = (size_t)(end - (near + 6));
		if (n <= pos && memcmp(text + pos - n, near + 6, n) == 0)
			return pos - n;
	}
	size_t start = pos;
	while (start > 0 && strchr("0123456789.eE+-", text[start - 1]) && text[start - 1])
		start--;
	if (start < pos)
		return start;
	return pos > 0 && pos < len ? pos - 1 : pos;
}

/* One level of the scan in path_at(). */
struct path_level {
	int array;            /* 1: an array, 0: an object */
	long index;           /* array: index of the current element */
	char key[64];         /* object: the current member's name ("" before one) */
};

/* The JSON path ("$.axes.n", "$.inputs[2].init.std") of the value that
 * the byte at offset belongs to, from a scan of text up to it; a syntax
 * fault leaves no tree to ask, but the text before it is well formed.
 * Deeper than 32 levels, the path stops at the 32nd. */
static void path_at(const char *text, size_t offset, char *out, size_t size)
{
	struct path_level st[32];
	int depth = 0, in_key = 0;
	size_t klen = 0;
	for (size_t k = 0; k < offset && text[k]; k++) {
		char ch = text[k];
		if (ch == '"') { /* a string: a key when the object awaits one */
			int key = depth > 0 && depth <= 32 && !st[depth - 1].array && in_key;
			klen = 0;
			for (k++; k < offset && text[k] && text[k] != '"'; k++) {
				if (text[k] == '\\' && k + 1 < offset)
					k++;
				if (key && klen + 1 < sizeof(st[0].key))
					st[depth - 1].key[klen++] = text[k];
			}
			if (key) {
				st[depth - 1].key[klen] = '\0';
				in_key = 0;
			}
		} else if (ch == '{' || ch == '[') {
			if (depth < 32) {
				st[depth].array = ch == '[';
				st[depth].index = 0;
				st[depth].key[0] = '\0';
			}
			depth++;
			in_key = ch == '{';
		} else if (ch == '}' || ch == ']') {
			depth -= depth > 0;
			in_key = 0;
		} else if (ch == ',' && depth > 0 && depth <= 32) {
			if (st[depth - 1].array)
				st[depth - 1].index++;
			else
				in_key = 1;
		}
	}
	size_t n = (size_t)snprintf(out, size, "$");
	for (int d = 0; d < depth && d < 32 && n < size; d++) {
		if (st[d].array)
			n += (size_t)snprintf(out + n, size - n, "[%ld]", st[d].index);
		else if (st[d].key[0])
			n += (size_t)snprintf(out + n, size - n, ".%s", st[d].key);
	}
}

static int only_space(const char *text, size_t len)
{
	for (size_t k = 0; k < len; k++)
		if (!strchr(" \t\r\n", text[k]) || !text[k])
			return 0;
	return 1;
}

int nodus__spec_parse(const char *file, const char *text, size_t len, json_t **out,
		      nodus_diags *diags)
{
	nodus_error e;
	*out = NULL;
	if (only_space(text, len)) {
		NODUS_ERR_AT(&e, NODUS_EPARSE, file, 1, 1, "$", "expected a JSON object, got %s",
			     len ? "only white space" : "an empty file");
		nodus_diags_push(diags, &e);
		return NODUS_EPARSE;
	}
	json_error_t je;
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (j) {
		*out = j;
		return 0;
	}
	int line, column;
	char path[256] = "$";
	size_t at = fault_offset(text, len, &je);
	nodus__text_line_col(text, len, at, &line, &column);
	const char *what = "valid JSON";
	if (strncmp(je.text, "unable to decode byte", 21) == 0)
		what = "UTF-8 text";
	else if (strstr(je.text, "duplicate object key"))
		what = "unique keys in every object";
	else if (strstr(je.text, "too big integer"))
		what = "an integer from -2^63 to 2^63-1 (-9223372036854775808 to "
		       "9223372036854775807)";
	else if (strstr(je.text, "real number overflow"))
		what = "a finite number";
	/* a number too large: the text before it is sound, so its field is known */
	if (strstr(je.text, "too big integer") || strstr(je.text, "real number overflow"))
		path_at(text, at, path, sizeof(path));
	else if (strstr(je.text, "JSON_ALLOW_NUL"))
		what = "strings without NUL characters";
	else if (strstr(je.text, "maximum parsing depth"))
		what = "JSON nested at most 2048 deep";
	NODUS_ERR_AT(&e, NODUS_EPARSE, file, line, column, path, "expected %s, got %s", what,
		     je.text);
	nodus_diags_push(diags, &e);
	return NODUS_EPARSE;
}

static const char *const kinds[] = {"task", "workload", "solution", "campaign"};

int nodus__v_header(nodus__vctx *v, const json_t *obj, const char *kind)
{
	char what[64];
	snprintf(what, sizeof(what), "a JSON object (a %s)", kind);
	if (!nodus__v_object(v, obj, what))
		return -1;
	json_t *k = json_object_get(obj, "kind");
	if (k && !(json_is_string(k) && strcmp(json_string_value(k), kind) == 0)) {
		char got[96];
		nodus__v_describe(k, got, sizeof(got));
		nodus__v_err_key(v, "kind", 0, "expected \"%s\", got %s", kind, got);
		return -1;
	}
	int64_t format;
	nodus__v_int(v, obj, "format", 1, 1, &format);
	return 0;
}

/* ---- nodus check ---- */

int nodus__spec_check_text(const char *file, const char *text, size_t len, const char *dir,
			   nodus_diags *diags)
{
	size_t before = diags->count;
	json_t *j = NULL;
	int rc = nodus__spec_parse(file, text, len, &j, diags);
	if (rc)
		return rc;
	json_t *k = json_object_get(j, "kind");
	int kind = -1;
	nodus__vctx v;
	nodus__vctx_init(&v, file, text, len, diags);
	if (!nodus__v_object(&v, j, "a JSON object (a task, workload, solution or campaign)")) {
		rc = NODUS_EINVAL;
	} else if (!k) {
		nodus__v_err_key(&v, "kind", 0,
				 "expected required field \"kind\" (task, workload, solution or "
				 "campaign), got an object without it");
		rc = NODUS_EINVAL;
	} else {
		nodus__v_push_key(&v, "kind");
		if (nodus__v_enum_value(&v, k, kinds, NODUS_ARRAY_SIZE(kinds), &kind) < 0)
			rc = NODUS_EINVAL;
		nodus__v_pop(&v);
	}
	nodus__vctx_release(&v);
	if (rc)
		goto out;
	if (kind == 0) {
		nodus_task *t = calloc(1, sizeof(*t));
		if (!t) {
			rc = NODUS_ENOMEM;
			goto out;
		}
		rc = nodus_task_from_json(j, file, text, t, diags);
		nodus_task_release(t);
		free(t);
	} else if (kind == 1) {
		nodus_workload w;
		rc = nodus_workload_from_json(j, file, text, NULL, 0, &w, diags);
		nodus_workload_release(&w);
	} else if (kind == 2) {
		nodus_solution *s = calloc(1, sizeof(*s));
		if (!s) {
			rc = NODUS_ENOMEM;
			goto out;
		}
		rc = nodus_solution_from_json(j, file, text, dir, s, diags);
		nodus_solution_release(s);
		free(s);
	} else {
		nodus_campaign *c = NULL;
		rc = nodus__campaign_load_text(file, text, len, dir, &c, diags);
		nodus_campaign_free(c);
	}
out:
	json_decref(j);
	if (!rc && diags->count > before)
		rc = NODUS_EINVAL;
	return rc;
}

int nodus_spec_check_file(const char *path, nodus_diags *diags)
{
	nodus_buf text = NODUS_BUF_INIT;
	int rc = nodus__spec_read(path, NODUS__SPEC_MAX_BYTES, &text, NULL, diags);
	if (!rc) {
		char dir[512];
		nodus__path_dir(path, dir, sizeof(dir));
		rc = nodus__spec_check_text(path, text.data, text.len, dir, diags);
	}
	nodus_buf_release(&text);
	return rc;
}
