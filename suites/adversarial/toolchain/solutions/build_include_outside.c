/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_include_outside.c: includes a file of the suite outside its own
 * sources (the relu task's JSON, through ".."), to have its content quoted
 * into the record. Outside the solution's directory, it can never be
 * listed: REWARD_HACK, refused as build_include_passwd is. Test:
 * tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"
#include "../../tasks/relu.json"

int build_include_outside(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
