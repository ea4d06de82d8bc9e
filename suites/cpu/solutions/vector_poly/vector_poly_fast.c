/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * vector_poly_fast.c: Horner evaluation of vector_poly (suites/cpu).
 *
 * Same polynomial as the reference, evaluated as
 * ((c7*x + c6)*x + ... )*x + c0: seven multiply-adds per element and no
 * libm call, in a loop with no dependency between elements, which -O3
 * vectorises. The reference calls powf() eight times per element, so this
 * is faster by construction (tens of times on x86-64). Rounding differs
 * from the reference only by a few ulp of the largest term.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int vector_poly_fast(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float acc = 1.0f / 5040;
		acc = acc * v + 1.0f / 720;
		acc = acc * v + 1.0f / 120;
		acc = acc * v + 1.0f / 24;
		acc = acc * v + 1.0f / 6;
		acc = acc * v + 0.5f;
		acc = acc * v + 1.0f;
		acc = acc * v + 1.0f;
		y[i] = acc;
	}
	return 0;
}
