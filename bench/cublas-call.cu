// SPDX-License-Identifier: MIT
// ---------------------------------------------------------------------------
// cublas-call.cu: where the time of suites/cuda's matmul_cublas candidate goes
// at 512 x 512 x 512 (FP32 SGEMM, default math mode), and whether it moves
// between processes (retest-28 and retest-31 timed it at 15.4-20.5 us per
// call in different processes while the naive reference held at 59-60 us).
//
// In one process, after a warm-up, it prints:
//   batch      event time per call of 33 calls back to back, with
//              cublasSetStream before each (as the candidate does) and without
//   issue      host time per call to enqueue 1000 calls (no synchronisation)
//   single     event time of one call after a synchronisation
// If "issue" is about "batch", the call is paced by the host (cuBLAS's own
// work per call), not by the GPU. Run it several times, one process each:
//     nvcc -O2 -arch=sm_90 bench/cublas-call.cu -lcublas -o /tmp/cublas-call
//     for i in 1 2 3 4 5; do /tmp/cublas-call; done
// ---------------------------------------------------------------------------
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CUDA(x)                                                                          \
	do {                                                                             \
		cudaError_t e_ = (x);                                                    \
		if (e_ != cudaSuccess) {                                                 \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));         \
			exit(1);                                                         \
		}                                                                        \
	} while (0)
#define BLAS(x)                                                                          \
	do {                                                                             \
		cublasStatus_t s_ = (x);                                                 \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                       \
			fprintf(stderr, "%s: status %d\n", #x, (int)s_);                 \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static cublasHandle_t handle;
static cudaStream_t stream;
static float *a, *b, *c;
static const int n = 512;

static void gemm(int set_stream)
{
	const float one = 1.0f, zero = 0.0f;
	if (set_stream)
		BLAS(cublasSetStream(handle, stream));
	BLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c,
			 n));
}

static double batch_us(int calls, int set_stream)
{
	cudaEvent_t e0, e1;
	CUDA(cudaEventCreate(&e0));
	CUDA(cudaEventCreate(&e1));
	CUDA(cudaStreamSynchronize(stream));
	CUDA(cudaEventRecord(e0, stream));
	for (int i = 0; i < calls; i++)
		gemm(set_stream);
	CUDA(cudaEventRecord(e1, stream));
	CUDA(cudaEventSynchronize(e1));
	float ms = 0;
	CUDA(cudaEventElapsedTime(&ms, e0, e1));
	CUDA(cudaEventDestroy(e0));
	CUDA(cudaEventDestroy(e1));
	return ms * 1e3 / calls;
}

static int cmp(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;
	return (p > q) - (p < q);
}

static double median_of(double *v, int k)
{
	qsort(v, (size_t)k, sizeof(*v), cmp);
	return v[k / 2];
}

int main(void)
{
	size_t bytes = (size_t)n * n * sizeof(float);
	CUDA(cudaMalloc((void **)&a, bytes));
	CUDA(cudaMalloc((void **)&b, bytes));
	CUDA(cudaMalloc((void **)&c, bytes));
	CUDA(cudaMemset(a, 0, bytes));
	CUDA(cudaMemset(b, 0, bytes));
	CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	BLAS(cublasCreate(&handle));
	BLAS(cublasSetStream(handle, stream));
	for (int i = 0; i < 200; i++)
		gemm(1);
	CUDA(cudaStreamSynchronize(stream));

	enum { REPS = 31 };
	double with_set[REPS], without_set[REPS], single[REPS];
	for (int r = 0; r < REPS; r++) {
		with_set[r] = batch_us(33, 1);
		without_set[r] = batch_us(33, 0);
		single[r] = batch_us(1, 1);
	}
	CUDA(cudaStreamSynchronize(stream));
	double t0 = now_s();
	for (int i = 0; i < 1000; i++)
		gemm(1);
	double issue = (now_s() - t0) * 1e6 / 1000;
	CUDA(cudaStreamSynchronize(stream));
	printf("batch %.2f us/call (cublasSetStream each call), %.2f us/call (without); "
	       "issue %.2f us/call on the host; single %.2f us\n",
	       median_of(with_set, REPS), median_of(without_set, REPS), issue,
	       median_of(single, REPS));
	BLAS(cublasDestroy(handle));
	return 0;
}
