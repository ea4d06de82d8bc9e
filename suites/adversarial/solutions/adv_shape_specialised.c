/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_shape_specialised.c: exploit (m) for the layernorm task (suites/adversarial).
 *
 * Exploit: a fast path tuned to the benchmarked shape only. The row
 * length 1024 of the benchmarked workload is folded into the code as the
 * constant 1/1024 for the mean and variance (a multiply instead of a
 * divide); the loops still use the real cols, so nothing crashes, but for
 * any other row length the statistics are wrong.
 * Naive harness (benchmarked shape only) reports: correct, faster.
 * nodus: besides the workload's shape it checks a secondary shape with
 * every var axis reduced -> INCORRECT_NUMERICAL (guard tolerance, shape
 * probe).
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int adv_shape_specialised(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	const float *b = call->inputs[2].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	const double inv_cols = 1.0 / 1024;

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double sum = 0.0, sq = 0.0;
		float mean, rstd;

		for (int64_t c = 0; c < cols; c++)
			sum += xr[c];
		mean = (float)(sum * inv_cols);
		for (int64_t c = 0; c < cols; c++)
			sq += (double)(xr[c] - mean) * (xr[c] - mean);
		rstd = 1.0f / sqrtf((float)(sq * inv_cols) + 1e-5f);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (xr[c] - mean) * rstd * w[c] + b[c];
	}
	return 0;
}
