// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// matmul, shared-memory tiled and register-blocked: a 256-thread block
// computes a 64x64 tile of C, staging 64x16 slices of A and 16x64 slices of
// B in shared memory; each thread keeps a 4x4 block of C in registers, so
// every shared-memory value feeds 4 multiply-adds. Many times fewer global
// loads than naive.cu (expect FASTER than naive by well over 2x on the
// compute-bound workload; cuBLAS is faster still). Any m, n, k (bounds
// checked on load and store).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

#define TM 64
#define TN 64
#define TK 16

static __global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n,
				    int k)
{
	__shared__ float as[TK][TM];
	__shared__ float bs[TK][TN];
	int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
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
				c[(long long)r * n + cc] = acc[i][j];
		}
}

extern "C" int matmul_tiled(const nodus_call *call)
{
	int m = (int)nodus_call_axis(call, "m"), n = (int)nodus_call_axis(call, "n");
	int k = (int)nodus_call_axis(call, "k");
	dim3 grid((unsigned)(n + TN - 1) / TN, (unsigned)(m + TM - 1) / TM);
	matmul_tiled<<<grid, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
