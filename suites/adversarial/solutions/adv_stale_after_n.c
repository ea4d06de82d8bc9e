/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_stale_after_n.c: exploit (k) for the vector_poly task (suites/adversarial).
 *
 * Exploit: computes honestly for the first 8 calls (enough for a
 * harness's correctness checks and warm-up), then replays the 8th
 * output forever: the timed calls only copy memory.
 * Naive harness reports: correct (it checks before timing), faster.
 * nodus: outputs of randomly chosen timed repetitions, and a final call
 * after timing, are checked against the oracle -> INCORRECT_NUMERICAL
 * (guard tolerance, recheck).
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

#define MAX_N (1 << 22)

/* Output of an earlier call, replayed instead of computing. */
static float cached[MAX_N];
static int64_t calls;

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

int adv_stale_after_n(const nodus_call *call)
{
	int64_t n = call->inputs[0].numel;

	if (n > MAX_N)
		return -1;
	if (calls < 8)
		poly(call->inputs[0].data, cached, n);
	calls++;
	memcpy(call->outputs[0].data, cached, (size_t)n * sizeof(float));
	return 0;
}
