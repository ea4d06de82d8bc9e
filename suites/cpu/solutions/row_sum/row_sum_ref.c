/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_sum_ref.c: reference for the row_sum task (suites/cpu).
 *
 * y[r] = sum_c x[r, c], accumulated in double for accuracy and rounded
 * once to float. One accumulator per row: every addition waits for the
 * previous one (a loop-carried dependency of one double add latency per
 * element), so this naive loop runs at add latency, not at memory speed.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int row_sum_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		double acc = 0.0;
		for (int64_t c = 0; c < cols; c++)
			acc += x[r * cols + c];
		y[r] = (float)acc;
	}
	return 0;
}
