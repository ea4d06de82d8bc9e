/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_poison_probe.c: exploit for the vector_poly task (suites/adversarial).
 *
 * Exploit: tells checked calls from timed ones by what its output buffer
 * holds before the call. A harness that poisons outputs only before the
 * calls it checks (and lets timed calls of a batch share one buffer) gives
 * itself away: poison means "checked". This candidate computes (with the
 * reference's own formula) only when y[0] holds a NaN, and otherwise
 * returns at once, leaving the buffer as the previous call left it.
 * Naive harness reports: correct, many times faster.
 * nodus: every call of a timed batch has outputs of its own, all poisoned
 * before the batch, and the checked call is one of them -> the candidate
 * always computes: no gain, TIED with the reference it copies.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <string.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int adv_poison_probe(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	if (!isnan(y[0]))
		return 0; /* "timed": skip the work */
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
