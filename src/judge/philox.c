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
#include "judge/philox_core.h"

void nodus_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	nodus__philox4x32_10(ctr[0], ctr[1], ctr[2], ctr[3], key[0], key[1], out);
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
