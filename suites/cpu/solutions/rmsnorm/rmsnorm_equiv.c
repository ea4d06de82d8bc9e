/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * rmsnorm_equiv.c: the reference's algorithm in different code
 * (suites/cpu).
 *
 * One chained double accumulator for the sum of squares, then a square
 * root and a division per element, exactly as the reference, written as
 * a helper function and pointer walks. Same operations in the same order:
 * same time and same bits by construction.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

static float mean_square(const float *p, const float *end, int64_t n)
{
	double s = 0.0;

	for (; p < end; p++)
		s += (double)*p * *p;
	return (float)(s / (double)n);
}

int rmsnorm_equiv(const nodus_call *call)
{
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	const float *xr = call->inputs[0].data;
	const float *end = xr + rows * cols;
	float *yr = call->outputs[0].data;

	for (; xr < end; xr += cols, yr += cols) {
		const float *w = call->inputs[1].data;
		float ms = mean_square(xr, xr + cols, cols);

		for (int64_t c = 0; c < cols; c++)
			yr[c] = xr[c] / sqrtf(ms + 1e-6f) * w[c];
	}
	return 0;
}
