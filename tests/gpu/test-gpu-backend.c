/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-gpu-backend.c: the CUDA backend on a real GPU.
 *
 * Usage: test-gpu-backend KERNELS.so   (libnodus_cuda.so is found through
 * $NODUS_CUDA_BACKEND or beside this program). Without a driver, a GPU or
 * the backend it prints "skipped: no GPU (...)" and exits 77, which CTest
 * reports as skipped. The fault test runs last: a sticky error leaves the
 * context unusable.
 *
 * 1 fingerprint names the backend, SMs and L2
 * 2 warm-up: repeated samples until the SM clock changes < 1%
 * 3 flush + time of a known 50 us kernel: event time ~ 4 x 50 us, host >= event
 * 4 a kernel on the solution's own stream is flagged by the host-gap rule
 * 5 a 32 MB re-read is slower after the L2 flush than warm
 * 6 NVML: isolated alone; a second process with a context is seen
 * 7 the device's input draw (fill) is bit for bit the host's once the
 *   elements it lists are written over, and it lists every element that
 *   differed, for each distribution and variant the judge draws in float32;
 *   fill_many draws 128 small buffers at once as fill draws each
 * 8 an illegal address is NODUS_ECUDA naming cudaErrorIllegalAddress
 * Extra lines ("info ...") report host-gap and short-kernel numbers for
 * docs/cuda.md.
 * ------------------------------------------------------------------------ */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include "backend/backend.h"
#include "backend/nvml.h"
#include "common/common.h"
#include "judge/judge.h"

typedef struct env {
	const nodus_backend_ops *ops;  /* the loaded backend */
	void *ctx;                     /* its open context */
	void *kernels;                 /* dlopen handle of the test kernels */
	int failures;                  /* checks that failed */
	int test_no;                   /* number of the next check */
} env;

static void check(env *e, int ok, const char *what)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++e->test_no, what);
	fflush(stdout);
	if (!ok)
		e->failures++;
}

static nodus_entry_fn entry(env *e, const char *name)
{
	void *p = dlsym(e->kernels, name);
	nodus_entry_fn fn;
	memcpy(&fn, &p, sizeof fn);
	if (!p) {
		fprintf(stderr, "test kernels lack '%s'\n", name);
		exit(2);
	}
	return fn;
}

/* A nodus_call with the given tensors and one axis. */
typedef struct call_buf {
	nodus_call call;            /* what entries receive */
	nodus_tensor in, out;       /* one input, one output */
	const char *axis_name;      /* "spin_ns" */
	int64_t axis_value;         /* its value */
} call_buf;

static void call_init(call_buf *cb, void *in, int64_t in_numel, void *out, int64_t out_numel,
		      int64_t spin_ns)
{
	memset(cb, 0, sizeof *cb);
	cb->in = (nodus_tensor){in, NODUS_DTYPE_FLOAT32, 1, {in_numel}, in_numel, in_numel * 4,
				"x"};
	cb->out = (nodus_tensor){out, NODUS_DTYPE_FLOAT32, 1, {out_numel}, out_numel,
				 out_numel * 4, "y"};
	cb->axis_name = "spin_ns";
	cb->axis_value = spin_ns;
	cb->call.abi_version = NODUS_ABI_VERSION;
	cb->call.struct_size = sizeof(nodus_call);
	cb->call.n_inputs = 1;
	cb->call.n_outputs = 1;
	cb->call.inputs = &cb->in;
	cb->call.outputs = &cb->out;
	cb->call.n_axes = 1;
	cb->call.axis_names = &cb->axis_name;
	cb->call.axis_values = &cb->axis_value;
}

static void die_err(const char *what, const nodus_error *err)
{
	fprintf(stderr, "%s: %s (%s)\n", what, err->message, nodus_err_name(err->code));
	exit(1);
}

static nodus_timing sample(env *e, nodus_entry_fn fn, const nodus_call *call, int batch,
			   int flush)
{
	nodus_error err;
	nodus_timing t;
	if (flush && e->ops->flush(e->ctx, &err))
		die_err("flush", &err);
	if (e->ops->time_batch(e->ctx, fn, call, 1, batch, &t, &err))
		die_err("time_batch", &err);
	return t;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Median event time of n samples. */
static int64_t median_event(env *e, nodus_entry_fn fn, const nodus_call *call, int flush)
{
	int64_t v[9];
	for (int i = 0; i < 9; i++)
		v[i] = sample(e, fn, call, 1, flush).event_ns;
	qsort(v, 9, sizeof v[0], cmp_i64);
	return v[4];
}

static void test_fingerprint(env *e)
{
	char *json = NULL;
	nodus_error err;
	int ret = e->ops->fingerprint(e->ctx, &json, &err);
	check(e, ret == 0 && strstr(json, "\"backend\":\"cuda\"") && strstr(json, "\"sm_count\":") &&
			 strstr(json, "\"l2_bytes\":"),
	      "fingerprint names backend, SMs and L2");
	printf("info fingerprint %s\n", json ? json : err.message);
	free(json);
}

/* The protocol docs/cuda.md gives workers: at least min_ms of calls, then
 * until two consecutive samples' SM clocks differ by less than 1%. */
static void test_warmup(env *e, nodus_entry_fn spin, const nodus_call *call)
{
	const uint64_t min_ns = 100 * 1000000ULL, max_ns = 5000 * 1000000ULL;
	uint64_t t0 = nodus_now_ns(), now = t0;
	int32_t prev = 0, mhz = 0, first = 0;
	int i = 0, stable = 0;
	while (!stable && (now = nodus_now_ns()) - t0 < max_ns) {
		mhz = sample(e, spin, call, 20, 0).sm_clock_mhz;
		if (!i++)
			first = mhz;
		stable = now - t0 >= min_ns && prev > 0 && abs(mhz - prev) * 100 < prev;
		prev = mhz;
	}
	printf("info warm-up: %d samples of 20 x 50 us in %.1f ms, SM clock %d -> %d MHz\n", i,
	       (double)(now - t0) / 1e6, first, mhz);
	check(e, stable && mhz > 100 && mhz < 4000, "warm-up reaches a stable SM clock");
}

static void test_known_kernel(env *e, nodus_entry_fn spin, const nodus_call *call)
{
	nodus_timing t = sample(e, spin, call, 4, 1);
	printf("info spin 4 x 50 us: event %lld ns, host %lld ns, sm %d MHz, status %d\n",
	       (long long)t.event_ns, (long long)t.host_ns, t.sm_clock_mhz, t.call_status);
	check(e, t.event_ns >= 200000 && t.event_ns < 260000, "4 x 50 us spin times 200-260 us");
	check(e, t.host_ns >= t.event_ns, "host time >= event time");
	check(e, t.call_status == 0, "entry status 0");
}

/* The host-gap rule docs/cuda.md gives the worker: flag a sample whose
 * host time exceeds its event time by more than 50 us and by more than 10%
 * of the host time. Legitimate samples show a gap of launch latency plus
 * synchronisation (under 10 us on the H200 machines). */
static int host_gap_flagged(const nodus_timing *t)
{
	int64_t gap = t->host_ns - t->event_ns;
	return gap > 50000 && gap * 10 > t->host_ns;
}

static void test_rogue_stream(env *e, nodus_entry_fn spin, nodus_entry_fn rogue,
			      const nodus_call *call)
{
	nodus_timing t;
	for (int i = 0; i < 3; i++) {
		t = sample(e, rogue, call, 4, 1);
		printf("info rogue stream 4 x 50 us, sample %d: event %lld ns, host %lld ns\n", i,
		       (long long)t.event_ns, (long long)t.host_ns);
	}
	check(e, host_gap_flagged(&t), "work on the solution's own stream: host-gap flag");
	t = sample(e, spin, call, 4, 1);
	check(e, !host_gap_flagged(&t), "work on the harness stream: no host-gap flag");
}

static void test_short_kernels(env *e, nodus_entry_fn tiny, const nodus_call *call)
{
	for (int batch = 1; batch <= 100; batch *= 10) {
		nodus_timing t = sample(e, tiny, call, batch, 1);
		printf("info tiny kernel x %d: event %lld ns, host %lld ns, gap %lld ns\n", batch,
		       (long long)t.event_ns, (long long)t.host_ns,
		       (long long)(t.host_ns - t.event_ns));
	}
}

static void test_l2_flush(env *e, nodus_entry_fn sum, const nodus_call *call)
{
	sample(e, sum, call, 1, 0);
	int64_t warm = median_event(e, sum, call, 0);
	int64_t cold = median_event(e, sum, call, 1);
	printf("info 32 MB read: warm %lld ns, after flush %lld ns\n", (long long)warm,
	       (long long)cold);
	check(e, cold > warm + warm / 10, "32 MB re-read is >10% slower after the L2 flush");
}

/* The child: opens its own backend (a CUDA context), keeps a kernel
 * running, says "ready" on fd 1 and waits to be killed. */
static int child_main(const char *kernels_path)
{
	env e;
	nodus_error err;
	memset(&e, 0, sizeof e);
	if (nodus_backend_cuda_load(&e.ops, &err) || e.ops->open(&e.ctx, &err))
		return 3;
	e.kernels = dlopen(kernels_path, RTLD_NOW);
	if (!e.kernels)
		return 4;
	call_buf cb;
	call_init(&cb, NULL, 0, NULL, 0, 1000000);
	if (write(1, "r", 1) != 1)
		return 5;
	for (int i = 0; i < 30; i++)
		sample(&e, entry(&e, "spin"), &cb.call, 1, 0);
	return 0;
}

static void test_isolation(env *e, const char *self, const char *kernels_path)
{
	nodus_nvml *nvml = NULL;
	nodus_error err;
	int iso = -1, others = -1;
	uint64_t reasons = 0;
	char why[160] = "";
	if (nodus_nvml_open(&nvml, NULL, NULL, &err)) {
		printf("info nvml unavailable: %s\n", err.message);
		check(e, 0, "nvml opens on a GPU machine");
		return;
	}
	int ret = nodus_nvml_isolation_check(nvml, 1, &iso, &others, &reasons, why, sizeof why,
					     &err);
	printf("info alone: isolated %d, others %d, reasons 0x%llx, why '%s'\n", iso, others,
	       (unsigned long long)reasons, why);
	check(e, ret == 0 && iso == 1, "alone (own context only): isolated");
	int fds[2];
	if (pipe(fds))
		exit(2);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(self, self, "--child", kernels_path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char c = 0;
	int got = (int)read(fds[0], &c, 1), compute = -1, mps = -1;
	/* NVML's process list can lag the context creation: poll up to 2 s. */
	for (int i = 0; i < 20; i++) {
		ret = nodus_nvml_isolation_check(nvml, 1, &iso, &others, &reasons, why, sizeof why,
						 &err);
		if (ret || !iso)
			break;
		usleep(100000);
	}
	nodus_nvml_process_counts(nvml, &compute, &mps, &err);
	printf("info with child (ready %d): isolated %d, others %d, compute %d, mps %d, why '%s'\n",
	       got, iso, others, compute, mps, why);
	if (getenv("NODUS_GPU_TEST_DEBUG") && system("nvidia-smi --query-compute-apps=pid,"
						      "process_name,used_memory --format=csv"))
		printf("info nvidia-smi failed\n");
	check(e, got == 1 && ret == 0 && iso == 0 && others >= 1,
	      "a second process with a context is seen: not isolated");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fds[0]);
	nodus_nvml_close(nvml);
}

/* Patches land exactly where and what they say, and nothing else moves;
 * 3000 of them, more than one staging table holds at first. */
static void test_patch(env *e, void *buf, int64_t numel)
{
	nodus_error err;
	const int n = 3000;
	float *host = malloc((size_t)numel * 4), *back = malloc((size_t)numel * 4);
	nodus_patch *list = calloc((size_t)n, sizeof *list);
	if (!host || !back || !list)
		exit(2);
	for (int64_t i = 0; i < numel; i++)
		host[i] = (float)i;
	if (e->ops->upload(e->ctx, buf, host, (size_t)numel * 4, &err))
		die_err("upload", &err);
	for (int k = 0; k < n; k++) {
		int64_t at = ((int64_t)k * 2654435761LL) % numel; /* distinct for k < numel */
		float v = -1.0f - (float)k;
		list[k].dst = (char *)buf + at * 4;
		list[k].bytes = 4;
		memcpy(list[k].value, &v, 4);
		host[at] = v;
	}
	int ret = e->ops->patch(e->ctx, list, n, &err);
	if (!ret)
		ret = e->ops->download(e->ctx, back, buf, (size_t)numel * 4, &err);
	check(e, ret == 0 && memcmp(host, back, (size_t)numel * 4) == 0,
	      "3000 patches in one call: each element written, nothing else changed");
	free(host);
	free(back);
	free(list);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* host_pin: downloads into page-locked memory return the same bytes as into
 * pageable memory, and host_unpin gives the memory back to free(). The rates
 * are information (bench/, not a test, holds speed targets). */
/* The canaries around every buffer (cuda_guard.cu): intact after honest
 * work, broken by one element written past the end or before the start,
 * and located: buffer, offset, name. Each write goes to a buffer of its
 * own, freed after, so that later checks find every canary intact again. */
static void test_guards(env *e, nodus_entry_fn past, nodus_entry_fn before, nodus_entry_fn honest,
			const nodus_call *honest_call)
{
	nodus_error err;
	int intact = 0, status = 0;
	nodus_guard_hit hit;
	int ret = e->ops->call_sync(e->ctx, honest, honest_call, &status, &err);
	if (!ret)
		ret = e->ops->guards_intact(e->ctx, &intact, &hit, &err);
	check(e, ret == 0 && intact == 1, "guards: every canary intact after an honest call");
	nodus_entry_fn fns[2] = {past, before};
	for (int k = 0; k < 2; k++) {
		void *z = NULL;
		const int64_t numel = 1000; /* 4000 bytes: the canary starts mid-word of 16 */
		if (e->ops->alloc(e->ctx, (size_t)numel * 4, &z, &err))
			die_err("alloc", &err);
		e->ops->name_buffer(e->ctx, z, "output", "z");
		call_buf cb;
		call_init(&cb, NULL, 0, z, numel, 0);
		ret = e->ops->call_sync(e->ctx, fns[k], &cb.call, &status, &err);
		intact = 1;
		if (!ret)
			ret = e->ops->guards_intact(e->ctx, &intact, &hit, &err);
		/* the lowest byte that differs: one of the float's four (a byte of
		 * 1.0f may equal the pattern's) */
		int64_t want = k == 0 ? numel * 4 : -4;
		check(e, ret == 0 && intact == 0 && hit.buffer == z && hit.offset >= want &&
			     hit.offset < want + 4 &&
			     hit.kind == (k == 0 ? NODUS_GUARD_PAST_END : NODUS_GUARD_BEFORE_START) &&
			     hit.name && strcmp(hit.name, "z") == 0,
		      k == 0 ? "guards: a write one element past the end is found at byte 4000"
			     : "guards: a write one element before the start is found at byte -4");
		e->ops->free(e->ctx, z);
		intact = 0;
		ret = e->ops->guards_intact(e->ctx, &intact, &hit, &err);
		check(e, ret == 0 && intact == 1, "guards: intact again once that buffer is freed");
	}
}

static void test_host_pin(env *e, void *buf, int64_t numel)
{
	nodus_error err;
	size_t bytes = (size_t)numel * 4;
	float *pattern = malloc(bytes), *pageable = malloc(bytes), *pinned = malloc(bytes);
	if (!pattern || !pageable || !pinned)
		exit(2);
	for (int64_t i = 0; i < numel; i++)
		pattern[i] = (float)(i % 65521) * 0.5f;
	if (e->ops->upload(e->ctx, buf, pattern, bytes, &err))
		die_err("upload", &err);
	const int reps = 5;
	double t0 = now_s();
	int ret = 0;
	for (int r = 0; !ret && r < reps; r++)
		ret = e->ops->download(e->ctx, pageable, buf, bytes, &err);
	double pageable_s = now_s() - t0;
	int pin = ret ? -1 : e->ops->host_pin(e->ctx, pinned, bytes, &err);
	t0 = now_s();
	for (int r = 0; !ret && !pin && r < reps; r++)
		ret = e->ops->download(e->ctx, pinned, buf, bytes, &err);
	double pinned_s = now_s() - t0;
	if (!pin)
		e->ops->host_unpin(e->ctx, pinned);
	printf("info download of %zu MB: pageable %.1f GB/s, page-locked %.1f GB/s\n",
	       bytes >> 20, (double)bytes * reps / pageable_s * 1e-9,
	       (double)bytes * reps / pinned_s * 1e-9);
	check(e, ret == 0 && pin == 0 && memcmp(pattern, pinned, bytes) == 0 &&
		     memcmp(pattern, pageable, bytes) == 0,
	      "host_pin: a download into page-locked memory returns the same bytes");
	free(pattern);
	free(pageable);
	free(pinned); /* unpinned above: free() is safe */
}

/* fill_many: 128 small buffers of normal, uniform and affine draws (a
 * fresh sample's window) in one call are what fill draws one by one, bit
 * for bit the host's once the listed elements are written over; a buffer
 * with more near elements than max_near says so in its count. And the
 * time of both ways. */
static void test_fill_many(env *e, void *buf, int64_t numel)
{
	enum { N = 128, EACH = 4096, MAX_NEAR = 64, BIG = 1 << 20 };
	if (!e->ops->fill_many) {
		check(e, 0, "fill_many: the cuda backend has it");
		return;
	}
	if (numel < (int64_t)N * EACH + BIG)
		exit(2);
	static const nodus_dist dists[] = {
		{NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0},
		{NODUS_DIST_UNIFORM, -1.0, 1.0, -1, NULL, 0},
		{NODUS_DIST_AFFINE_SCALE, 0.5, 0.0, -1, NULL, 0},
	};
	nodus_error err;
	void *data[N + 1];
	int64_t count[N + 1];
	nodus_fill_spec spec[N + 1];
	int n_near[N + 1];
	int64_t *near = malloc((size_t)(N + 1) * MAX_NEAR * sizeof *near);
	float *host = malloc((size_t)BIG * 4), *back = malloc((size_t)BIG * 4);
	if (!near || !host || !back)
		exit(2);
	for (int k = 0; k <= N; k++) {
		data[k] = (float *)buf + (size_t)k * EACH;
		count[k] = k < N ? EACH : BIG; /* the last: many near elements */
		if (nodus_judge_fill_spec(NODUS_DTYPE_FLOAT32, &dists[k < N ? k % 3 : 0], NULL, 0,
					  0xf1e5u + (uint64_t)k, 1, &spec[k])) {
			check(e, 0, "fill_many: the judge resolves a device fill");
			return;
		}
	}
	double t0 = now_s();
	if (e->ops->fill_many(e->ctx, N + 1, data, count, spec, near, MAX_NEAR, n_near, &err))
		die_err("fill_many", &err);
	double many_s = now_s() - t0;
	int all_equal = 1, listed_near = 0;
	for (int k = 0; k < N; k++) {
		if (nodus_judge_fill(host, NODUS_DTYPE_FLOAT32, EACH, &dists[k % 3], NULL, 0,
				     0xf1e5u + (uint64_t)k, 1) ||
		    e->ops->download(e->ctx, back, data[k], (size_t)EACH * 4, &err))
			die_err("fill_many: host draw or download", &err);
		for (int m = 0; m < n_near[k] && m < MAX_NEAR; m++) {
			int64_t at = near[(size_t)k * MAX_NEAR + (size_t)m];
			memcpy(&back[at], &host[at], 4);
		}
		listed_near += n_near[k];
		all_equal &= n_near[k] <= MAX_NEAR && memcmp(host, back, (size_t)EACH * 4) == 0;
	}
	check(e, all_equal,
	      "fill_many: each of 128 buffers bit for bit the host's draw once its listed elements "
	      "are written over");
	check(e, n_near[N] > MAX_NEAR,
	      "fill_many: a buffer with more near elements than max_near counts them all");
	t0 = now_s();
	for (int k = 0; k < N; k++) {
		int got = 0;
		if (e->ops->fill(e->ctx, data[k], count[k], &spec[k], near, MAX_NEAR, &got, &err))
			die_err("fill", &err);
	}
	double one_s = now_s() - t0;
	printf("info fill_many: 128 x %d elements (and one of %d with %d near) in %.3f ms, "
	       "one fill each %.3f ms; %d near listed\n",
	       EACH, BIG, n_near[N], many_s * 1e3, one_s * 1e3, listed_near);
	free(near);
	free(host);
	free(back);
}

/* Each float32 distribution and variant the judge draws: the device's fill
 * against nodus_judge_fill on the host, over numel elements. */
static void test_fill(env *e, void *buf, int64_t numel)
{
	static const struct {
		const char *name;
		nodus_dist dist;
		unsigned variant;
	} cases[] = {
		{"normal(0,1)", {NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0}, 0},
		{"normal(0,1) scale_3", {NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0}, NODUS_VARIANT_SCALE_3},
		{"normal(0,1) scale_0.01", {NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0}, NODUS_VARIANT_SCALE_001},
		{"normal(0,1) negate", {NODUS_DIST_NORMAL, 0.0, 1.0, -1, NULL, 0}, NODUS_VARIANT_NEGATE},
		{"normal(3,0.5)", {NODUS_DIST_NORMAL, 3.0, 0.5, -1, NULL, 0}, 0},
		{"uniform[-1,1)", {NODUS_DIST_UNIFORM, -1.0, 1.0, -1, NULL, 0}, 0},
		{"uniform[0,1) scale_0.01", {NODUS_DIST_UNIFORM, 0.0, 1.0, -1, NULL, 0}, NODUS_VARIANT_SCALE_001},
		{"positive[1e-3,2)", {NODUS_DIST_POSITIVE, 1e-3, 2.0, -1, NULL, 0}, 0},
		{"positive[1e-3,2) negate", {NODUS_DIST_POSITIVE, 1e-3, 2.0, -1, NULL, 0}, NODUS_VARIANT_NEGATE},
		{"affine_scale(0.5)", {NODUS_DIST_AFFINE_SCALE, 0.5, 0.0, -1, NULL, 0}, 0},
		{"affine_scale(0.5) scale_3", {NODUS_DIST_AFFINE_SCALE, 0.5, 0.0, -1, NULL, 0}, NODUS_VARIANT_SCALE_3},
		{"affine_shift(0.5) negate", {NODUS_DIST_AFFINE_SHIFT, 0.5, 0.0, -1, NULL, 0}, NODUS_VARIANT_NEGATE},
		{"constant(0.25)", {NODUS_DIST_CONSTANT, 0.25, 0.0, -1, NULL, 0}, 0},
	};
	enum { NEAR_MAX = 65536 };
	nodus_error err;
	float *host = malloc((size_t)numel * 4), *back = malloc((size_t)numel * 4);
	int64_t *near = malloc(NEAR_MAX * sizeof *near);
	nodus_patch *fix = calloc(NEAR_MAX, sizeof *fix);
	if (!host || !back || !near || !fix)
		exit(2);
	int all_listed = 1, all_equal = 1, total_near = 0, total_diff = 0;
	double device_s = 0, host_s = 0;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		uint64_t seed = 0x5eed0000u + c;
		nodus_fill_spec spec;
		if (nodus_judge_fill_spec(NODUS_DTYPE_FLOAT32, &cases[c].dist, NULL, cases[c].variant,
					  seed, 3, &spec)) {
			check(e, 0, "fill: the judge resolves a device fill");
			continue;
		}
		int n_near = 0;
		double t0 = now_s();
		if (e->ops->fill(e->ctx, buf, numel, &spec, near, NEAR_MAX, &n_near, &err))
			die_err("fill", &err);
		device_s += now_s() - t0;
		if (e->ops->download(e->ctx, back, buf, (size_t)numel * 4, &err))
			die_err("download", &err);
		t0 = now_s();
		if (nodus_judge_fill(host, NODUS_DTYPE_FLOAT32, numel, &cases[c].dist, NULL,
				     cases[c].variant, seed, 3))
			die_err("host fill", &err);
		host_s += now_s() - t0;
		/* every element that differs must be listed */
		int diff = 0, listed = 1;
		for (int64_t i = 0; i < numel; i++) {
			if (memcmp(&host[i], &back[i], 4) == 0)
				continue;
			diff++;
			int found = 0;
			for (int k = 0; k < n_near && k < NEAR_MAX && !found; k++)
				found = near[k] == i;
			listed &= found;
		}
		/* written over with the host's values, the whole tensor matches */
		int n_fix = n_near < NEAR_MAX ? n_near : NEAR_MAX;
		for (int k = 0; k < n_fix; k++) {
			fix[k].dst = (char *)buf + near[k] * 4;
			fix[k].bytes = 4;
			memcpy(fix[k].value, &host[near[k]], 4);
		}
		if ((n_fix && e->ops->patch(e->ctx, fix, n_fix, &err)) ||
		    e->ops->download(e->ctx, back, buf, (size_t)numel * 4, &err))
			die_err("patch", &err);
		int equal = n_near <= NEAR_MAX && memcmp(host, back, (size_t)numel * 4) == 0;
		printf("info fill %-26s %lld elements: %d listed, %d differed before the host's "
		       "values were written, equal after: %s\n",
		       cases[c].name, (long long)numel, n_near, diff, equal ? "yes" : "NO");
		all_listed &= listed;
		all_equal &= equal;
		total_near += n_near;
		total_diff += diff;
	}
	printf("info fill: device %.3f s, host (one thread) %.3f s for %zu x %lld elements; "
	       "%d listed, %d differed\n",
	       device_s, host_s, sizeof cases / sizeof cases[0], (long long)numel, total_near,
	       total_diff);
	check(e, all_listed, "fill: every element that differs from the host's draw is listed");
	check(e, all_equal, "fill: with the listed elements written over, bit for bit the host's");
	free(host);
	free(back);
	free(near);
	free(fix);
}

static void test_fault(env *e, nodus_entry_fn fault, const nodus_call *call)
{
	nodus_error err;
	int status = -1;
	memset(&err, 0, sizeof err);
	int ret = e->ops->call_sync(e->ctx, fault, call, &status, &err);
	printf("info fault: %s: %s\n", nodus_err_name(ret), err.message);
	check(e, ret == NODUS_ECUDA && strstr(err.message, "cudaErrorIllegalAddress"),
	      "illegal address: NODUS_ECUDA naming cudaErrorIllegalAddress");
	nodus_timing t;
	ret = e->ops->time_batch(e->ctx, fault, call, 1, 1, &t, &err);
	check(e, ret == NODUS_ECUDA && strstr(err.message, "cudaErrorIllegalAddress"),
	      "the error is sticky: the next call reports it too");
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s KERNELS.so\n", argv[0]);
		return 2;
	}
	env e;
	nodus_error err;
	memset(&e, 0, sizeof e);
	int ret = nodus_backend_cuda_load(&e.ops, &err);
	if (!ret)
		ret = e.ops->open(&e.ctx, &err);
	if (ret == NODUS_EUNAVAILABLE) {
		printf("skipped: no GPU (%s)\n", err.message);
		return 77;
	}
	if (ret)
		die_err("open", &err);
	e.kernels = dlopen(argv[1], RTLD_NOW);
	if (!e.kernels) {
		fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
		return 2;
	}
	const int64_t n = 8 << 20; /* 32 MB of float */
	void *x = NULL, *y = NULL;
	if (e.ops->alloc(e.ctx, (size_t)n * 4, &x, &err) || e.ops->alloc(e.ctx, 4096, &y, &err))
		die_err("alloc", &err);
	call_buf cb;
	call_init(&cb, x, n, y, 32, 50000);

	test_fingerprint(&e);
	test_warmup(&e, entry(&e, "spin"), &cb.call);
	test_known_kernel(&e, entry(&e, "spin"), &cb.call);
	test_rogue_stream(&e, entry(&e, "spin"), entry(&e, "spin_rogue"), &cb.call);
	test_short_kernels(&e, entry(&e, "tiny"), &cb.call);
	test_l2_flush(&e, entry(&e, "sum_read"), &cb.call);
	test_isolation(&e, "/proc/self/exe", argv[1]);
	test_patch(&e, x, n);
	test_fill(&e, x, n);
	test_fill_many(&e, x, n);
	test_host_pin(&e, x, n);
	test_guards(&e, entry(&e, "write_past"), entry(&e, "write_before"), entry(&e, "sum_read"),
		    &cb.call);
	test_fault(&e, entry(&e, "fault"), &cb.call);

	printf("%d checks, %d failed\n", e.test_no, e.failures);
	return e.failures ? 1 : 0;
}
