/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * suite-time.c: times one suite solution with the CUDA backend, without
 * the judge, to check a suite's expected labels on a GPU by hand.
 *
 * Usage: suite-time LIB.so ENTRY AXES TENSOR...
 *   AXES    "name=value,name=value" (the task's axes, in order)
 *   TENSOR  in:DIMS or out:DIMS, DIMS = "1" for a scalar or "4096x1024";
 *           float32, in task order. Inputs are uniform in [-1, 1); a
 *           scalar input is 1.25 (an affine scale that is not 1).
 * Warms up (ENTRY_setup if present, then calls for at least 100 ms and
 * until the SM clock settles), batches calls so that a sample lasts at
 * least 200 us, and prints the median over 15 flushed samples of the time
 * per call: "ENTRY event_ns_per_call host_ns_per_call batch sm_mhz".
 * No correctness check: that is the judge's work.
 * ------------------------------------------------------------------------ */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "common/common.h"

#define MAX_T 8
#define SAMPLES 15

static void fail(const char *what, const nodus_error *err)
{
	fprintf(stderr, "suite-time: %s: %s\n", what, err ? err->message : "bad argument");
	exit(err && err->code == NODUS_EUNAVAILABLE ? 77 : 1);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Parses "4096x1024" into t's shape. */
static void parse_dims(const char *s, nodus_tensor *t)
{
	t->ndim = 0;
	t->numel = 1;
	for (char *end; *s; s = *end ? end + 1 : end) {
		long long v = strtoll(s, &end, 10);
		if (v < 1 || t->ndim == NODUS_MAX_DIMS)
			fail("dims", NULL);
		t->shape[t->ndim++] = v;
		t->numel *= v;
	}
	if (t->numel == 1 && t->ndim == 1)
		t->ndim = 0;
	t->dtype = NODUS_DTYPE_FLOAT32;
	t->nbytes = t->numel * 4;
}

static void fill(const nodus_backend_ops *ops, void *ctx, nodus_tensor *t)
{
	nodus_error err;
	float *h = malloc((size_t)t->nbytes);
	if (!h)
		fail("malloc", NULL);
	for (int64_t i = 0; i < t->numel; i++)
		h[i] = t->numel == 1 ? 1.25f : (float)rand() / ((float)RAND_MAX + 1.0f) * 2.0f - 1.0f;
	if (ops->alloc(ctx, (size_t)t->nbytes, &t->data, &err) ||
	    ops->upload(ctx, t->data, h, (size_t)t->nbytes, &err))
		fail("upload", &err);
	free(h);
}

int main(int argc, char **argv)
{
	static nodus_tensor in[MAX_T], out[MAX_T];
	static const char *names[MAX_T];
	static int64_t values[MAX_T];
	int n_in = 0, n_out = 0, n_axes = 0;
	const nodus_backend_ops *ops;
	void *ctx;
	nodus_error err;
	if (argc < 5)
		fail("usage: suite-time LIB.so ENTRY AXES TENSOR...", NULL);
	if (nodus_backend_cuda_load(&ops, &err) || ops->open(&ctx, &err))
		fail("backend", &err);
	for (char *tok = strtok(argv[3], ","); tok && n_axes < MAX_T; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			fail("axes", NULL);
		*eq = '\0';
		names[n_axes] = tok;
		values[n_axes++] = strtoll(eq + 1, NULL, 10);
	}
	for (int i = 4; i < argc; i++) {
		int is_in = strncmp(argv[i], "in:", 3) == 0;
		nodus_tensor *t = is_in ? &in[n_in++] : &out[n_out++];
		if ((!is_in && strncmp(argv[i], "out:", 4)) || n_in > MAX_T || n_out > MAX_T)
			fail("tensor", NULL);
		parse_dims(argv[i] + (is_in ? 3 : 4), t);
		t->name = is_in ? "in" : "out";
		fill(ops, ctx, t);
	}
	void *lib = dlopen(argv[1], RTLD_NOW);
	char setup_name[128];
	snprintf(setup_name, sizeof setup_name, "%s_setup", argv[2]);
	void *sym = lib ? dlsym(lib, argv[2]) : NULL, *setup_sym = lib ? dlsym(lib, setup_name) : NULL;
	if (!sym) {
		fprintf(stderr, "suite-time: %s\n", dlerror());
		return 1;
	}
	nodus_entry_fn fn, setup;
	memcpy(&fn, &sym, sizeof fn);
	memcpy(&setup, &setup_sym, sizeof setup);
	nodus_call call = {NODUS_ABI_VERSION, sizeof(nodus_call), n_in, n_out, in, out, n_axes, 0,
			   names, values, NULL, NULL, 0};
	int status = 0;
	if (setup_sym && (ops->call_sync(ctx, setup, &call, &status, &err) || status))
		fail("setup", status ? NULL : &err);
	if (ops->call_sync(ctx, fn, &call, &status, &err) || status)
		fail("first call", status ? NULL : &err);
	nodus_timing t;
	uint64_t t0 = nodus_now_ns();
	int32_t prev = 0;
	for (;;) {
		if (ops->time_batch(ctx, fn, &call, 1, 1, &t, &err))
			fail("warm-up", &err);
		int stable = prev > 0 && abs(t.sm_clock_mhz - prev) * 100 < prev;
		prev = t.sm_clock_mhz;
		if ((stable && nodus_now_ns() - t0 > 100000000ULL) || nodus_now_ns() - t0 > 3000000000ULL)
			break;
	}
	int batch = t.event_ns > 0 && t.event_ns < 200000 ? (int)(200000 / t.event_ns) + 1 : 1;
	int64_t ev[SAMPLES], ho[SAMPLES];
	for (int i = 0; i < SAMPLES; i++) {
		if (ops->flush(ctx, &err) || ops->time_batch(ctx, fn, &call, 1, batch, &t, &err))
			fail("sample", &err);
		if (t.call_status)
			fail("entry returned non-zero", NULL);
		ev[i] = t.event_ns / batch;
		ho[i] = t.host_ns / batch;
	}
	qsort(ev, SAMPLES, sizeof ev[0], cmp_i64);
	qsort(ho, SAMPLES, sizeof ho[0], cmp_i64);
	printf("%s %lld %lld %d %d\n", argv[2], (long long)ev[SAMPLES / 2],
	       (long long)ho[SAMPLES / 2], batch, t.sm_clock_mhz);
	ops->close(ctx);
	return 0;
}
