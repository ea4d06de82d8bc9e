/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * judge.h: inputs and correctness guards.
 *
 * Inputs come from Philox4x32-10, a counter-based generator: element i of
 * tensor t under seed s is a pure function of (s, t, i), so the same seed
 * gives the same bits on every backend and in every process (the cuda
 * backend draws float32 inputs on the device itself: docs/judge.md 2.5).
 * Seeds are chosen by the orchestrator per trial; a solution cannot
 * predict them.
 *
 * Outputs are poisoned before every call with a NaN whose payload is
 * NODUS_POISON_F32 (float32), NODUS_POISON_F64, or the byte 0xA5 (other
 * types); an element that still holds the poison bits after a call was not
 * written.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_JUDGE_H
#define NODUS_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

typedef struct nodus_fill_spec nodus_fill_spec; /* backend/backend.h */

#define NODUS_POISON_F32 0x7fa5a5a5u
#define NODUS_POISON_F64 0x7ff4a5a5a5a5a5a5ull
#define NODUS_POISON_BYTE 0xa5

/* One Philox4x32-10 block: out = philox(ctr, key). */
void nodus_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Trial seeds: the seed of trial `trial` of pair-condition identified by
 * `stream` under master seed. Distinct (master, stream, trial) give
 * independent seeds. */
uint64_t nodus_judge_trial_seed(uint64_t master, uint64_t stream, uint64_t trial);
/* A 64-bit stream id for a string (pair id), stable across machines. */
uint64_t nodus_judge_stream_id(const char *s);

/* The variants (NODUS_VARIANT_* bits) the judge may apply to an input
 * drawn from dist whose spec declares `declared`: those, plus negate for
 * affine_scale, so that scales are drawn with both signs on the negate
 * trial (docs/judge.md 2.4). Every caller that masks a trial's variant for
 * an input masks it with this. */
unsigned nodus_judge_input_variants(unsigned declared, const nodus_dist *dist);

/* Fills data (numel elements of dtype) from dist, then applies variant
 * (NODUS_VARIANT_* bits, 0 for none) if allowed. axis_values resolves
 * NODUS_DIST_INDEX. Returns 0, or NODUS_EINVAL for an unsupported
 * dtype/dist pair. */
int nodus_judge_fill(void *data, int dtype, int64_t numel, const nodus_dist *dist,
		     const int64_t *axis_values, unsigned variant, uint64_t seed,
		     uint32_t tensor_index);

/* Like nodus_judge_fill for elements [first, first + count) only (first a
 * multiple of 4), written at their own indices of data: element i has the
 * same bits whichever range produced it, so ranges can be drawn by several
 * threads. */
int nodus_judge_fill_range(void *data, int dtype, int64_t first, int64_t count,
			   const nodus_dist *dist, const int64_t *axis_values, unsigned variant,
			   uint64_t seed, uint32_t tensor_index);

/* Element `index` of what nodus_judge_fill writes, into out[0]. */
int nodus_judge_fill_at(void *out, int dtype, int64_t index, const nodus_dist *dist,
			const int64_t *axis_values, unsigned variant, uint64_t seed,
			uint32_t tensor_index);

/* The fill a device backend can make itself (backend op fill) for these
 * arguments, bit for bit nodus_judge_fill: float32 data of a float
 * distribution. Returns 0, NODUS_EINVAL for what nodus_judge_fill refuses,
 * or NODUS_EUNAVAILABLE for what only the host draws. */
int nodus_judge_fill_spec(int dtype, const nodus_dist *dist, const int64_t *axis_values,
			  unsigned variant, uint64_t seed, uint32_t tensor_index,
			  nodus_fill_spec *spec);

/* Writes the poison pattern over numel elements of data of dtype;
 * nothing for an unknown dtype. */
void nodus_judge_poison(void *data, int dtype, int64_t numel);

/* 64-bit checksum of bytes (for input mutation detection). */
uint64_t nodus_judge_checksum(const void *data, size_t nbytes);

typedef struct nodus_check {
	int status;              /* NODUS_STATUS_OK or the failure status */
	char guard[64];          /* guard that fired, "" if none: "reference_unwritten",
				  * "unwritten_output", "nan_inf_mismatch", "constant_output",
				  * "tolerance", "max_error_cap", "input_independent_output"
				  * (docs/judge.md) */
	double max_abs_err;      /* largest |out-ref| over finite compared pairs */
	double max_rel_err;      /* largest |out-ref|/|ref| over those with ref != 0 */
	double matched_ratio;    /* share of elements within tolerance */
	int64_t n_unwritten;     /* elements still holding poison */
	int64_t n_bad;           /* elements outside tolerance */
	int64_t first_bad;       /* index of the first bad element, -1 if none */
	char detail[256];        /* e.g. "y[17]: got 0.5, expected 1.25" */
} nodus_check;

/* Compares an output with the oracle's output of the same inputs:
 * unwritten elements -> INCORRECT_SHAPE; NaN/Inf must match exactly;
 * |out-ref| <= atol + rtol*|ref| on at least matched_ratio of elements and
 * nowhere above max_error_cap -> else INCORRECT_NUMERICAL; a constant
 * output where the reference varies -> REWARD_HACK "constant_output".
 * A float32/float64 reference still holding the poison -> INVALID_REFERENCE
 * "reference_unwritten". Guards run in the order of docs/judge.md.
 * res is always filled. Returns res->status, or NODUS_EINVAL (also put in
 * res->status, guard "invalid_arguments") for an unknown dtype, a negative
 * numel, a missing buffer or an invalid tolerance. */
int nodus_judge_compare(const char *name, const void *out, const void *ref, int dtype,
			int64_t numel, const nodus_tolerance *tol, nodus_check *res);

/* ---- input_independent_output (follow.c, docs/judge.md 5.1) ----
 * An output must follow its inputs from one instance to another: where
 * the reference moves by more than the tolerance, the candidate must move
 * with it. Life cycle, per output of an attempt: a zeroed nodus_follow;
 * nodus_judge_follow_keep() with the first instance whose output passed
 * nodus_judge_compare(); nodus_judge_follow_check() with each later one of
 * the same shape (after it passed too); nodus_judge_follow_release(). */

#define NODUS_FOLLOW_SAMPLES 4096   /* elements kept per output, at most */
#define NODUS_FOLLOW_MIN_CHANGED 16 /* changed elements the guard needs to judge */

typedef struct nodus_follow {
	int64_t numel;     /* elements of the kept output; 0 while nothing is kept */
	int dtype;         /* its nodus_dtype */
	int instance;      /* the instance it came from, for messages */
	int n;             /* sampled elements, min(numel, NODUS_FOLLOW_SAMPLES) */
	int64_t *index;    /* n indices (one allocation with cand and ref) */
	double *cand;      /* the candidate's values there */
	double *ref;       /* the reference's values there */
} nodus_follow;

/* Keeps out and ref (numel elements of dtype) at every element when numel
 * <= NODUS_FOLLOW_SAMPLES, else at NODUS_FOLLOW_SAMPLES indices drawn from
 * seed (which the candidate must not know); anything kept before is
 * released. Returns 0, NODUS_EINVAL or NODUS_ENOMEM. */
int nodus_judge_follow_keep(nodus_follow *f, const void *out, const void *ref, int dtype,
			    int64_t numel, uint64_t seed, int instance);

/* Checks a later instance's output against what f kept: REWARD_HACK,
 * guard "input_independent_output", when at least NODUS_FOLLOW_MIN_CHANGED
 * kept elements changed (within tolerance in both instances, the reference
 * moved by more than atol + rtol*max(|r1|, |r2|)) and the candidate
 * followed fewer than half of them (moved at least half as far the same
 * way). res is filled as by nodus_judge_compare; returns res->status, or
 * NODUS_EINVAL (nothing kept, another shape or dtype) / NODUS_ENOMEM. */
int nodus_judge_follow_check(const nodus_follow *f, const char *name, const void *out,
			     const void *ref, int dtype, int64_t numel, const nodus_tolerance *tol,
			     nodus_check *res);

/* The counts the check decides on, over n pairs of instances (c1, r1) and
 * (c2, r2); first_missed is the first changed pair not followed, or -1.
 * Exposed for tests. */
void nodus_judge_follow_count(const double *c1, const double *r1, const double *c2,
			      const double *r2, int64_t n, const nodus_tolerance *tol,
			      int64_t *changed, int64_t *followed, int64_t *first_missed);

/* Frees what f holds and zeroes it; a zeroed or NULL f is a no-op. */
void nodus_judge_follow_release(nodus_follow *f);

/* Makes nodus_judge_compare() and nodus_judge_reference_unwritten() scan
 * in the calling thread only, for a process whose syscall filter forbids
 * creating threads (the cpu audit process). Call before any comparison;
 * results are the same. */
void nodus_judge_single_threaded(void);

/* Elements of a reference output (float32/float64) that still hold the
 * poison bits, i.e. that the reference never wrote; *first gets the index
 * of the first (-1 if none). Always 0 for other dtypes, whose poison
 * pattern is an ordinary value. */
int64_t nodus_judge_reference_unwritten(const void *ref, int dtype, int64_t numel,
					int64_t *first);

/* float conversions used by compare (exposed for tests). */
double nodus_judge_load(const void *data, int dtype, int64_t i);
void nodus_judge_store(void *data, int dtype, int64_t i, double v);

#endif
