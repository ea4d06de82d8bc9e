/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_wrong.c: layernorm with an unbiased variance and no epsilon
 * (suites/cpu).
 *
 * Two real bugs together: the variance divides by cols - 1 (the sample
 * variance, where layernorm uses the population variance) and the 1e-5
 * epsilon is missing. The divisor alone scales every output by
 * sqrt((cols-1)/cols), a relative error of 1/(2 cols), about 5e-4 for
 * 1024 columns, outside rtol 1e-4 for |xhat| >~ 0.3; the missing epsilon
 * adds about 5% for the scale_0.01 variant (var ~ 1e-4).
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_wrong(const nodus_call *call)
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
		float mean, rstd;

		for (int64_t c = 0; c < cols; c++)
			sum += xr[c];
		mean = (float)(sum / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			sq += (double)(xr[c] - mean) * (xr[c] - mean);
		rstd = 1.0f / sqrtf((float)(sq / (double)(cols > 1 ? cols - 1 : 1)));
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (xr[c] - mean) * rstd * w[c] + b[c];
	}
	return 0;
}
