/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * relu_ref.c: reference for the relu task (suites/adversarial).
 *
 * y[i] = max(x[i], 0). The task exists to show the non-negative-input
 * shortcut (adv_nonneg_shortcut): its default inputs are all >= 0.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int relu_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;

	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
