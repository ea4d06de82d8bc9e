// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// row_mean_loose reference: y[r] = mean of x[r, :], one warp per row (each
// lane sums cols/32 strided elements, then a shuffle reduction), 8 warps
// per 256-thread block.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void row_mean(const float *x, float *y, long long rows, long long cols)
{
	long long r = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	if (r >= rows)
		return;
	float s = 0.0f;
	for (long long c = lane; c < cols; c += 32)
		s += x[r * cols + c];
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if (lane == 0)
		y[r] = s / (float)cols;
}

extern "C" int row_mean_loose_ref(const nodus_call *call)
{
	long long rows = nodus_call_axis(call, "rows");
	long long cols = nodus_call_axis(call, "cols");
	unsigned blocks = (unsigned)((rows + 7) / 8);
	row_mean<<<blocks, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (float *)call->outputs[0].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
