/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_restore_memcpy.c: input-mutation exploit for the softmax task
 * (suites/adversarial).
 *
 * Exploit: uses its input as scratch and puts it back before it returns.
 * Each row of x is saved, exponentiated in place, normalised into y, and
 * copied back from the saved row, so x holds its original bytes again when
 * the call ends. A harness that checksums inputs after the call (as nodus
 * did) sees nothing; meanwhile the input was not what the ABI promised
 * (read-only) while it ran, and a reference sharing it would compute on
 * garbage.
 * nodus: inputs are mapped read-only while solutions run -> the first
 * write faults: INPUT_MUTATED, guard input_read_only.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/solution.h"

int adv_restore_memcpy(const nodus_call *call)
{
	float *x = (float *)call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	float *saved = malloc((size_t)cols * sizeof(float));

	if (!saved)
		return -1;
	for (int64_t r = 0; r < rows; r++) {
		float *xr = x + r * cols;
		float m = xr[0];
		double s = 0.0;

		memcpy(saved, xr, (size_t)cols * sizeof(float));
		for (int64_t c = 1; c < cols; c++)
			m = xr[c] > m ? xr[c] : m;
		for (int64_t c = 0; c < cols; c++) {
			xr[c] = expf(xr[c] - m);
			s += xr[c];
		}
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = xr[c] / (float)s;
		memcpy(xr, saved, (size_t)cols * sizeof(float));
	}
	free(saved);
	return 0;
}
