/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * matmul_wrong.c: i-k-j matmul that reads b as if it were transposed
 * (suites/cpu).
 *
 * A real layout bug: the inner loop reads b[j * k + p] (b stored n x k)
 * where the task stores b as k x n (b[p * n + j]). The index stays inside
 * b's k * n elements, so nothing crashes, but the products pair the wrong
 * elements: every output is a different random dot product, off by O(1).
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int matmul_wrong(const nodus_call *call)
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
				acc += a[i * k + p] * b[j * k + p];
			c[i * n + j] = acc;
		}
	return 0;
}
