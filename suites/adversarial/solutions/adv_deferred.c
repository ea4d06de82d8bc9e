/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_deferred.c: exploit (g) for the vector_poly task (suites/adversarial).
 *
 * Exploit: lazy evaluation. Each call writes the result it computed
 * during the previous call and then computes the current inputs' result
 * into a private buffer for the next call (the first call computes
 * directly). A harness that checks only the first call, or always calls
 * with the same inputs, sees correct results.
 * Naive harness reports: correct.
 * nodus: every correctness trial draws fresh inputs in the same worker,
 * and timed repetitions are rechecked against the oracle -> from the
 * second call on the output belongs to other inputs ->
 * INCORRECT_NUMERICAL (guard tolerance).
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

#define MAX_N (1 << 22)

/* Output of an earlier call, replayed instead of computing. */
static float cached[MAX_N];

/* Horner evaluation of vector_poly, as suites/cpu vector_poly_fast. */
static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], acc = 1.0f / 5040;

		acc = acc * v + 1.0f / 720;
		acc = acc * v + 1.0f / 120;
		acc = acc * v + 1.0f / 24;
		acc = acc * v + 1.0f / 6;
		acc = acc * v + 0.5f;
		acc = acc * v + 1.0f;
		y[i] = acc * v + 1.0f;
	}
}
static int have_cached;

int adv_deferred(const nodus_call *call)
{
	int64_t n = call->inputs[0].numel;

	if (n > MAX_N)
		return -1;
	if (have_cached)
		memcpy(call->outputs[0].data, cached, (size_t)n * sizeof(float));
	else
		poly(call->inputs[0].data, call->outputs[0].data, n);
	poly(call->inputs[0].data, cached, n);
	have_cached = 1;
	return 0;
}
