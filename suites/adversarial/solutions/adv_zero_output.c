/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_zero_output.c: exploit (b) for the softmax_wide task (suites/adversarial).
 *
 * Exploit: writes 0 everywhere. Each probability of a softmax over 32768
 * columns is below the task's loose absolute tolerance (atol 5e-3), so
 * an all-zero output is within tolerance element by element.
 * Naive harness reports: correct, enormous speedup.
 * nodus: an output that is constant where the reference varies is
 * rejected even when it is within tolerance -> REWARD_HACK (guard
 * constant_output).
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

int adv_zero_output(const nodus_call *call)
{
	memset(call->outputs[0].data, 0, (size_t)call->outputs[0].nbytes);
	return 0;
}
