/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cpu.c: the cpu backend. Buffers are host memory (64-byte aligned, so
 * solutions may use aligned vector loads), each its own mapping between
 * guard pages with canaries in the bytes between (cpu_guard.c), and inputs
 * may be made read-only to solutions (protect); "device time" is the
 * monotonic clock around a batch, and flushing writes then reads a buffer
 * twice the size of the last-level cache so that neither solution starts a
 * sample with the other's data (or its own previous inputs) cached.
 *
 * The LLC size is read from sysfs at open, before the worker locks itself
 * down (the sandbox forbids opening files afterwards).
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_guard.h"
#include "common/common.h"

struct cpu_ctx {
	unsigned char *flush_buf; /* 2 x LLC bytes, written and read by flush */
	size_t flush_bytes;       /* size of flush_buf */
	size_t llc_bytes;         /* last-level cache size found at open */
	volatile uint64_t sink;   /* keeps the flush's reads alive */
	nodus__cpu_guards *guards; /* every buffer alloc handed out */
	nodus_entry_fn volatile running; /* the entry being called, for guard_fault */
	volatile int timed;       /* running is inside time_batch */
};

static size_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end == 'K')
		v *= 1024ull;
	else if (*end == 'M')
		v *= 1024ull * 1024ull;
	return (size_t)v;
}

/* Largest cache level size in sysfs, 32 MiB when unknown. */
static size_t llc_size(void)
{
	size_t best = 0;
	for (int i = 0; i < 8; i++) {
		char path[128], text[64];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(text, sizeof(text), f)) {
			size_t v = parse_cache_size(text);
			if (v > best)
				best = v;
		}
		fclose(f);
	}
	return best ? best : (size_t)32 << 20;
}

size_t nodus_backend_cpu_reserved_bytes(void)
{
	return 2 * llc_size();
}

static int cpu_open(void **out, nodus_error *err)
{
	struct cpu_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory opening the cpu backend");
	c->llc_bytes = llc_size();
	c->flush_bytes = nodus_backend_cpu_reserved_bytes();
	if (posix_memalign((void **)&c->flush_buf, 64, c->flush_bytes)) {
		size_t bytes = c->flush_bytes;
		free(c);
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot allocate a %zu-byte cache flush buffer",
				 bytes);
	}
	memset(c->flush_buf, 1, c->flush_bytes);
	c->guards = nodus__cpu_guards_new();
	if (!c->guards) {
		free(c->flush_buf);
		free(c);
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory for the cpu backend's buffer table");
	}
	*out = c;
	return 0;
}

static void cpu_close(void *ctx)
{
	struct cpu_ctx *c = ctx;
	if (!c)
		return;
	free(c->flush_buf);
	nodus__cpu_guards_free(c->guards);
	free(c);
}

static int cpu_alloc(void *ctx, size_t bytes, void **ptr, nodus_error *err)
{
	struct cpu_ctx *c = ctx;
	return nodus__cpu_guards_alloc(c->guards, bytes, ptr, err);
}

static void cpu_free(void *ctx, void *ptr)
{
	struct cpu_ctx *c = ctx;
	nodus__cpu_guards_release(c->guards, ptr);
}

/* upload, download and copy: the destination may be a read-only input */
static int cpu_copy(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err)
{
	struct cpu_ctx *c = ctx;
	return nodus__cpu_guards_write(c->guards, dst, src, bytes, err);
}

static int cpu_patch(void *ctx, const nodus_patch *patches, int n, nodus_error *err)
{
	struct cpu_ctx *c = ctx;
	return nodus__cpu_guards_patch(c->guards, patches, n, err);
}

static void cpu_name_buffer(void *ctx, const void *ptr, const char *what, const char *name)
{
	struct cpu_ctx *c = ctx;
	nodus__cpu_guards_name(c->guards, ptr, what, name);
}

static int cpu_guards_intact(void *ctx, int *intact, nodus_guard_hit *hit, nodus_error *err)
{
	(void)err;
	struct cpu_ctx *c = ctx;
	nodus__cpu_guards_intact(c->guards, intact, hit);
	return 0;
}

static int cpu_guard_fault(void *ctx, const void *addr, nodus_guard_hit *hit)
{
	struct cpu_ctx *c = ctx;
	if (!nodus__cpu_guards_fault(c->guards, addr, hit))
		return 0;
	hit->running = c->running;
	hit->timed = c->timed;
	return 1;
}

static int cpu_protect(void *ctx, void *ptr, size_t bytes, int read_only, nodus_error *err)
{
	(void)bytes; /* the whole buffer alloc made */
	struct cpu_ctx *c = ctx;
	return nodus__cpu_guards_protect(c->guards, ptr, read_only, err);
}

static int cpu_flush(void *ctx, nodus_error *err)
{
	(void)err;
	struct cpu_ctx *c = ctx;
	uint64_t acc = 0;
	unsigned char stamp = (unsigned char)(c->sink + 1);
	for (size_t i = 0; i < c->flush_bytes; i += 64) {
		c->flush_buf[i] = stamp;
		acc += c->flush_buf[i + 32];
	}
	c->sink += acc;
	return 0;
}

static void *cpu_stream(void *ctx)
{
	(void)ctx;
	return NULL;
}

static int cpu_time_batch(void *ctx, nodus_entry_fn fn, const nodus_call *calls, int n_calls,
			  int batch, nodus_timing *out, nodus_error *err)
{
	(void)err;
	struct cpu_ctx *c = ctx;
	int status = 0;
	c->running = fn;
	c->timed = 1;
	uint64_t t0 = nodus_now_ns();
	for (int i = 0; i < batch; i++) {
		int rc = fn(&calls[i % n_calls]);
		if (rc && !status)
			status = rc;
	}
	uint64_t t1 = nodus_now_ns();
	c->running = NULL;
	out->event_ns = (int64_t)(t1 - t0);
	out->host_ns = out->event_ns;
	out->sm_clock_mhz = 0;
	out->call_status = status;
	return 0;
}

static int cpu_call_sync(void *ctx, nodus_entry_fn fn, const nodus_call *call, int *call_status,
			 nodus_error *err)
{
	(void)err;
	struct cpu_ctx *c = ctx;
	c->running = fn;
	c->timed = 0;
	*call_status = fn(call);
	c->running = NULL;
	return 0;
}

static void json_escape_into(nodus_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			nodus_buf_addf(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			nodus_buf_addf(b, "\\u%04x", *s);
		else
			nodus_buf_add(b, s, 1);
	}
}

/* The cpu model line of /proc/cpuinfo, "" when unknown. */
static void cpu_model(char *out, size_t size)
{
	out[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *colon = strchr(line, ':');
			if (colon) {
				colon += 2;
				colon[strcspn(colon, "\n")] = '\0';
				snprintf(out, size, "%s", colon);
			}
			break;
		}
	}
	fclose(f);
}

static int cpu_fingerprint(void *ctx, char **json_out, nodus_error *err)
{
	struct cpu_ctx *c = ctx;
	struct utsname u;
	char model[256];
	uname(&u);
	cpu_model(model, sizeof(model));
	nodus_buf b = NODUS_BUF_INIT;
	nodus_buf_adds(&b, "{\"backend\":\"cpu\",\"cpu_model\":\"");
	json_escape_into(&b, model);
	nodus_buf_addf(&b, "\",\"online_cpus\":%ld,\"llc_bytes\":%zu,\"machine\":\"",
		       sysconf(_SC_NPROCESSORS_ONLN), c->llc_bytes);
	json_escape_into(&b, u.machine);
	nodus_buf_adds(&b, "\",\"os_kernel\":\"");
	json_escape_into(&b, u.release);
	nodus_buf_addf(&b, "\",\"nodus_version\":\"%s\",\"compiler\":\"%s\"}", NODUS_VERSION,
		       NODUS_C_COMPILER);
	if (b.alloc == 0)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory building the fingerprint");
	*json_out = nodus_buf_detach(&b);
	return 0;
}

static const nodus_backend_ops cpu_ops = {
	.name = "cpu",
	.open = cpu_open,
	.close = cpu_close,
	.alloc = cpu_alloc,
	.free = cpu_free,
	.upload = cpu_copy,
	.download = cpu_copy,
	.copy = cpu_copy,
	.patch = cpu_patch,
	.flush = cpu_flush,
	.stream = cpu_stream,
	.time_batch = cpu_time_batch,
	.call_sync = cpu_call_sync,
	.fingerprint = cpu_fingerprint,
	.name_buffer = cpu_name_buffer,
	.guards_intact = cpu_guards_intact,
	.guard_fault = cpu_guard_fault,
	.protect = cpu_protect,
};

const nodus_backend_ops *nodus_backend_cpu(void)
{
	return &cpu_ops;
}
