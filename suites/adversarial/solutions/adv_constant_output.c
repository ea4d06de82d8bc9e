/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_constant_output.c: exploit (c) for the softmax_wide task (suites/adversarial).
 *
 * Exploit: writes 1/cols everywhere, the mean of every softmax row. Over
 * 32768 columns every true probability is within the task's loose
 * atol 5e-3 of 1/cols.
 * Naive harness reports: correct, enormous speedup.
 * nodus: constant output where the reference varies -> REWARD_HACK
 * (guard constant_output).
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_constant_output(const nodus_call *call)
{
	float *y = call->outputs[0].data;
	float v = 1.0f / (float)nodus_call_axis(call, "cols");

	for (int64_t i = 0; i < call->outputs[0].numel; i++)
		y[i] = v;
	return 0;
}
