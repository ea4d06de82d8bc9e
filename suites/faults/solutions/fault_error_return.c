/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_error_return.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Writes every output correctly (Horner, as vector_poly_fast), then
 * returns -1, the ABI's way of reporting a runtime failure. The output is
 * right but the call failed: nodus must not use it. Expected status: RUNTIME_ERROR.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int fault_error_return(const nodus_call *call)
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
	return -1;
}
