/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * transpose_fast.c: tiled transpose (suites/cpu).
 *
 * The matrix is walked in 8 x 8 tiles. Within a tile the 8 source rows
 * and 8 destination rows are 8 cache lines each, all resident in L1 (even
 * when a power-of-two stride maps them to one 8-way set), so
 * every cache line read or written is used in full before it is evicted.
 * The reference streams whole rows and scatters each write to a different
 * line, evicting lines before their other floats are written. Same
 * copies, so the same bits; faster by construction for matrices larger
 * than the caches' set associativity can hold.
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

#define TILE 8

int transpose_fast(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");

	for (int64_t i0 = 0; i0 < rows; i0 += TILE)
		for (int64_t j0 = 0; j0 < cols; j0 += TILE) {
			int64_t ie = i0 + TILE < rows ? i0 + TILE : rows;
			int64_t je = j0 + TILE < cols ? j0 + TILE : cols;

			for (int64_t j = j0; j < je; j++)
				for (int64_t i = i0; i < ie; i++)
					y[j * rows + i] = x[i * cols + j];
		}
	return 0;
}
