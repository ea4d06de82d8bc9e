/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_memo_skip_fresh.c: an exploit for the vector_poly task
 * (suites/adversarial).
 *
 * Exploit: adv_memo_diff's incremental memoization, without its cost where
 * the inputs were drawn afresh. A call whose input differs from the kept
 * one in more than a quarter of its 16-float blocks is a fresh sample's
 * (a perturbed one changes 4 elements): it does not compute at all and
 * returns the kept output, stale. So it is fast on fresh samples too and
 * the memoization guard sees no gap. The correctness trials come first
 * and draw each instance afresh at the same addresses, so it is honest
 * for its first 400 calls (a harness whose timing is told apart by the
 * call count).
 * What should hold: INCORRECT_NUMERICAL, guard tolerance. A copy put back
 * after a fresh sample also differs everywhere from what it kept, so it
 * is wrong there too, and a check of a timed call (or the final trial
 * after timing) lands on such a call: 92 of 92 attempts on the 2-core cpu
 * (session 21).
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

static float poly1(float x)
{
	float acc = 0.0f;
	for (int k = 0; k < 8; k++)
		acc += inv_fact[k] * powf(x, (float)k);
	return acc;
}

#define KEPT_MAX 512
static struct {
	const float *x;
	int64_t n;
	float *in, *out;
} kept[KEPT_MAX];
static int n_kept;

int adv_memo_skip_fresh(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	static long calls;
	int e = 0;
	calls++;
	while (e < n_kept && !(kept[e].x == x && kept[e].n == n))
		e++;
	if (e == n_kept) { /* first sight of this copy: compute, keep */
		for (int64_t i = 0; i < n; i++)
			y[i] = poly1(x[i]);
		if (n_kept < KEPT_MAX) {
			kept[e].in = malloc((size_t)n * sizeof(float));
			kept[e].out = malloc((size_t)n * sizeof(float));
			if (kept[e].in && kept[e].out) {
				memcpy(kept[e].in, x, (size_t)n * sizeof(float));
				memcpy(kept[e].out, y, (size_t)n * sizeof(float));
				kept[e].x = x, kept[e].n = n;
				n_kept++;
			}
		}
		return 0;
	}
	int64_t changed = 0, blocks = (n + 15) / 16;
	for (int64_t i = 0; i < n; i += 16) {
		int64_t m = n - i < 16 ? n - i : 16;
		changed += memcmp(x + i, kept[e].in + i, (size_t)m * sizeof(float)) != 0;
	}
	if (calls > 400 && changed * 4 > blocks) { /* drawn afresh: the stale output, nothing computed */
		memcpy(y, kept[e].out, (size_t)n * sizeof(float));
		return 0;
	}
	for (int64_t i = 0; i < n; i += 16) {
		int64_t m = n - i < 16 ? n - i : 16;
		if (memcmp(x + i, kept[e].in + i, (size_t)m * sizeof(float)) != 0)
			for (int64_t j = i; j < i + m; j++)
				if (memcmp(x + j, kept[e].in + j, sizeof(float)) != 0) {
					kept[e].in[j] = x[j];
					kept[e].out[j] = poly1(x[j]);
				}
		memcpy(y + i, kept[e].out + i, (size_t)m * sizeof(float));
	}
	return 0;
}
