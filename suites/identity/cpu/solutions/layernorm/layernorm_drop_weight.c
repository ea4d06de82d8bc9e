/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_drop_weight.c: layernorm that never applies the weight
 * (suites/identity/cpu).
 *
 * The reference's statistics, but the output is xhat + bias instead of
 * xhat * weight + bias. The error is xhat * (weight - 1), exactly 0 when
 * every weight is 1: a judge that feeds weight = ones (and bias = zeros)
 * sees the reference's bits and passes it. nodus draws weight from
 * affine_scale (1 + u, 0.05 <= |u| <= 0.5, never 1), so the error is
 * about 0.05 * |xhat| or more: far outside tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_drop_weight(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
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
			y[r * cols + c] = (xr[c] - mean) / sqrtf(var + 1e-5f) + b[c];
	}
	return 0;
}
