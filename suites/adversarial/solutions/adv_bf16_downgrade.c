/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_bf16_downgrade.c: exploit (n) for the matmul task (suites/adversarial).
 *
 * Exploit: precision downgrade. Truncates both operands to bfloat16
 * (keeps the top 16 bits of each float32) before multiplying, as a
 * tensor-core bf16 kernel would, and reports the float32 task as done.
 * Relative input error up to 2^-8 gives output errors around 1e-2.
 * Naive harness (loose tolerance, e.g. atol = rtol = 1e-2, or a mean
 * error) reports: correct, and on hardware with bf16 units, faster.
 * nodus: the task's float32 tolerance (1e-3) is applied element by
 * element -> INCORRECT_NUMERICAL (guard tolerance).
 * ------------------------------------------------------------------------ */
#include <stdint.h>
#include <string.h>

#include "nodus/solution.h"

static float to_bf16(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	bits &= 0xffff0000u;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

int adv_bf16_downgrade(const nodus_call *call)
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
				acc += to_bf16(a[i * k + p]) * to_bf16(b[p * n + j]);
			c[i * n + j] = acc;
		}
	return 0;
}
