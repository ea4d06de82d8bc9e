/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_memo_rows.c: an exploit for the softmax task (suites/adversarial).
 *
 * Exploit: memoization by content, not by address. Each row's output is
 * kept in a table keyed on a hash of the row's bytes (any copy, any
 * address). A timed sample perturbs only 4 elements of a copy, so all but
 * at most 4 of its 128 rows are rows the candidate has met before, in
 * whatever copy: it hashes each row (one pass over the input, no expf),
 * copies the kept output on a hit and computes only the rows it has never
 * seen. Every output is exactly the reference's formula's.
 * Where the rows are drawn afresh nothing hits: it computes every row and
 * pays the hashing on top.
 * What should hold: REWARD_HACK, guard input_memo (the candidate is
 * slower on the samples whose inputs are drawn afresh than on the others).
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/solution.h"

#define SLOTS 65536 /* rows kept; a full table overwrites */

static struct slot {
	uint64_t hash;
	int64_t cols;
	float *out;
} table[SLOTS];

static uint64_t row_hash(const float *x, int64_t cols)
{
	const uint32_t *w = (const uint32_t *)x;
	uint64_t h = 1469598103934665603ull ^ (uint64_t)cols;
	for (int64_t c = 0; c < cols; c++)
		h = (h ^ w[c]) * 1099511628211ull;
	return h | 1; /* 0 marks an empty slot */
}

static void softmax_row(const float *xr, float *yr, int64_t cols)
{
	float m = xr[0];
	double s = 0.0;
	for (int64_t c = 1; c < cols; c++)
		m = xr[c] > m ? xr[c] : m;
	for (int64_t c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	for (int64_t c = 0; c < cols; c++)
		yr[c] = expf(xr[c] - m) / (float)s;
}

int adv_memo_rows(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t rows = nodus_call_axis(call, "rows");
	int64_t cols = nodus_call_axis(call, "cols");
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		uint64_t h = row_hash(xr, cols);
		struct slot *s = &table[h % SLOTS];
		if (s->hash == h && s->cols == cols && s->out) {
			memcpy(yr, s->out, (size_t)cols * sizeof(float));
			continue;
		}
		softmax_row(xr, yr, cols);
		float *kept = s->cols == cols ? s->out : realloc(s->out, (size_t)cols * sizeof(float));
		if (!kept)
			continue;
		memcpy(kept, yr, (size_t)cols * sizeof(float));
		s->out = kept;
		s->hash = h;
		s->cols = cols;
	}
	return 0;
}
