/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * vector_poly_equiv.c: the reference's work in different code (suites/cpu).
 *
 * Exactly the eight powf() calls per element of the reference, written as
 * a pointer walk that sums the terms from the highest power down. Same
 * libm work per element, so its time equals the reference's (TIED/
 * EQUIVALENT by construction); the summation order differs, which changes
 * the result by a few ulp only.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int vector_poly_equiv(const nodus_call *call)
{
	static const float fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
	const float *x = call->inputs[0].data;
	const float *end = x + call->inputs[0].numel;
	float *y = call->outputs[0].data;

	while (x < end) {
		float acc = 0.0f;
		for (int k = 7; k >= 0; k--)
			acc += powf(*x, (float)k) * (1.0f / fact[k]);
		*y++ = acc;
		x++;
	}
	return 0;
}
