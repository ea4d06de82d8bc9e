/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_include_proc.c: an honest relu that includes /proc/self/environ,
 * to have the compiler quote the build's environment. Landlock: /proc is
 * not readable (build_confined); without: the dependency pass names a
 * /proc file, which resolves otherwise in nodus than in the compiler and
 * is never a solution's (build_outside_read). REWARD_HACK.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "/proc/self/environ"

int build_include_proc(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
