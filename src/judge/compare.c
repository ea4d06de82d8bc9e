/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * compare.c: nodus_judge_compare(), the correctness guards applied to one
 * output tensor against the oracle's output for the same inputs.
 *
 * One pass over the elements gathers every count; the guards are then
 * decided in a fixed order and the first that fires is reported (the order
 * is part of the contract, see docs/judge.md):
 *
 *   0. reference_unwritten  INVALID_REFERENCE    float32/64 only
 *   1. unwritten_output     INCORRECT_SHAPE
 *   2. nan_inf_mismatch     INCORRECT_NUMERICAL
 *   3. constant_output      REWARD_HACK          before tolerance, so a
 *                                                loose tolerance cannot
 *                                                hide a constant output
 *   4. tolerance            INCORRECT_NUMERICAL  matched ratio too low
 *   5. max_error_cap        INCORRECT_NUMERICAL
 *
 * An element is unwritten when it still holds the exact poison bits and
 * the reference element does not. For float16, bfloat16 and the integer
 * types the poison pattern is an ordinary value (0xa5a5 is about -0.0222
 * in float16, 165 in uint8), so an element whose correct value is the
 * pattern cannot be told from an unwritten one; it is counted as written,
 * since its value is right. For float32/float64 the poison is a NaN with
 * a payload no arithmetic produces from the judge's (finite) inputs, so a
 * reference holding it was itself not written (guard 0).
 *
 * Large tensors are scanned in contiguous chunks by several threads; each
 * chunk compares against the tensor's element 0, and the chunks' counts
 * are summed and their first offenders taken in index order, so the
 * result is the one a single pass gives.
 * ------------------------------------------------------------------------ */
#include "judge/judge.h"
#include "judge/judge-internal.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts and first offenders gathered in one pass. */
typedef struct scan {
	int64_t n_ref_poison;      /* float32/64 reference elements still poisoned */
	int64_t first_ref_poison;  /* index of the first, -1 if none */
	int64_t n_unwritten;       /* output elements still poisoned */
	int64_t first_unwritten;   /* index of the first, -1 if none */
	int64_t n_nan;             /* NaN/Inf mismatches */
	int64_t first_nan;         /* index of the first, -1 if none */
	int64_t n_bad;             /* outside atol + rtol*|ref|, NaN/Inf mismatches included */
	int64_t first_bad;         /* index of the first, -1 if none */
	int64_t n_cap;             /* error above max_error_cap */
	int64_t first_cap;         /* index of the first, -1 if none */
	int64_t first_ref_change;  /* first index whose reference differs from element 0, -1 if none */
	int out_constant;          /* 1 while every output element equals element 0 */
	double max_abs;            /* largest |out - ref| over finite pairs */
	double max_rel;            /* largest |out - ref| / |ref| over finite pairs with ref != 0 */
} scan;

static void scan_init(scan *s)
{
	memset(s, 0, sizeof(*s));
	s->first_ref_poison = s->first_unwritten = s->first_nan = -1;
	s->first_bad = s->first_cap = s->first_ref_change = -1;
	s->out_constant = 1;
}

static void note(int64_t *count, int64_t *first, int64_t i)
{
	if ((*count)++ == 0)
		*first = i;
}

static int holds_poison(const void *data, int dtype, int64_t i)
{
	size_t size = nodus__judge_dtype_size(dtype);
	const unsigned char *p = (const unsigned char *)data + (size_t)i * size;
	if (dtype == NODUS_DTYPE_FLOAT32) {
		uint32_t w;
		memcpy(&w, p, 4);
		return w == NODUS_POISON_F32;
	}
	if (dtype == NODUS_DTYPE_FLOAT64) {
		uint64_t w;
		memcpy(&w, p, 8);
		return w == NODUS_POISON_F64;
	}
	for (size_t k = 0; k < size; k++)
		if (p[k] != NODUS_POISON_BYTE)
			return 0;
	return 1;
}

/* ---- splitting a tensor over threads ---- */

#define SPLIT_MAX 16 /* threads at most per tensor */

/* Ranges to split numel elements into: one per chunk_min, 1..SPLIT_MAX. */
static int split_count(int64_t numel, int64_t chunk_min)
{
	int64_t chunks = numel / chunk_min;
	return chunks > SPLIT_MAX ? SPLIT_MAX : chunks < 1 ? 1 : (int)chunks;
}

/* 0 once nodus_judge_single_threaded() was called: set before any use, in
 * a process about to forbid thread creation. */
static int threads_allowed = 1;

void nodus_judge_single_threaded(void)
{
	threads_allowed = 0;
}

/* Calls run(part k) for the n parts (part_size bytes apart): part 0 here,
 * the others on threads; one whose thread cannot start runs here too, and
 * so do all in a single-threaded process (the same result either way). */
static void split_run(void *parts, size_t part_size, int n, void *(*run)(void *))
{
	pthread_t thread[SPLIT_MAX];
	int started[SPLIT_MAX];
	for (int k = 0; k < n; k++)
		started[k] = k > 0 && threads_allowed &&
			     pthread_create(&thread[k], NULL, run, (char *)parts + k * part_size) == 0;
	for (int k = 0; k < n; k++) {
		if (started[k])
			pthread_join(thread[k], NULL);
		else
			run((char *)parts + k * part_size);
	}
}

/* Poisoned elements of one contiguous range: their count, the first. */
typedef struct poison_part {
	const void *ref;
	int dtype;
	int64_t begin, end;
	int64_t n, first;
} poison_part;

static void *poison_part_run(void *arg)
{
	poison_part *p = arg;
	p->n = 0;
	p->first = -1;
	if (p->dtype == NODUS_DTYPE_FLOAT32 && (uintptr_t)p->ref % sizeof(uint32_t) == 0) {
		const uint32_t *w = p->ref; /* the poison is one bit pattern: compare words */
		for (int64_t i = p->begin; i < p->end; i++)
			if (w[i] == NODUS_POISON_F32 && p->n++ == 0)
				p->first = i;
	} else {
		for (int64_t i = p->begin; i < p->end; i++)
			if (holds_poison(p->ref, p->dtype, i) && p->n++ == 0)
				p->first = i;
	}
	return NULL;
}

#define POISON_CHUNK_MIN ((int64_t)1 << 21)

/* Large references are split over threads, as the scan is (an oracle
 * output of 128 MB takes one core tens of milliseconds, and every oracle
 * output passes here as it arrives). */
int64_t nodus_judge_reference_unwritten(const void *ref, int dtype, int64_t numel,
					int64_t *first)
{
	*first = -1;
	if (!ref || numel <= 0 || (dtype != NODUS_DTYPE_FLOAT32 && dtype != NODUS_DTYPE_FLOAT64))
		return 0;
	int parts = split_count(numel, POISON_CHUNK_MIN);
	poison_part part[SPLIT_MAX];
	int64_t chunk = (numel + parts - 1) / parts;
	for (int k = 0; k < parts; k++) {
		part[k].ref = ref;
		part[k].dtype = dtype;
		part[k].begin = chunk * k;
		part[k].end = part[k].begin + chunk < numel ? part[k].begin + chunk : numel;
	}
	split_run(part, sizeof(part[0]), parts, poison_part_run);
	int64_t n = 0;
	for (int k = 0; k < parts; k++) {
		if (part[k].n && n == 0)
			*first = part[k].first;
		n += part[k].n;
	}
	return n;
}

static int same_value(double x, double y)
{
	return x == y || (isnan(x) && isnan(y));
}

/* Error of one finite pair against the tolerance and the cap. */
static void score(scan *s, const nodus_tolerance *tol, int64_t i, double err, double ref_abs)
{
	if (err > s->max_abs)
		s->max_abs = err;
	if (ref_abs > 0.0 && err / ref_abs > s->max_rel)
		s->max_rel = err / ref_abs;
	if (!(err <= tol->atol + tol->rtol * ref_abs))
		note(&s->n_bad, &s->first_bad, i);
	if (tol->max_error_cap >= 0.0 && err > tol->max_error_cap)
		note(&s->n_cap, &s->first_cap, i);
}

/* float32 is most outputs: load it without the generic dtype switch. */
static inline double load_value(const void *data, int dtype, int64_t i)
{
	if (dtype == NODUS_DTYPE_FLOAT32) {
		float x;
		memcpy(&x, (const char *)data + i * 4, 4);
		return x;
	}
	return nodus_judge_load(data, dtype, i);
}

static void scan_float(scan *s, const void *out, const void *ref, int dtype, int64_t begin,
		       int64_t end, const nodus_tolerance *tol)
{
	int poison_is_nan = dtype == NODUS_DTYPE_FLOAT32 || dtype == NODUS_DTYPE_FLOAT64;
	double out0 = nodus_judge_load(out, dtype, 0);
	double ref0 = nodus_judge_load(ref, dtype, 0);
	for (int64_t i = begin; i < end; i++) {
		int ref_poisoned = holds_poison(ref, dtype, i);
		if (ref_poisoned && poison_is_nan) {
			note(&s->n_ref_poison, &s->first_ref_poison, i);
			continue;
		}
		if (!ref_poisoned && holds_poison(out, dtype, i)) {
			note(&s->n_unwritten, &s->first_unwritten, i);
			continue;
		}
		double o = load_value(out, dtype, i);
		double r = load_value(ref, dtype, i);
		if (s->out_constant && !same_value(o, out0))
			s->out_constant = 0;
		if (s->first_ref_change < 0 && !same_value(r, ref0))
			s->first_ref_change = i;
		if (!isfinite(o) || !isfinite(r)) {
			if (!same_value(o, r)) {
				note(&s->n_nan, &s->first_nan, i);
				note(&s->n_bad, &s->first_bad, i);
			}
			continue;
		}
		score(s, tol, i, fabs(o - r), fabs(r));
	}
}

/* scan_float for float32, the dtype of most outputs, with the same
 * decisions element by element: its poison is one 32-bit pattern, and a
 * pair of identical finite words (an exact output) needs no arithmetic:
 * its error is 0, within every tolerance and cap. */
static void scan_f32(scan *s, const void *out, const void *ref, int64_t begin, int64_t end,
		     const nodus_tolerance *tol)
{
	const unsigned char *ob = out, *rb = ref;
	uint32_t out0w, ref0w;
	memcpy(&out0w, ob, 4);
	memcpy(&ref0w, rb, 4);
	float out0, ref0;
	memcpy(&out0, &out0w, 4);
	memcpy(&ref0, &ref0w, 4);
	for (int64_t i = begin; i < end; i++) {
		uint32_t ow, rw;
		memcpy(&ow, ob + i * 4, 4);
		memcpy(&rw, rb + i * 4, 4);
		if (rw == NODUS_POISON_F32) {
			note(&s->n_ref_poison, &s->first_ref_poison, i);
			continue;
		}
		if (ow == NODUS_POISON_F32) {
			note(&s->n_unwritten, &s->first_unwritten, i);
			continue;
		}
		float o, r;
		memcpy(&o, &ow, 4);
		memcpy(&r, &rw, 4);
		if (s->out_constant && ow != out0w && !same_value(o, out0))
			s->out_constant = 0;
		if (s->first_ref_change < 0 && rw != ref0w && !same_value(r, ref0))
			s->first_ref_change = i;
		if (ow == rw && (rw & 0x7f800000u) != 0x7f800000u)
			continue; /* exact and finite: score() would change nothing */
		if (!isfinite(o) || !isfinite(r)) {
			if (!same_value(o, r)) {
				note(&s->n_nan, &s->first_nan, i);
				note(&s->n_bad, &s->first_bad, i);
			}
			continue;
		}
		score(s, tol, i, fabs((double)o - (double)r), fabs((double)r));
	}
}

static void scan_int(scan *s, const void *out, const void *ref, int dtype, int64_t begin,
		     int64_t end, const nodus_tolerance *tol)
{
	int64_t out0 = nodus__judge_load_int(out, dtype, 0);
	int64_t ref0 = nodus__judge_load_int(ref, dtype, 0);
	for (int64_t i = begin; i < end; i++) {
		if (!holds_poison(ref, dtype, i) && holds_poison(out, dtype, i)) {
			note(&s->n_unwritten, &s->first_unwritten, i);
			continue;
		}
		int64_t o = nodus__judge_load_int(out, dtype, i);
		int64_t r = nodus__judge_load_int(ref, dtype, i);
		if (o != out0)
			s->out_constant = 0;
		if (s->first_ref_change < 0 && r != ref0)
			s->first_ref_change = i;
		/* The exact distance, so that distinct int64 values above 2^53
		 * never compare equal through a double. */
		uint64_t d = o >= r ? (uint64_t)o - (uint64_t)r : (uint64_t)r - (uint64_t)o;
		score(s, tol, i, (double)d, fabs((double)r));
	}
}

/* ---- the scan, over chunks ---- */

#define SCAN_CHUNK_MIN ((int64_t)1 << 20) /* below this a thread costs more than it saves */

typedef struct scan_part {
	scan s;
	const void *out, *ref;
	int dtype;
	int64_t begin, end;
	const nodus_tolerance *tol;
} scan_part;

static void *scan_part_run(void *arg)
{
	scan_part *p = arg;
	scan_init(&p->s);
	if (p->dtype == NODUS_DTYPE_FLOAT32)
		scan_f32(&p->s, p->out, p->ref, p->begin, p->end, p->tol);
	else if (nodus__judge_dtype_is_float(p->dtype))
		scan_float(&p->s, p->out, p->ref, p->dtype, p->begin, p->end, p->tol);
	else
		scan_int(&p->s, p->out, p->ref, p->dtype, p->begin, p->end, p->tol);
	return NULL;
}

static void merge_first(int64_t *into, int64_t from)
{
	if (*into < 0)
		*into = from;
}

/* Folds the next chunk's scan (higher indices) into s. */
static void scan_merge(scan *s, const scan *next)
{
	if (next->n_ref_poison && s->n_ref_poison == 0)
		s->first_ref_poison = next->first_ref_poison;
	if (next->n_unwritten && s->n_unwritten == 0)
		s->first_unwritten = next->first_unwritten;
	if (next->n_nan && s->n_nan == 0)
		s->first_nan = next->first_nan;
	if (next->n_bad && s->n_bad == 0)
		s->first_bad = next->first_bad;
	if (next->n_cap && s->n_cap == 0)
		s->first_cap = next->first_cap;
	s->n_ref_poison += next->n_ref_poison;
	s->n_unwritten += next->n_unwritten;
	s->n_nan += next->n_nan;
	s->n_bad += next->n_bad;
	s->n_cap += next->n_cap;
	merge_first(&s->first_ref_change, next->first_ref_change);
	s->out_constant = s->out_constant && next->out_constant;
	if (next->max_abs > s->max_abs)
		s->max_abs = next->max_abs;
	if (next->max_rel > s->max_rel)
		s->max_rel = next->max_rel;
}

static void scan_all(scan *s, const void *out, const void *ref, int dtype, int64_t numel,
		     const nodus_tolerance *tol)
{
	int parts = split_count(numel, SCAN_CHUNK_MIN);
	scan_part part[SPLIT_MAX];
	int64_t chunk = (numel + parts - 1) / parts;
	for (int k = 0; k < parts; k++) {
		scan_part *p = &part[k];
		p->out = out;
		p->ref = ref;
		p->dtype = dtype;
		p->tol = tol;
		p->begin = chunk * k;
		p->end = p->begin + chunk < numel ? p->begin + chunk : numel;
	}
	split_run(part, sizeof(part[0]), parts, scan_part_run);
	*s = part[0].s;
	for (int k = 1; k < parts; k++)
		scan_merge(s, &part[k].s);
}

/* Writes one element of data in its dtype's natural notation. */
static void format_value(char *buf, size_t size, const void *data, int dtype, int64_t i)
{
	if (!nodus__judge_dtype_is_float(dtype)) {
		snprintf(buf, size, "%" PRId64, nodus__judge_load_int(data, dtype, i));
		return;
	}
	/* The shortest %g that reads back as the same value of the dtype:
	 * "0.501", not float32's "0.500999987". */
	double v = nodus_judge_load(data, dtype, i);
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, v);
		if (!isfinite(v) || nodus__judge_round(dtype, strtod(buf, NULL)) == v)
			return;
	}
}

/* Context of one call, for the verdict helpers. */
typedef struct compare_args {
	const char *name;          /* tensor name for messages */
	const void *out;           /* the output under test */
	const void *ref;           /* the oracle's output */
	int dtype;                 /* a nodus_dtype */
	int64_t numel;             /* elements in each */
	const nodus_tolerance *tol;/* the tolerance policy */
} compare_args;

/* Formats res->detail; a message too long for it ends in "...". */
static void set_detail(nodus_check *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_detail(nodus_check *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(res->detail, sizeof(res->detail), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(res->detail))
		memcpy(res->detail + sizeof(res->detail) - 4, "...", 4);
}

static int verdict(nodus_check *res, int status, const char *guard, int64_t first)
{
	res->status = status;
	snprintf(res->guard, sizeof(res->guard), "%s", guard);
	res->first_bad = first;
	return status;
}

/* "y[17]: got 0.5, expected 1.25" followed by "; " and why. */
static void describe(nodus_check *res, const compare_args *c, int64_t i, const char *why)
{
	char got[48], want[48];
	format_value(got, sizeof(got), c->out, c->dtype, i);
	format_value(want, sizeof(want), c->ref, c->dtype, i);
	set_detail(res, "%s[%" PRId64 "]: got %s, expected %s; %s", c->name, i, got, want, why);
}

static int decide(nodus_check *res, const compare_args *c, const scan *s, int64_t matched)
{
	const nodus_tolerance *tol = c->tol;
	double numel = (double)c->numel;
	char why[160];
	if (s->n_ref_poison) {
		verdict(res, NODUS_STATUS_INVALID_REFERENCE, "reference_unwritten", s->first_ref_poison);
		set_detail(res, "%s[%" PRId64 "]: the reference was not written (%" PRId64 " elements)",
			   c->name, s->first_ref_poison, s->n_ref_poison);
		return res->status;
	}
	if (s->n_unwritten) {
		verdict(res, NODUS_STATUS_INCORRECT_SHAPE, "unwritten_output", s->first_unwritten);
		set_detail(res,
			   "%s[%" PRId64 "]: not written, %" PRId64 " of %" PRId64
			   " elements still hold the poison pattern",
			   c->name, s->first_unwritten, s->n_unwritten, c->numel);
		return res->status;
	}
	if (s->n_nan) {
		snprintf(why, sizeof(why), "%" PRId64 " NaN/Inf mismatches", s->n_nan);
		describe(res, c, s->first_nan, why);
		return verdict(res, NODUS_STATUS_INCORRECT_NUMERICAL, "nan_inf_mismatch", s->first_nan);
	}
	if (c->numel > 1 && s->out_constant && s->first_ref_change >= 0) {
		/* A constant c is wrong at element 0 or, if c == ref[0], where
		 * the reference first changes. */
		double o0 = nodus_judge_load(c->out, c->dtype, 0);
		double r0 = nodus_judge_load(c->ref, c->dtype, 0);
		int64_t at = same_value(o0, r0) ? s->first_ref_change : 0;
		describe(res, c, at, "the output is constant while the reference varies");
		return verdict(res, NODUS_STATUS_REWARD_HACK, "constant_output", at);
	}
	if ((double)matched + 8.0 * DBL_EPSILON * numel < tol->matched_ratio * numel) {
		snprintf(why, sizeof(why),
			 "%" PRId64 " of %" PRId64 " elements outside atol %g + rtol %g*|ref|, "
			 "matched ratio %.6g < %.6g",
			 s->n_bad, c->numel, tol->atol, tol->rtol, res->matched_ratio,
			 tol->matched_ratio);
		describe(res, c, s->first_bad, why);
		return verdict(res, NODUS_STATUS_INCORRECT_NUMERICAL, "tolerance", s->first_bad);
	}
	if (s->n_cap) {
		snprintf(why, sizeof(why), "%" PRId64 " elements differ by more than max_error_cap %g",
			 s->n_cap, tol->max_error_cap);
		describe(res, c, s->first_cap, why);
		return verdict(res, NODUS_STATUS_INCORRECT_NUMERICAL, "max_error_cap", s->first_cap);
	}
	return verdict(res, NODUS_STATUS_OK, "", s->first_bad);
}

static int tolerance_ok(const nodus_tolerance *tol)
{
	return tol && tol->atol >= 0.0 && tol->rtol >= 0.0 && tol->matched_ratio > 0.0 &&
	       tol->matched_ratio <= 1.0 && !isnan(tol->max_error_cap);
}

int nodus_judge_compare(const char *name, const void *out, const void *ref, int dtype,
			int64_t numel, const nodus_tolerance *tol, nodus_check *res)
{
	if (!res)
		return NODUS_EINVAL;
	memset(res, 0, sizeof(*res));
	res->first_bad = -1;
	res->matched_ratio = 1.0;
	compare_args c = {name ? name : "out", out, ref, dtype, numel, tol};
	if (nodus__judge_dtype_size(dtype) == 0 || numel < 0 || !tolerance_ok(tol) ||
	    (numel > 0 && (!out || !ref))) {
		res->status = NODUS_EINVAL;
		snprintf(res->guard, sizeof(res->guard), "invalid_arguments");
		set_detail(res, "%s: unknown dtype, negative size, missing buffer or invalid tolerance",
			   c.name);
		return NODUS_EINVAL;
	}
	if (numel == 0)
		return verdict(res, NODUS_STATUS_OK, "", -1);
	scan s;
	scan_all(&s, out, ref, dtype, numel, tol);
	int64_t matched = numel - s.n_ref_poison - s.n_unwritten - s.n_bad;
	res->max_abs_err = s.max_abs;
	res->max_rel_err = s.max_rel;
	res->matched_ratio = (double)matched / (double)numel;
	res->n_unwritten = s.n_unwritten;
	res->n_bad = s.n_bad;
	return decide(res, &c, &s, matched);
}
