/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_oob_4k.c: out-of-bounds exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: writes one float 4 KiB past the end of its output, skipping
 * the page that follows it (a one-page guard would miss it). y is exactly
 * right.
 * nodus: the trailing guard is as long as the buffer (at least 64 KiB, at
 * most 16 MiB), so the write faults inside it -> CRASH, guard
 * out_of_bounds_write.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_oob_4k(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	((volatile float *)y)[n + 1024] = 1.0f; /* 4096 bytes past the end */
	return 0;
}
