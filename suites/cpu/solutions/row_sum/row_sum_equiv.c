/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_sum_equiv.c: the reference's loop in different code (suites/cpu).
 *
 * One double accumulator per row, elements added in the same order, with
 * pointer walks and a helper function instead of indices. The dependency
 * chain (one add per element) is the same as the reference's, so the time
 * is the same by construction and the bits are identical.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

static float sum_range(const float *p, const float *end)
{
	double acc = 0.0;

	while (p < end)
		acc += *p++;
	return (float)acc;
}

int row_sum_equiv(const nodus_call *call)
{
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	const float *row = call->inputs[0].data;
	float *y = call->outputs[0].data;

	for (float *end = y + rows; y < end; y++, row += cols)
		*y = sum_range(row, row + cols);
	return 0;
}
