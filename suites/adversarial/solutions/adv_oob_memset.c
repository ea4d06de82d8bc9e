/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_oob_memset.c: out-of-bounds exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: clears its output with a memset that is 256 bytes too long (a
 * size computed in the wrong unit), then writes y. The overrun is libc's,
 * with vector stores, not a store of the solution's own.
 * nodus: the memset runs into the guard page after y -> CRASH, guard
 * out_of_bounds_write.
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

int adv_oob_memset(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	volatile size_t extra = 256; /* the wrong unit, out of the compiler's sight */

	memset(y, 0, (size_t)call->outputs[0].nbytes + extra);
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
