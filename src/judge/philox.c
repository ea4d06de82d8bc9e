/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * philox.c: the counter-based generator behind every judge input, and the
 * derivation of per-trial seeds.
 *
 * Philox4x32-10 is the generator of Salmon, Moraes, Dror and Shaw, "Parallel
 * random numbers: as easy as 1, 2, 3" (SC'11), as published in Random123:
 * ten rounds of two 32x32->64 multiplications with a Weyl-sequence key
 * schedule. It is a bijection of the 128-bit counter for each 64-bit key,
 * needs no state, and is trivially reproduced on a GPU, which is why a
 * tensor's values are a pure function of (seed, tensor index, element).
 * The unit test checks it against Random123's known-answer vectors.
 *
 * Seeds: nodus_judge_trial_seed() chains splitmix64's finaliser (a
 * bijection of 64 bits) over master, stream and trial, so for a fixed
 * master and stream distinct trials always give distinct seeds.
 * nodus_judge_stream_id() is FNV-1a 64 of the string's bytes, which is
 * stable across machines, compilers and byte orders.
 * ------------------------------------------------------------------------ */
#include "judge/judge.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void nodus_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	uint32_t k0 = key[0], k1 = key[1];
	for (int round = 0; round < 10; round++) {
		uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
		uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
		uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c0 = n0;
		c1 = (uint32_t)p1;
		c2 = n2;
		c3 = (uint32_t)p0;
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

/* splitmix64 (Steele, Lea, Flood 2014): a Weyl step and a bijective
 * finaliser with full avalanche. */
static uint64_t splitmix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t nodus_judge_trial_seed(uint64_t master, uint64_t stream, uint64_t trial)
{
	uint64_t h = splitmix64(master);
	h = splitmix64(h ^ stream);
	return splitmix64(h ^ trial);
}

uint64_t nodus_judge_stream_id(const char *s)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		h ^= *p;
		h *= 0x100000001B3ull;
	}
	return h;
}
