/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_take_clock.c: exploit for the vector_poly task (suites/adversarial).
 *
 * Exploit: takes over the worker's channels so that it can speak for the
 * worker. Built with -DTAKE_CLOSE it closes the result pipe (fd 3), else
 * it moves the clock socket (fd 5, where the worker sends each batch's
 * START and BATCH marks) to another descriptor and puts a pipe of its own
 * in its place: the worker's real marks would vanish into the pipe while
 * the candidate sends forged ones, sent late and reporting short batches,
 * through the descriptor it kept.
 * Naive harness reports: whatever the forger says.
 * nodus: closing or replacing fd 0, 3 or 5 is refused by the worker's
 * filter -> REWARD_HACK (guard syscall_filter).
 * ------------------------------------------------------------------------ */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int adv_take_clock(const nodus_call *call)
{
	static int done;
	if (!done) {
		done = 1;
#ifdef TAKE_CLOSE
		close(3);
#else
		int p[2];
		if (pipe(p) == 0 && fcntl(5, F_DUPFD_CLOEXEC, 10) >= 0)
			dup2(p[1], 5);
#endif
	}
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
