// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// matmul through cuBLAS (build.link ["cublas"], tag "library"): plain FP32
// SGEMM, default math mode (no TF32), on the harness stream. cuBLAS is
// column-major, so C^T = B^T A^T is computed: row-major C[m,n] is
// column-major C^T[n,m]. The handle is created once on first call (its
// setup is bounded by the watchdog, like ENTRY_setup) and bound to
// call->stream on every call, since the harness may change streams.
// ---------------------------------------------------------------------------
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "nodus/solution.h"

extern "C" int matmul_cublas_setup(const nodus_call *call);

static cublasHandle_t handle;

extern "C" int matmul_cublas_setup(const nodus_call *call)
{
	(void)call;
	if (handle)
		return 0;
	return cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}

extern "C" int matmul_cublas(const nodus_call *call)
{
	if (matmul_cublas_setup(call))
		return 1;
	int m = (int)nodus_call_axis(call, "m"), n = (int)nodus_call_axis(call, "n");
	int k = (int)nodus_call_axis(call, "k");
	const float one = 1.0f, zero = 0.0f;
	if (cublasSetStream(handle, (cudaStream_t)call->stream) != CUBLAS_STATUS_SUCCESS)
		return 1;
	cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
					(const float *)call->inputs[1].data, n,
					(const float *)call->inputs[0].data, k, &zero,
					(float *)call->outputs[0].data, n);
	return st == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}
