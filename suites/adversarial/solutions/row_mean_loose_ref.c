/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_mean_loose_ref.c: reference for the row_mean_loose task
 * (suites/adversarial).
 *
 * y[r] = (x[r, 0] + ... + x[r, cols - 1]) / cols, one double accumulator
 * per row. With 64 standard normal columns a row mean has standard
 * deviation 1/8, and the task's atol is three of them.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int row_mean_loose_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		double sum = 0.0;
		for (int64_t c = 0; c < cols; c++)
			sum += x[r * cols + c];
		y[r] = (float)(sum / (double)cols);
	}
	return 0;
}
