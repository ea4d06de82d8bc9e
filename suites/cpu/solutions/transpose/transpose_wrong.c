/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * transpose_wrong.c: unrolled transpose with a copy-paste bug
 * (suites/cpu).
 *
 * The inner loop is unrolled four times and the fourth lane was pasted
 * from the third without updating its source offset: y[j+3, i] receives
 * x[i, j+2]. Every fourth column of y holds its neighbour's values, a
 * wrong element of order 1 on a quarter of the output. All indices stay
 * in bounds.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int transpose_wrong(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t i = 0; i < rows; i++) {
		const float *xr = x + i * cols;
		int64_t j = 0;

		for (; j + 4 <= cols; j += 4) {
			y[(j + 0) * rows + i] = xr[j + 0];
			y[(j + 1) * rows + i] = xr[j + 1];
			y[(j + 2) * rows + i] = xr[j + 2];
			y[(j + 3) * rows + i] = xr[j + 2];
		}
		for (; j < cols; j++)
			y[j * rows + i] = xr[j];
	}
	return 0;
}
