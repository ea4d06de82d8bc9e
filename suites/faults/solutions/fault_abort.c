/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_abort.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Writes the first half of y, then calls abort(): the worker dies from
 * SIGABRT in the middle of a call. Expected status: CRASH.
 * ------------------------------------------------------------------------ */
#include <stdlib.h>

#include "nodus/solution.h"

int fault_abort(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n / 2; i++)
		y[i] = x[i];
	abort();
}
