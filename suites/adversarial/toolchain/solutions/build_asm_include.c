/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_asm_include.c: an honest relu whose top-level asm has the
 * assembler .include /etc/passwd (a path no preprocessor sees). Landlock:
 * gas "can't open /etc/passwd for reading: Permission denied"
 * (build_confined); without: gas's --MD list names it
 * (build_outside_read). REWARD_HACK.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
__asm__(".include \"/etc/passwd\"\n");

int build_asm_include(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
