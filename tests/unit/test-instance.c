/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-instance.c: input instances are the same bits however they are
 * drawn - by one thread or by several (cuda workers split large tensors),
 * and with or without a timed sample's perturbation reproduced - since the
 * oracle and the measure worker must agree on every input they check.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "judge/judge.h"
#include "run/protocol.h"

static void make_task(nodus_task *t, nodus_workload *w, int64_t n)
{
	memset(t, 0, sizeof(*t));
	memset(w, 0, sizeof(*w));
	t->n_axes = 1;
	strcpy(t->axes[0].name, "n");
	t->n_inputs = 2;
	strcpy(t->inputs[0].name, "x");
	t->inputs[0].dtype = NODUS_DTYPE_FLOAT32;
	t->inputs[0].ndim = 1;
	t->inputs[0].init = (nodus_dist){NODUS_DIST_NORMAL, 0, 1, -1, NULL, 0};
	strcpy(t->inputs[1].name, "s");
	t->inputs[1].dtype = NODUS_DTYPE_FLOAT32;
	t->inputs[1].ndim = 1;
	t->inputs[1].init = (nodus_dist){NODUS_DIST_AFFINE_SCALE, 0.5, 0, -1, NULL, 0};
	w->axis_value[0] = n;
}

static void test_threads_give_same_bits(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = (3 << 20) + 7; /* not a multiple of the split */
	make_task(&t, &w, n);
	nodus_instance in = {0, 0, 0, -1, 42, -1, 0, 0, 0};
	float *a[2] = {malloc(n * 4), malloc(n * 4)}, *b[2] = {malloc(n * 4), malloc(n * 4)};
	assert_int_equal(nodus__instance_fill(&t, &w, &in, 9, 1, (void *const *)a), 0);
	assert_int_equal(nodus__instance_fill(&t, &w, &in, 9, 7, (void *const *)b), 0);
	assert_memory_equal(a[0], b[0], (size_t)n * 4);
	assert_memory_equal(a[1], b[1], (size_t)n * 4);
	for (int i = 0; i < 2; i++) {
		free(a[i]);
		free(b[i]);
	}
}

static void test_perturbation_reproduced(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = 4096;
	make_task(&t, &w, n);
	/* the measure worker: pristine copy, then the perturbation of sample 5 */
	nodus_instance base = {0, 0, 0, 2, 77, -1, 0, 0, 0}, pert = {0, 0, 0, 2, 77, 5, 0, 0, 0};
	float *x[2] = {malloc(n * 4), malloc(n * 4)}, *y[2] = {malloc(n * 4), malloc(n * 4)};
	assert_int_equal(nodus__instance_fill(&t, &w, &base, 3, 1, (void *const *)x), 0);
	nodus_perturbation p;
	assert_int_equal(nodus__perturbation(&t, &w, &pert, 3, &p), 0);
	int changed = 0;
	for (int i = 0; i < 2; i++)
		for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++) {
			changed += memcmp(&x[i][p.index[i][e]], p.value[i][e], 4) != 0;
			memcpy(&x[i][p.index[i][e]], p.value[i][e], 4);
		}
	assert_true(changed > 0);
	/* the oracle: the same instance drawn in one go */
	assert_int_equal(nodus__instance_fill(&t, &w, &pert, 3, 1, (void *const *)y), 0);
	assert_memory_equal(x[0], y[0], (size_t)n * 4);
	assert_memory_equal(x[1], y[1], (size_t)n * 4);
	for (int i = 0; i < 2; i++) {
		free(x[i]);
		free(y[i]);
	}
}

/* A stand-in for the CUDA backend's fill, in host memory: the right values
 * except at every 500th element and at the recheck's perturbed elements,
 * which it garbles and lists as near, as the device lists the elements it
 * cannot promise. */
static const float *fake_truth;
static int64_t fake_extra[NODUS_PERTURB_ELEMENTS];
static int fake_fill(void *ctx, void *data, int64_t numel, const nodus_fill_spec *spec,
		     int64_t *near, int max_near, int *n_near, nodus_error *err)
{
	(void)ctx, (void)spec, (void)err;
	float *d = data;
	memcpy(d, fake_truth, (size_t)numel * 4);
	int n = 0;
	for (int64_t i = 0; i < numel && n < max_near; i += 500)
		near[n++] = i;
	for (int e = 0; e < NODUS_PERTURB_ELEMENTS && n < max_near; e++)
		near[n++] = fake_extra[e];
	for (int k = 0; k < n; k++)
		d[near[k]] = -12345.0f;
	*n_near = n;
	return 0;
}
static int fake_patch(void *ctx, const nodus_patch *patches, int n, nodus_error *err)
{
	(void)ctx, (void)err;
	for (int k = 0; k < n; k++)
		memcpy(patches[k].dst, patches[k].value, patches[k].bytes);
	return 0;
}

/* What a cuda worker does with a recheck instance: each input on its own
 * (the host's part), or drawn by the backend with its listed elements and
 * the perturbation written over, is what the oracle's one-go draw is. */
static void test_one_input_and_device_path(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = 4096;
	make_task(&t, &w, n);
	nodus_instance plain = {0, 0, 0, 0, 77, -1, 0, 0, 0}, pert = {0, 0, 0, 0, 77, 5, 3, 0, 0};
	float *want[2] = {malloc(n * 4), malloc(n * 4)}, *pristine[2] = {malloc(n * 4), malloc(n * 4)};
	float *got = malloc(n * 4);
	assert_int_equal(nodus__instance_fill(&t, &w, &pert, 3, 1, (void *const *)want), 0);
	assert_int_equal(nodus__instance_fill(&t, &w, &plain, 3, 1, (void *const *)pristine), 0);
	nodus_perturbation p;
	assert_int_equal(nodus__perturbation(&t, &w, &pert, 3, &p), 0);
	nodus_backend_ops ops;
	memset(&ops, 0, sizeof(ops));
	ops.fill = fake_fill;
	ops.patch = fake_patch;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(nodus__instance_fill_one(&t, &w, &pert, i, 1, got), 0);
		assert_memory_equal(got, want[i], (size_t)n * 4);
		fake_truth = pristine[i];
		for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++)
			fake_extra[e] = p.index[i][e];
		int done = 0;
		nodus_error err;
		assert_int_equal(nodus__instance_fill_device(&t, &w, &pert, i, &ops, NULL, got,
							     &done, &err),
				 0);
		assert_true(done);
		assert_memory_equal(got, want[i], (size_t)n * 4);
	}
	/* without a fill op the host draws */
	ops.fill = NULL;
	int done = 1;
	nodus_error err;
	assert_int_equal(nodus__instance_fill_device(&t, &w, &pert, 0, &ops, NULL, got, &done, &err),
			 0);
	assert_false(done);
	for (int i = 0; i < 2; i++) {
		free(want[i]);
		free(pristine[i]);
	}
	free(got);
}

/* The oracle rebuilds the copy of a checked timed call: copy c is copy 0
 * rotated left by nodus__copy_shift, as the worker makes it on the device
 * (worker.c, rotate_on_device), then perturbed; any other shift fails. */
static void test_copy_rebuilt_as_worker_rotates(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = 1001;
	make_task(&t, &w, n);
	const uint64_t base = 0xabcdef;
	nodus_instance c0 = {0, 0, 0, 0, 77, -1, 0, base, 0};
	nodus_instance c5 = {0, 0, 0, 5, 77, -1, 0, base, 0};
	float *x[2] = {malloc(n * 4), malloc(n * 4)}, *y[2] = {malloc(n * 4), malloc(n * 4)};
	assert_int_equal(nodus__instance_fill(&t, &w, &c0, 3, 1, (void *const *)x), 0);
	assert_int_equal(nodus__instance_fill(&t, &w, &c5, 3, 1, (void *const *)y), 0);
	for (int i = 0; i < 2; i++) {
		int64_t s = nodus__copy_shift(base, i, 5, n);
		assert_true(s > 0 && s < n);
		for (int64_t e = 0; e < n; e++)
			assert_memory_equal(&y[i][e], &x[i][(e + s) % n], 4);
	}
	assert_int_equal(nodus__copy_shift(base, 0, 0, n), 0);
	for (int i = 0; i < 2; i++) {
		free(x[i]);
		free(y[i]);
	}
}

static int fake_alloc(void *ctx, size_t bytes, void **ptr, nodus_error *err)
{
	(void)ctx, (void)err;
	*ptr = malloc(bytes);
	return *ptr ? 0 : -1;
}
static void fake_free(void *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}
static int fake_copy(void *ctx, void *dst, const void *src, size_t bytes, nodus_error *err)
{
	(void)ctx, (void)err;
	memcpy(dst, src, bytes);
	return 0;
}

/* The oracle's device path for a checked call's copy (copy > 0 under a
 * perturbation) gives the bits of the host's draw: copy 0 drawn, rotated,
 * perturbed. */
static void test_copy_on_device_as_host(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = 4099;
	make_task(&t, &w, n);
	const uint64_t base = 0x5151;
	nodus_instance c0 = {0, 0, 0, 0, 77, -1, 0, base, 0};
	nodus_instance c7 = {0, 0, 0, 7, 77, 123456789, 3, base, 0};
	float *pristine[2] = {malloc(n * 4), malloc(n * 4)}, *want[2] = {malloc(n * 4), malloc(n * 4)};
	float *got = malloc(n * 4);
	assert_int_equal(nodus__instance_fill(&t, &w, &c0, 3, 1, (void *const *)pristine), 0);
	assert_int_equal(nodus__instance_fill(&t, &w, &c7, 3, 1, (void *const *)want), 0);
	nodus_backend_ops ops;
	memset(&ops, 0, sizeof(ops));
	ops.fill = fake_fill;
	ops.patch = fake_patch;
	ops.alloc = fake_alloc;
	ops.free = fake_free;
	ops.copy = fake_copy;
	for (int i = 0; i < 2; i++) {
		fake_truth = pristine[i];
		for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++)
			fake_extra[e] = e * 7;
		int done = 0;
		nodus_error err;
		assert_int_equal(nodus__instance_fill_device(&t, &w, &c7, i, &ops, NULL, got, &done,
							     &err),
				 0);
		assert_true(done);
		assert_memory_equal(got, want[i], (size_t)n * 4);
	}
	for (int i = 0; i < 2; i++) {
		free(pristine[i]);
		free(want[i]);
	}
	free(got);
}

/* A file input (docs/formats.md, "File inputs") holds the file's values in
 * every instance: a variant, a timed sample's perturbation, a timing
 * copy's rotation and the shape probe leave it as it is, while the drawn
 * input beside it still changes. */
static void test_file_input_kept_exactly(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = 4096;
	make_task(&t, &w, n);
	float *file = malloc(sizeof(float) * (size_t)n);
	assert_non_null(file);
	for (int64_t e = 0; e < n; e++)
		file[e] = (float)e * 0.25f - 3.0f;
	w.has_init[1] = 1;
	w.init_override[1] = (nodus_dist){NODUS_DIST_FILE, 0, 0, -1, file, n * 4};
	t.inputs[1].variants = NODUS_VARIANT_NEGATE | NODUS_VARIANT_SCALE_3;
	assert_int_equal(nodus_judge_input_variants(t.inputs[1].variants, &w.init_override[1]), 0u);
	float *x0 = calloc((size_t)n, 4), *s0 = calloc((size_t)n, 4);
	float *x1 = calloc((size_t)n, 4), *s1 = calloc((size_t)n, 4);
	assert_true(x0 && s0 && x1 && s1);
	void *a[2] = {x0, s0}, *b[2] = {x1, s1};
	nodus_instance plain = {0, 0, 0, -1, 77, -1, 0, 0, 0};
	nodus_instance other = {0, 1, NODUS_VARIANT_NEGATE, 3, 78, 5, 0, 99, 0};
	assert_int_equal(nodus__instance_fill(&t, &w, &plain, 11, 1, a), 0);
	assert_int_equal(nodus__instance_fill(&t, &w, &other, 11, 1, b), 0);
	assert_memory_equal(s0, file, (size_t)n * 4);
	assert_memory_equal(s1, file, (size_t)n * 4);
	assert_memory_not_equal(x0, x1, (size_t)n * 4);
	assert_int_equal(nodus__input_shift(&w, 99, 1, 3, n), 0);
	assert_true(nodus__input_shift(&w, 99, 0, 3, n) == nodus__copy_shift(99, 0, 3, n));
	int64_t full[NODUS_MAX_AXES], probe[NODUS_MAX_AXES];
	nodus__instance_axes(&t, &w, 0, full);
	nodus__instance_axes(&t, &w, 1, probe);
	assert_int_equal(full[0], probe[0]);
	free(x0), free(s0), free(x1), free(s1), free(file);
}

/* Timed calls checked per attempt (nodus__timed_checks_for): the judge's
 * recheck_reps for a call of large tensors, as many more as 8 MiB holds a
 * small call's, never past NODUS_TIMED_CHECKS_MAX (16), and 0 kept 0. */
static void test_checks_grow_for_small_calls(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	make_task(&t, &w, 1 << 21); /* two float32 inputs: 16 MiB a call */
	assert_true(nodus__call_bytes(&t, &w) == 16.0 * 1024 * 1024);
	assert_int_equal(nodus__timed_checks_for(&t, &w, 4), 4);
	make_task(&t, &w, 1 << 18); /* 2 MiB: four more */
	assert_int_equal(nodus__timed_checks_for(&t, &w, 4), 8);
	make_task(&t, &w, 1024); /* 8 KiB: capped */
	assert_int_equal(nodus__timed_checks_for(&t, &w, 4), 16);
	assert_int_equal(nodus__timed_checks_for(&t, &w, 0), 0);
	assert_int_equal(nodus__timed_checks_for(&t, &w, 40), 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_give_same_bits),
		cmocka_unit_test(test_perturbation_reproduced),
		cmocka_unit_test(test_one_input_and_device_path),
		cmocka_unit_test(test_copy_rebuilt_as_worker_rotates),
		cmocka_unit_test(test_copy_on_device_as_host),
		cmocka_unit_test(test_file_input_kept_exactly),
		cmocka_unit_test(test_checks_grow_for_small_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
