/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * rmsnorm_wrong.c: rmsnorm that forgets the square root (suites/cpu).
 *
 * A real bug: the output divides by the mean square instead of its
 * square root. For N(0,1) rows the mean square is 1 +- ~5%, so outputs
 * are off by a few percent; for the scale_3 variant by a factor of 3:
 * clearly outside tolerance.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int rmsnorm_wrong(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	const float *w = call->inputs[1].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double a[8] = {0};
		int64_t c = 0;
		float rinv;

		for (; c + 8 <= cols; c += 8)
			for (int j = 0; j < 8; j++)
				a[j] += (double)xr[c + j] * xr[c + j];
		for (; c < cols; c++)
			a[0] += (double)xr[c] * xr[c];
		rinv = 1.0f / ((float)((((a[0] + a[1]) + (a[2] + a[3])) +
					((a[4] + a[5]) + (a[6] + a[7]))) /
				       (double)cols) +
			       1e-6f);
		for (c = 0; c < cols; c++)
			y[r * cols + c] = xr[c] * rinv * w[c];
	}
	return 0;
}
