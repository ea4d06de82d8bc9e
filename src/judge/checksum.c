/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * checksum.c: nodus_judge_checksum(), a fast 64-bit hash of a buffer used
 * to detect a solution writing its inputs.
 *
 * Four independent lanes absorb consecutive 8-byte words (so the multiply
 * chains overlap in the pipeline); each absorb step acc = f(acc ^ w) with f
 * a multiplication by an odd constant followed by an xorshift, both
 * bijections of 64 bits. The lanes are then folded one after another with
 * the same step, the length is mixed in, and a bijective finaliser
 * (splitmix64's) spreads the bits. Because every step is a bijection of
 * the accumulator for fixed other inputs, changing the bytes of any one
 * 8-byte word (a single-bit flip in particular) always changes the result;
 * unlike a CRC or SHA-256 it makes no promise about changes to several
 * words, and it is not meant to resist a deliberate forgery. Words are read
 * in the machine's byte order: a checksum is compared only with another
 * taken on the same machine.
 * ------------------------------------------------------------------------ */
#include "judge/judge.h"

#include <string.h>

#define MIX_PRIME 0x9E3779B97F4A7C15ull /* odd, so multiplication is invertible */

static uint64_t absorb(uint64_t acc, uint64_t w)
{
	acc = (acc ^ w) * MIX_PRIME;
	return acc ^ (acc >> 32);
}

static uint64_t finalise(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t nodus_judge_checksum(const void *data, size_t nbytes)
{
	const unsigned char *p = data;
	uint64_t lane[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
			    0x082EFA98EC4E6C89ull};
	size_t n_words = nbytes / 8;
	size_t k = 0;
	for (; k + 4 <= n_words; k += 4) {
		for (int j = 0; j < 4; j++) {
			uint64_t w;
			memcpy(&w, p + (k + (size_t)j) * 8, 8);
			lane[j] = absorb(lane[j], w);
		}
	}
	for (; k < n_words; k++) {
		uint64_t w;
		memcpy(&w, p + k * 8, 8);
		lane[k % 4] = absorb(lane[k % 4], w);
	}
	uint64_t tail = 0;
	if (nbytes % 8)
		memcpy(&tail, p + n_words * 8, nbytes % 8);
	uint64_t h = absorb(lane[0], tail);
	for (int j = 1; j < 4; j++)
		h = absorb(h, lane[j]);
	return finalise(h ^ (uint64_t)nbytes);
}
