/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_backend.cu: the nodus_backend_ops of the CUDA backend.
 *
 * Timing protocol of one sample (docs/cuda.md explains each choice):
 *   flush:      reset persisting L2 lines, clear any access-policy window a
 *               solution put on the harness stream, memset a 2 x L2 buffer
 *               on that stream and record `flushed` (asynchronous);
 *   time_batch: wait for `flushed` (so host time excludes the flush), take
 *               the host clock, record `start`, call the entry `batch` times
 *               with call->stream = the harness stream, record `stop`,
 *               cudaDeviceSynchronize (device-wide: work a solution hid on
 *               another stream is waited for too), take the host clock,
 *               read the event time, then measure the SM clock.
 * A solution that enqueues its work elsewhere than call->stream shows as an
 * event time far below the host time; the worker flags it.
 *
 * Errors: every CUDA call goes through NODUS_CUDA_CALL. A sticky error
 * (illegal address, launch failure ...) corrupts the context: every later
 * call reports it again, and the worker must end the process.
 * ------------------------------------------------------------------------ */
#include "backend/cuda/cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int nodus__cuda_check(cudaError_t rc, const char *call, const char *file, int line,
		      nodus_error *err)
{
	if (rc == cudaSuccess)
		return 0;
	return nodus__error_set(err, file, line, NODUS_ECUDA, "%s: cuda error %s: %s (%s:%d)",
				call, cudaGetErrorName(rc), cudaGetErrorString(rc), file, line);
}

/* Device ordinal from $NODUS_CUDA_DEVICE, default 0. */
static int pick_device(int *device, nodus_error *err)
{
	int count = 0;
	cudaError_t rc = cudaGetDeviceCount(&count);
	if (rc != cudaSuccess || count == 0) {
		/* No driver, a driver too old, or no device: not a harness bug. */
		return nodus__error_set(err, __FILE__, __LINE__, NODUS_EUNAVAILABLE,
					"no CUDA driver or GPU: %s",
					rc != cudaSuccess ? cudaGetErrorName(rc) : "0 devices");
	}
	*device = 0;
	const char *env = getenv("NODUS_CUDA_DEVICE");
	if (env && *env) {
		char *end = NULL;
		long v = strtol(env, &end, 10);
		if (*end || v < 0 || v >= count)
			return NODUS_ERR(err, NODUS_EINVAL,
					 "NODUS_CUDA_DEVICE: expected a device index in [0, %d), "
					 "got '%s'", count, env);
		*device = (int)v;
	}
	return 0;
}

/* Formats a CUDA UUID the way nvidia-smi prints a GPU's. On a MIG slice
 * CUDA reports the slice's UUID, which NVML knows with a MIG- prefix
 * instead (cuda_fingerprint.cu tries both). */
static void format_uuid(const cudaUUID_t *u, char *out, size_t size)
{
	const unsigned char *b = (const unsigned char *)u->bytes;
	snprintf(out, size,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Device facts the protocol needs: L2 size, SMs, persisting-L2 limit. */
static int read_device(cuda_ctx *c, nodus_error *err)
{
	int ret = NODUS_CUDA_CALL(err, cudaDeviceGetAttribute(&c->l2_bytes, cudaDevAttrL2CacheSize,
							      c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceGetAttribute(&c->sm_count,
								  cudaDevAttrMultiProcessorCount,
								  c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceGetAttribute(&c->persisting_l2_max_bytes,
								  cudaDevAttrMaxPersistingL2CacheSize,
								  c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceGetPCIBusId(c->pci_bus_id,
								 (int)sizeof c->pci_bus_id,
								 c->device));
	cudaDeviceProp prop;
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaGetDeviceProperties(&prop, c->device));
	if (!ret)
		format_uuid(&prop.uuid, c->uuid, sizeof c->uuid);
	return ret;
}

/* Persisting L2 lines would survive the flush; no set-aside means none can
 * be made persisting. Devices without the feature (MIG slices) report a
 * maximum of 0 and are left alone. */
static int disable_persisting_l2(cuda_ctx *c, nodus_error *err)
{
	if (c->persisting_l2_max_bytes <= 0)
		return 0;
	size_t limit = 0;
	int ret = NODUS_CUDA_CALL(err, cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
	if (!ret && limit != 0)
		ret = NODUS_CUDA_CALL(err, cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
	return ret;
}

static void cuda_close(void *ctx)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	if (!c)
		return;
	/* Errors are ignored here: after a sticky fault every call fails and
	 * the process is about to end anyway. */
	if (c->flush_buf)
		cudaFree(c->flush_buf);
	if (c->clock_dev)
		cudaFree(c->clock_dev);
	if (c->patch_dev)
		cudaFree(c->patch_dev);
	if (c->patch_host)
		cudaFreeHost(c->patch_host);
	nodus__cuda_fill_release(c);
	nodus__cuda_guard_release(c);
	if (c->start)
		cudaEventDestroy(c->start);
	if (c->stop)
		cudaEventDestroy(c->stop);
	if (c->flushed)
		cudaEventDestroy(c->flushed);
	if (c->stream)
		cudaStreamDestroy(c->stream);
	free(c);
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cuda_open(void **ctx, nodus_error *err)
{
	*ctx = NULL;
	cuda_ctx *c = (cuda_ctx *)calloc(1, sizeof *c);
	if (!c)
		return NODUS_ERR(err, NODUS_ENOMEM, "cuda backend: out of memory");
	double t0 = seconds_now();
	int ret = pick_device(&c->device, err);
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaSetDevice(c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaFree(0)); /* creates the context now */
	double t1 = seconds_now();
	c->context_s = t1 - t0;
	if (!ret)
		ret = read_device(c, err);
	if (!ret)
		ret = disable_persisting_l2(c, err);
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamCreateWithFlags(&c->stream,
								     cudaStreamNonBlocking));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaEventCreate(&c->start));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaEventCreate(&c->stop));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaEventCreateWithFlags(&c->flushed,
								    cudaEventDisableTiming));
	c->flush_bytes = 2 * (size_t)c->l2_bytes;
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMalloc(&c->flush_buf, c->flush_bytes));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMalloc(&c->clock_dev, 4 * sizeof(long long)));
	if (!ret) /* now, before any solution can have taken the device's memory */
		ret = nodus__cuda_fill_init(c, err);
	if (!ret)
		ret = nodus__cuda_guard_init(c, err);
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceSynchronize());
	c->setup_s = seconds_now() - t1;
	if (ret) {
		cuda_close(c);
		return ret;
	}
	*ctx = c;
	return 0;
}

static void cuda_open_cost(void *ctx, double *context_s, double *setup_s)
{
	const cuda_ctx *c = (const cuda_ctx *)ctx;
	*context_s = c->context_s;
	*setup_s = c->setup_s;
}

/* Every buffer lies between canaries (cuda_guard.cu). */
static int cuda_alloc(void *ctx, size_t bytes, void **ptr, nodus_error *err)
{
	return nodus__cuda_guard_alloc((cuda_ctx *)ctx, bytes, ptr, err);
}

static void cuda_free(void *ctx, void *ptr)
{
	if (ptr && !nodus__cuda_guard_free((cuda_ctx *)ctx, ptr))
		cudaFree(ptr); /* cannot report; a sticky error shows on the next call */
}

/* Copies go on the harness stream: plain cudaMemcpy uses the legacy default
 * stream, which does not wait for a non-blocking stream. */
static int copy_sync(cuda_ctx *c, void *dst, const void *src, size_t bytes,
		     cudaMemcpyKind kind, nodus_error *err)
{
	int ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(dst, src, bytes, kind, c->stream));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamSynchronize(c->stream));
	return ret;
}

static int cuda_upload(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err)
{
	return copy_sync((cuda_ctx *)ctx, dst, src, bytes, cudaMemcpyHostToDevice, err);
}

static int cuda_download(void *ctx, void *dst, const void *src, size_t bytes,
			 nodus_error *err)
{
	return copy_sync((cuda_ctx *)ctx, dst, src, bytes, cudaMemcpyDeviceToHost, err);
}

/* cudaHostRegister, not cudaMallocHost: the worker keeps its host buffers
 * from malloc, and only the one every output passes through is pinned. */
static int cuda_host_pin(void *ctx, void *ptr, size_t bytes, nodus_error *err)
{
	(void)ctx;
	int ret = NODUS_CUDA_CALL(err, cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
	if (ret) /* the caller goes on unpinned: leave no error for a solution's
		  * cudaGetLastError (one sharing the runtime) to find */
		(void)cudaGetLastError();
	return ret;
}

static void cuda_host_unpin(void *ctx, void *ptr)
{
	(void)ctx;
	(void)cudaHostUnregister(ptr);
}

static int cuda_copy(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err)
{
	return copy_sync((cuda_ctx *)ctx, dst, src, bytes, cudaMemcpyDeviceToDevice, err);
}

static int cuda_copy_many(void *ctx, const nodus_copy *copies, int n, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	int ret = 0;
	for (int i = 0; !ret && i < n; i++)
		if (copies[i].bytes)
			ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(copies[i].dst, copies[i].src,
								   copies[i].bytes,
								   cudaMemcpyDeviceToDevice, c->stream));
	/* always: a copy already queued must be done before the caller goes on */
	nodus_error sync_err;
	int sync = NODUS_CUDA_CALL(&sync_err, cudaStreamSynchronize(c->stream));
	if (!ret && sync) {
		*err = sync_err;
		ret = sync;
	}
	return ret;
}

static __global__ void patch_kernel(const nodus_patch *patches, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned char *dst = (unsigned char *)patches[i].dst;
	for (uint32_t b = 0; b < patches[i].bytes; b++)
		dst[b] = patches[i].value[b];
}

/* The table goes through a pinned staging buffer in one copy, then one
 * launch writes every patch. */
static int cuda_patch(void *ctx, const nodus_patch *patches, int n, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (patches[i].bytes < 1 || patches[i].bytes > 8)
			return NODUS_ERR(err, NODUS_EINVAL, "patch of %u bytes", patches[i].bytes);
	int ret = 0;
	if (n > c->patch_cap) {
		int cap = n < 1024 ? 1024 : n;
		if (c->patch_dev)
			cudaFree(c->patch_dev);
		if (c->patch_host)
			cudaFreeHost(c->patch_host);
		c->patch_dev = NULL;
		c->patch_host = NULL;
		c->patch_cap = 0;
		ret = NODUS_CUDA_CALL(err, cudaMalloc((void **)&c->patch_dev, cap * sizeof(nodus_patch)));
		if (!ret)
			ret = NODUS_CUDA_CALL(err, cudaMallocHost((void **)&c->patch_host,
								  cap * sizeof(nodus_patch)));
		if (ret)
			return ret;
		c->patch_cap = cap;
	}
	memcpy(c->patch_host, patches, (size_t)n * sizeof(nodus_patch));
	/* time_batch and call_sync report a solution's launch errors; one
	 * left behind anyway is not this op's: clear it so the check after
	 * our launch sees only ours. A sticky fault still fails the copy or
	 * the synchronisation below. */
	(void)cudaGetLastError();
	ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(c->patch_dev, c->patch_host,
						   (size_t)n * sizeof(nodus_patch),
						   cudaMemcpyHostToDevice, c->stream));
	if (!ret) {
		patch_kernel<<<(n + 255) / 256, 256, 0, c->stream>>>(c->patch_dev, n);
		ret = NODUS_CUDA_CALL(err, cudaGetLastError());
	}
	/* always: the staging buffer must not be reused while a copy reads it */
	nodus_error sync_err;
	int sync = NODUS_CUDA_CALL(&sync_err, cudaStreamSynchronize(c->stream));
	if (!ret && sync) {
		*err = sync_err;
		ret = sync;
	}
	return ret;
}

static int cuda_flush(void *ctx, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	/* A solution may have raised the set-aside, marked lines persisting or
	 * put an access-policy window on our stream: undo all three, so that
	 * what it made persisting is evicted by the memset like anything else. */
	int ret = disable_persisting_l2(c, err);
	if (!ret && c->persisting_l2_max_bytes > 0)
		ret = NODUS_CUDA_CALL(err, cudaCtxResetPersistingL2Cache());
	if (!ret && c->persisting_l2_max_bytes > 0) {
		cudaStreamAttrValue none;
		memset(&none, 0, sizeof none);
		ret = NODUS_CUDA_CALL(err, cudaStreamSetAttribute(
						   c->stream, cudaStreamAttributeAccessPolicyWindow,
						   &none));
	}
	c->flush_count++;
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMemsetAsync(c->flush_buf, (int)(c->flush_count & 0xff),
							   c->flush_bytes, c->stream));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaEventRecord(c->flushed, c->stream));
	if (!ret)
		c->flush_pending = 1;
	return ret;
}

static void *cuda_stream(void *ctx)
{
	return (void *)((cuda_ctx *)ctx)->stream;
}

/* Enqueues `batch` calls between the two events; stops at the first entry
 * that returns non-zero (its value goes to *status). */
static int launch_batch(cuda_ctx *c, nodus_entry_fn fn, const nodus_call *calls, int n_calls,
			int batch, int32_t *status, nodus_error *err)
{
	int ret = NODUS_CUDA_CALL(err, cudaEventRecord(c->start, c->stream));
	for (int i = 0; !ret && i < batch; i++) {
		nodus_call call = calls[i % n_calls];
		call.stream = (void *)c->stream;
		int rc = fn(&call);
		if (rc) {
			*status = rc;
			break;
		}
	}
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaEventRecord(c->stop, c->stream));
	return ret;
}

static int cuda_time_batch(void *ctx, nodus_entry_fn fn, const nodus_call *calls, int n_calls,
			   int batch, nodus_timing *out, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	int ret = 0;
	memset(out, 0, sizeof *out);
	if (n_calls < 1 || batch < 1)
		return NODUS_ERR(err, NODUS_EINVAL, "time_batch: need n_calls >= 1 and batch >= 1, "
				 "got %d and %d", n_calls, batch);
	if (c->flush_pending) {
		ret = NODUS_CUDA_CALL(err, cudaEventSynchronize(c->flushed));
		if (ret)
			return ret;
		c->flush_pending = 0;
	}
	uint64_t t0 = nodus_now_ns();
	ret = launch_batch(c, fn, calls, n_calls, batch, &out->call_status, err);
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceSynchronize());
	uint64_t t1 = nodus_now_ns();
	/* a launch that failed ran nothing and would look fast: an error of
	 * the batch, as it is for a correctness call */
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaGetLastError());
	if (ret)
		return ret;
	float ms = 0.0f;
	ret = NODUS_CUDA_CALL(err, cudaEventElapsedTime(&ms, c->start, c->stop));
	if (ret)
		return ret;
	out->event_ns = (int64_t)((double)ms * 1e6 + 0.5);
	out->host_ns = (int64_t)(t1 - t0);
	return nodus__cuda_sm_clock(c, &out->sm_clock_mhz, err);
}

static int cuda_call_sync(void *ctx, nodus_entry_fn fn, const nodus_call *call, int *call_status,
			  nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	nodus_call local = *call;
	local.stream = (void *)c->stream;
	*call_status = fn(&local);
	/* Device-wide, so a fault in work on any stream is caught here; a
	 * sticky fault is returned as NODUS_ECUDA naming the CUDA error. */
	int ret = NODUS_CUDA_CALL(err, cudaDeviceSynchronize());
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaGetLastError());
	return ret;
}

static const nodus_backend_ops cuda_ops = {
	"cuda",
	cuda_open,
	cuda_close,
	cuda_alloc,
	cuda_free,
	cuda_upload,
	cuda_download,
	cuda_copy,
	cuda_patch,
	cuda_flush,
	cuda_stream,
	cuda_time_batch,
	cuda_call_sync,
	nodus__cuda_fingerprint,
	cuda_open_cost,
	nodus__cuda_fill,
	cuda_host_pin,
	cuda_host_unpin,
	nodus__cuda_poison,
	nodus__cuda_guard_name,
	nodus__cuda_guards_intact,
	NULL, /* guard_fault: a device has no guard pages to fault on */
	NULL, /* protect: nor read-only device memory */
	cuda_copy_many,
	nodus__cuda_fill_many,
};

/* The one symbol the library exports (C linkage for dlsym, default
 * visibility while the rest is hidden). */
extern "C" __attribute__((visibility("default"))) const nodus_backend_ops *
nodus_cuda_backend_get(void)
{
	return &cuda_ops;
}
