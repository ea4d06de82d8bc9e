/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_one_plus.c: layernorm with a (1 + weight) scale
 * (suites/identity/cpu).
 *
 * The output is xhat * (1 + weight) + bias, the convention of models that
 * store the weight as an offset from 1, applied to a task whose weight is
 * the scale itself. The error is xhat (times 1), so this is wrong under
 * any judge: with weight = ones it returns 2 * xhat, with nodus's weights
 * near 1 about 2 * xhat too. Kept as the control that even a naive judge
 * catches.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_one_plus(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	const float *b = call->inputs[2].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double sum = 0.0, sq = 0.0;
		float mean, var;

		for (int64_t c = 0; c < cols; c++)
			sum += xr[c];
		mean = (float)(sum / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			sq += (double)(xr[c] - mean) * (xr[c] - mean);
		var = (float)(sq / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (xr[c] - mean) / sqrtf(var + 1e-5f) * (1.0f + w[c]) + b[c];
	}
	return 0;
}
