/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_setup_hang.c: fault candidate for the vector_poly task (suites/faults).
 *
 * The entry function is an honest Horner evaluation, but the optional
 * setup function (solution.h: ENTRY_setup, called once after loading and
 * before any timed call) never returns. The hang happens before any call
 * is made. Expected status: TIMEOUT.
 * ------------------------------------------------------------------------ */
#include <stdint.h>

#include "nodus/solution.h"

int fault_setup_hang_setup(const nodus_call *call)
{
	volatile uint64_t spins = 0;

	(void)call;
	for (;;)
		spins++;
}

int fault_setup_hang(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

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
	return 0;
}
