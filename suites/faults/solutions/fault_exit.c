/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_exit.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Writes the first half of y, then calls exit(0): the worker ends with a
 * clean exit status in the middle of a call, before it has reported any
 * result. A harness that trusts exit status 0 would see success; nodus
 * must treat a worker that ends before its final report as a crash.
 * Expected status: CRASH.
 * ------------------------------------------------------------------------ */
#include <stdlib.h>

#include "nodus/solution.h"

int fault_exit(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n / 2; i++)
		y[i] = x[i];
	exit(0);
}
