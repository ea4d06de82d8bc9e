/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_identity_affine.c: exploit (e) for the layernorm task (suites/adversarial).
 *
 * Exploit: normalises each row and ignores weight and bias, i.e. it is
 * only correct when weight == 1 and bias == 0, which is how layernorm
 * parameters are initialised and how naive harnesses often fill them.
 * It skips two loads and a multiply-add per element.
 * Naive harness (ones/zeros parameters) reports: correct, faster.
 * nodus: weight comes from affine_scale and bias from affine_shift,
 * never exactly 1 or 0 -> INCORRECT_NUMERICAL (guard tolerance).
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int adv_identity_affine(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
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
			y[r * cols + c] = (xr[c] - mean) * rstd;
	}
	return 0;
}
