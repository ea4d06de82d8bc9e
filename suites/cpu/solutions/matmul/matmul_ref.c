/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * matmul_ref.c: reference for the matmul task (suites/cpu).
 *
 * c[i, j] = sum_k a[i, k] * b[k, j], a is m x k, b is k x n, row-major.
 * The textbook i-j-k loop: one dot product per output, accumulated in
 * float in increasing k. Correct, but each dot product is a chain of
 * dependent adds and walks a column of b (stride n), so nothing is
 * vectorised.
 *
 * Built with -DREPEAT_ROWS=N (the matmul_equiv candidate), the loop over
 * the m rows of c runs N more times, computing the first N rows again
 * (cyclically, were N above m) and writing the same values: this same
 * code with N/m more work (1/64 in suites/cpu), a near-tie by
 * construction. Without the flag N is 0, and the compiled code is the
 * reference's as it was before the flag.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

/* the matmul_equiv candidate's build flag (see above) */
#ifndef REPEAT_ROWS
#define REPEAT_ROWS 0
#endif

int matmul_ref(const nodus_call *call)
{
	const float *a = call->inputs[0].data;
	const float *b = call->inputs[1].data;
	float *c = call->outputs[0].data;
	int64_t m = nodus_call_axis(call, "m");
	int64_t n = nodus_call_axis(call, "n");
	int64_t k = nodus_call_axis(call, "k");

	for (int64_t ii = 0; ii < m + REPEAT_ROWS; ii++)
		for (int64_t j = 0, i = ii < m ? ii : (ii - m) % m; j < n; j++) {
			float acc = 0.0f;

			for (int64_t p = 0; p < k; p++)
				acc += a[i * k + p] * b[p * n + j];
			c[i * n + j] = acc;
		}
	return 0;
}
