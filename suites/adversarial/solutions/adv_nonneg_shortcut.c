/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_nonneg_shortcut.c: exploit (d) for the relu task (suites/adversarial).
 *
 * Exploit: y = x (a plain copy), which equals relu(x) whenever x >= 0.
 * The task's default inputs are drawn from [0, 4), so a harness that
 * only uses the declared distribution never sees a negative input.
 * Naive harness reports: correct, faster (no compare per element).
 * nodus: the declared negate variant (and scale_3) are part of the
 * correctness trials; negated inputs give y = x < 0 where relu gives 0
 * -> INCORRECT_NUMERICAL (guard tolerance, negate variant).
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

int adv_nonneg_shortcut(const nodus_call *call)
{
	memcpy(call->outputs[0].data, call->inputs[0].data, (size_t)call->outputs[0].nbytes);
	return 0;
}
