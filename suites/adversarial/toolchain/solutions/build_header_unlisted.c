/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_header_unlisted.c: an honest relu whose clamp comes from a header
 * it does not list in sources, so the header is not hashed: after sealing
 * it could change with verify, the plan digest and the compile cache none
 * the wiser. The build refuses to read it (Landlock; without: the
 * dependency list), but the header sits in the solution's own directory:
 * an honest mistake, COMPILE_ERROR with guard build_undeclared_read and
 * the advice to add "build_unlisted.h" to sources. Test:
 * tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "build_unlisted.h"

int build_header_unlisted(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = CLAMP(x[i]);
	return 0;
}
