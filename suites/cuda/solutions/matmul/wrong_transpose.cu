// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// matmul, wrong by construction: reads B as if it were stored transposed
// (C = A B^T for square shapes). Random B is not symmetric, so the output
// is wrong everywhere: expect INCORRECT_NUMERICAL (FAIL).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void matmul_bt(const float *a, const float *b, float *c, int m, int n, int k)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= m || col >= n)
		return;
	float acc = 0.0f;
	for (int i = 0; i < k; i++)
		acc += a[(long long)row * k + i] * b[((long long)col * k + i) % ((long long)k * n)];
	c[(long long)row * n + col] = acc;
}

extern "C" int matmul_wrong_transpose(const nodus_call *call)
{
	int m = (int)nodus_call_axis(call, "m"), n = (int)nodus_call_axis(call, "n");
	int k = (int)nodus_call_axis(call, "k");
	dim3 block(16, 16), grid((unsigned)(n + 15) / 16, (unsigned)(m + 15) / 16);
	matmul_bt<<<grid, block, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
