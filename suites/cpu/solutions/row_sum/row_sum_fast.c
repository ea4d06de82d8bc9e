/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_sum_fast.c: row sums with eight independent accumulators
 * (suites/cpu).
 *
 * Same double accumulation as the reference, split over eight partial
 * sums that are combined at the end of the row. The reference's single
 * accumulator serialises every add on the add latency (about 3-4 cycles);
 * eight independent chains keep the adders busy every cycle, so the loop
 * becomes throughput- or memory-bound and is several times faster by
 * construction. Reassociation changes the double sum by far less than one
 * float ulp, so the rounded result matches the reference.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int row_sum_fast(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *row = x + r * cols;
		double a[8] = {0};
		int64_t c = 0;

		for (; c + 8 <= cols; c += 8)
			for (int j = 0; j < 8; j++)
				a[j] += row[c + j];
		for (; c < cols; c++)
			a[0] += row[c];
		y[r] = (float)(((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])));
	}
	return 0;
}
