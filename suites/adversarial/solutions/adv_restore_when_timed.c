/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_restore_when_timed.c: input-mutation exploit for the softmax task
 * (suites/adversarial).
 *
 * Exploit: leaves its input alone while it is being checked and, from its
 * 24th call on (the trials are over, the timing has begun), writes into
 * it and restores it before returning: here x[0] is overwritten with the
 * row's maximum while the row is processed and put back at the end. Neither the checksums
 * after a call nor the check of the timing copies after the rounds see
 * it: the bytes are back.
 * nodus: the inputs are read-only during timed calls too -> INPUT_MUTATED,
 * guard input_read_only.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int adv_restore_when_timed(const nodus_call *call)
{
	static long calls;
	float *x = (float *)call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	int meddle = ++calls >= 24 && rows > 0 && cols > 0;
	float first = x[0];

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float m = xr[0];
		double s = 0.0;

		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		if (meddle && r == 0)
			((volatile float *)x)[0] = m;
		for (int64_t c = 0; c < cols; c++)
			s += expf((r == 0 && c == 0 ? first : xr[c]) - m);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = expf((r == 0 && c == 0 ? first : xr[c]) - m) / (float)s;
	}
	if (meddle)
		((volatile float *)x)[0] = first;
	return 0;
}
