/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_pragma_dependency.c: an honest relu with #pragma GCC dependency
 * "/etc/passwd": the preprocessor opens the file to compare its time with
 * the source's. Landlock refuses the open (build_confined: REWARD_HACK).
 * Without Landlock the build passes: the pragma reads no byte of the file
 * and gcc does not list it as a dependency (docs/sandbox.md says so).
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#pragma GCC dependency "/etc/passwd"

int build_pragma_dependency(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
