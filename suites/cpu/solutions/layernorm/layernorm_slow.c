/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * layernorm_slow.c: layernorm with the statistics recomputed per block
 * (suites/cpu).
 *
 * The reference's code, but the row statistics (two latency-bound passes
 * over the whole row) sit inside the loop over 8 output blocks: a loop
 * invariant that was never hoisted. The statistics, which dominate the
 * reference's time, are computed 8 times instead of once, so this is
 * several times slower by construction. Same values as the reference.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int layernorm_slow(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	const float *b = call->inputs[2].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;

		for (int64_t blk = 0; blk < 8; blk++) {
			double sum = 0.0, sq = 0.0;
			float mean, var;

			for (int64_t c = 0; c < cols; c++)
				sum += xr[c];
			mean = (float)(sum / (double)cols);
			for (int64_t c = 0; c < cols; c++)
				sq += (double)(xr[c] - mean) * (xr[c] - mean);
			var = (float)(sq / (double)cols);
			for (int64_t c = blk * cols / 8; c < (blk + 1) * cols / 8; c++)
				y[r * cols + c] = (xr[c] - mean) / sqrtf(var + 1e-5f) * w[c] + b[c];
		}
	}
	return 0;
}
