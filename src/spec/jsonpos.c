/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * jsonpos.c: the JSON path position index (see jsonpos.h).
 *
 * One pass over the text with a cursor that tracks line and column, a
 * growable stack of open containers, and the current path in a nodus_buf.
 * Every value start appends an entry (path offset into one arena, value
 * line/column, key line/column); the entries are then sorted by path so a
 * lookup is a binary search. Keys are decoded (escapes, \u surrogate pairs)
 * so that the path text equals the one the validators build from jansson's
 * decoded keys.
 * ------------------------------------------------------------------------ */
#include "jsonpos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	size_t path;      /* offset of the NUL-terminated path in the arena */
	int line, column; /* where the value starts */
	int key_line;     /* where its key starts; 0 for array elements and the root */
	int key_column;
} entry;

struct nodus__jsonpos {
	nodus_buf arena;  /* all paths, each NUL-terminated */
	entry *entries;   /* n entries, sorted by path after the scan */
	size_t n;
	size_t alloc;
};

typedef struct frame {
	int is_object;    /* 1 object, 0 array */
	size_t base;      /* length of the path before this container's members */
	size_t index;     /* arrays: index of the current element */
} frame;

typedef struct cursor {
	const char *text; /* the document */
	size_t len;       /* its length in bytes */
	size_t i;         /* next byte */
	int line;         /* line of text[i], 1-based */
	int column;       /* column of text[i], 1-based, in characters */
} cursor;

static void advance(cursor *c)
{
	unsigned char b = (unsigned char)c->text[c->i++];
	if (b == '\n') {
		c->line++;
		c->column = 1;
	} else if ((b & 0xC0) != 0x80) {
		c->column++;
	}
}

static int is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static void skip_ws(cursor *c)
{
	while (c->i < c->len && is_ws(c->text[c->i]))
		advance(c);
}

void nodus__text_line_col(const char *text, size_t len, size_t offset, int *line, int *column)
{
	cursor c = {text, len, 0, 1, 1};
	while (c.i < len && c.i < offset)
		advance(&c);
	*line = c.line;
	*column = c.column;
}

static int hex4(const char *s, size_t avail, unsigned *out)
{
	unsigned v = 0;
	if (avail < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		char ch = s[k];
		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (unsigned)(ch - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static int add_utf8(nodus_buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return nodus_buf_add(b, u, n);
}

/* Decodes the string starting at the opening quote into out (replacing its
 * content) and leaves the cursor after the closing quote. */
static int read_string(cursor *c, nodus_buf *out)
{
	nodus_buf_reset(out);
	advance(c); /* opening quote */
	while (c->i < c->len) {
		char ch = c->text[c->i];
		if (ch == '"') {
			advance(c);
			return 0;
		}
		if (ch != '\\') {
			if (nodus_buf_add(out, &ch, 1))
				return NODUS_ENOMEM;
			advance(c);
			continue;
		}
		if (c->i + 1 >= c->len)
			return NODUS_EPARSE;
		char esc = c->text[c->i + 1];
		advance(c);
		advance(c);
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *hit = esc ? strchr(from, esc) : NULL;
		if (hit) {
			if (nodus_buf_add(out, &to[hit - from], 1))
				return NODUS_ENOMEM;
			continue;
		}
		if (esc != 'u')
			return NODUS_EPARSE;
		unsigned cp, lo;
		if (hex4(c->text + c->i, c->len - c->i, &cp))
			return NODUS_EPARSE;
		for (int k = 0; k < 4; k++)
			advance(c);
		if (cp >= 0xD800 && cp < 0xDC00 && c->i + 6 <= c->len && c->text[c->i] == '\\' &&
		    c->text[c->i + 1] == 'u' && !hex4(c->text + c->i + 2, 4, &lo) && lo >= 0xDC00 &&
		    lo < 0xE000) {
			for (int k = 0; k < 6; k++)
				advance(c);
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		}
		if (add_utf8(out, cp))
			return NODUS_ENOMEM;
	}
	return NODUS_EPARSE;
}

static void skip_scalar(cursor *c)
{
	if (c->text[c->i] == '"') {
		advance(c);
		while (c->i < c->len && c->text[c->i] != '"') {
			if (c->text[c->i] == '\\' && c->i + 1 < c->len)
				advance(c);
			advance(c);
		}
		if (c->i < c->len)
			advance(c);
		return;
	}
	while (c->i < c->len) {
		char ch = c->text[c->i];
		if (is_ws(ch) || ch == ',' || ch == ']' || ch == '}')
			break;
		advance(c);
	}
}

static int is_ident(const char *key, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t k = 0; k < len; k++) {
		char ch = key[k];
		int alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
		if (!alpha && !(k > 0 && ch >= '0' && ch <= '9'))
			return 0;
	}
	return 1;
}

int nodus__jsonpath_key(nodus_buf *b, const char *key, size_t len)
{
	if (is_ident(key, len)) {
		int rc = nodus_buf_adds(b, ".");
		return rc ? rc : nodus_buf_add(b, key, len);
	}
	int rc = nodus_buf_adds(b, "[\"");
	for (size_t k = 0; k < len && !rc; k++) {
		unsigned char ch = (unsigned char)key[k];
		if (ch == '"' || ch == '\\')
			rc = nodus_buf_addf(b, "\\%c", ch);
		else if (ch < 0x20)
			rc = nodus_buf_addf(b, "\\u%04x", ch);
		else
			rc = nodus_buf_add(b, &key[k], 1);
	}
	return rc ? rc : nodus_buf_adds(b, "\"]");
}

int nodus__jsonpath_index(nodus_buf *b, size_t i)
{
	return nodus_buf_addf(b, "[%zu]", i);
}

static void truncate_path(nodus_buf *b, size_t len)
{
	b->len = len;
	if (b->alloc)
		b->data[len] = '\0';
}

static int add_entry(nodus__jsonpos *p, const nodus_buf *path, const cursor *c, int key_line,
		     int key_column)
{
	if (p->n == p->alloc) {
		size_t n = p->alloc ? p->alloc * 2 : 64;
		entry *e = realloc(p->entries, n * sizeof(*e));
		if (!e)
			return NODUS_ENOMEM;
		p->entries = e;
		p->alloc = n;
	}
	entry *e = &p->entries[p->n];
	e->path = p->arena.len;
	e->line = c->line;
	e->column = c->column;
	e->key_line = key_line;
	e->key_column = key_column;
	if (nodus_buf_add(&p->arena, path->data, path->len + 1))
		return NODUS_ENOMEM;
	p->n++;
	return 0;
}

enum state { ST_VALUE, ST_VALUE_OR_END, ST_KEY, ST_KEY_OR_END, ST_AFTER, ST_DONE };

typedef struct scan {
	nodus__jsonpos *p;  /* index being filled */
	cursor c;           /* position in the text */
	nodus_buf path;     /* path of the value at the cursor */
	nodus_buf key;      /* scratch: decoded key */
	frame *stack;       /* open containers */
	size_t depth, stack_alloc;
	int key_line, key_column; /* key of the next value, 0 = none */
} scan;

static int push(scan *s, int is_object)
{
	if (s->depth == s->stack_alloc) {
		size_t n = s->stack_alloc ? s->stack_alloc * 2 : 32;
		frame *f = realloc(s->stack, n * sizeof(*f));
		if (!f)
			return NODUS_ENOMEM;
		s->stack = f;
		s->stack_alloc = n;
	}
	s->stack[s->depth++] = (frame){is_object, s->path.len, 0};
	return 0;
}

static int step_value(scan *s, enum state *st)
{
	int rc = add_entry(s->p, &s->path, &s->c, s->key_line, s->key_column);
	if (rc)
		return rc;
	s->key_line = s->key_column = 0;
	char ch = s->c.text[s->c.i];
	if (ch == '{' || ch == '[') {
		if ((rc = push(s, ch == '{')))
			return rc;
		advance(&s->c);
		if (ch == '[' && (rc = nodus__jsonpath_index(&s->path, 0)))
			return rc;
		*st = ch == '{' ? ST_KEY_OR_END : ST_VALUE_OR_END;
		return 0;
	}
	skip_scalar(&s->c);
	*st = ST_AFTER;
	return 0;
}

static int step_key(scan *s, enum state *st)
{
	frame *top = &s->stack[s->depth - 1];
	char ch = s->c.text[s->c.i];
	if (ch == '}' && *st == ST_KEY_OR_END) {
		truncate_path(&s->path, top->base);
		s->depth--;
		advance(&s->c);
		*st = ST_AFTER;
		return 0;
	}
	if (ch != '"')
		return NODUS_EPARSE;
	s->key_line = s->c.line;
	s->key_column = s->c.column;
	int rc = read_string(&s->c, &s->key);
	if (rc)
		return rc;
	truncate_path(&s->path, top->base);
	if ((rc = nodus__jsonpath_key(&s->path, s->key.data, s->key.len)))
		return rc;
	skip_ws(&s->c);
	if (s->c.i >= s->c.len || s->c.text[s->c.i] != ':')
		return NODUS_EPARSE;
	advance(&s->c);
	*st = ST_VALUE;
	return 0;
}

static int step_after(scan *s, enum state *st)
{
	if (s->depth == 0) {
		*st = ST_DONE;
		return 0;
	}
	frame *top = &s->stack[s->depth - 1];
	char ch = s->c.text[s->c.i];
	advance(&s->c);
	if (ch == ',') {
		if (top->is_object) {
			*st = ST_KEY;
			return 0;
		}
		truncate_path(&s->path, top->base);
		*st = ST_VALUE;
		return nodus__jsonpath_index(&s->path, ++top->index);
	}
	if (ch != (top->is_object ? '}' : ']'))
		return NODUS_EPARSE;
	truncate_path(&s->path, top->base);
	s->depth--;
	return 0;
}

static int entry_cmp(const void *a, const void *b, void *arena)
{
	const char *base = arena;
	return strcmp(base + ((const entry *)a)->path, base + ((const entry *)b)->path);
}

int nodus__jsonpos_build(const char *text, size_t len, nodus__jsonpos **out)
{
	*out = NULL;
	nodus__jsonpos *p = calloc(1, sizeof(*p));
	if (!p)
		return NODUS_ENOMEM;
	nodus_buf_init(&p->arena);
	scan s = {p, {text, len, 0, 1, 1}, NODUS_BUF_INIT, NODUS_BUF_INIT, NULL, 0, 0, 0, 0};
	int rc = nodus_buf_adds(&s.path, "$");
	enum state st = ST_VALUE;
	while (!rc && st != ST_DONE) {
		skip_ws(&s.c);
		if (s.c.i >= s.c.len) {
			if (st != ST_AFTER || s.depth)
				rc = NODUS_EPARSE;
			break;
		}
		switch (st) {
		case ST_VALUE_OR_END:
			if (s.c.text[s.c.i] == ']') {
				truncate_path(&s.path, s.stack[s.depth - 1].base);
				s.depth--;
				advance(&s.c);
				st = ST_AFTER;
				break;
			}
			/* fall through */
		case ST_VALUE:
			rc = step_value(&s, &st);
			break;
		case ST_KEY:
		case ST_KEY_OR_END:
			rc = step_key(&s, &st);
			break;
		case ST_AFTER:
			rc = step_after(&s, &st);
			break;
		case ST_DONE:
			break;
		}
	}
	free(s.stack);
	nodus_buf_release(&s.path);
	nodus_buf_release(&s.key);
	if (rc) {
		nodus__jsonpos_free(p);
		return rc;
	}
	qsort_r(p->entries, p->n, sizeof(entry), entry_cmp, p->arena.data);
	*out = p;
	return 0;
}

typedef struct find_key {
	const char *path;   /* the path looked up */
	const char *arena;  /* the index's arena */
} find_key;

static int find_cmp(const void *k, const void *e)
{
	const find_key *fk = k;
	return strcmp(fk->path, fk->arena + ((const entry *)e)->path);
}

int nodus__jsonpos_find(const nodus__jsonpos *p, const char *path, int want_key, int *line,
			int *column)
{
	if (!p || !p->n)
		return 0;
	find_key k = {path, p->arena.data};
	const entry *e = bsearch(&k, p->entries, p->n, sizeof(entry), find_cmp);
	if (!e)
		return 0;
	if (want_key && e->key_line) {
		*line = e->key_line;
		*column = e->key_column;
	} else {
		*line = e->line;
		*column = e->column;
	}
	return 1;
}

void nodus__jsonpos_free(nodus__jsonpos *p)
{
	if (!p)
		return;
	nodus_buf_release(&p->arena);
	free(p->entries);
	free(p);
}
