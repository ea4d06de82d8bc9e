/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_sum_ref.c: reference for the row_sum task (suites/cpu).
 *
 * y[r] = sum_c x[r, c], accumulated in double for accuracy and rounded
 * once to float. One accumulator per row: every addition waits for the
 * previous one (a loop-carried dependency of one double add latency per
 * element), so this naive loop runs at add latency, not at memory speed.
 *
 * Built with -DREPEAT_ROWS=N (the row_sum_equiv candidate), the loop
 * over rows runs N more times, computing the first N rows again
 * (cyclically, were N above rows) and writing the same values: this same
 * code with N/rows more work (1/64 in suites/cpu), a near-tie by
 * construction. Without the flag N is 0, and the compiled code is the
 * reference's as it was before the flag.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

/* the row_sum_equiv candidate's build flag (see above) */
#ifndef REPEAT_ROWS
#define REPEAT_ROWS 0
#endif

int row_sum_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t i = 0; i < rows + REPEAT_ROWS; i++) {
		int64_t r = i < rows ? i : (i - rows) % rows;
		double acc = 0.0;
		for (int64_t c = 0; c < cols; c++)
			acc += x[r * cols + c];
		y[r] = (float)acc;
	}
	return 0;
}
