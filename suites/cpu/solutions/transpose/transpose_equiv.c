/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * transpose_equiv.c: the reference's traversal in different code
 * (suites/cpu).
 *
 * Walks x sequentially with one pointer and scatters into y with a second
 * pointer that jumps `rows` floats per element, exactly the reference's
 * access pattern (sequential reads, strided writes): same time and same
 * bits by construction.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int transpose_equiv(const nodus_call *call)
{
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	const float *src = call->inputs[0].data;

	for (int64_t i = 0; i < rows; i++) {
		float *dst = (float *)call->outputs[0].data + i;

		for (const float *end = src + cols; src < end; src++, dst += rows)
			*dst = *src;
	}
	return 0;
}
