/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_poison.cu: the poison op. Before every timed batch the worker
 * poisons the outputs of every call in it, so that a timed call finds
 * what a checked one finds (docs/protocol.md). A batch may hold hundreds
 * of calls; one synchronous copy per buffer would cost 5-10 us each, so
 * one table upload and one launch write them all, as cuda_patch does for
 * perturbations.
 * ------------------------------------------------------------------------ */
#include "backend/cuda/cuda_backend.h"

struct poison_range {
	unsigned char *dst;
	int64_t bytes;
};

/* One worker has one context, so the table lives here, grown as needed
 * and kept for the worker's life. */
static poison_range *table_dev, *table_host;
static int table_cap;

/* Block b writes range b (grid-stride over its 8-byte words, then the tail
 * bytes); ranges start 256-byte aligned (cudaMalloc), so words are aligned. */
static __global__ void poison_kernel(const poison_range *ranges, uint64_t pattern)
{
	const poison_range r = ranges[blockIdx.x];
	int64_t words = r.bytes / 8;
	uint64_t *w = (uint64_t *)r.dst;
	for (int64_t i = threadIdx.x; i < words; i += blockDim.x)
		w[i] = pattern;
	if (threadIdx.x == 0)
		for (int64_t b = words * 8; b < r.bytes; b++)
			r.dst[b] = (unsigned char)(pattern >> (8 * (b % 8)));
}

int nodus__cuda_poison(void *ctx, void *const *ptrs, const int64_t *bytes, int n,
		       const unsigned char pattern[8], nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	if (n <= 0)
		return 0;
	int ret = 0;
	if (n > table_cap) {
		int cap = n < 256 ? 256 : n;
		if (table_dev)
			cudaFree(table_dev);
		if (table_host)
			cudaFreeHost(table_host);
		table_dev = table_host = NULL;
		table_cap = 0;
		ret = NODUS_CUDA_CALL(err, cudaMalloc((void **)&table_dev, cap * sizeof(poison_range)));
		if (!ret)
			ret = NODUS_CUDA_CALL(err, cudaMallocHost((void **)&table_host,
								  cap * sizeof(poison_range)));
		if (ret)
			return ret;
		table_cap = cap;
	}
	for (int i = 0; i < n; i++) {
		if (((uintptr_t)ptrs[i] & 7) != 0)
			return NODUS_ERR(err, NODUS_EINVAL, "poison of an unaligned buffer");
		table_host[i].dst = (unsigned char *)ptrs[i];
		table_host[i].bytes = bytes[i];
	}
	uint64_t word;
	memcpy(&word, pattern, 8);
	(void)cudaGetLastError(); /* only our launch's error counts (see cuda_patch) */
	ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(table_dev, table_host,
						   (size_t)n * sizeof(poison_range),
						   cudaMemcpyHostToDevice, c->stream));
	if (!ret) {
		poison_kernel<<<n, 256, 0, c->stream>>>(table_dev, word);
		ret = NODUS_CUDA_CALL(err, cudaGetLastError());
	}
	/* always: the staging table must not be rewritten while a copy reads it */
	nodus_error sync_err;
	int sync = NODUS_CUDA_CALL(&sync_err, cudaStreamSynchronize(c->stream));
	if (!ret && sync) {
		*err = sync_err;
		ret = sync;
	}
	return ret;
}
