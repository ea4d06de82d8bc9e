/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_restore_inplace.c: input-mutation exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: transforms its input in place and undoes the transform before
 * it returns: x is doubled (exact in binary floating point), y computed
 * from the doubled values, and x halved again (exact too), so the bytes
 * after the call equal those before it. No copy is kept anywhere.
 * nodus: inputs are read-only while solutions run -> INPUT_MUTATED, guard
 * input_read_only.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_restore_inplace(const nodus_call *call)
{
	float *x = (float *)call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++)
		x[i] *= 2.0f;
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? 0.5f * x[i] : 0.0f;
	for (int64_t i = 0; i < n; i++)
		x[i] *= 0.5f;
	return 0;
}
