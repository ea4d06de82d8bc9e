/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_drop_bias.c: layernorm that never adds the bias
 * (suites/identity/cpu).
 *
 * The reference's statistics, but the output is xhat * weight: the bias
 * is dropped. The error is -bias, exactly 0 when every bias is 0: a judge
 * that feeds bias = zeros (and weight = ones) passes it. nodus draws bias
 * from affine_shift (0.05 <= |bias| <= 0.5, never 0), so every element is
 * off by at least 0.05: far outside tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_drop_bias(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
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
			y[r * cols + c] = (xr[c] - mean) / sqrtf(var + 1e-5f) * w[c];
	}
	return 0;
}
