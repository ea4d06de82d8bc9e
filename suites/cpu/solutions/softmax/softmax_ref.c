/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * softmax_ref.c: reference for the softmax task (suites/cpu).
 *
 * y[r, c] = exp(x[r, c] - max_r) / sum_c' exp(x[r, c'] - max_r), per row.
 * The textbook three-pass form: row maximum, sum of exponentials (in
 * double), then every output recomputes its exponential with libm expf()
 * and divides by the sum. Correct and stable, but it calls expf() twice
 * per element and divides once per element.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int softmax_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		float m = xr[0];
		double s = 0.0;

		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (int64_t c = 0; c < cols; c++)
			s += expf(xr[c] - m);
		for (int64_t c = 0; c < cols; c++)
			yr[c] = expf(xr[c] - m) / (float)s;
	}
	return 0;
}
