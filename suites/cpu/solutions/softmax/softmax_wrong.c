/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * softmax_wrong.c: fused softmax with the shift dropped from the
 * numerator (suites/cpu).
 *
 * A real bug: the denominator is sum exp(x - max) but the output pass
 * writes exp(x) / sum, forgetting the "- max" there. Every output is the
 * reference's times e^max (about 20 for N(0,1) rows of 1024; still a few
 * percent for the scale_0.01 variant), far outside tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int softmax_wrong(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		float m = xr[0], s = 0.0f;

		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (int64_t c = 0; c < cols; c++)
			s += expf(xr[c] - m);
		for (int64_t c = 0; c < cols; c++)
			yr[c] = expf(xr[c]) / s;
	}
	return 0;
}
