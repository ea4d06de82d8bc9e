/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * rmsnorm_drop_weight.c: rmsnorm that never applies the weight
 * (suites/identity/cpu).
 *
 * The reference's statistic, but the output is xhat = x / rms(x): the
 * weight is dropped. The error is xhat * (weight - 1), exactly 0 when
 * every weight is 1, so a judge that feeds weight = ones passes it. nodus
 * draws weight from affine_scale (never 1, |weight - 1| >= 0.05): the
 * error is about 0.05 * |xhat| or more, far outside tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int rmsnorm_drop_weight(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
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
			y[r * cols + c] = xr[c] / sqrtf(ms + 1e-6f);
	}
	return 0;
}
