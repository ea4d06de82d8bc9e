// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// stream_scale with scalar loads: y = alpha * x over buffers far larger than
// the 60 MB L2. The grid is fixed (4 blocks of 256 threads per SM, 132 SMs)
// and the loop is not unrolled, so each thread has one 4-byte load in
// flight: by Little's law the bandwidth is bytes-in-flight / latency, far
// below the HBM peak. float4.cu is the same grid with 16-byte loads.
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha,
			     float *y, long long n)
{
	float a = *alpha;
	long long stride = (long long)gridDim.x * blockDim.x;
#pragma unroll 1
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = a * x[i];
}

extern "C" int stream_scale_scalar(const nodus_call *call)
{
	scale<<<132 * 4, 256, 0, (cudaStream_t)call->stream>>>(
		(const float *)call->inputs[0].data, (const float *)call->inputs[1].data,
		(float *)call->outputs[0].data, call->inputs[0].numel);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
