/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_header_nested.c: an honest relu that includes its listed header
 * build_nested.h, which includes the unlisted build_unlisted.h. A mistake:
 * COMPILE_ERROR, build_undeclared_read, naming build_unlisted.h to add.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "build_nested.h"

int build_header_nested(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = CLAMP(x[i]);
	return 0;
}
