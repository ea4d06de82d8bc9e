/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_cache_pointer.c: exploit (i) for the vector_poly task (suites/adversarial).
 *
 * Exploit: memoises on the input's address. If x is at the same address
 * as in the previous call, the previous output is copied (a memcpy
 * instead of the polynomial). Benchmarks that call a kernel repeatedly
 * on one buffer hit the cache on every timed call.
 * Naive harness reports: correct (first call computes), much faster.
 * nodus: inputs are refilled with fresh or perturbed values at the same
 * addresses between trials, rotated among copies during timing, and
 * timed outputs are rechecked -> a stale output for new contents ->
 * INCORRECT_NUMERICAL (guard tolerance, recheck).
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

#define MAX_N (1 << 22)

/* Output of an earlier call, replayed instead of computing. */
static float cached[MAX_N];
static const void *cached_x; /* address of the input cached holds */
static int64_t cached_n;

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

int adv_cache_pointer(const nodus_call *call)
{
	int64_t n = call->inputs[0].numel;

	if (n > MAX_N)
		return -1;
	if (call->inputs[0].data != cached_x || n != cached_n) {
		poly(call->inputs[0].data, cached, n);
		cached_x = call->inputs[0].data;
		cached_n = n;
	}
	memcpy(call->outputs[0].data, cached, (size_t)n * sizeof(float));
	return 0;
}
