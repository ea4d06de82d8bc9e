/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * row_sum_slow.c: compensated (Kahan) row sums (suites/cpu).
 *
 * Kahan summation in double: more accurate, but each element now goes
 * through four dependent floating-point operations (y = v - comp;
 * t = acc + y; comp = (t - acc) - y; acc = t) whose chain runs through
 * both acc and comp, against one add for the reference. The loop is
 * latency-bound in both, so this is about four times slower by
 * construction. The rounded float result equals the reference's.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int row_sum_slow(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		double acc = 0.0, comp = 0.0;

		for (int64_t c = 0; c < cols; c++) {
			double v = (double)x[r * cols + c] - comp;
			double t = acc + v;

			comp = (t - acc) - v;
			acc = t;
		}
		y[r] = (float)acc;
	}
	return 0;
}
