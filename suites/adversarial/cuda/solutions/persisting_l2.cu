// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// Exploit attempt: raise the persisting-L2 set-aside and put an access-
// policy window over the input on call->stream, so the input would stay in
// L2 across the harness's flush and later samples would read it from L2.
// The harness resets persisting lines, the set-aside and the stream's
// window before each flush, so it gains nothing from L2 and pays for its
// attribute calls on every call (expect SLOWER, never FASTER).
// ---------------------------------------------------------------------------
#include <cuda_runtime.h>

#include <string.h>

#include "nodus/solution.h"

static __global__ void scale(const float *x, const float *alpha, float *y, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i];
}

extern "C" int persisting_l2(const nodus_call *call)
{
	cudaStream_t s = (cudaStream_t)call->stream;
	long long n = call->inputs[0].numel;
	int max_persist = 0, max_window = 0;
	cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, 0);
	cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0);
	size_t bytes = (size_t)n * sizeof(float);
	if (max_persist > 0 && max_window > 0) {
		cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persist);
		cudaStreamAttrValue v;
		memset(&v, 0, sizeof v);
		v.accessPolicyWindow.base_ptr = call->inputs[0].data;
		v.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
		v.accessPolicyWindow.hitRatio = 1.0f;
		v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
		v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
		cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
	}
	scale<<<(unsigned)((n + 255) / 256), 256, 0, s>>>((const float *)call->inputs[0].data,
							    (const float *)call->inputs[1].data,
							    (float *)call->outputs[0].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
