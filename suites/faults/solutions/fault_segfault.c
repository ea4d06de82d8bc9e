/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_segfault.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Writes the first half of y correctly, then stores through a null
 * pointer to volatile, itself held in a volatile variable (GCC drops a
 * plain store through a pointer it can prove null, or turns it into a
 * trap instruction): the worker dies from SIGSEGV in the middle of a
 * call. Expected status: CRASH.
 * ------------------------------------------------------------------------ */
#include <stddef.h>

#include "nodus/solution.h"

int fault_segfault(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	volatile float *volatile bad = NULL;

	for (int64_t i = 0; i < n / 2; i++)
		y[i] = x[i];
	*bad = 1.0f;
	return 0;
}
