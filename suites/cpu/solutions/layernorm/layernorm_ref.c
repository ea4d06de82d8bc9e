/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_ref.c: reference for the layernorm task (suites/cpu).
 *
 * y[r, c] = (x[r, c] - mean_r) / sqrt(var_r + 1e-5) * weight[c] + bias[c],
 * with the biased variance (divisor cols). Naive but correct: two passes
 * with one double accumulator each (every add waits for the previous
 * one), then an output pass that takes a square root and divides for
 * every element.
 *
 * Built with -DREPEAT_ROWS=N (the layernorm_equiv candidate), the loop
 * over rows runs N more times, computing the first N rows again
 * (cyclically, were N above rows) and writing the same values: this same
 * code with N/rows more work (1/64 in suites/cpu), a near-tie by
 * construction. Without the flag N is 0, and the compiled code is the
 * reference's as it was before the flag.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

/* the layernorm_equiv candidate's build flag (see above) */
#ifndef REPEAT_ROWS
#define REPEAT_ROWS 0
#endif

int layernorm_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	const float *b = call->inputs[2].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t i = 0; i < rows + REPEAT_ROWS; i++) {
		int64_t r = i < rows ? i : (i - rows) % rows;
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
			y[r * cols + c] = (xr[c] - mean) / sqrtf(var + 1e-5f) * w[c] + b[c];
	}
	return 0;
}
