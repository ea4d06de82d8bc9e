/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * vector_poly_slow.c: the reference's terms plus a libm factorial
 * (suites/cpu).
 *
 * Each term is powf(x, k) / tgammaf(k + 1): the reference's eight powf()
 * calls plus eight tgammaf() calls per element, where the reference reads
 * 1/k! from a table. tgammaf is a libm call at least as expensive as powf,
 * so this does more than twice the reference's libm work by construction.
 * tgammaf of a small integer is exact to float rounding, so the result
 * stays within tolerance.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

int vector_poly_slow(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += powf(x[i], (float)k) / tgammaf((float)k + 1.0f);
		y[i] = acc;
	}
	return 0;
}
