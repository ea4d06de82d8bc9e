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
	t->inputs[0].init = (nodus_dist){NODUS_DIST_NORMAL, 0, 1, -1};
	strcpy(t->inputs[1].name, "s");
	t->inputs[1].dtype = NODUS_DTYPE_FLOAT32;
	t->inputs[1].ndim = 1;
	t->inputs[1].init = (nodus_dist){NODUS_DIST_AFFINE_SCALE, 0.5, 0, -1};
	w->axis_value[0] = n;
}

static void test_threads_give_same_bits(void **state)
{
	(void)state;
	nodus_task t;
	nodus_workload w;
	const int64_t n = (3 << 20) + 7; /* not a multiple of the split */
	make_task(&t, &w, n);
	nodus_instance in = {0, 0, 0, -1, 42, -1, 0};
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
	nodus_instance base = {0, 0, 0, 2, 77, -1, 0}, pert = {0, 0, 0, 2, 77, 5, 0};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_give_same_bits),
		cmocka_unit_test(test_perturbation_reproduced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
