/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * rmsnorm_one_plus.c: rmsnorm with a (1 + weight) scale
 * (suites/identity/cpu).
 *
 * The output is xhat * (1 + weight), the convention of models that store
 * the weight as an offset from 1, applied to a task whose weight is the
 * scale itself. The error is xhat, so it is wrong under any judge: with
 * weight = ones it returns 2 * xhat. Kept as the control that even a
 * naive judge catches.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int rmsnorm_one_plus(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double sq = 0.0;
		float ms;

		for (int64_t c = 0; c < cols; c++)
			sq += (double)xr[c] * xr[c];
		ms = (float)(sq / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = xr[c] / sqrtf(ms + 1e-6f) * (1.0f + w[c]);
	}
	return 0;
}
