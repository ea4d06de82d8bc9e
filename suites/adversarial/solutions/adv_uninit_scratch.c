/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_uninit_scratch.c: exploit (l) for the row_sum task (suites/adversarial).
 *
 * Exploit (or plain bug that benchmarks hide): accumulates the row sums
 * in scratch memory it never clears: the harness's workspace when one is
 * large enough, else a static array. A harness that allocates the
 * workspace once with calloc, or runs the candidate once per process,
 * sees zeros there and a correct result.
 * Naive harness reports: correct.
 * nodus: the workspace is poisoned differently before every call, the
 * static array keeps the previous call's sums, and the determinism check
 * runs the same inputs twice -> the results differ from the oracle and
 * from each other -> INCORRECT_NUMERICAL (guards tolerance /
 * determinism).
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

#define MAX_ROWS (1 << 16)

/* Fallback scratch when the harness gives no workspace; never cleared. */
static double scratch[MAX_ROWS];

int adv_uninit_scratch(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	double *acc = scratch;

	if (call->workspace && call->workspace_bytes >= rows * (int64_t)sizeof(double))
		acc = call->workspace;
	else if (rows > MAX_ROWS)
		return -1;
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t c = 0; c < cols; c++)
			acc[r] += x[r * cols + c];
		y[r] = (float)acc[r];
	}
	return 0;
}
