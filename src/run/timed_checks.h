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
	int sent;              /* the worker was asked for it */
} nodus_timed_check;

typedef struct nodus_timed_plan {
	int copies;            /* timing copies of the worker */
	int batch;             /* calls per batch, 0 until SIZED */
	nodus_timed_check check[NODUS_TIMED_CHECKS_MAX];
	int n_checks;
	nodus_rng rng;         /* secret: windows and perturbations */
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

/* Draws n_checks checks (at most NODUS_TIMED_CHECKS_MAX): the first among
 * the samples every attempt takes (guaranteed), the others among all it
 * may take (max_samples), each on a uniform copy. Instances are set by the
 * caller. 0, or -1 when the system gives no randomness. */
int nodus_timed_plan_init(nodus_timed_plan *p, int copies, int n_checks, int64_t guaranteed,
			  int64_t max_samples);
void nodus_timed_plan_release(nodus_timed_plan *p);

/* The worker's SIZED frame: 0, or -1 for a batch it may not use. */
int nodus_timed_plan_sized(nodus_timed_plan *p, int batch, int copies);

/* Window and perturbation of sample k (the same on every call for one k). */
void nodus_timed_plan_sample(nodus_timed_plan *p, int64_t k, int32_t *window, uint64_t *q);

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

#endif
