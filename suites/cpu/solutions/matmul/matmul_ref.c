/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * matmul_ref.c: reference for the matmul task (suites/cpu).
 *
 * c[i, j] = sum_k a[i, k] * b[k, j], a is m x k, b is k x n, row-major.
 * The textbook i-j-k loop: one dot product per output, accumulated in
 * float in increasing k. Correct, but each dot product is a chain of
 * dependent adds and walks a column of b (stride n), so nothing is
 * vectorised.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int matmul_ref(const nodus_call *call)
{
	const float *a = call->inputs[0].data;
	const float *b = call->inputs[1].data;
	float *c = call->outputs[0].data;
	int64_t m = nodus_call_axis(call, "m");
	int64_t n = nodus_call_axis(call, "n");
	int64_t k = nodus_call_axis(call, "k");

	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			float acc = 0.0f;

			for (int64_t p = 0; p < k; p++)
				acc += a[i * k + p] * b[p * n + j];
			c[i * n + j] = acc;
		}
	return 0;
}
