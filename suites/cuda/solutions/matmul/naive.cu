// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// matmul, naive: C[m,n] = A[m,k] B[k,n], one thread per output element,
// every operand read from global memory (through L1/L2). The slow end of
// the GEMM pairs; the A/A pair times it against itself.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void matmul(const float *a, const float *b, float *c, int m, int n, int k)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= m || col >= n)
		return;
	float acc = 0.0f;
	for (int i = 0; i < k; i++)
		acc += a[(long long)row * k + i] * b[(long long)i * n + col];
	c[(long long)row * n + col] = acc;
}

extern "C" int matmul_naive(const nodus_call *call)
{
	int m = (int)nodus_call_axis(call, "m"), n = (int)nodus_call_axis(call, "n");
	int k = (int)nodus_call_axis(call, "k");
	dim3 block(16, 16), grid((unsigned)(n + 15) / 16, (unsigned)(m + 15) / 16);
	matmul<<<grid, block, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
