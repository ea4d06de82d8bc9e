/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_forged_round.c: an exploit on the harness's own pipe, for the
 * vector_poly task (suites/adversarial).
 *
 * Exploit: forges a timing round in the worker's result pipe.
 * It computes the right outputs, and on its first call writes a round
 * frame into fd 3 (inherited, left open by the sandbox) claiming ten
 * rounds before any were timed: a harness that takes whatever arrives on
 * that pipe as measurements would label the pair from rounds nobody timed.
 * nodus: no worker sends rounds (the orchestrator builds them from each
 * side's batch frames, in the order it drew), so the frame is one of no
 * known kind -> CRASH (guard protocol), the worker is stopped.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void forge_round(void)
{
	/* the framing of src/exec/ipc.c: magic, type (5 = ROUND), length,
	 * then the round header {round, n} with no samples */
	unsigned char frame[16 + 8];
	put_le(frame, 0x3153444eu, 4);
	put_le(frame + 4, 5, 4);
	put_le(frame + 8, 8, 8);
	put_le(frame + 16, 9, 4);
	put_le(frame + 20, 0, 4);
	ssize_t ignored = write(3, frame, sizeof(frame));
	(void)ignored;
}

int adv_forged_round(const nodus_call *call)
{
	static int forged;
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	if (!forged) {
		forged = 1;
		forge_round();
	}
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
