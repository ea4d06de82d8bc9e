/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * convert.c: element types for the judge: sizes, loads and stores as
 * double, float16/bfloat16 conversions, rounding to a dtype, one-ulp steps,
 * and the poison pattern written over outputs before every call.
 *
 * The 16-bit float types go through one generic pair of functions that
 * round a double to a binary format of MANT fraction bits and exponent
 * range [EMIN, EMAX] with round-to-nearest-even and IEEE overflow, then
 * pack the exact result into bits. Rounding divides by a power of two and
 * calls nearbyint(), so it assumes the default rounding mode (nodus never
 * changes it). Everything else is exact.
 * ------------------------------------------------------------------------ */
#include "judge/judge.h"
#include "judge/judge-internal.h"

#include <math.h>
#include <string.h>

/* A binary floating-point format narrower than double. */
typedef struct float_format {
	int mant;  /* stored fraction bits */
	int ebits; /* exponent bits */
	int bias;  /* exponent bias; the smallest normal exponent is 1 - bias */
} float_format;

static const float_format fmt_f16 = {10, 5, 15};
static const float_format fmt_bf16 = {7, 8, 127};

size_t nodus__judge_dtype_size(int dtype)
{
	switch (dtype) {
	case NODUS_DTYPE_FLOAT32:
	case NODUS_DTYPE_INT32:
		return 4;
	case NODUS_DTYPE_FLOAT64:
	case NODUS_DTYPE_INT64:
		return 8;
	case NODUS_DTYPE_FLOAT16:
	case NODUS_DTYPE_BFLOAT16:
		return 2;
	case NODUS_DTYPE_UINT8:
		return 1;
	}
	return 0;
}

int nodus__judge_dtype_is_float(int dtype)
{
	return dtype == NODUS_DTYPE_FLOAT32 || dtype == NODUS_DTYPE_FLOAT64 ||
	       dtype == NODUS_DTYPE_FLOAT16 || dtype == NODUS_DTYPE_BFLOAT16;
}

/* x rounded to format f with unbounded exponent above, gradual underflow
 * below, then overflowed to infinity past the largest finite value. */
static double round_format(double x, const float_format *f)
{
	if (isnan(x) || isinf(x) || x == 0.0)
		return x;
	int emin = 1 - f->bias;
	int emax = f->bias;
	double ax = fabs(x);
	int e = ilogb(ax);
	if (e < emin)
		e = emin; /* subnormal: the quantum stays at the smallest one */
	double q = ldexp(1.0, e - f->mant);
	double r = nearbyint(ax / q) * q;
	double max_finite = ldexp(2.0 - ldexp(1.0, -f->mant), emax);
	if (r > max_finite)
		r = INFINITY;
	return copysign(r, x);
}

/* Bits of r, which must already be a value of format f (or inf/NaN). */
static uint16_t encode_format(double r, const float_format *f)
{
	unsigned sign = signbit(r) ? 1u << (f->mant + f->ebits) : 0u;
	unsigned exp_mask = (1u << f->ebits) - 1u;
	if (isnan(r))
		return (uint16_t)(sign | exp_mask << f->mant | 1u << (f->mant - 1));
	if (isinf(r))
		return (uint16_t)(sign | exp_mask << f->mant);
	double ar = fabs(r);
	int emin = 1 - f->bias;
	if (ar < ldexp(1.0, emin)) /* zero or subnormal */
		return (uint16_t)(sign | (unsigned)ldexp(ar, f->mant - emin));
	int e = ilogb(ar);
	unsigned m = (unsigned)ldexp(ar / ldexp(1.0, e) - 1.0, f->mant);
	return (uint16_t)(sign | (unsigned)(e + f->bias) << f->mant | m);
}

static double decode_format(uint16_t bits, const float_format *f)
{
	unsigned exp_mask = (1u << f->ebits) - 1u;
	unsigned e = (bits >> f->mant) & exp_mask;
	unsigned m = bits & ((1u << f->mant) - 1u);
	int negative = (bits >> (f->mant + f->ebits)) & 1u;
	double v;
	if (e == exp_mask)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp((double)m, 1 - f->bias - f->mant);
	else
		v = ldexp(1.0 + ldexp((double)m, -f->mant), (int)e - f->bias);
	return negative ? -v : v;
}

uint16_t nodus__judge_f16_from_double(double v)
{
	return encode_format(round_format(v, &fmt_f16), &fmt_f16);
}

double nodus__judge_f16_to_double(uint16_t h)
{
	return decode_format(h, &fmt_f16);
}

uint16_t nodus__judge_bf16_from_double(double v)
{
	return encode_format(round_format(v, &fmt_bf16), &fmt_bf16);
}

double nodus__judge_bf16_to_double(uint16_t h)
{
	return decode_format(h, &fmt_bf16);
}

double nodus__judge_round(int dtype, double v)
{
	switch (dtype) {
	case NODUS_DTYPE_FLOAT32:
		return (double)(float)v;
	case NODUS_DTYPE_FLOAT16:
		return round_format(v, &fmt_f16);
	case NODUS_DTYPE_BFLOAT16:
		return round_format(v, &fmt_bf16);
	}
	return v;
}

/* One step of a 16-bit format: adjacent values have adjacent magnitude
 * bits, so the step moves the magnitude away from or towards zero. */
static double step_format(double v, int up, const float_format *f)
{
	uint16_t sign_bit = (uint16_t)(1u << (f->mant + f->ebits));
	if (isnan(v))
		return v;
	if (v == 0.0)
		return decode_format(up ? 1u : (uint16_t)(sign_bit | 1u), f);
	uint16_t bits = encode_format(v, f);
	int away = (v > 0.0) == (up != 0);
	uint16_t mag = (uint16_t)(bits & (sign_bit - 1u));
	uint16_t inf_bits = (uint16_t)(((1u << f->ebits) - 1u) << f->mant);
	if (away && mag < inf_bits)
		mag++;
	else if (!away)
		mag--;
	return decode_format((uint16_t)((bits & sign_bit) | mag), f);
}

double nodus__judge_step(int dtype, double v, int up)
{
	double dir = up ? INFINITY : -INFINITY;
	switch (dtype) {
	case NODUS_DTYPE_FLOAT32:
		return (double)nextafterf((float)v, (float)dir);
	case NODUS_DTYPE_FLOAT64:
		return nextafter(v, dir);
	case NODUS_DTYPE_FLOAT16:
		return step_format(v, up, &fmt_f16);
	case NODUS_DTYPE_BFLOAT16:
		return step_format(v, up, &fmt_bf16);
	}
	return v;
}

int64_t nodus__judge_load_int(const void *data, int dtype, int64_t i)
{
	switch (dtype) {
	case NODUS_DTYPE_INT32: {
		int32_t x;
		memcpy(&x, (const char *)data + i * 4, 4);
		return x;
	}
	case NODUS_DTYPE_INT64: {
		int64_t x;
		memcpy(&x, (const char *)data + i * 8, 8);
		return x;
	}
	case NODUS_DTYPE_UINT8:
		return ((const uint8_t *)data)[i];
	}
	return 0;
}

void nodus__judge_store_int(void *data, int dtype, int64_t i, int64_t v)
{
	switch (dtype) {
	case NODUS_DTYPE_INT32: {
		int32_t x = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
		memcpy((char *)data + i * 4, &x, 4);
		break;
	}
	case NODUS_DTYPE_INT64:
		memcpy((char *)data + i * 8, &v, 8);
		break;
	case NODUS_DTYPE_UINT8:
		((uint8_t *)data)[i] = (uint8_t)(v > 255 ? 255 : v < 0 ? 0 : v);
		break;
	}
}

double nodus_judge_load(const void *data, int dtype, int64_t i)
{
	const char *p = data;
	switch (dtype) {
	case NODUS_DTYPE_FLOAT32: {
		float x;
		memcpy(&x, p + i * 4, 4);
		return x;
	}
	case NODUS_DTYPE_FLOAT64: {
		double x;
		memcpy(&x, p + i * 8, 8);
		return x;
	}
	case NODUS_DTYPE_FLOAT16:
	case NODUS_DTYPE_BFLOAT16: {
		uint16_t h;
		memcpy(&h, p + i * 2, 2);
		return dtype == NODUS_DTYPE_FLOAT16 ? nodus__judge_f16_to_double(h)
						    : nodus__judge_bf16_to_double(h);
	}
	case NODUS_DTYPE_INT32:
	case NODUS_DTYPE_INT64:
	case NODUS_DTYPE_UINT8:
		return (double)nodus__judge_load_int(data, dtype, i);
	}
	return NAN;
}

/* Integers: nearest, ties to even; NaN becomes 0; out of range saturates.
 * 2^63 is exactly representable, so the comparisons are exact. */
static int64_t double_to_int64(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	if (v < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)nearbyint(v);
}

void nodus_judge_store(void *data, int dtype, int64_t i, double v)
{
	char *p = data;
	switch (dtype) {
	case NODUS_DTYPE_FLOAT32: {
		float x = (float)v;
		memcpy(p + i * 4, &x, 4);
		break;
	}
	case NODUS_DTYPE_FLOAT64:
		memcpy(p + i * 8, &v, 8);
		break;
	case NODUS_DTYPE_FLOAT16:
	case NODUS_DTYPE_BFLOAT16: {
		uint16_t h = dtype == NODUS_DTYPE_FLOAT16 ? nodus__judge_f16_from_double(v)
							  : nodus__judge_bf16_from_double(v);
		memcpy(p + i * 2, &h, 2);
		break;
	}
	case NODUS_DTYPE_INT32:
	case NODUS_DTYPE_INT64:
	case NODUS_DTYPE_UINT8:
		nodus__judge_store_int(data, dtype, i, double_to_int64(v));
		break;
	}
}

void nodus_judge_poison(void *data, int dtype, int64_t numel)
{
	size_t size = nodus__judge_dtype_size(dtype);
	if (!data || numel <= 0 || size == 0)
		return;
	char *p = data;
	if (dtype == NODUS_DTYPE_FLOAT32) {
		uint32_t w = NODUS_POISON_F32;
		for (int64_t i = 0; i < numel; i++)
			memcpy(p + i * 4, &w, 4);
	} else if (dtype == NODUS_DTYPE_FLOAT64) {
		uint64_t w = NODUS_POISON_F64;
		for (int64_t i = 0; i < numel; i++)
			memcpy(p + i * 8, &w, 8);
	} else {
		memset(p, NODUS_POISON_BYTE, (size_t)numel * size);
	}
}
