/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-retry.c: the wait before a NOT_ISOLATED pair is tried again grows
 * 1, 2, 4, 8 s with the attempt and stops at its cap (src/run/retry.c).
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/retry.h"

static void test_backoff_doubles_then_caps(void **state)
{
	(void)state;
	const double want[] = {1, 1, 2, 4, 8, 16, 16, 16};
	for (int attempt = 0; attempt < 8; attempt++)
		assert_float_equal(nodus__not_isolated_backoff_s(attempt), want[attempt], 0);
	assert_float_equal(nodus__not_isolated_backoff_s(1000), NODUS_NOT_ISOLATED_BACKOFF_MAX_S,
			   0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff_doubles_then_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
