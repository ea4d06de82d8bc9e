/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * follow.c: the input_independent_output guard - does a candidate's
 * output follow its inputs from one instance to another?
 *
 * nodus_judge_compare() judges one output against the oracle's output of
 * the same inputs. Its constant_output guard needs every element to be
 * bit-equal, so an output that ignores its inputs and adds a tiny dither
 * (by element index, by a call counter, by a hash of a few inputs) passes
 * wherever the tolerance is wider than the spread of the reference's
 * values. Across instances such an output gives itself away: where the
 * reference moves by more than the tolerance between two instances, it
 * does not move.
 *
 * So the orchestrator keeps, from the first instance of a workload whose
 * output passes the comparison, the candidate's and the reference's values
 * at up to NODUS_FOLLOW_SAMPLES elements (all of them for a small output,
 * else indices drawn from a seed the candidate never sees), and checks
 * every later instance of the same shape at those elements:
 *
 *   changed   elements where both instances are finite and within
 *             tolerance and the reference moved by more than the
 *             tolerance: |dr| > atol + rtol * max(|r1|, |r2|)
 *   followed  those where the candidate moved at least half as far in the
 *             same direction: dc * dr >= dr^2 / 2
 *
 * and fails when at least NODUS_FOLLOW_MIN_CHANGED elements changed and
 * fewer than half of them were followed. An honest candidate misses an
 * element only if its two errors differ by more than |dr| / 2 against the
 * reference's move, i.e. by more than half the tolerance: even errors
 * spread uniformly over the whole tolerance band miss about 28% of such
 * elements, not half. An output that ignores its inputs follows none,
 * whatever its dither, unless the dither is itself within tolerance of
 * the reference's move, which needs the inputs.
 *
 * Where the reference never moves by more than the tolerance between two
 * instances (every value within atol of every other), no output inside
 * the band can be told from a right one, and this guard does not fire:
 * the tolerance is then the task's to tighten (the audit's
 * loose_tolerance and output_below_atol checks say so).
 * ------------------------------------------------------------------------ */
#include "judge/judge.h"
#include "judge/judge-internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nodus_judge_follow_release(nodus_follow *f)
{
	if (!f)
		return;
	free(f->index);
	memset(f, 0, sizeof(*f));
}

int nodus_judge_follow_keep(nodus_follow *f, const void *out, const void *ref, int dtype,
			    int64_t numel, uint64_t seed, int instance)
{
	if (!f || numel <= 0 || !out || !ref || nodus__judge_dtype_size(dtype) == 0)
		return NODUS_EINVAL;
	nodus_judge_follow_release(f);
	int n = numel < NODUS_FOLLOW_SAMPLES ? (int)numel : NODUS_FOLLOW_SAMPLES;
	/* one block: indices, then the candidate's values, then the reference's */
	char *block = malloc((size_t)n * (sizeof(int64_t) + 2 * sizeof(double)));
	if (!block)
		return NODUS_ENOMEM;
	f->index = (int64_t *)block;
	f->cand = (double *)(block + (size_t)n * sizeof(int64_t));
	f->ref = f->cand + n;
	for (int k = 0; k < n; k++) {
		int64_t i = numel <= NODUS_FOLLOW_SAMPLES
				    ? k
				    : (int64_t)(nodus_judge_trial_seed(seed, 0xf0110e, (uint64_t)k) %
						(uint64_t)numel);
		f->index[k] = i;
		f->cand[k] = nodus_judge_load(out, dtype, i);
		f->ref[k] = nodus_judge_load(ref, dtype, i);
	}
	f->n = n;
	f->numel = numel;
	f->dtype = dtype;
	f->instance = instance;
	return 0;
}

static int within(double out, double ref, const nodus_tolerance *tol)
{
	return isfinite(out) && isfinite(ref) && fabs(out - ref) <= tol->atol + tol->rtol * fabs(ref);
}

void nodus_judge_follow_count(const double *c1, const double *r1, const double *c2,
			      const double *r2, int64_t n, const nodus_tolerance *tol,
			      int64_t *changed, int64_t *followed, int64_t *first_missed)
{
	*changed = *followed = 0;
	*first_missed = -1;
	for (int64_t k = 0; k < n; k++) {
		if (!within(c1[k], r1[k], tol) || !within(c2[k], r2[k], tol))
			continue;
		double dr = r2[k] - r1[k], dc = c2[k] - c1[k];
		double bound = tol->atol + tol->rtol * fmax(fabs(r1[k]), fabs(r2[k]));
		if (!(fabs(dr) > bound))
			continue;
		(*changed)++;
		if (dc * dr >= 0.5 * dr * dr)
			(*followed)++;
		else if (*first_missed < 0)
			*first_missed = k;
	}
}

int nodus_judge_follow_check(const nodus_follow *f, const char *name, const void *out,
			     const void *ref, int dtype, int64_t numel, const nodus_tolerance *tol,
			     nodus_check *res)
{
	if (!res)
		return NODUS_EINVAL;
	memset(res, 0, sizeof(*res));
	res->first_bad = -1;
	res->matched_ratio = 1.0;
	name = name ? name : "out";
	if (!f || !f->n || f->numel != numel || f->dtype != dtype || !out || !ref || !tol) {
		res->status = NODUS_EINVAL;
		snprintf(res->guard, sizeof(res->guard), "invalid_arguments");
		snprintf(res->detail, sizeof(res->detail),
			 "%s: no kept instance of this shape to compare with", name);
		return NODUS_EINVAL;
	}
	double *now = malloc((size_t)f->n * 2 * sizeof(double));
	if (!now) {
		res->status = NODUS_ENOMEM;
		snprintf(res->guard, sizeof(res->guard), "invalid_arguments");
		snprintf(res->detail, sizeof(res->detail), "%s: out of memory", name);
		return NODUS_ENOMEM;
	}
	double *c2 = now, *r2 = now + f->n;
	for (int k = 0; k < f->n; k++) {
		c2[k] = nodus_judge_load(out, dtype, f->index[k]);
		r2[k] = nodus_judge_load(ref, dtype, f->index[k]);
	}
	int64_t changed, followed, missed;
	nodus_judge_follow_count(f->cand, f->ref, c2, r2, f->n, tol, &changed, &followed, &missed);
	res->status = NODUS_STATUS_OK;
	if (changed >= NODUS_FOLLOW_MIN_CHANGED && 2 * followed < changed) {
		int64_t i = f->index[missed];
		res->status = NODUS_STATUS_REWARD_HACK;
		snprintf(res->guard, sizeof(res->guard), "input_independent_output");
		res->first_bad = i;
		int len = snprintf(
			res->detail, sizeof(res->detail),
			"%s does not follow its inputs: at %" PRId64 " of %d sampled elements the "
			"reference moved by more than the tolerance since instance %d, and the output "
			"moved with it at %" PRId64 " (%s[%" PRId64 "]: reference %.6g -> %.6g, "
			"output %.6g -> %.6g)",
			name, changed, f->n, f->instance, followed, name, i, f->ref[missed],
			r2[missed], f->cand[missed], c2[missed]);
		if (len >= (int)sizeof(res->detail))
			memcpy(res->detail + sizeof(res->detail) - 4, "...", 4);
	}
	free(now);
	return res->status;
}
