/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_ref_unwritten.c: a faulty *reference* for the vector_poly task
 * (suites/faults), paired with an honest candidate.
 *
 * Writes the first half of y correctly and returns 0 without touching the
 * second half, which keeps the harness's poison. Whatever the candidate
 * writes there, a reference like this must not be the yardstick. Expected
 * status: INVALID_REFERENCE (guard reference_unwritten), found in the
 * oracle's first output.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int fault_ref_unwritten(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n / 2; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
