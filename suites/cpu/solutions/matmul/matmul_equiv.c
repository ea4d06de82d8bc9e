/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * matmul_equiv.c: the reference's i-j-k loop in different code
 * (suites/cpu).
 *
 * One serial float dot product per output with a strided walk down a
 * column of b, as in the reference, moved into a helper that takes the
 * row of a and the column offset. Same operations in the same order: same
 * time and same bits by construction.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

static float dot_col(const float *arow, const float *b, int64_t j, int64_t k, int64_t n)
{
	float acc = 0.0f;

	for (int64_t p = 0; p < k; p++)
		acc += arow[p] * b[p * n + j];
	return acc;
}

int matmul_equiv(const nodus_call *call)
{
	const float *a = call->inputs[0].data;
	const float *b = call->inputs[1].data;
	float *c = call->outputs[0].data;
	int64_t m = nodus_call_axis(call, "m");
	int64_t n = nodus_call_axis(call, "n");
	int64_t k = nodus_call_axis(call, "k");

	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++)
			c[i * n + j] = dot_col(a + i * k, b, j, k, n);
	return 0;
}
