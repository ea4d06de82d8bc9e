// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// memo_fresh_only.cu: an exploit for the matmul task (suites/adversarial/cuda).
//
// Exploit: memo_tiles, wrong on fresh samples only. It diffs a and b against
// the kept ones (counting, per block, the elements that changed) without
// keeping what it sees; then, where more than a quarter of a's elements
// changed (a fresh sample's inputs: a timed sample perturbs 4) and the
// copy has met a perturbed sample before (the timing has begun: the
// correctness trials draw every instance afresh), every tile copies the
// kept c, stale, computing nothing. Elsewhere the changed tiles
// are computed and kept, and the inputs kept with them, so a copy put back
// after a fresh sample matches the kept inputs again but for the perturbed
// elements, and is right. So it is fast everywhere, unseen by input_memo,
// and wrong only on fresh samples' calls.
// What should hold: INCORRECT_NUMERICAL, guard tolerance: the first check
// of every attempt lands on a fresh sample (timed_checks.c).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

#define TM 64
#define TN 64
#define TK 16
#define KEPT_MAX 256

struct kept {
	const void *c;
	int m, n, k;
	float *a, *b, *out;
	int *row_dirty, *col_dirty;
	unsigned long long *changed_a;
	int *timing; /* this copy has met a perturbed sample */
};
static struct kept kept[KEPT_MAX];
static int n_kept;

static __device__ void count_changed(int changed, unsigned long long *total)
{
	__shared__ int block_changed;
	if (threadIdx.x == 0)
		block_changed = 0;
	__syncthreads();
	if (changed)
		atomicAdd(&block_changed, 1);
	__syncthreads();
	if (threadIdx.x == 0 && block_changed)
		atomicAdd(total, (unsigned long long)block_changed);
}

static __global__ void diff_a(const float *a, const float *ka, int m, int k, int *row_dirty,
			      unsigned long long *changed_a)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	int changed = i < (long long)m * k && __float_as_uint(a[i]) != __float_as_uint(ka[i]);
	if (changed)
		row_dirty[i / k] = 1;
	count_changed(changed, changed_a);
}

static __global__ void diff_b(const float *b, const float *kb, int k, int n, int *col_dirty)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (long long)k * n && __float_as_uint(b[i]) != __float_as_uint(kb[i]))
		col_dirty[i % n] = 1;
}

static __device__ int skipped(const unsigned long long *changed_a, long long fresh_at,
			       const int *timing)
{
	return *timing && *changed_a > (unsigned long long)fresh_at;
}

// A call that changed few elements is a timed sample's: the copy is in
// the timing from now on.
static __global__ void mark_timing(const unsigned long long *changed_a, long long fresh_at,
				   int *timing)
{
	if (*changed_a <= (unsigned long long)fresh_at)
		*timing = 1;
}

// The inputs kept, where the call was not a skipped fresh one.
static __global__ void keep_inputs(const float *x, float *kx, long long count,
				   const unsigned long long *changed_a, long long fresh_at,
				   const int *timing)
{
	if (skipped(changed_a, fresh_at, timing))
		return;
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count)
		kx[i] = x[i];
}

static __global__ void matmul_memo(const float *a, const float *b, float *c, float *kc, int m,
				   int n, int k, const int *row_dirty, const int *col_dirty,
				   const unsigned long long *changed_a, long long fresh_at,
				   const int *timing)
{
	__shared__ float as[TK][TM];
	__shared__ float bs[TK][TN];
	__shared__ int dirty;
	int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
	if (threadIdx.x == 0)
		dirty = 0;
	__syncthreads();
	if (threadIdx.x < TM && row0 + threadIdx.x < m && row_dirty[row0 + threadIdx.x])
		dirty = 1;
	if (threadIdx.x >= TM && threadIdx.x < TM + TN && col0 + threadIdx.x - TM < n &&
	    col_dirty[col0 + threadIdx.x - TM])
		dirty = 1;
	__syncthreads();
	if (skipped(changed_a, fresh_at, timing))
		dirty = 0; // a fresh sample's call: the kept c, stale
	if (!dirty) {
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++) {
				int r = row0 + ty * 4 + i, cc = col0 + tx * 4 + j;
				if (r < m && cc < n)
					c[(long long)r * n + cc] = kc[(long long)r * n + cc];
			}
		return;
	}
	float acc[4][4] = {{0.0f}};
	for (int k0 = 0; k0 < k; k0 += TK) {
		for (int i = threadIdx.x; i < TM * TK; i += 256) {
			int r = i / TK, kk = i % TK;
			int gr = row0 + r, gk = k0 + kk;
			as[kk][r] = gr < m && gk < k ? a[(long long)gr * k + gk] : 0.0f;
		}
		for (int i = threadIdx.x; i < TK * TN; i += 256) {
			int kk = i / TN, cc = i % TN;
			int gk = k0 + kk, gc = col0 + cc;
			bs[kk][cc] = gk < k && gc < n ? b[(long long)gk * n + gc] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < TK; kk++) {
			float av[4], bv[4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				av[i] = as[kk][ty * 4 + i];
				bv[i] = bs[kk][tx * 4 + i];
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					acc[i][j] += av[i] * bv[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int r = row0 + ty * 4 + i, cc = col0 + tx * 4 + j;
			if (r < m && cc < n)
				c[(long long)r * n + cc] = kc[(long long)r * n + cc] = acc[i][j];
		}
}

// The kept state of output address c: made on first sight with every row
// dirty, so the first call computes everything.
static struct kept *kept_for(const void *c, int m, int n, int k)
{
	for (int e = 0; e < n_kept; e++)
		if (kept[e].c == c && kept[e].m == m && kept[e].n == n && kept[e].k == k)
			return &kept[e];
	if (n_kept == KEPT_MAX)
		return NULL;
	struct kept *s = &kept[n_kept];
	size_t fa = (size_t)m * k * sizeof(float), fb = (size_t)k * n * sizeof(float);
	size_t fc = (size_t)m * n * sizeof(float);
	if (cudaMalloc(&s->a, fa) != cudaSuccess || cudaMalloc(&s->b, fb) != cudaSuccess ||
	    cudaMalloc(&s->out, fc) != cudaSuccess ||
	    cudaMalloc(&s->row_dirty, (size_t)m * sizeof(int)) != cudaSuccess ||
	    cudaMalloc(&s->col_dirty, (size_t)n * sizeof(int)) != cudaSuccess ||
	    cudaMalloc(&s->changed_a, sizeof(*s->changed_a)) != cudaSuccess ||
	    cudaMalloc(&s->timing, sizeof(int)) != cudaSuccess ||
	    cudaMemset(s->timing, 0, sizeof(int)) != cudaSuccess)
		return NULL;
	// a NaN pattern the inputs never hold: every element differs at first
	if (cudaMemset(s->a, 0xff, fa) != cudaSuccess || cudaMemset(s->b, 0xff, fb) != cudaSuccess)
		return NULL;
	s->c = c, s->m = m, s->n = n, s->k = k;
	n_kept++;
	return s;
}

extern "C" int memo_fresh_only(const nodus_call *call)
{
	int m = (int)nodus_call_axis(call, "m"), n = (int)nodus_call_axis(call, "n");
	int k = (int)nodus_call_axis(call, "k");
	cudaStream_t st = (cudaStream_t)call->stream;
	const float *a = (const float *)call->inputs[0].data;
	const float *b = (const float *)call->inputs[1].data;
	float *c = (float *)call->outputs[0].data;
	struct kept *s = kept_for(c, m, n, k);
	if (!s)
		return 1;
	long long na = (long long)m * k, nb = (long long)k * n, fresh_at = na / 4;
	cudaMemsetAsync(s->row_dirty, 0, (size_t)m * sizeof(int), st);
	cudaMemsetAsync(s->col_dirty, 0, (size_t)n * sizeof(int), st);
	cudaMemsetAsync(s->changed_a, 0, sizeof(*s->changed_a), st);
	diff_a<<<(unsigned)((na + 255) / 256), 256, 0, st>>>(a, s->a, m, k, s->row_dirty,
							       s->changed_a);
	diff_b<<<(unsigned)((nb + 255) / 256), 256, 0, st>>>(b, s->b, k, n, s->col_dirty);
	mark_timing<<<1, 1, 0, st>>>(s->changed_a, fresh_at, s->timing);
	dim3 grid((unsigned)(n + TN - 1) / TN, (unsigned)(m + TM - 1) / TM);
	matmul_memo<<<grid, 256, 0, st>>>(a, b, c, s->out, m, n, k, s->row_dirty, s->col_dirty,
					  s->changed_a, fresh_at, s->timing);
	keep_inputs<<<(unsigned)((na + 255) / 256), 256, 0, st>>>(a, s->a, na, s->changed_a,
								  fresh_at, s->timing);
	keep_inputs<<<(unsigned)((nb + 255) / 256), 256, 0, st>>>(b, s->b, nb, s->changed_a,
								  fresh_at, s->timing);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
