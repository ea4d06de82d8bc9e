/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_equiv.c: the reference's algorithm in different code
 * (suites/cpu).
 *
 * The same three passes as the reference (mean and variance each with a
 * single double accumulator, then a square root and a division for every
 * output element), written with helper functions and pointer walks. Same
 * operations in the same order, so the same time and the same bits.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

static float mean_of(const float *p, const float *end, int64_t n)
{
	double s = 0.0;

	while (p < end)
		s += *p++;
	return (float)(s / (double)n);
}

static float var_of(const float *p, const float *end, int64_t n, float mean)
{
	double s = 0.0;

	for (; p < end; p++)
		s += (double)(*p - mean) * (*p - mean);
	return (float)(s / (double)n);
}

int layernorm_equiv(const nodus_call *call)
{
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;

	for (const float *xr = x; xr < x + rows * cols; xr += cols, y += cols) {
		const float *w = call->inputs[1].data, *b = call->inputs[2].data;
		float mean = mean_of(xr, xr + cols, cols);
		float var = var_of(xr, xr + cols, cols, mean);

		for (int64_t c = 0; c < cols; c++)
			y[c] = (xr[c] - mean) / sqrtf(var + 1e-5f) * w[c] + b[c];
	}
	return 0;
}
