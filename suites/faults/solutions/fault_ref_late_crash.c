/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_ref_late_crash.c: a faulty *reference* for the vector_poly task
 * (suites/faults), paired with a wrong candidate.
 *
 * Correct for its first three calls, then stores through a null pointer
 * (held in a volatile variable, as in fault_segfault.c): the oracle dies
 * after the candidate's first trials may already have been judged wrong,
 * since both workers run their trials at once. A broken reference decides
 * the attempt whatever the candidate did. Expected status:
 * INVALID_REFERENCE, never the candidate's INCORRECT_NUMERICAL.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stddef.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int fault_ref_late_crash(const nodus_call *call)
{
	static int calls;
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	volatile float *volatile bad = NULL;

	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	if (++calls > 3)
		*bad = 1.0f;
	return 0;
}
