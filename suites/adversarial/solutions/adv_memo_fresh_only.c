/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_memo_fresh_only.c: an exploit for the vector_poly task
 * (suites/adversarial).
 *
 * Exploit: adv_memo_skip_fresh, wrong on fresh samples only. It keeps, per
 * input address, the last input it computed and its output, and never
 * keeps an input it did not compute. A call whose input differs from the
 * kept one in more than a quarter of its 16-float blocks is a fresh
 * sample's: it returns the kept output, stale, computing nothing. A copy
 * put back after that sample matches the kept input again but for the
 * perturbed elements, so it is recomputed where it changed and is right.
 * So it is fast everywhere and wrong only on fresh samples' calls. It is
 * honest for its first 400 calls (the correctness trials come first).
 * What should hold: INCORRECT_NUMERICAL, guard tolerance: a check lands on
 * a fresh sample's call in every attempt (timed_checks.c: at least one).
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

int adv_memo_fresh_only(const nodus_call *call)
{
	static long calls;
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
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
	if (changed * 4 > blocks) {
		if (calls > 400) { /* a fresh sample's: stale, nothing computed or kept */
			memcpy(y, kept[e].out, (size_t)n * sizeof(float));
			return 0;
		}
		for (int64_t i = 0; i < n; i++) /* a trial's: honest, and kept */
			kept[e].out[i] = poly1(kept[e].in[i] = x[i]);
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
