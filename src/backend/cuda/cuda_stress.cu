/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_stress.cu: GPU co-tenant loads for the sharing conditions
 * (timeslice, mps, streams).
 *
 * A load is one of:
 *   membw    a grid-stride copy between two 1 GiB buffers (far beyond the
 *            60 MB L2 of an H200), so it competes for HBM bandwidth;
 *   fma      independent FMA chains in registers, competing for SM issue
 *            slots;
 *   mixed    the two alternating.
 * Each burst is a few milliseconds of kernels; a duty cycle d keeps the load
 * busy d x 100 ms of every 100 ms period. What the load achieved (bytes or
 * flops per second, from events around its own kernels) is what gets
 * recorded beside the declared setting.
 *
 * Two entry points share the kernels: nodus_cuda_stress_main() is the body
 * of a co-tenant process (`nodus __gpustress`), printing its rate every
 * 200 ms; nodus_cuda_streams_start()/stop() run N loads on N streams of the
 * measuring process itself, from one host thread, for the streams
 * condition.
 * ------------------------------------------------------------------------ */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STRESS_BYTES ((size_t)1 << 30)

#define STRESS_EXPORT extern "C" __attribute__((visibility("default")))

static int stress_check(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return 0;
	fprintf(stderr, "nodus stress: %s: %s\n", what, cudaGetErrorName(e));
	return -1;
}

__global__ void stress_copy(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		dst[i] = src[i];
}

__global__ void stress_fma(float *out, int iters)
{
	float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 1e-7f, d = 0.5f, e = 0.25f;
	for (int i = 0; i < iters; i++) {
		a = fmaf(a, b, c);
		d = fmaf(d, b, c);
		e = fmaf(e, b, c);
	}
	if (a + d + e == -1.0f) /* never: keeps the chains alive */
		out[threadIdx.x] = a;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct load {
	cudaStream_t stream;
	float4 *a, *b;          /* membw buffers */
	float *sink;            /* fma output */
	int membw, mixed;       /* kind */
	int sms;                /* multiprocessors, for grid sizes */
	unsigned long phase;    /* alternation for mixed */
};

static int load_open(struct load *l, const char *kind, cudaStream_t stream)
{
	memset(l, 0, sizeof(*l));
	l->membw = strcmp(kind, "membw") == 0;
	l->mixed = strcmp(kind, "mixed") == 0;
	l->stream = stream;
	int dev = 0;
	if (stress_check(cudaGetDevice(&dev), "cudaGetDevice") ||
	    stress_check(cudaDeviceGetAttribute(&l->sms, cudaDevAttrMultiProcessorCount, dev),
			 "cudaDeviceGetAttribute"))
		return -1;
	if ((l->membw || l->mixed) &&
	    (stress_check(cudaMalloc(&l->a, STRESS_BYTES), "cudaMalloc") ||
	     stress_check(cudaMalloc(&l->b, STRESS_BYTES), "cudaMalloc") ||
	     stress_check(cudaMemset(l->a, 0, STRESS_BYTES), "cudaMemset")))
		return -1;
	return stress_check(cudaMalloc(&l->sink, 4096), "cudaMalloc");
}

static void load_close(struct load *l)
{
	cudaFree(l->a);
	cudaFree(l->b);
	cudaFree(l->sink);
}

/* Enqueues one burst; returns the work it represents (bytes or flops). */
static double load_burst(struct load *l)
{
	int mem = l->membw || (l->mixed && (l->phase++ & 1));
	if (mem) {
		size_t n = STRESS_BYTES / sizeof(float4);
		stress_copy<<<l->sms * 8, 256, 0, l->stream>>>(l->a, l->b, n);
		return 2.0 * (double)STRESS_BYTES;
	}
	const int iters = 20000;
	stress_fma<<<l->sms * 8, 256, 0, l->stream>>>(l->sink, iters);
	return (double)l->sms * 8 * 256 * iters * 3 * 2;
}

/* Runs bursts for busy_s, waiting for each to finish; returns the work. */
static double load_run(struct load *l, double busy_s)
{
	double work = 0, until = now_s() + busy_s;
	while (now_s() < until) {
		work += load_burst(l);
		if (cudaStreamSynchronize(l->stream) != cudaSuccess)
			return -1;
	}
	return work;
}

STRESS_EXPORT int nodus_cuda_stress_main(const char *kind, double duty)
{
	if (duty <= 0 || duty > 1)
		duty = 1;
	cudaStream_t s;
	struct load l;
	if (stress_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream") ||
	    load_open(&l, kind, s))
		return 1;
	double work = 0, window = now_s();
	for (;;) {
		double start = now_s();
		double w = load_run(&l, 0.1 * duty);
		if (w < 0) {
			stress_check(cudaGetLastError(), "load kernel");
			return 1;
		}
		work += w;
		double rest = start + 0.1 - now_s();
		if (rest > 0) {
			struct timespec ts = {0, (long)(rest * 1e9)};
			nanosleep(&ts, NULL);
		}
		double t = now_s();
		if (t - window >= 0.2) {
			printf("%.0f\n", work / (t - window));
			fflush(stdout);
			work = 0;
			window = t;
		}
	}
	load_close(&l);
	return 0;
}

/* ---- loads on streams of the measuring process ---- */

struct streams_load {
	pthread_t thread;
	volatile int stop;
	int paused;           /* asked to pause (atomic) */
	int idle;             /* paused, with nothing in flight (atomic) */
	int n;
	double duty;
	char kind[16];
	double work;          /* total work done */
	double busy_s;        /* total time the loads were running */
	int failed;
};

static void *streams_thread(void *arg)
{
	struct streams_load *sl = (struct streams_load *)arg;
	struct load loads[16];
	int n = sl->n > 16 ? 16 : sl->n;
	for (int i = 0; i < n; i++) {
		cudaStream_t s;
		if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
		    load_open(&loads[i], sl->kind, s)) {
			__atomic_store_n(&sl->failed, 1, __ATOMIC_RELEASE);
			return NULL;
		}
	}
	double t0 = now_s(), paused_s = 0;
	while (!sl->stop) {
		if (__atomic_load_n(&sl->paused, __ATOMIC_ACQUIRE)) {
			/* nothing of ours in flight while the other side's worker runs */
			for (int i = 0; i < n; i++)
				cudaStreamSynchronize(loads[i].stream);
			double p0 = now_s();
			__atomic_store_n(&sl->idle, 1, __ATOMIC_RELEASE);
			while (!sl->stop && __atomic_load_n(&sl->paused, __ATOMIC_ACQUIRE)) {
				struct timespec ts = {0, 20 * 1000};
				nanosleep(&ts, NULL);
			}
			__atomic_store_n(&sl->idle, 0, __ATOMIC_RELEASE);
			paused_s += now_s() - p0;
			continue;
		}
		double start = now_s(), until = start + 0.1 * sl->duty;
		while (!sl->stop && !__atomic_load_n(&sl->paused, __ATOMIC_ACQUIRE) &&
		       now_s() < until) {
			for (int i = 0; i < n; i++)
				sl->work += load_burst(&loads[i]);
			for (int i = 0; i < n; i++)
				cudaStreamSynchronize(loads[i].stream);
		}
		double rest = start + 0.1 - now_s();
		if (!sl->stop && !__atomic_load_n(&sl->paused, __ATOMIC_ACQUIRE) && rest > 0) {
			struct timespec ts = {0, (long)(rest * 1e9)};
			nanosleep(&ts, NULL);
		}
	}
	sl->busy_s = now_s() - t0 - paused_s;
	for (int i = 0; i < n; i++) {
		cudaStreamSynchronize(loads[i].stream);
		load_close(&loads[i]);
		cudaStreamDestroy(loads[i].stream);
	}
	return NULL;
}

/* Starts n loads on n streams of this process; returns a handle or NULL. */
STRESS_EXPORT void *nodus_cuda_streams_start(const char *kind, int n, double duty)
{
	struct streams_load *sl = (struct streams_load *)calloc(1, sizeof(*sl));
	if (!sl)
		return NULL;
	sl->n = n;
	sl->duty = duty > 0 && duty <= 1 ? duty : 1;
	snprintf(sl->kind, sizeof(sl->kind), "%s", kind);
	if (pthread_create(&sl->thread, NULL, streams_thread, sl)) {
		free(sl);
		return NULL;
	}
	return sl;
}

/* Pauses (paused 1) or resumes (0) the loads. A pause returns once the
 * loads have nothing in flight, so the GPU is the other worker's alone. */
STRESS_EXPORT int nodus_cuda_streams_pause(void *handle, int paused)
{
	struct streams_load *sl = (struct streams_load *)handle;
	if (!sl)
		return -1;
	__atomic_store_n(&sl->paused, paused ? 1 : 0, __ATOMIC_RELEASE);
	if (!paused)
		return 0;
	while (!__atomic_load_n(&sl->idle, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&sl->failed, __ATOMIC_ACQUIRE)) {
		struct timespec ts = {0, 20 * 1000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Stops the loads; *rate gets the achieved work per second. Returns 0, or
 * -1 when the loads could not run. */
STRESS_EXPORT int nodus_cuda_streams_stop(void *handle, double *rate)
{
	struct streams_load *sl = (struct streams_load *)handle;
	if (!sl)
		return -1;
	sl->stop = 1;
	pthread_join(sl->thread, NULL);
	*rate = sl->busy_s > 0 ? sl->work / sl->busy_s : 0;
	int failed = sl->failed;
	free(sl);
	return failed ? -1 : 0;
}
