/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * safetensors.h: a strict reader of the safetensors format, for workload
 * inputs whose values come from a file (docs/formats.md, "File inputs").
 *
 * The format: an 8-byte little-endian header length N, N bytes of a JSON
 * object {KEY: {"dtype": D, "shape": [...], "data_offsets": [begin, end]},
 * "__metadata__": {STRING: STRING}}, then the data; offsets are relative to
 * the first byte after the header. The reader takes nothing on trust: the
 * header is at most 100 MB and lies inside the file, it is one JSON object
 * without duplicate keys, every entry has a known dtype, a shape of
 * non-negative integers and offsets inside the data whose length is
 * product(shape) x itemsize, and the entries cover the data exactly (no
 * overlap, no hole, no byte after the last: what the format's own library
 * requires), so no two keys can alias one byte.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SAFETENSORS_H
#define NODUS_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#define NODUS_ST_HEADER_MAX ((uint64_t)100 * 1000 * 1000) /* the format's own bound */
#define NODUS_ST_MAX_DIMS 64

typedef struct nodus_st_tensor {
	char dtype[16];       /* the file's name: "F32", "I64", ... */
	int nodus_dtype;      /* the nodus_dtype it is, 0 when nodus has none */
	int ndim;
	int64_t shape[NODUS_ST_MAX_DIMS];
	const unsigned char *data; /* into the bytes given, `bytes` long */
	uint64_t bytes;
} nodus_st_tensor;

/* Validates the whole file held in bytes[0..len) and finds the tensor
 * `key` in it. Returns 0 with *out set, or -1 with why (a sentence saying
 * what was expected and what was found) when the file is not a valid
 * safetensors file or has no such key. Never reads outside bytes. */
int nodus_safetensors_find(const unsigned char *bytes, size_t len, const char *key,
			   nodus_st_tensor *out, char *why, size_t why_size);

#endif
