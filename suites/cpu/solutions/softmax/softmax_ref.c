/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * softmax_ref.c: reference for the softmax task (suites/cpu).
 *
 * y[r, c] = exp(x[r, c] - max_r) / sum_c' exp(x[r, c'] - max_r), per row.
 * The textbook three-pass form: row maximum, sum of exponentials (in
 * double), then every output recomputes its exponential with libm expf()
 * and divides by the sum. Correct and stable, but it calls expf() twice
 * per element and divides once per element.
 *
 * Built with -DREPEAT_ROWS=N (the softmax_equiv candidate), the loop
 * over rows runs N more times, computing the first N rows again
 * (cyclically, were N above rows) and writing the same values: this same
 * code with N/rows more work (1/64 in suites/cpu), a near-tie by
 * construction. Without the flag N is 0, and the compiled code is the
 * reference's as it was before the flag.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

/* the softmax_equiv candidate's build flag (see above) */
#ifndef REPEAT_ROWS
#define REPEAT_ROWS 0
#endif

int softmax_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t i = 0; i < rows + REPEAT_ROWS; i++) {
		int64_t r = i < rows ? i : (i - rows) % rows;
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
