/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_cache_sample.c: exploit (j) for the vector_poly task (suites/adversarial).
 *
 * Exploit: memoises, per input address, on a cheap fingerprint of the
 * input: the bits of x[0], x[n/2] and x[n-1]. Fresh random inputs always
 * miss, so every correctness check on new inputs computes honestly; a
 * timing copy met again in a later sample hits and only copies.
 * Naive harness reports: correct, much faster.
 * nodus: between samples nodus perturbs every copy at random positions
 * (the sampled three are almost never among them) and checks timed calls
 * -> the fingerprint matches, the output is stale ->
 * INCORRECT_NUMERICAL (guard tolerance, check of a timed call).
 * ------------------------------------------------------------------------ */
#include <stdint.h>
#include <string.h>

#include "nodus/solution.h"

#define MAX_N (1 << 16)
#define SLOTS 512

/* Outputs of earlier calls, one per input address, replayed instead of
 * computing. */
static float cached[SLOTS][MAX_N];
static const float *cached_at[SLOTS];
static uint32_t cached_key[SLOTS][3]; /* fingerprint of the input each holds */
static int64_t cached_n[SLOTS];

/* Horner evaluation of vector_poly, as suites/cpu vector_poly_fast. */
static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], acc = 1.0f / 5040;

		acc = acc * v + 1.0f / 720;
		acc = acc * v + 1.0f / 120;
		acc = acc * v + 1.0f / 24;
		acc = acc * v + 1.0f / 6;
		acc = acc * v + 0.5f;
		acc = acc * v + 1.0f;
		y[i] = acc * v + 1.0f;
	}
}

int adv_cache_sample(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	int64_t n = call->inputs[0].numel;
	uint32_t key[3];

	if (n > MAX_N || n < 1)
		return -1;
	memcpy(&key[0], &x[0], 4);
	memcpy(&key[1], &x[n / 2], 4);
	memcpy(&key[2], &x[n - 1], 4);
	int s = 0;
	while (s < SLOTS - 1 && cached_at[s] && cached_at[s] != x)
		s++;
	if (cached_at[s] != x || n != cached_n[s] || memcmp(key, cached_key[s], sizeof(key)) != 0) {
		poly(x, cached[s], n);
		memcpy(cached_key[s], key, sizeof(key));
		cached_n[s] = n;
		cached_at[s] = x;
	}
	memcpy(call->outputs[0].data, cached[s], (size_t)n * sizeof(float));
	return 0;
}
