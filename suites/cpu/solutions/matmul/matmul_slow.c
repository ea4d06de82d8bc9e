/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * matmul_slow.c: i-j-k matmul with compensated (Kahan) dot products
 * (suites/cpu).
 *
 * The reference's loop, but each dot product uses Kahan summation: four
 * dependent float operations per term (y = t - comp; s = acc + y;
 * comp = (s - acc) - y; acc = s) on the loop-carried chain instead of one
 * add. The reference is bound by that chain's latency, so this is about
 * four times slower by construction. More accurate, and well within
 * tolerance of the reference.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int matmul_slow(const nodus_call *call)
{
	const float *a = call->inputs[0].data;
	const float *b = call->inputs[1].data;
	float *c = call->outputs[0].data;
	int64_t m = nodus_call_axis(call, "m");
	int64_t n = nodus_call_axis(call, "n");
	int64_t k = nodus_call_axis(call, "k");

	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			float acc = 0.0f, comp = 0.0f;

			for (int64_t p = 0; p < k; p++) {
				float t = a[i * k + p] * b[p * n + j] - comp;
				float s = acc + t;

				comp = (s - acc) - t;
				acc = s;
			}
			c[i * n + j] = acc;
		}
	return 0;
}
