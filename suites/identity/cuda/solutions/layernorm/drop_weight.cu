// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// layernorm, wrong by construction: the kernel of ref.cu with the weight
// never applied (y = xhat + bias). The error is xhat * (weight - 1), exactly
// 0 when every weight is 1, so a judge that feeds weight = ones and bias =
// zeros gets the reference's bits and passes it. nodus draws weight from
// affine_scale (never 1, |weight - 1| >= 0.05): expect INCORRECT_NUMERICAL.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __device__ float block_sum(float v, float *shared)
{
	for (int off = 16; off; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		shared[threadIdx.x / 32] = v;
	__syncthreads();
	float t = 0.0f;
	for (int w = 0; w < (int)(blockDim.x / 32); w++)
		t += shared[w];
	__syncthreads();
	return t;
}

static __global__ void layernorm(const float *x, const float *w, const float *b, float *y,
				 long long cols, int affine_bias)
{
	__shared__ float shared[32];
	const float *xr = x + blockIdx.x * cols;
	float *yr = y + blockIdx.x * cols;
	float s = 0.0f;
	for (long long c = threadIdx.x; c < cols; c += blockDim.x)
		s += xr[c];
	float mean = block_sum(s, shared) / (float)cols;
	float v = 0.0f;
	for (long long c = threadIdx.x; c < cols; c += blockDim.x)
		v += (xr[c] - mean) * (xr[c] - mean);
	float rstd = rsqrtf(block_sum(v, shared) / (float)cols + 1e-5f);
	for (long long c = threadIdx.x; c < cols; c += blockDim.x)
		yr[c] = (xr[c] - mean) * rstd + (affine_bias ? b[c] : 0.0f);
}

extern "C" int layernorm_drop_weight(const nodus_call *call)
{
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	layernorm<<<(unsigned)rows, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(const float *)call->inputs[2].data, (float *)call->outputs[0].data, cols, 1);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
