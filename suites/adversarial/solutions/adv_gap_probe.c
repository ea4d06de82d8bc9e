/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
/* ------------------------------------------------------------------------
 * adv_gap_probe.c: exploit for the vector_poly task (suites/adversarial).
 *
 * Exploit: tells checked calls from timed ones by how long ago it last
 * returned. A checked call in most harnesses comes alone, after the
 * harness's own work; timed calls of a batch come back to back. So it
 * computes only when more than 20 us have passed since its last return,
 * and otherwise returns at once without writing anything.
 * Naive harness reports: correct, many times faster.
 * nodus: the checked call is one of the timed calls, at a uniform position
 * of its batch, so it is usually a back-to-back one -> its outputs still
 * hold the poison -> INCORRECT_SHAPE (guard unwritten_output, check of a
 * timed call).
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <time.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int adv_gap_probe(const nodus_call *call)
{
	static long long last_return;
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	if (last_return && now_ns() - last_return < 20000) {
		last_return = now_ns();
		return 0; /* back to back: "timed" */
	}
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	last_return = now_ns();
	return 0;
}
