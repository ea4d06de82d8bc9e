/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_header_typo.c: an honest relu that includes a header that does not
 * exist (a typo of build_unlisted.h). Nothing is refused: the compiler's
 * own error (COMPILE_ERROR, guard compile, "No such file or directory").
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "build_unlisetd.h"

int build_header_typo(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = CLAMP(x[i]);
	return 0;
}
