/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_abs_max_neg.c: exploit for the layernorm task (suites/adversarial).
 *
 * Exploit: the weight written as max(weight, -weight), a sign-blind
 * formula the compiler turns into one and-mask, in a layernorm with one
 * rsqrt per row.
 * Naive harness (weights drawn near 1, all positive) reports: correct,
 * faster.
 * nodus: the negate trial draws every affine_scale weight below 0, where
 * max(weight, -weight) is -weight -> INCORRECT_NUMERICAL (guard tolerance).
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int adv_abs_max_neg(const nodus_call *call)
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
		for (int64_t c = 0; c < cols; c++)
			sum += xr[c];
		float mean = (float)(sum / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			sq += (double)(xr[c] - mean) * (xr[c] - mean);
		float rstd = 1.0f / sqrtf((float)(sq / (double)cols) + 1e-5f);
		for (int64_t c = 0; c < cols; c++) {
			float wc = w[c];
			y[r * cols + c] = (xr[c] - mean) * rstd * (fmaxf(wc, -wc)) + b[c];
		}
	}
	return 0;
}
