/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * rmsnorm_slow.c: rmsnorm with the statistic recomputed per block
 * (suites/cpu).
 *
 * The reference's code, but the latency-bound sum of squares sits inside
 * the loop over 8 output blocks (a loop invariant that was never hoisted):
 * it runs 8 times per row instead of once, so this is several times slower
 * by construction. Same values as the reference.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int rmsnorm_slow(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;

		for (int64_t blk = 0; blk < 8; blk++) {
			double sq = 0.0;
			float ms;

			for (int64_t c = 0; c < cols; c++)
				sq += (double)xr[c] * xr[c];
			ms = (float)(sq / (double)cols);
			for (int64_t c = blk * cols / 8; c < (blk + 1) * cols / 8; c++)
				y[r * cols + c] = xr[c] / sqrtf(ms + 1e-6f) * w[c];
		}
	}
	return 0;
}
