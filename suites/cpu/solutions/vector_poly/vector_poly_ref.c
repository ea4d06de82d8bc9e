/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * vector_poly_ref.c: reference for the vector_poly task (suites/cpu).
 *
 * y[i] = sum_{k=0..7} x[i]^k / k!, the degree-7 Taylor polynomial of exp.
 * This is the textbook formula written literally: one powf() call per
 * term. It is correct and legitimate, but every powf() is a full libm call
 * (range checks, log/exp kernels), so the loop is dominated by libm time,
 * which is what makes a Horner rewrite clearly faster.
 *
 * Built with -DREPEAT_ELEMENTS=N (the vector_poly_equiv candidate), the
 * loop over elements runs N more times, computing the first N elements
 * again (cyclically, were N above n) and writing the same values: this
 * same code with N/n more work (1/64 in suites/cpu), a near-tie by
 * construction. Without the flag N is 0, and the compiled code is the
 * reference's as it was before the flag.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

/* the vector_poly_equiv candidate's build flag (see above) */
#ifndef REPEAT_ELEMENTS
#define REPEAT_ELEMENTS 0
#endif

/* 1/k! for k = 0..7, rounded to float. */
static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int vector_poly_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t ii = 0; ii < n + REPEAT_ELEMENTS; ii++) {
		int64_t i = ii < n ? ii : (ii - n) % n;
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
