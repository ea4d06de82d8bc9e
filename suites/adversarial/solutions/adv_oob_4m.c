/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_oob_4m.c: out-of-bounds exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: writes 4 MiB past the end of a large output (n = 2^21, 8 MiB),
 * the distance the H200 let through without an error. y is exactly right.
 * nodus: the trailing guard of an 8 MiB buffer is 8 MiB of PROT_NONE pages
 * -> CRASH, guard out_of_bounds_write.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_oob_4m(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	((volatile float *)y)[n + (1 << 20)] = 1.0f; /* 4 MiB past the end */
	return 0;
}
