/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * timed_checks.h: the orchestrator's side of timing that a candidate must
 * not be able to see coming or bend (docs/protocol.md, "Checked calls are
 * timed calls").
 *
 * - Which timed calls are checked. Before the job, each check gets a
 *   sample, a copy and a perturbation drawn from a secret of this process
 *   (getrandom), so neither the plan, the job nor the worker's memory
 *   holds them: the oracle computes the reference outputs of those
 *   (copy, perturbation) instances; the measure worker learns that a call
 *   was checked only after its batch has run.
 * - What each sample uses: the window of copies (its calls' inputs and
 *   outputs) and the perturbation, told to the worker one sample ahead. A
 *   checked sample's window holds the checked copy at a uniform position
 *   of the batch, and its perturbation is as random as any other's, so
 *   checked and unchecked samples are drawn from one distribution.
 * - Which samples are fresh. A share of the samples (drawn from the same
 *   secret) give every copy of their window inputs drawn anew
 *   (nodus__fresh_seed) instead of a perturbation of 4 elements. An honest
 *   call costs the same on either kind. A candidate that keeps what it saw
 *   at an address and recomputes only what changed is fast only where
 *   little changed: its paired log-ratios are larger on fresh samples than
 *   on the others (nodus_timed_memo_view), which is REWARD_HACK (guard
 *   input_memo). A check may fall on either kind, and one more always
 *   falls on a fresh one (a candidate may skip its work where it can tell
 *   one); which of its calls is checked is as uniform as anywhere.
 * - The orchestrator's own clock around every timed batch (START..BATCH
 *   frames), against the time the worker reports for it: a candidate that
 *   slows the worker's clock, or speeds it up for the reference, shows as
 *   a gap between the two on its side only.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_TIMED_CHECKS_H
#define NODUS_TIMED_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "measure/stats.h"

#define NODUS_TIMED_CHECKS_MAX 16

typedef struct nodus_timed_check {
	int64_t sample;        /* the sample whose candidate batch is checked */
	int32_t copy;          /* the copy whose call is checked */
	int32_t instance;      /* its instance (the oracle's reference output) */
	uint64_t perturbation; /* that sample's perturbation */
	int fresh;             /* that sample is fresh: the instance is a fresh draw */
	int sent;              /* the worker was asked for it */
} nodus_timed_check;

typedef struct nodus_timed_plan {
	int copies;            /* timing copies of the worker */
	int batch;             /* calls per batch, 0 until SIZED */
	nodus_timed_check check[NODUS_TIMED_CHECKS_MAX];
	int n_checks;
	nodus_rng rng;         /* secret: windows and perturbations */
	unsigned char *fresh;  /* per sample k < n_samples: 1 fresh */
	int64_t n_samples;
	int32_t warm_next[2];  /* per role: the next warm-up batch's window */
	unsigned char *warmed; /* per copy: a candidate warm-up batch used it */
	int64_t next_k;        /* the sample next_window/next_q are for, -1 none */
	int32_t next_window;
	uint64_t next_q;
	/* the clock cross-check */
	int started;           /* a START frame is open */
	int64_t start_sample;
	int32_t start_role;
	uint64_t start_ns;
	double *gap_ns[2];     /* per role: orchestrator's wall - reported host time */
	double *host_ns[2];    /* per role: reported host time of the batch */
	int n_batches[2], cap_batches[2];
} nodus_timed_plan;

/* Draws the fresh samples (NODUS_FRESH_MIN or a sixth of the guaranteed
 * samples, whichever is more, at most half of them; one in eight of the
 * later ones) and n_checks checks (at most NODUS_TIMED_CHECKS_MAX): the
 * first half among the samples every attempt takes (guaranteed), the
 * others among all it may take (max_samples), and, where there are any,
 * one more on a fresh one of the guaranteed samples (with every check
 * taken, the first becomes it); each on a uniform copy. Instances
 * are set by the caller. 0, or -1 when the system gives no randomness or
 * there is no memory. */
#define NODUS_FRESH_MIN 8
int nodus_timed_plan_init(nodus_timed_plan *p, int copies, int n_checks, int64_t guaranteed,
			  int64_t max_samples);
void nodus_timed_plan_release(nodus_timed_plan *p);

/* The worker's SIZED frame: 0, or -1 for a batch it may not use. */
int nodus_timed_plan_sized(nodus_timed_plan *p, int batch, int copies);

/* Window and perturbation of sample k (the same on every call for one k). */
void nodus_timed_plan_sample(nodus_timed_plan *p, int64_t k, int32_t *window, uint64_t *q);

/* The window of role's next warm-up batch of `calls` calls (0: the whole
 * batch), which walks over every copy in turn; the candidate's are
 * marked in warmed. */
int32_t nodus_timed_plan_warm_window(nodus_timed_plan *p, int role, int calls);

/* 1 when sample k is fresh. */
int nodus_timed_plan_fresh(const nodus_timed_plan *p, int64_t k);

/* The check of sample k's candidate batch not yet asked for, or NULL. */
nodus_timed_check *nodus_timed_plan_check_at(nodus_timed_plan *p, int64_t k);

/* START and BATCH frames, with the orchestrator's clock at their arrival.
 * batch returns -1 for a BATCH that no START of the same batch opened. */
void nodus_timed_plan_start(nodus_timed_plan *p, int64_t k, int role, uint64_t now_ns);
int nodus_timed_plan_batch(nodus_timed_plan *p, int64_t k, int role, int64_t host_ns,
			   uint64_t now_ns);

/* What the clock cross-check saw, per role (NODUS_ROLE_*): batches,
 * medians of the gap (the orchestrator's view less the reported host time)
 * and of the host time, the gaps' interquartile range, the rank test's z
 * for "the candidate's gaps are larger", and the allowance the
 * candidate's median gap must exceed the reference's by. 0, or -1 with
 * too few batches to say. */
typedef struct nodus_clock_view {
	int n[2];
	double gap_med[2], host_med[2], gap_iqr[2];
	double z, allow;
} nodus_clock_view;
int nodus_timed_plan_clock_view(const nodus_timed_plan *p, nodus_clock_view *v);

/* 1 when the reported times disagree with the orchestrator's clock beyond
 * what honest runs show (msg says how), else 0. */
int nodus_timed_plan_clock_bent(const nodus_timed_plan *p, char *msg, size_t msg_size);

/* The memoization test: the paired log-ratios log(candidate / reference)
 * of fresh samples against those of the others. gap is the difference of
 * their medians, z the rank test's for "fresh ones are larger", t the gap
 * over its standard error from the pooled median absolute deviation. 0,
 * or -1 with fewer than NODUS_MEMO_MIN of either kind. draw_gap is the
 * caller's: the gap the fresh draw itself may cost an honest candidate
 * (sample_guards.c); 0 (as the view leaves it) asks for MEMO_GAP alone. */
#define NODUS_MEMO_MIN 6
typedef struct nodus_memo_view {
	int n_fresh, n_other;
	double gap, z, t;
	double draw_gap;
	int confirming; /* the caller's: an earlier attempt's alarm, confirmed at a lower bar */
} nodus_memo_view;
int nodus_timed_memo_view(const double *fresh_r, int n_fresh, const double *other_r, int n_other,
			  nodus_memo_view *v);
/* 1 when the candidate was slower on fresh samples beyond doubt and by
 * more than honest noise and the draw's own cost (msg says how), else 0. */
int nodus_timed_memo_found(const nodus_memo_view *v, char *msg, size_t msg_size);

#endif
