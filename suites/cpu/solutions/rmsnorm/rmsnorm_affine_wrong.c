/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * rmsnorm_affine_wrong.c: rmsnorm that scales before normalising
 * (suites/cpu).
 *
 * The weight is applied to x before the statistic instead of after it:
 * y = (x * w) / rms(x * w), where the task asks for x / rms(x) * w. The
 * two agree exactly when every weight is 1, so a harness that tests with
 * identity weights passes it. With weight drawn from affine_scale (1 + u,
 * 0.05 <= |u| <= 0.5) rms(x * w) differs from rms(x) by several percent:
 * clearly outside tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int rmsnorm_affine_wrong(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double sq = 0.0;
		float rstd;

		for (int64_t c = 0; c < cols; c++) {
			double v = (double)xr[c] * w[c];

			sq += v * v;
		}
		rstd = 1.0f / sqrtf((float)(sq / (double)cols) + 1e-6f);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = xr[c] * w[c] * rstd;
	}
	return 0;
}
