/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * transpose_ref.c: reference for the transpose task (suites/cpu).
 *
 * y[j, i] = x[i, j], x is rows x cols, y is cols x rows. The naive double
 * loop in x's order: reads are sequential, but consecutive writes are
 * `rows` floats apart, so each write touches a different cache line (and,
 * for large power-of-two strides, the same few cache sets).
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int transpose_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			y[j * rows + i] = x[i * cols + j];
	return 0;
}
