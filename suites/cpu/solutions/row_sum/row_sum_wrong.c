/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_sum_wrong.c: fast row sums with an off-by-one (suites/cpu).
 *
 * The eight-accumulator loop of row_sum_fast, but the remainder loop was
 * dropped and the main loop bound written as c + 8 < cols, so the last
 * eight elements of every row (cols is a multiple of 8) are never added.
 * The error is the sum of eight N(0,1) values per row, about 2.8 on
 * average: far outside tolerance.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int row_sum_wrong(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *row = x + r * cols;
		double a[8] = {0};

		for (int64_t c = 0; c + 8 < cols; c += 8)
			for (int j = 0; j < 8; j++)
				a[j] += row[c + j];
		y[r] = (float)(((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])));
	}
	return 0;
}
