/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * judge-internal.h: element-type helpers shared by the files of src/judge/
 * (not part of judge.h's contract; other modules use nodus_judge_load() and
 * nodus_judge_store()).
 *
 * Conversions from double to the 16-bit float types round to nearest, ties
 * to even, directly from the double (never through float, which could
 * round twice); overflow gives an infinity of the same sign; NaN stays a
 * quiet NaN with its sign. Conversions to double are exact.
 *
 * The judge keeps its own element-size table instead of calling
 * nodus_dtype_size() so that it does not depend on src/spec/.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_JUDGE_INTERNAL_H
#define NODUS_JUDGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Element size in bytes of a nodus_dtype; 0 if unknown. */
size_t nodus__judge_dtype_size(int dtype);
/* 1 for float32, float64, float16 and bfloat16; 0 otherwise. */
int nodus__judge_dtype_is_float(int dtype);

/* IEEE binary16 bits nearest to v (ties to even), and back. */
uint16_t nodus__judge_f16_from_double(double v);
double nodus__judge_f16_to_double(uint16_t h);
/* bfloat16 bits nearest to v (ties to even), and back. */
uint16_t nodus__judge_bf16_from_double(double v);
double nodus__judge_bf16_to_double(uint16_t h);

/* v rounded to the nearest value of float dtype (as nodus_judge_store
 * would store it), returned as a double. */
double nodus__judge_round(int dtype, double v);
/* The neighbour of the float-dtype value v (already representable) one
 * step towards +infinity when up is 1, towards -infinity when up is 0. */
double nodus__judge_step(int dtype, double v, int up);

/* Element i of an integer-dtype buffer as int64. */
int64_t nodus__judge_load_int(const void *data, int dtype, int64_t i);
/* Stores an int64 into element i of an integer-dtype buffer, saturating
 * to the dtype's range. */
void nodus__judge_store_int(void *data, int dtype, int64_t i, int64_t v);

#endif
