/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * softmax_slow.c: softmax with the denominator recomputed per block
 * (suites/cpu).
 *
 * The reference's passes, but the sum of exponentials sits inside the
 * output loop's block structure: the row is written in 8 blocks and the
 * denominator (a loop invariant) is recomputed for every block. That is
 * 8 + 1 = 9 expf() calls per element against the reference's 2, so this
 * is over 4 times slower by construction. Same values as the reference.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int softmax_slow(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		float m = xr[0];

		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (int64_t b = 0; b < 8; b++) {
			double s = 0.0;

			for (int64_t c = 0; c < cols; c++)
				s += expf(xr[c] - m);
			for (int64_t c = b * cols / 8; c < (b + 1) * cols / 8; c++)
				yr[c] = expf(xr[c] - m) / (float)s;
		}
	}
	return 0;
}
