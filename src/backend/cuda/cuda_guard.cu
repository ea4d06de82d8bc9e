/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_guard.cu: canary regions around every buffer of the CUDA backend
 * (docs/sandbox.md, "Buffer guards").
 *
 * A device has no guard pages a solution's kernel would fault on: a write
 * past the end of a cudaMalloc'd buffer lands in whatever the allocator
 * put next (the H200 raised no error for a 4 MB overrun). So each buffer is
 * one allocation laid out as
 *
 *   [ lead canary 64 KiB | data (bytes) | trail canary | pad to 16 ]
 *
 * with the data 64 KiB in, so it keeps cudaMalloc's alignment. The trail
 * canary is 1/16 of the buffer, at least 64 KiB and at most 16 MiB: any
 * overrun that starts at the end breaks its first bytes, and a write that
 * skips ahead is caught up to that distance (4 MiB for a 64 MiB buffer,
 * the size of the H200 case), for at most 6% more device memory and a scan
 * of at most 1/16 of the live bytes per check.
 *
 * The canary is a pattern of the address and a random key: the 32-bit word
 * at a (a multiple of 4) is mix(key, a), written by a kernel at alloc.
 * guards_intact runs one kernel over a device-side table of all canary
 * ranges of the live buffers, cut into chunks of 64 KiB (one block each),
 * which atomicMin's the lowest changed address into one word; one 8-byte
 * copy brings it back. The table is rebuilt and uploaded only after an
 * alloc or a free.
 *
 * Call order: init (at open), then alloc / free / name / intact in any
 * order, release (at close).
 * ------------------------------------------------------------------------ */
#include "backend/cuda/cuda_backend.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEAD_BYTES ((size_t)64 << 10)
#define TRAIL_MIN_BYTES ((size_t)64 << 10)
#define TRAIL_MAX_BYTES ((size_t)16 << 20)
#define CHUNK_BYTES ((size_t)64 << 10)
#define CHECK_THREADS 256
#define NO_BAD_ADDRESS (~0ull)

struct guard_buffer {
	char *base;             /* what cudaMalloc returned */
	size_t total;           /* its length */
	char *data;             /* base + LEAD_BYTES, what alloc returned */
	size_t bytes;           /* as asked */
	const char *what, *name; /* name_buffer's, borrowed */
};

struct guard_chunk {
	unsigned long long start; /* device address of the first canary byte */
	unsigned long long len;   /* bytes, at most CHUNK_BYTES */
};

struct nodus__cuda_guards {
	struct guard_buffer *bufs; /* live buffers */
	int n, cap;
	int dirty;                 /* the device table is older than bufs */
	struct guard_chunk *chunks_host;
	struct guard_chunk *chunks_dev;
	int n_chunks, chunk_cap;   /* entries used, entries both hold */
	unsigned long long *bad_dev;  /* lowest changed canary address, or NO_BAD_ADDRESS */
	unsigned long long *bad_host; /* pinned copy */
	unsigned long long key;    /* pattern key, per context */
};

static __device__ unsigned canary_word(unsigned long long key, unsigned long long addr)
{
	unsigned long long x = (addr >> 2) ^ key;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (unsigned)x;
}

/* Writes the pattern over [start, start + len): whole words where they
 * fit, single bytes at an unaligned head or tail (the data's last bytes
 * share a word with the first canary bytes). */
static __global__ void canary_fill(unsigned long long start, unsigned long long len,
				   unsigned long long key)
{
	unsigned long long first = start & ~3ull, end = start + len;
	unsigned long long words = (end - first + 3) / 4;
	for (unsigned long long w = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
	     w < words; w += (unsigned long long)gridDim.x * blockDim.x) {
		unsigned long long a = first + 4 * w;
		unsigned v = canary_word(key, a);
		if (a >= start && a + 4 <= end) {
			*(unsigned *)a = v;
			continue;
		}
		for (int b = 0; b < 4; b++)
			if (a + b >= start && a + b < end)
				*(unsigned char *)(a + b) = (unsigned char)(v >> (8 * b));
	}
}

/* One block per chunk: the lowest byte that differs from the pattern goes
 * to *bad (atomicMin; it is only ever lowered). Aligned 32-bit loads; a
 * word that straddles a chunk's edge is masked to the chunk's bytes (the
 * rest of it is data or another chunk, inside the same allocation). */
static __global__ void canary_check(const guard_chunk *chunks, unsigned long long key,
				    unsigned long long *bad)
{
	guard_chunk ch = chunks[blockIdx.x];
	unsigned long long first = ch.start & ~3ull, end = ch.start + ch.len;
	unsigned long long words = (end - first + 3) / 4;
	for (unsigned long long w = threadIdx.x; w < words; w += blockDim.x) {
		unsigned long long a = first + 4 * w;
		unsigned diff = *(const volatile unsigned *)a ^ canary_word(key, a);
		if (!diff)
			continue;
		unsigned mask = 0;
		for (int b = 0; b < 4; b++)
			if (a + b >= ch.start && a + b < end)
				mask |= 0xffu << (8 * b);
		if (diff & mask)
			atomicMin(bad, a + (unsigned long long)(__ffs(diff & mask) - 1) / 8);
	}
}

int nodus__cuda_guard_init(cuda_ctx *c, nodus_error *err)
{
	nodus__cuda_guards *g = (nodus__cuda_guards *)calloc(1, sizeof *g);
	if (!g)
		return NODUS_ERR(err, NODUS_ENOMEM, "cuda backend: out of memory for buffer guards");
	c->guards = g;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	g->key = ((unsigned long long)ts.tv_nsec << 32) ^ (unsigned long long)ts.tv_sec ^
		 (unsigned long long)(uintptr_t)g;
	int ret = NODUS_CUDA_CALL(err, cudaMalloc((void **)&g->bad_dev, sizeof *g->bad_dev));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMallocHost((void **)&g->bad_host, sizeof *g->bad_host));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMemset(g->bad_dev, 0xff, sizeof *g->bad_dev));
	return ret;
}

void nodus__cuda_guard_release(cuda_ctx *c)
{
	nodus__cuda_guards *g = c->guards;
	if (!g)
		return;
	for (int i = 0; i < g->n; i++)
		cudaFree(g->bufs[i].base);
	if (g->chunks_dev)
		cudaFree(g->chunks_dev);
	if (g->bad_dev)
		cudaFree(g->bad_dev);
	if (g->bad_host)
		cudaFreeHost(g->bad_host);
	free(g->chunks_host);
	free(g->bufs);
	free(g);
	c->guards = NULL;
}

static size_t trail_bytes(size_t bytes)
{
	size_t t = (bytes / 16 + 4095) / 4096 * 4096;
	return t < TRAIL_MIN_BYTES ? TRAIL_MIN_BYTES : t > TRAIL_MAX_BYTES ? TRAIL_MAX_BYTES : t;
}

static int fill_range(cuda_ctx *c, const char *start, size_t len, nodus_error *err)
{
	size_t words = len / 4 + 2;
	unsigned blocks = (unsigned)((words + CHECK_THREADS - 1) / CHECK_THREADS);
	if (blocks > 4096)
		blocks = 4096;
	canary_fill<<<blocks, CHECK_THREADS, 0, c->stream>>>((unsigned long long)(uintptr_t)start,
							       len, c->guards->key);
	return NODUS_CUDA_CALL(err, cudaGetLastError());
}

int nodus__cuda_guard_alloc(cuda_ctx *c, size_t bytes, void **ptr, nodus_error *err)
{
	nodus__cuda_guards *g = c->guards;
	*ptr = NULL;
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 64;
		struct guard_buffer *b =
			(struct guard_buffer *)realloc(g->bufs, (size_t)cap * sizeof *b);
		if (!b)
			return NODUS_ERR(err, NODUS_ENOMEM, "cuda backend: out of memory for buffer guards");
		g->bufs = b;
		g->cap = cap;
	}
	struct guard_buffer b;
	memset(&b, 0, sizeof b);
	b.bytes = bytes;
	b.total = (LEAD_BYTES + bytes + trail_bytes(bytes) + 15) / 16 * 16;
	int ret = NODUS_CUDA_CALL(err, cudaMalloc((void **)&b.base, b.total));
	if (ret)
		return ret;
	b.data = b.base + LEAD_BYTES;
	(void)cudaGetLastError(); /* a solution's leftover launch error is not ours */
	ret = fill_range(c, b.base, LEAD_BYTES, err);
	if (!ret)
		ret = fill_range(c, b.data + bytes, b.total - LEAD_BYTES - bytes, err);
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamSynchronize(c->stream));
	if (ret) {
		cudaFree(b.base);
		return ret;
	}
	g->bufs[g->n++] = b;
	g->dirty = 1;
	*ptr = b.data;
	return 0;
}

/* 1 when ptr was one of ours (now freed), 0 when it was not. */
int nodus__cuda_guard_free(cuda_ctx *c, void *ptr)
{
	nodus__cuda_guards *g = c->guards;
	for (int i = 0; g && i < g->n; i++) {
		if (g->bufs[i].data != ptr)
			continue;
		cudaFree(g->bufs[i].base); /* cannot report; a sticky error shows next call */
		g->bufs[i] = g->bufs[--g->n];
		g->dirty = 1;
		return 1;
	}
	return 0;
}

void nodus__cuda_guard_name(void *ctx, const void *ptr, const char *what, const char *name)
{
	nodus__cuda_guards *g = ((cuda_ctx *)ctx)->guards;
	for (int i = 0; i < g->n; i++) {
		if (g->bufs[i].data == ptr) {
			g->bufs[i].what = what;
			g->bufs[i].name = name;
			return;
		}
	}
}

static int add_chunks(nodus__cuda_guards *g, const char *start, size_t len)
{
	for (size_t off = 0; off < len; off += CHUNK_BYTES) {
		if (g->n_chunks == g->chunk_cap)
			return -1;
		struct guard_chunk *ch = &g->chunks_host[g->n_chunks++];
		ch->start = (unsigned long long)(uintptr_t)(start + off);
		ch->len = len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES;
	}
	return 0;
}

/* Cuts every live buffer's two canaries into chunks and uploads the table. */
static int rebuild_table(cuda_ctx *c, nodus_error *err)
{
	nodus__cuda_guards *g = c->guards;
	size_t need = 0;
	for (int i = 0; i < g->n; i++) {
		size_t trail = g->bufs[i].total - LEAD_BYTES - g->bufs[i].bytes;
		need += LEAD_BYTES / CHUNK_BYTES + (trail + CHUNK_BYTES - 1) / CHUNK_BYTES;
	}
	int ret = 0;
	if ((int)need > g->chunk_cap) {
		int cap = (int)need * 2;
		free(g->chunks_host);
		if (g->chunks_dev)
			cudaFree(g->chunks_dev);
		g->chunks_dev = NULL;
		g->chunk_cap = 0;
		g->chunks_host = (struct guard_chunk *)malloc((size_t)cap * sizeof *g->chunks_host);
		if (!g->chunks_host)
			return NODUS_ERR(err, NODUS_ENOMEM, "cuda backend: out of memory for buffer guards");
		ret = NODUS_CUDA_CALL(err, cudaMalloc((void **)&g->chunks_dev,
						      (size_t)cap * sizeof *g->chunks_dev));
		if (ret)
			return ret;
		g->chunk_cap = cap;
	}
	g->n_chunks = 0;
	for (int i = 0; i < g->n; i++) {
		const struct guard_buffer *b = &g->bufs[i];
		if (add_chunks(g, b->base, LEAD_BYTES) ||
		    add_chunks(g, b->data + b->bytes, b->total - LEAD_BYTES - b->bytes))
			return NODUS_ERR(err, NODUS_EINTERNAL, "cuda backend: guard table too small");
	}
	if (g->n_chunks > 0)
		ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(g->chunks_dev, g->chunks_host,
							   (size_t)g->n_chunks * sizeof *g->chunks_host,
							   cudaMemcpyHostToDevice, c->stream));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamSynchronize(c->stream));
	if (!ret)
		g->dirty = 0;
	return ret;
}

/* The live buffer whose allocation holds addr, and hit filled for it. */
static void describe(const nodus__cuda_guards *g, unsigned long long addr, nodus_guard_hit *hit)
{
	memset(hit, 0, sizeof *hit);
	hit->kind = NODUS_GUARD_PAST_END;
	for (int i = 0; i < g->n; i++) {
		const struct guard_buffer *b = &g->bufs[i];
		unsigned long long base = (unsigned long long)(uintptr_t)b->base;
		if (addr < base || addr >= base + b->total)
			continue;
		long long off = (long long)(addr - (unsigned long long)(uintptr_t)b->data);
		hit->kind = off < 0 ? NODUS_GUARD_BEFORE_START : NODUS_GUARD_PAST_END;
		hit->buffer = b->data;
		hit->bytes = (int64_t)b->bytes;
		hit->offset = off;
		hit->what = b->what;
		hit->name = b->name;
		return;
	}
}

int nodus__cuda_guards_intact(void *ctx, int *intact, nodus_guard_hit *hit, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	nodus__cuda_guards *g = c->guards;
	*intact = 1;
	int ret = g->dirty ? rebuild_table(c, err) : 0;
	if (ret || g->n_chunks == 0)
		return ret;
	/* the caller has synchronised the device after the solution's work;
	 * a launch error left behind is the solution's, reported there */
	(void)cudaGetLastError();
	canary_check<<<g->n_chunks, CHECK_THREADS, 0, c->stream>>>(g->chunks_dev, g->key, g->bad_dev);
	ret = NODUS_CUDA_CALL(err, cudaGetLastError());
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(g->bad_host, g->bad_dev, sizeof *g->bad_dev,
							   cudaMemcpyDeviceToHost, c->stream));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamSynchronize(c->stream));
	if (ret || *g->bad_host == NO_BAD_ADDRESS)
		return ret;
	*intact = 0;
	describe(g, *g->bad_host, hit);
	return NODUS_CUDA_CALL(err, cudaMemsetAsync(g->bad_dev, 0xff, sizeof *g->bad_dev, c->stream));
}
