/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_oob_one_past.c: out-of-bounds exploit for the relu task
 * (suites/adversarial).
 *
 * Exploit: writes one element past the end of its output. y is exactly
 * right; the extra float lands in whatever the allocator put after y (in
 * a real exploit: another tensor, the harness's bookkeeping, the
 * reference's scratch). A harness that allocates with malloc and compares
 * only y never notices: the write lands in malloc's slack and nothing
 * crashes.
 * nodus: every buffer is followed by 64 to 127 canary bytes (then guard
 * pages), compared after every call: y[n] changes them (n = 262144: a
 * 64-byte pad; n = 1000: 96 bytes) -> CRASH, guard out_of_bounds_write.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_oob_one_past(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;

	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	((volatile float *)y)[n] = y[n - 1]; /* one past the end */
	return 0;
}
