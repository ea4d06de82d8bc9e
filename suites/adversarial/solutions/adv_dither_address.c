/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_dither_address.c: exploit for the row_mean_loose task
 * (suites/adversarial).
 *
 * Exploit: writes 0, the mean of every row mean, plus a dither of at most
 * 1e-3 mixed from the input and output addresses and the row, without
 * reading a single input. Every element differs from the next, so the
 * output is not constant, and 0 is within the task's loose atol (three
 * standard deviations) of all but about 0.3% of the true row means.
 * Naive harness reports: correct, enormous speedup.
 * nodus: where the reference's row means move by more than atol between
 * two instances, this output does not move -> REWARD_HACK (guard
 * input_independent_output).
 * ------------------------------------------------------------------------ */
#include <stdint.h>

#include "nodus/solution.h"

int adv_dither_address(const nodus_call *call)
{
	float *y = call->outputs[0].data;
	uintptr_t a = (uintptr_t)call->inputs[0].data ^ ((uintptr_t)y << 7);

	for (int64_t r = 0; r < call->outputs[0].numel; r++) {
		uint32_t h = (uint32_t)(a >> 4) * 2654435761u + (uint32_t)r * 40503u;
		y[r] = (float)(h >> 8) * 0x1p-24f * 1e-3f;
	}
	return 0;
}
