/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_clock.cu: measures the SM clock on the device itself.
 *
 * NVML reports the clock the driver set, sampled on its own schedule; what
 * a timed kernel ran at is better read where it ran. One thread on one SM
 * counts clock64() cycles against %globaltimer nanoseconds over about
 * 20 us. %globaltimer advances in coarse steps (1 us on many GPUs, a
 * multiple of 32 ns on others), so both ends of the interval are taken at
 * the instant the timer ticks: the cycle count then spans exactly the
 * nanoseconds between two ticks, and the error is a few cycles in 20 us
 * (well under 0.1%). All SMs of a GPU share one clock domain, so one SM
 * stands for the rest.
 * ------------------------------------------------------------------------ */
#include "backend/cuda/cuda_backend.h"

#define SPIN_NS 20000ULL

static __device__ __forceinline__ unsigned long long global_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Spins until %globaltimer changes from `from`; returns the new value and
 * the clock64() read right after the change in *cycles. */
static __device__ __forceinline__ unsigned long long next_tick(unsigned long long from,
							       long long *cycles)
{
	unsigned long long t;
	do {
		t = global_ns();
	} while (t == from);
	*cycles = clock64();
	return t;
}

/* out[0] = cycles, out[1] = nanoseconds between two timer ticks. */
static __global__ void clock_kernel(long long *out)
{
	long long c0, c1 = 0;
	unsigned long long t0 = next_tick(global_ns(), &c0);
	unsigned long long t1 = t0;
	while (t1 - t0 < SPIN_NS)
		t1 = next_tick(t1, &c1);
	out[0] = c1 - c0;
	out[1] = (long long)(t1 - t0);
}

int nodus__cuda_sm_clock(cuda_ctx *ctx, int32_t *mhz, nodus_error *err)
{
	long long host[2] = {0, 0};
	*mhz = 0;
	clock_kernel<<<1, 1, 0, ctx->stream>>>(ctx->clock_dev);
	int ret = NODUS_CUDA_CALL(err, cudaGetLastError());
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(host, ctx->clock_dev, sizeof host,
							   cudaMemcpyDeviceToHost, ctx->stream));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamSynchronize(ctx->stream));
	if (ret)
		return ret;
	/* cycles per ns x 1000 = MHz, rounded */
	if (host[1] > 0)
		*mhz = (int32_t)((host[0] * 1000 + host[1] / 2) / host[1]);
	return 0;
}
