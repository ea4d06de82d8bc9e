/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cpu_guard.c: guarded buffers of the cpu backend (layout and call order
 * in cpu_guard.h; docs/sandbox.md, "Buffer guards").
 *
 * Sizes, and why:
 *   - lead guard 64 KiB: an index a little below 0 (a tile or a row of a
 *     few thousand floats before the start) faults;
 *   - trail guard the buffer's own size, page-rounded, at least 64 KiB and
 *     at most 16 MiB: a write up to that far past the end faults. Guard
 *     pages cost address space only (no memory), but the worker's
 *     RLIMIT_AS counts them, so they grow with the data (at most doubling
 *     it) rather than being large for every small buffer;
 *   - canaries of 64 bytes before the data and 64 to 127 after it: the
 *     data stays 64-byte aligned, as solutions were promised, so a guard
 *     page cannot touch an end that is not a multiple of 64, and honest
 *     code may read a vector's width past the end; the bytes between are
 *     a random pattern compared after every call instead.
 *
 * The canary byte at address a is pattern[a % 64], one random pattern per
 * registry, so a check is two memcmp calls per buffer.
 *
 * A read-only buffer costs its size again in address space (the alias)
 * and a page fault per page in each mapping; its writes cost nothing more.
 * ------------------------------------------------------------------------ */
#include "backend/cpu/cpu_guard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/common.h"

#define ALIGN_BYTES 64
#define LEAD_BYTES ((size_t)64 << 10)
#define TRAIL_MIN_BYTES ((size_t)64 << 10)
#define TRAIL_MAX_BYTES ((size_t)16 << 20)
#define CANARY_FRONT_BYTES 64
#define MAX_SLOTS 4096

struct slot {
	unsigned char *base;      /* the mapping: lead guard first */
	size_t total;             /* its length */
	unsigned char *pages;     /* first data page (base + LEAD_BYTES) */
	size_t page_bytes;        /* length of the data pages */
	unsigned char *data;      /* what alloc returned */
	size_t bytes;             /* as asked */
	size_t padded;            /* bytes rounded up to ALIGN_BYTES, plus ALIGN_BYTES */
	size_t front;             /* canary bytes before data (<= CANARY_FRONT_BYTES) */
	int read_only;            /* protect(1) in force */
	unsigned char *alias;     /* a writable mapping of the same data pages, or NULL */
	const char *what, *name;  /* name_buffer's, borrowed */
	volatile int live;        /* published last; read by the signal handler */
};

struct nodus__cpu_guards {
	struct slot *slots;       /* MAX_SLOTS entries */
	volatile int used;        /* slots [0, used) may be live */
	int last;                 /* slot of the last lookup (patches come in runs) */
	size_t page;              /* page size */
	unsigned char pattern[2 * ALIGN_BYTES]; /* canary byte at a = pattern[a % 64], twice over */
};

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

nodus__cpu_guards *nodus__cpu_guards_new(void)
{
	nodus__cpu_guards *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->slots = calloc(MAX_SLOTS, sizeof(*g->slots));
	if (!g->slots) {
		free(g);
		return NULL;
	}
	g->page = (size_t)sysconf(_SC_PAGESIZE);
	/* unpredictable, so a solution cannot write a canary's value back
	 * without reading it first; the clock stands in where getrandom fails */
	if (getrandom(g->pattern, ALIGN_BYTES, 0) != (ssize_t)ALIGN_BYTES) {
		uint64_t x = nodus_now_ns() | 1;
		for (size_t i = 0; i < ALIGN_BYTES; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			g->pattern[i] = (unsigned char)x;
		}
	}
	/* a run of canary bytes starts at a % 64 and is at most 128 - a % 64 long */
	memcpy(g->pattern + ALIGN_BYTES, g->pattern, ALIGN_BYTES);
	return g;
}

void nodus__cpu_guards_free(nodus__cpu_guards *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->used; i++) {
		if (!g->slots[i].live)
			continue;
		munmap(g->slots[i].base, g->slots[i].total);
		if (g->slots[i].alias)
			munmap(g->slots[i].alias, g->slots[i].page_bytes);
	}
	free(g->slots);
	free(g);
}

/* Writes (or, with check, compares) the canary bytes [p, p + n). */
static int canary(const nodus__cpu_guards *g, unsigned char *p, size_t n, int check)
{
	size_t at = (uintptr_t)p % ALIGN_BYTES; /* n <= 128 - at: see alloc */
	if (check)
		return memcmp(p, g->pattern + at, n) == 0;
	memcpy(p, g->pattern + at, n);
	return 1;
}

int nodus__cpu_guards_alloc(nodus__cpu_guards *g, size_t bytes, void **ptr, nodus_error *err)
{
	int i = 0;
	while (i < g->used && g->slots[i].live)
		i++;
	if (i == MAX_SLOTS)
		return NODUS_ERR(err, NODUS_ENOMEM,
				 "cpu backend: more than %d live buffers; free some first", MAX_SLOTS);
	struct slot s;
	memset(&s, 0, sizeof(s));
	s.bytes = bytes;
	/* at least 64 canary bytes after the data: a vector load a little past
	 * the end reads them instead of faulting (honest tail loops do that);
	 * a write there is still caught, by the canary */
	s.padded = round_up(bytes, ALIGN_BYTES) + ALIGN_BYTES;
	s.page_bytes = round_up(s.padded, g->page);
	size_t trail = round_up(bytes, g->page);
	trail = trail < TRAIL_MIN_BYTES ? TRAIL_MIN_BYTES : trail > TRAIL_MAX_BYTES ? TRAIL_MAX_BYTES : trail;
	s.total = LEAD_BYTES + s.page_bytes + trail;
	void *map = mmap(NULL, s.total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot map %zu bytes for a %zu-byte buffer: %s",
				 s.total, bytes, strerror(errno));
	s.base = map;
	s.pages = s.base + LEAD_BYTES;
	if (mprotect(s.pages, s.page_bytes, PROT_READ | PROT_WRITE)) {
		int e = errno;
		munmap(map, s.total);
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot allocate %zu bytes: %s", bytes, strerror(e));
	}
	s.data = s.pages + s.page_bytes - s.padded;
	s.front = (size_t)(s.data - s.pages);
	if (s.front > CANARY_FRONT_BYTES)
		s.front = CANARY_FRONT_BYTES;
	canary(g, s.data - s.front, s.front, 0);
	canary(g, s.data + s.bytes, s.padded - s.bytes, 0);
	s.live = 0;
	g->slots[i] = s;
	__atomic_store_n(&g->slots[i].live, 1, __ATOMIC_RELEASE);
	if (i == g->used)
		__atomic_store_n(&g->used, i + 1, __ATOMIC_RELEASE);
	*ptr = s.data;
	return 0;
}

/* The live slot whose data starts at ptr (start) or that contains ptr
 * anywhere in its mapping, or NULL. Starts at the last slot found. */
static struct slot *find(nodus__cpu_guards *g, const void *ptr, int start)
{
	const unsigned char *p = ptr;
	for (int k = 0; k < g->used; k++) {
		int i = (g->last + k) % g->used;
		struct slot *s = &g->slots[i];
		if (!s->live)
			continue;
		if (start ? s->data == p : (p >= s->base && p < s->base + s->total)) {
			g->last = i;
			return s;
		}
	}
	return NULL;
}

void nodus__cpu_guards_release(nodus__cpu_guards *g, void *ptr)
{
	struct slot *s = ptr ? find(g, ptr, 1) : NULL;
	if (!s)
		return;
	__atomic_store_n(&s->live, 0, __ATOMIC_RELEASE);
	munmap(s->base, s->total);
	if (s->alias)
		munmap(s->alias, s->page_bytes);
}

void nodus__cpu_guards_name(nodus__cpu_guards *g, const void *ptr, const char *what,
			    const char *name)
{
	struct slot *s = find(g, ptr, 1);
	if (s) {
		s->what = what;
		s->name = name;
	}
}

/* Gives s a second, writable mapping of its data pages: the pages become
 * shared memory (MAP_SHARED | MAP_ANONYMOUS, mapped over the private
 * ones, whose only contents so far are the canaries) and mremap with an
 * old size of 0 maps the same pages again elsewhere. */
static int make_alias(nodus__cpu_guards *g, struct slot *s, nodus_error *err)
{
	void *view = mmap(s->pages, s->page_bytes, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (view == MAP_FAILED)
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot share a %zu-byte input's pages: %s",
				 s->bytes, strerror(errno));
	void *alias = mremap(s->pages, 0, s->page_bytes, MREMAP_MAYMOVE);
	if (alias == MAP_FAILED)
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot map a %zu-byte input twice: %s",
				 s->bytes, strerror(errno));
	s->alias = alias;
	canary(g, s->data - s->front, s->front, 0);
	canary(g, s->data + s->bytes, s->padded - s->bytes, 0);
	return 0;
}

int nodus__cpu_guards_protect(nodus__cpu_guards *g, void *ptr, int read_only, nodus_error *err)
{
	struct slot *s = find(g, ptr, 1);
	if (!s)
		return NODUS_ERR(err, NODUS_EINVAL, "protect: %p is not a buffer of the cpu backend",
				 ptr);
	int rc = read_only && !s->alias ? make_alias(g, s, err) : 0;
	if (rc)
		return rc;
	if (mprotect(s->pages, s->page_bytes, read_only ? PROT_READ : PROT_READ | PROT_WRITE))
		return NODUS_ERR(err, NODUS_EINTERNAL, "mprotect of a %zu-byte buffer: %s", s->bytes,
				 strerror(errno));
	s->read_only = read_only;
	return 0;
}

/* Where the harness writes bytes meant for dst: the writable alias when
 * dst lies in a protected buffer's pages, else dst itself. */
static void *writable(nodus__cpu_guards *g, void *dst, size_t bytes)
{
	struct slot *s = find(g, dst, 0);
	unsigned char *p = dst;
	if (!s || !s->alias || p < s->pages || p + bytes > s->pages + s->page_bytes)
		return dst;
	return s->alias + (p - s->pages);
}

int nodus__cpu_guards_write(nodus__cpu_guards *g, void *dst, const void *src, size_t bytes,
			    nodus_error *err)
{
	(void)err;
	memcpy(writable(g, dst, bytes), src, bytes);
	return 0;
}

int nodus__cpu_guards_patch(nodus__cpu_guards *g, const nodus_patch *patches, int n,
			    nodus_error *err)
{
	for (int i = 0; i < n; i++)
		if (patches[i].bytes < 1 || patches[i].bytes > 8)
			return NODUS_ERR(err, NODUS_EINVAL, "patch of %u bytes", patches[i].bytes);
	for (int i = 0; i < n; i++)
		memcpy(writable(g, patches[i].dst, patches[i].bytes), patches[i].value,
		       patches[i].bytes);
	return 0;
}

/* Fills hit for the first byte of [p, p + n) that differs from the
 * canary (p and n as canary() takes them). */
static void canary_hit(const nodus__cpu_guards *g, const struct slot *s, const unsigned char *p,
		       size_t n, nodus_guard_hit *hit)
{
	size_t at = (uintptr_t)p % ALIGN_BYTES, k = 0;
	while (k + 1 < n && p[k] == g->pattern[at + k])
		k++;
	hit->kind = p < s->data ? NODUS_GUARD_BEFORE_START : NODUS_GUARD_PAST_END;
	hit->buffer = s->data;
	hit->bytes = (int64_t)s->bytes;
	hit->offset = (int64_t)(p + k - s->data);
	hit->what = s->what;
	hit->name = s->name;
	hit->running = NULL;
}

void nodus__cpu_guards_intact(nodus__cpu_guards *g, int *intact, nodus_guard_hit *hit)
{
	*intact = 1;
	for (int i = 0; i < g->used; i++) {
		const struct slot *s = &g->slots[i];
		if (!s->live)
			continue;
		unsigned char *front = s->data - s->front, *pad = s->data + s->bytes;
		size_t pad_bytes = s->padded - s->bytes;
		if (!canary(g, front, s->front, 1)) {
			canary_hit(g, s, front, s->front, hit);
		} else if (!canary(g, pad, pad_bytes, 1)) {
			canary_hit(g, s, pad, pad_bytes, hit);
		} else {
			continue;
		}
		*intact = 0;
		return;
	}
}

int nodus__cpu_guards_fault(const nodus__cpu_guards *g, const void *addr, nodus_guard_hit *hit)
{
	const unsigned char *p = addr;
	int used = __atomic_load_n(&g->used, __ATOMIC_ACQUIRE);
	for (int i = 0; i < used; i++) {
		const struct slot *s = &g->slots[i];
		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) || p < s->base ||
		    p >= s->base + s->total)
			continue;
		/* the data pages fault only when read-only (or when a solution
		 * changed their protection itself: not a guard's fault) */
		if (p >= s->pages && p < s->pages + s->page_bytes && !s->read_only)
			return 0;
		hit->buffer = s->data;
		hit->bytes = (int64_t)s->bytes;
		hit->offset = (int64_t)(p - s->data);
		hit->what = s->what;
		hit->name = s->name;
		hit->running = NULL;
		if (p < s->data)
			hit->kind = NODUS_GUARD_BEFORE_START;
		else if (p >= s->data + s->bytes)
			hit->kind = NODUS_GUARD_PAST_END;
		else
			hit->kind = NODUS_GUARD_READ_ONLY;
		return 1;
	}
	return 0;
}
