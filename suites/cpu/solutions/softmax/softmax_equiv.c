/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * softmax_equiv.c: the reference's three passes in different code
 * (suites/cpu).
 *
 * Same work as the reference (a max pass, a sum of expf() in double, and
 * an output pass that recomputes expf() and divides), written as three
 * helper functions over pointer ranges. Two libm calls and one division
 * per element, like the reference, so equal time by construction.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "nodus/solution.h"

static float row_max(const float *p, const float *end)
{
	float m = *p++;

	for (; p < end; p++)
		if (*p > m)
			m = *p;
	return m;
}

static double row_exp_sum(const float *p, const float *end, float m)
{
	double s = 0.0;

	for (; p < end; p++)
		s += expf(*p - m);
	return s;
}

static void row_out(const float *p, const float *end, float m, float s, float *out)
{
	for (; p < end; p++)
		*out++ = expf(*p - m) / s;
}

int softmax_equiv(const nodus_call *call)
{
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = (const float *)call->inputs[0].data + r * cols;
		float m = row_max(xr, xr + cols);
		double s = row_exp_sum(xr, xr + cols, m);

		row_out(xr, xr + cols, m, (float)s, (float *)call->outputs[0].data + r * cols);
	}
	return 0;
}
