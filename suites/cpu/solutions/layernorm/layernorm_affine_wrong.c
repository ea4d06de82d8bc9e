/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_affine_wrong.c: layernorm with the affine step in the wrong
 * order (suites/cpu).
 *
 * Statistics as in the reference, but the output is (xhat + bias) *
 * weight instead of xhat * weight + bias. The two differ by
 * bias * (weight - 1), so they agree exactly when weight == 1 or
 * bias == 0: a harness that tests with identity affine parameters (ones
 * and zeros) passes this candidate. nodus draws weight from affine_scale
 * and bias from affine_shift (never exactly 1 or 0), so |bias| *
 * |weight - 1| >= 0.05 * 0.05 = 2.5e-3 on every column: clearly outside
 * tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_affine_wrong(const nodus_call *call)
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
		rstd = 1.0f / sqrtf((float)(sq / (double)cols) + 1e-5f);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = ((xr[c] - mean) * rstd + b[c]) * w[c];
	}
	return 0;
}
