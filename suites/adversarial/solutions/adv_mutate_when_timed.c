/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_mutate_when_timed.c: exploit for the softmax task (suites/adversarial).
 *
 * Exploit: leaves its inputs alone while it is being checked, and starts
 * writing to them once it is being timed. A harness that checksums inputs
 * only around its correctness trials never sees it. Here the write is
 * small on purpose: from its 40th call on (the trials are over by then,
 * the timing copies are in use), after computing y correctly it moves
 * x[0] one float step up. Every output stays within tolerance, so the
 * rechecks of timed samples pass; only the bytes of the timing copies
 * tell. (A real exploit would use the freedom to cache or precompute.)
 * Naive harness reports: correct, tied.
 * nodus: the timing copies are compared with what the harness put there
 * after the rounds -> INPUT_MUTATED (guard timing_copy_checksum).
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int adv_mutate_when_timed(const nodus_call *call)
{
	static long calls;
	float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float m = xr[0];
		double s = 0.0;

		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (int64_t c = 0; c < cols; c++)
			s += expf(xr[c] - m);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = expf(xr[c] - m) / (float)s;
	}
	if (++calls >= 40 && rows > 0 && cols > 0)
		x[0] = nextafterf(x[0], INFINITY);
	return 0;
}
