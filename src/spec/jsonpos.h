/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * jsonpos.h: maps JSON paths ("$.inputs[2].dtype") to the line and column
 * where they start in the raw text of a document (library-internal).
 *
 * jansson reports positions only for syntax errors; the validators find
 * semantic faults on the parsed tree and need to point at the text. The
 * index is built by one iterative scan (an explicit stack, no recursion),
 * so a deeply nested document costs memory proportional to its size, never
 * C stack. It is meant for text jansson has already accepted; on anything
 * else it stops at the first surprise and returns NODUS_EPARSE.
 *
 * Paths are written by nodus__jsonpath_key() and nodus__jsonpath_index():
 * "$" is the root, ".name" an object member whose key is an identifier,
 * ["any key"] any other member (JSON-escaped), [N] an array element. The
 * validators build paths with the same two functions, so lookups agree.
 *
 * Lines and columns are 1-based; columns count characters (UTF-8 lead
 * bytes), as jansson does.
 *
 * Call order: nodus__jsonpos_build(); nodus__jsonpos_find() any number of
 * times; nodus__jsonpos_free().
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SPEC_JSONPOS_H
#define NODUS_SPEC_JSONPOS_H

#include <stddef.h>

#include "common/common.h"

typedef struct nodus__jsonpos nodus__jsonpos;

/* Indexes text[0..len). Returns 0, NODUS_ENOMEM, or NODUS_EPARSE when the
 * text is not well-formed JSON (*out is NULL then). */
int nodus__jsonpos_build(const char *text, size_t len, nodus__jsonpos **out);

/* Finds path. want_key = 1 asks for the position of the member's key (for
 * "unknown field" faults), 0 for its value; array elements and the root
 * have no key and answer with the value's position. Returns 1 and fills
 * *line, *column when the path is in the index, else 0. */
int nodus__jsonpos_find(const nodus__jsonpos *p, const char *path, int want_key, int *line,
			int *column);

/* Frees the index; NULL is a no-op. */
void nodus__jsonpos_free(nodus__jsonpos *p);

/* Appends the path segment for object key `key` (length len) to b. */
int nodus__jsonpath_key(nodus_buf *b, const char *key, size_t len);
/* Appends "[i]" to b. */
int nodus__jsonpath_index(nodus_buf *b, size_t i);

/* Converts a byte offset into a 1-based line and column. */
void nodus__text_line_col(const char *text, size_t len, size_t offset, int *line, int *column);

#endif
