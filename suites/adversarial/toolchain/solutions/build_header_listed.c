/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_header_listed.c: the honest form of build_header_unlisted: the
 * header is listed in sources, so it is hashed and sealed. It builds and
 * runs (OK); a change to the header after sealing is named by verify,
 * changes the plan digest and misses the compile cache. Test:
 * tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "build_listed.h"

int build_header_listed(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = CLAMP(x[i]);
	return 0;
}
