/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_quote_system.c: fails to compile in a way that makes the compiler
 * quote another file (a note located in <string.h>, with its source line).
 * Such files are readable (the tool chain's), so no read is refused here:
 * it is the log filter that keeps their lines out of the record, leaving
 * the diagnostics about this file and a count of the lines left out.
 * Test: tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "nodus/solution.h"

int build_quote_system(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	memcpy(y, 42, (size_t)call->inputs[0].nbytes); /* an int where a pointer goes */
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
