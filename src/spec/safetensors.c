/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * safetensors.c: the strict safetensors reader (see safetensors.h).
 *
 * Every entry of the header is checked, not only the one asked for: a file
 * whose other entries overlap or overrun is malformed, and nodus refuses a
 * malformed file rather than trusting the part it happens to read.
 * ------------------------------------------------------------------------ */
#include "spec/safetensors.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/solution.h"

static const struct {
	const char *name;
	unsigned size;
	int nodus;
} st_dtypes[] = {
	/* the format's whole-byte dtypes (safetensors 0.8), so a file holding
	 * one nodus lacks is still read whole: its other tensors may be the
	 * ones asked for. The sub-byte ones (F4, F6_*) are refused: their
	 * sizes are not product(shape) x itemsize */
	{"BOOL", 1, 0},
	{"U8", 1, NODUS_DTYPE_UINT8},
	{"I8", 1, 0},
	{"F8_E4M3", 1, 0},
	{"F8_E5M2", 1, 0},
	{"F8_E4M3FNUZ", 1, 0},
	{"F8_E5M2FNUZ", 1, 0},
	{"F8_E8M0", 1, 0},
	{"I16", 2, 0},
	{"U16", 2, 0},
	{"F16", 2, NODUS_DTYPE_FLOAT16},
	{"BF16", 2, NODUS_DTYPE_BFLOAT16},
	{"I32", 4, NODUS_DTYPE_INT32},
	{"U32", 4, 0},
	{"F32", 4, NODUS_DTYPE_FLOAT32},
	{"F64", 8, NODUS_DTYPE_FLOAT64},
	{"I64", 8, NODUS_DTYPE_INT64},
	{"U64", 8, 0},
	{"C64", 8, 0},
};

struct span {
	uint64_t begin, end;
	const char *key;
};

static int fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

static int by_begin(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* A JSON integer in [0, 2^63) as uint64, or -1. */
static int nonneg(const json_t *j, uint64_t *out)
{
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(j);
	return 0;
}

/* One entry: dtype, shape and offsets checked against the data's length. */
static int entry(const char *key, const json_t *e, uint64_t data_len, nodus_st_tensor *t,
		 struct span *s, char *why, size_t size)
{
	static const char *const fields[] = {"dtype", "shape", "data_offsets"};
	const char *k;
	json_t *v;
	if (!json_is_object(e))
		return fail(why, size, "tensor '%s': expected an object {dtype, shape, "
			    "data_offsets}", key);
	json_object_foreach((json_t *)e, k, v) {
		int known = 0;
		for (size_t f = 0; f < 3; f++)
			known |= strcmp(k, fields[f]) == 0;
		if (!known)
			return fail(why, size, "tensor '%s': expected only dtype, shape and "
				    "data_offsets, got \"%s\"", key, k);
	}
	const char *dt = json_string_value(json_object_get(e, "dtype"));
	unsigned itemsize = 0;
	memset(t, 0, sizeof(*t));
	for (size_t d = 0; dt && d < sizeof(st_dtypes) / sizeof(st_dtypes[0]); d++)
		if (strcmp(dt, st_dtypes[d].name) == 0) {
			itemsize = st_dtypes[d].size;
			t->nodus_dtype = st_dtypes[d].nodus;
			snprintf(t->dtype, sizeof(t->dtype), "%s", dt);
		}
	if (!itemsize)
		return fail(why, size, "tensor '%s': expected a safetensors dtype (F64, F32, F16, "
			    "BF16, I64, I32, U8, ...), got %s%s%s", key, dt ? "\"" : "",
			    dt ? dt : "none", dt ? "\"" : "");
	const json_t *shape = json_object_get(e, "shape");
	if (!json_is_array(shape) || json_array_size(shape) > NODUS_ST_MAX_DIMS)
		return fail(why, size, "tensor '%s': expected a shape of at most %d integers",
			    key, NODUS_ST_MAX_DIMS);
	uint64_t numel = 1;
	size_t i;
	json_t *d;
	t->ndim = (int)json_array_size(shape);
	json_array_foreach(shape, i, d) {
		uint64_t x;
		if (nonneg(d, &x))
			return fail(why, size, "tensor '%s': expected a shape of non-negative "
				    "integers, got a bad dimension %zu", key, i);
		t->shape[i] = (int64_t)x;
		/* overflow: numel * x past 2^64 cannot fit any file */
		if (x && numel > UINT64_MAX / x)
			return fail(why, size, "tensor '%s': its shape has more elements than "
				    "any file can hold", key);
		numel *= x;
	}
	const json_t *off = json_object_get(e, "data_offsets");
	if (!json_is_array(off) || json_array_size(off) != 2 ||
	    nonneg(json_array_get(off, 0), &s->begin) || nonneg(json_array_get(off, 1), &s->end))
		return fail(why, size, "tensor '%s': expected data_offsets [begin, end] of "
			    "non-negative integers", key);
	if (s->begin > s->end || s->end > data_len)
		return fail(why, size, "tensor '%s': data_offsets [%llu, %llu] lie outside the "
			    "%llu data bytes after the header", key, (unsigned long long)s->begin,
			    (unsigned long long)s->end, (unsigned long long)data_len);
	if (numel > UINT64_MAX / itemsize || s->end - s->begin != numel * itemsize)
		return fail(why, size, "tensor '%s': expected %llu bytes (%llu elements of %s, "
			    "%u bytes each), got data_offsets spanning %llu", key,
			    (unsigned long long)(numel * itemsize), (unsigned long long)numel, dt,
			    itemsize, (unsigned long long)(s->end - s->begin));
	s->key = key;
	t->bytes = s->end - s->begin;
	return 0;
}

int nodus_safetensors_find(const unsigned char *bytes, size_t len, const char *key,
			   nodus_st_tensor *out, char *why, size_t why_size)
{
	if (len < 8)
		return fail(why, why_size, "expected at least the 8-byte header length, got a "
			    "file of %zu bytes", len);
	uint64_t n = 0;
	for (int k = 7; k >= 0; k--)
		n = n << 8 | bytes[k];
	if (n > NODUS_ST_HEADER_MAX)
		return fail(why, why_size, "expected a header of at most 100000000 bytes, got a "
			    "header length of %llu", (unsigned long long)n);
	if (n > len - 8)
		return fail(why, why_size, "expected a header of %llu bytes after the length, got "
			    "a file of %zu bytes (truncated, or not a safetensors file)",
			    (unsigned long long)n, len);
	if (n < 2 || bytes[8] != '{')
		return fail(why, why_size, "expected the header to be a JSON object starting at "
			    "byte 8");
	json_error_t je;
	json_t *h = json_loadb((const char *)bytes + 8, (size_t)n,
			       JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(h)) {
		fail(why, why_size, "expected the header to be one JSON object, got %s (byte %d "
		     "of the header)", h ? "another value" : je.text, h ? 0 : je.position);
		json_decref(h);
		return -1;
	}
	uint64_t data_len = (uint64_t)(len - 8) - n;
	size_t cap = json_object_size(h);
	struct span *spans = calloc(cap ? cap : 1, sizeof(*spans));
	int rc = spans ? 0 : fail(why, why_size, "out of memory reading the header");
	size_t ns = 0;
	int found = 0;
	const char *k;
	json_t *v;
	json_object_foreach(h, k, v) {
		if (rc)
			break;
		if (strcmp(k, "__metadata__") == 0) {
			const char *mk;
			json_t *mv;
			if (!json_is_object(v))
				rc = fail(why, why_size, "expected __metadata__ to be an object of "
					  "strings");
			json_object_foreach(v, mk, mv)
				if (!rc && !json_is_string(mv))
					rc = fail(why, why_size, "expected __metadata__ to be an object "
						  "of strings, got a non-string for \"%s\"", mk);
			continue;
		}
		nodus_st_tensor t;
		rc = entry(k, v, data_len, &t, &spans[ns], why, why_size);
		if (rc)
			break;
		ns++;
		if (strcmp(k, key) == 0) {
			*out = t;
			out->data = bytes + 8 + n + spans[ns - 1].begin;
			found = 1;
		}
	}
	/* the entries tile the data: sorted by offset, each begins where the
	 * last ended, and the last ends at the file's end */
	if (!rc && ns > 0)
		qsort(spans, ns, sizeof(*spans), by_begin);
	uint64_t at = 0;
	for (size_t s = 0; !rc && s < ns; s++) {
		if (spans[s].begin < at)
			rc = fail(why, why_size, "tensors '%s' and '%s' overlap (data_offsets [%llu, "
				  "%llu] begin before byte %llu, where the other ends)",
				  spans[s - 1].key, spans[s].key,
				  (unsigned long long)spans[s].begin,
				  (unsigned long long)spans[s].end, (unsigned long long)at);
		else if (spans[s].begin > at)
			rc = fail(why, why_size, "expected the tensors to cover the data without a "
				  "hole, got bytes %llu to %llu that no tensor holds",
				  (unsigned long long)at, (unsigned long long)spans[s].begin);
		at = spans[s].end;
	}
	if (!rc && at != data_len)
		rc = fail(why, why_size, "expected the data to end with the last tensor (byte %llu "
			  "after the header), got %llu bytes after it", (unsigned long long)at,
			  (unsigned long long)(data_len - at));
	if (!rc && !found)
		rc = fail(why, why_size, "expected a tensor '%s' in the file, got none of that "
			  "key (%zu tensor(s))", key, ns);
	free(spans);
	json_decref(h);
	return rc;
}
