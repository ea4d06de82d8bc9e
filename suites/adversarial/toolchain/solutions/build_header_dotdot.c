/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_header_dotdot.c: an honest relu whose clamp comes from
 * ../solutions/build_unlisted.h: its own directory, named through "..",
 * and not listed in sources. A mistake, not an attack: COMPILE_ERROR with
 * guard build_undeclared_read and the advice to add "build_unlisted.h" to
 * sources.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "../solutions/build_unlisted.h"

int build_header_dotdot(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = CLAMP(x[i]);
	return 0;
}
