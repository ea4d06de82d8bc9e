/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-roofline.c: roofline expressions evaluate as arithmetic on the
 * workload's axes (precedence, parentheses, unary minus), and expressions
 * that cannot be evaluated are refused rather than read as 0.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spec/spec.h"

static void make(nodus_task *t)
{
	memset(t, 0, sizeof(*t));
	t->n_axes = 3;
	strcpy(t->axes[0].name, "m");
	strcpy(t->axes[1].name, "n");
	strcpy(t->axes[2].name, "k_dim");
}

static void test_values(void **state)
{
	(void)state;
	nodus_task t;
	make(&t);
	int64_t axes[3] = {512, 256, 64};
	double v;
	assert_int_equal(nodus_roofline_eval("2*m*n*k_dim", &t, axes, &v), 0);
	assert_true(v == 2.0 * 512 * 256 * 64);
	assert_int_equal(nodus_roofline_eval("4*(m*k_dim + k_dim*n) + 4*m*n", &t, axes, &v), 0);
	assert_true(v == 4.0 * (512 * 64 + 64 * 256) + 4.0 * 512 * 256);
	assert_int_equal(nodus_roofline_eval(" m - n - 6 ", &t, axes, &v), 0);
	assert_true(v == 512 - 256 - 6);
	assert_int_equal(nodus_roofline_eval("m/n*3", &t, axes, &v), 0);
	assert_true(v == 6.0);
	assert_int_equal(nodus_roofline_eval("-(m)+1", &t, axes, &v), 0);
	assert_true(v == -511.0);
}

static void test_refused(void **state)
{
	(void)state;
	nodus_task t;
	make(&t);
	int64_t axes[3] = {512, 0, 64};
	double v = 42;
	assert_int_equal(nodus_roofline_eval("m/n", &t, axes, &v), NODUS_EINVAL);
	assert_int_equal(nodus_roofline_eval("m*q", &t, axes, &v), NODUS_EINVAL);
	assert_int_equal(nodus_roofline_eval("(m", &t, axes, &v), NODUS_EINVAL);
	assert_int_equal(nodus_roofline_eval("m m", &t, axes, &v), NODUS_EINVAL);
	assert_int_equal(nodus_roofline_eval(NULL, &t, axes, &v), NODUS_EINVAL);
	assert_true(v == 42); /* untouched on failure */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
