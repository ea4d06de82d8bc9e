// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// softmax as three launches (row max, row sum, normalise) with the host
// waiting on the stream between them (cudaStreamSynchronize), the pattern
// of code that checks a flag or a size on the host mid-computation. Each
// wait empties the GPU and costs a round trip, so on a small workload it is
// several times slower than the one-launch warp.cu (expect SLOWER). Under
// time-slicing, host waits also let another context take the GPU for a
// whole time slice, which is what the contention conditions look at.
// Scratch for the row statistics is the harness workspace when it is large
// enough, else allocated once and kept (never freed: the process ends).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void row_max(const float *x, float *mx, long long rows, long long cols)
{
	long long r = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x & 31;
	if (r >= rows)
		return;
	float m = -INFINITY;
	for (long long c = lane; c < cols; c += 32)
		m = fmaxf(m, x[r * cols + c]);
	for (int off = 16; off; off >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
	if (!lane)
		mx[r] = m;
}

static __global__ void row_sum(const float *x, const float *mx, float *sm, long long rows,
			       long long cols)
{
	long long r = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x & 31;
	if (r >= rows)
		return;
	float s = 0.0f;
	for (long long c = lane; c < cols; c += 32)
		s += expf(x[r * cols + c] - mx[r]);
	for (int off = 16; off; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if (!lane)
		sm[r] = s;
}

static __global__ void normalise(const float *x, const float *mx, const float *sm, float *y,
				 long long rows, long long cols)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= rows * cols)
		return;
	long long r = i / cols;
	y[i] = expf(x[i] - mx[r]) / sm[r];
}

extern "C" int softmax_three_pass_sync(const nodus_call *call)
{
	static float *own;
	static long long own_rows;
	cudaStream_t s = (cudaStream_t)call->stream;
	long long rows = call->inputs[0].shape[0], cols = call->inputs[0].shape[1];
	float *scratch = (float *)call->workspace;
	if (!scratch || call->workspace_bytes < (long long)(2 * rows * sizeof(float))) {
		if (own_rows < rows) {
			if (cudaMalloc(&own, 2 * rows * sizeof(float)) != cudaSuccess)
				return 1;
			own_rows = rows;
		}
		scratch = own;
	}
	const float *x = (const float *)call->inputs[0].data;
	unsigned row_blocks = (unsigned)((rows + 7) / 8);
	row_max<<<row_blocks, 256, 0, s>>>(x, scratch, rows, cols);
	if (cudaStreamSynchronize(s) != cudaSuccess)
		return 1;
	row_sum<<<row_blocks, 256, 0, s>>>(x, scratch, scratch + rows, rows, cols);
	if (cudaStreamSynchronize(s) != cudaSuccess)
		return 1;
	normalise<<<(unsigned)((rows * cols + 255) / 256), 256, 0, s>>>(
		x, scratch, scratch + rows, (float *)call->outputs[0].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
