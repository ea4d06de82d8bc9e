/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * matmul_fast.c: i-k-j matmul, blocked over columns (suites/cpu).
 *
 * For each row i and a block of 64 columns, the block of c stays in
 * registers/L1 while a[i, p] * b[p, j..j+63] is added for every p: the
 * inner loop is unit-stride over b and c and has no loop-carried
 * dependency, so -O3 vectorises it, where the reference's inner loop is a
 * strided, serial dot product. Each c[i, j] still receives its terms in
 * increasing p, one rounding per add, so the result has the same bits as
 * the reference (no FMA contraction at the default x86-64 target).
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

#define BLOCK_N 64

int matmul_fast(const nodus_call *call)
{
	const float *a = call->inputs[0].data;
	const float *b = call->inputs[1].data;
	float *c = call->outputs[0].data;
	int64_t m = nodus_call_axis(call, "m");
	int64_t n = nodus_call_axis(call, "n");
	int64_t k = nodus_call_axis(call, "k");

	for (int64_t i = 0; i < m; i++)
		for (int64_t j0 = 0; j0 < n; j0 += BLOCK_N) {
			int64_t jn = n - j0 < BLOCK_N ? n - j0 : BLOCK_N;
			float acc[BLOCK_N] = {0};

			for (int64_t p = 0; p < k; p++) {
				float av = a[i * k + p];
				const float *brow = b + p * n + j0;

				for (int64_t j = 0; j < jn; j++)
					acc[j] += av * brow[j];
			}
			for (int64_t j = 0; j < jn; j++)
				c[i * n + j0 + j] = acc[j];
		}
	return 0;
}
