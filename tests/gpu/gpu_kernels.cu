/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * gpu_kernels.cu: solution-like entries for tests/gpu/test-gpu-backend.c.
 *
 * Built with nvcc -shared and its own static CUDA runtime, exactly as the
 * harness builds a solution, so the test exercises the real situation: two
 * CUDA runtimes in one process sharing the device's primary context, with
 * the stream handed over in nodus_call.
 *
 * Entries (all `int ENTRY(const nodus_call *)`):
 *   spin        spins spin_ns (an axis) on one thread, on call->stream
 *   spin_rogue  the same on a stream it creates itself (the exploit the
 *               host-gap check must flag)
 *   tiny        a 1-block kernel of a few microseconds at most
 *   sum_read    reads inputs[0] (float) once, sums into outputs[0][0]
 *   fault       writes through an invalid pointer (illegal address)
 *   write_past  writes outputs[0][numel], one element past its end
 *   write_before writes outputs[0][-1], one element before its start
 *   host_probe  enqueues a host function (cudaLaunchHostFunc) on
 *               call->stream, which the runtime runs on a thread of its
 *               own: it tries to open the file host_probe_path() named and
 *               keeps the outcome for host_probe_result()
 *               (tests/gpu/test-gpu-landlock.c: a solution's code running
 *               on a driver thread must be confined too)
 * ------------------------------------------------------------------------ */
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nodus/solution.h"

static __device__ unsigned long long global_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __global__ void spin_kernel(unsigned long long ns)
{
	unsigned long long t0 = global_ns();
	while (global_ns() - t0 < ns) {
	}
}

static __global__ void tiny_kernel(float *out)
{
	out[threadIdx.x] = (float)threadIdx.x;
}

static __global__ void sum_kernel(const float *x, long long n, float *out)
{
	float acc = 0.0f;
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)gridDim.x * blockDim.x)
		acc += x[i];
	for (int off = 16; off; off >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, off);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, acc);
}

static __global__ void fault_kernel(float *p)
{
	p[threadIdx.x] = 1.0f;
}

extern "C" int spin(const nodus_call *call)
{
	long long ns = nodus_call_axis(call, "spin_ns");
	spin_kernel<<<1, 1, 0, (cudaStream_t)call->stream>>>((unsigned long long)ns);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

extern "C" int spin_rogue(const nodus_call *call)
{
	static cudaStream_t own;
	if (!own && cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess)
		return 1;
	long long ns = nodus_call_axis(call, "spin_ns");
	spin_kernel<<<1, 1, 0, own>>>((unsigned long long)ns);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

extern "C" int tiny(const nodus_call *call)
{
	tiny_kernel<<<1, 32, 0, (cudaStream_t)call->stream>>>((float *)call->outputs[0].data);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

extern "C" int sum_read(const nodus_call *call)
{
	cudaStream_t s = (cudaStream_t)call->stream;
	float *out = (float *)call->outputs[0].data;
	if (cudaMemsetAsync(out, 0, sizeof(float), s) != cudaSuccess)
		return 1;
	sum_kernel<<<132 * 4, 256, 0, s>>>((const float *)call->inputs[0].data,
					     call->inputs[0].numel, out);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

extern "C" int fault(const nodus_call *call)
{
	fault_kernel<<<1, 32, 0, (cudaStream_t)call->stream>>>((float *)0x10);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

static __global__ void store_kernel(float *at)
{
	*at = 1.0f;
}

extern "C" int write_past(const nodus_call *call)
{
	store_kernel<<<1, 1, 0, (cudaStream_t)call->stream>>>((float *)call->outputs[0].data +
								 call->outputs[0].numel);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

extern "C" int write_before(const nodus_call *call)
{
	store_kernel<<<1, 1, 0, (cudaStream_t)call->stream>>>((float *)call->outputs[0].data - 1);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

static const char *probe_path;
static volatile int probe_outcome = -1; /* 1 opened, 0 EACCES, 2 other error, -1 not run */
static volatile int probe_tid;          /* the thread the host function ran on */

static void CUDART_CB probe_host(void *arg)
{
	(void)arg;
	int fd = open(probe_path, O_RDONLY | O_CLOEXEC);
	probe_outcome = fd >= 0 ? 1 : errno == EACCES ? 0 : 2;
	if (fd >= 0)
		close(fd);
	probe_tid = (int)syscall(SYS_gettid);
}

extern "C" void host_probe_path(const char *path)
{
	probe_path = path;
}

extern "C" int host_probe(const nodus_call *call)
{
	probe_outcome = -1;
	return cudaLaunchHostFunc((cudaStream_t)call->stream, probe_host, NULL) == cudaSuccess ? 0
												 : 1;
}

/* The last probe's outcome (see probe_outcome); *tid its thread. */
extern "C" int host_probe_result(int *tid)
{
	*tid = probe_tid;
	return probe_outcome;
}
