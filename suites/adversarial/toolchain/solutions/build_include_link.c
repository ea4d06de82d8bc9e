/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_include_link.c: an honest relu that includes build_link.h, which
 * t2200 makes, in its copy of the suite, a symbolic link to /etc/passwd (a
 * link out of the tree is not committed). The file is judged by what the
 * link resolves to: outside the solution's directory, REWARD_HACK
 * (build_confined / build_outside_read). Without the link the include is
 * missing: COMPILE_ERROR.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "build_link.h"

int build_include_link(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
