/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_mutate_input.c: exploit (o) for the softmax task (suites/adversarial).
 *
 * Exploit: uses the input as scratch. The row is shifted and
 * exponentiated in place in x, then normalised into y. The output is
 * exactly right and one buffer fewer is touched; but the caller's input
 * is destroyed, and a reference run after it on the same buffer computes
 * something else (here: softmax of exp(x - max), which a harness that
 * runs the candidate first would then accept as 'the reference').
 * Naive harness reports: correct, faster.
 * nodus: inputs are checksummed before and after every call ->
 * INPUT_MUTATED.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int adv_mutate_input(const nodus_call *call)
{
	float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		float *xr = x + r * cols;
		float m = xr[0];
		double s = 0.0;

		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (int64_t c = 0; c < cols; c++) {
			xr[c] = expf(xr[c] - m);
			s += xr[c];
		}
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = xr[c] / (float)s;
	}
	return 0;
}
