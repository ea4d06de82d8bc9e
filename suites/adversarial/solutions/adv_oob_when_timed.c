/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_oob_when_timed.c: out-of-bounds exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: stays inside its output while it is being checked and writes
 * past the end only from its 24th call on, when the timing has begun (a
 * harness that looks for overruns only around its correctness trials
 * never sees it). y is exactly right.
 * It writes y[n] where n is not a multiple of 64 (n = 1000) and y[n +
 * 1024], 4 KiB further, where it is (n = 262144), so that one pair meets
 * each kind of guard.
 * nodus: the canaries are checked after every timed batch too (n = 1000)
 * and the guard pages fault inside it (n = 262144) -> CRASH, guard
 * out_of_bounds_write.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_oob_when_timed(const nodus_call *call)
{
	static long calls;
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	if (++calls >= 24)
		((volatile float *)y)[n % 64 ? n : n + 1024] = 0.0f;
	return 0;
}
