/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_bias_first.c: layernorm that adds the bias before scaling
 * (suites/identity/cpu).
 *
 * The output is (xhat + bias) * weight instead of xhat * weight + bias.
 * The two differ by bias * (weight - 1), exactly 0 when weight == 1 or
 * bias == 0: a judge with weight = ones and bias = zeros passes it. With
 * nodus's affine_scale and affine_shift inputs |bias| * |weight - 1| >=
 * 0.05 * 0.05 = 2.5e-3 on every column: clearly outside tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_bias_first(const nodus_call *call)
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
		float mean, var;

		for (int64_t c = 0; c < cols; c++)
			sum += xr[c];
		mean = (float)(sum / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			sq += (double)(xr[c] - mean) * (xr[c] - mean);
		var = (float)(sq / (double)cols);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = ((xr[c] - mean) / sqrtf(var + 1e-5f) + b[c]) * w[c];
	}
	return 0;
}
