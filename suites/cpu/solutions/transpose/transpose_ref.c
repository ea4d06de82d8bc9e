/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * transpose_ref.c: reference for the transpose task (suites/cpu).
 *
 * y[j, i] = x[i, j], x is rows x cols, y is cols x rows. The naive double
 * loop in x's order: reads are sequential, but consecutive writes are
 * `rows` floats apart, so each write touches a different cache line (and,
 * for large power-of-two strides, the same few cache sets).
 *
 * Built with -DREPEAT_ROWS=N (the transpose_equiv candidate), the loop
 * over the rows of x runs N more times, computing the first N rows again
 * (cyclically, were N above rows) and writing the same values: this same
 * code with N/rows more work (1/64 in suites/cpu), a near-tie by
 * construction. Without the flag N is 0, and the compiled code is the
 * reference's as it was before the flag.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

/* the transpose_equiv candidate's build flag (see above) */
#ifndef REPEAT_ROWS
#define REPEAT_ROWS 0
#endif

int transpose_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t ii = 0; ii < rows + REPEAT_ROWS; ii++)
		for (int64_t j = 0, i = ii < rows ? ii : (ii - rows) % rows; j < cols; j++)
			y[j * rows + i] = x[i * cols + j];
	return 0;
}
