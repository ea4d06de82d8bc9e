/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_oob_before.c: out-of-bounds exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: writes one element before the start of its output (an index
 * off by one downwards, or a negative offset into a neighbour). y is
 * exactly right.
 * nodus: the 64 bytes before every buffer are a canary, checked after
 * every call (further before it, guard pages fault) -> CRASH, guard
 * out_of_bounds_write.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_oob_before(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	volatile int64_t before = -1; /* so the compiler sees no negative constant index */

	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	((volatile float *)y)[before] = 0.0f;
	return 0;
}
