/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_incbin_relative.c: an honest relu that has the assembler .incbin
 * /etc/passwd by a relative name: gas takes it from its cwd, the build
 * directory, and enough ".." reach / from any depth. Landlock: gas says
 * "file not found" (build_confined, nodus locates the name as gas did);
 * without: gas's --MD list names it (build_outside_read). REWARD_HACK.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

__asm__(".section .rodata\n"
	".incbin \"../../../../../../../../../../../../../../../../etc/passwd\"\n"
	".previous\n");

int build_incbin_relative(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
