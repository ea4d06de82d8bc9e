/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * philox_core.h: the ten Philox4x32 rounds, for the host and the device.
 *
 * src/judge/philox.c (every input the judge draws on the host) and
 * src/backend/cuda/cuda_fill.cu (the same inputs drawn on the GPU) must
 * produce the same bits, so both compile this one definition: plain
 * 32x32->64 integer multiplications, exact on either side. Not public.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_PHILOX_CORE_H
#define NODUS_PHILOX_CORE_H

#include <stdint.h>

#ifdef __CUDACC__
#define NODUS_HOST_DEVICE __host__ __device__
#else
#define NODUS_HOST_DEVICE
#endif

#define NODUS_PHILOX_M0 0xD2511F53u
#define NODUS_PHILOX_M1 0xCD9E8D57u
#define NODUS_PHILOX_W0 0x9E3779B9u /* the key's Weyl steps */
#define NODUS_PHILOX_W1 0xBB67AE85u

/* Philox4x32-10 of counter (c0..c3) under key (k0, k1) into out[4]. */
NODUS_HOST_DEVICE static inline void nodus__philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2,
							   uint32_t c3, uint32_t k0, uint32_t k1,
							   uint32_t out[4])
{
	for (int round = 0; round < 10; round++) {
		uint64_t p0 = (uint64_t)NODUS_PHILOX_M0 * c0;
		uint64_t p1 = (uint64_t)NODUS_PHILOX_M1 * c2;
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
		uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c0 = n0;
		c1 = (uint32_t)p1;
		c2 = n2;
		c3 = (uint32_t)p0;
		k0 += NODUS_PHILOX_W0;
		k1 += NODUS_PHILOX_W1;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

#endif
