/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * vector_poly_wrong.c: Horner with a dropped term (suites/cpu).
 *
 * A real bug: the Horner chain stops one step early, so the constant term
 * c0 = 1 is never added (y is p(x) - 1). Every element is off by exactly
 * 1, far outside the task's tolerance. Fast, but INCORRECT_NUMERICAL.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int vector_poly_wrong(const nodus_call *call)
{
	static const float c[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				   1.0f / 720, 1.0f / 5040};
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++) {
		float acc = c[7];
		/* the bug: k > 0 should be k >= 0 ... and the last step then
		 * multiplies without adding c0 */
		for (int k = 6; k > 0; k--)
			acc = acc * x[i] + c[k];
		y[i] = acc * x[i];
	}
	return 0;
}
