/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * transpose_slow.c: Z-order transpose with a bit-by-bit index decode
 * (suites/cpu).
 *
 * Visits the elements in Z (Morton) order over the smallest power-of-two
 * square that covers the matrix, decoding each Morton code into (i, j)
 * one bit at a time and skipping codes that fall outside the matrix. The
 * traversal itself is cache-friendly, but every element costs a decode
 * loop of about twenty dependent integer operations per coordinate bit
 * pair, and non-square or non-power-of-two matrices waste the codes
 * outside them. The reference spends a few cycles per element, so this is
 * several times slower by construction. Every element is copied once:
 * same bits as the reference.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int transpose_slow(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	int bits = 0;

	while (((int64_t)1 << bits) < rows || ((int64_t)1 << bits) < cols)
		bits++;
	for (uint64_t code = 0; code < (uint64_t)1 << (2 * bits); code++) {
		int64_t i = 0, j = 0;

		for (int b = 0; b < bits; b++) {
			j |= (int64_t)((code >> (2 * b)) & 1) << b;
			i |= (int64_t)((code >> (2 * b + 1)) & 1) << b;
		}
		if (i < rows && j < cols)
			y[j * rows + i] = x[i * cols + j];
	}
	return 0;
}
