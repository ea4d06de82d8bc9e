/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * off_turn.h: the CPU a timing worker uses while the other side is timed
 * (off_turn.c).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_RUN_OFF_TURN_H
#define NODUS_RUN_OFF_TURN_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* A worker that runs while the other side's batch is timed takes the CPU
 * from it (both sides are pinned to one core) or works ahead for its own
 * next call: honest workers are blocked reading their next command then.
 * Above both bounds the candidate is a REWARD_HACK (guard off_turn_cpu). */
#define NODUS_OFF_TURN_MAX_SHARE 0.10 /* of the other side's timed windows */
#define NODUS_OFF_TURN_MIN_NS 2000000 /* and 2 ms in all, so a wake-up never counts */

struct nodus_off_turn {
	clockid_t clock[2];    /* each side's process CPU clock, by role */
	int have[2];           /* the clock could be had */
	int64_t at[2];         /* its reading when the other side's window opened */
	int64_t used_ns[2];    /* CPU it used inside the other side's windows */
	int64_t window_ns[2];  /* the other side's windows, summed */
	int windows[2];
};

/* Gets the CPU clocks of the two timing processes (by role: index 0 the
 * reference's timer, 1 the candidate's measure worker). */
void nodus_off_turn_init(struct nodus_off_turn *o, pid_t reference, pid_t candidate);

/* The timed window of role's batch opened (its START mark arrived) or
 * closed (its BATCH mark, window_ns after START by our clock): the other
 * side's CPU is read at both. */
void nodus_off_turn_open(struct nodus_off_turn *o, int role);
void nodus_off_turn_close(struct nodus_off_turn *o, int role, int64_t window_ns);

/* The share of the other side's windows in which side `role` used the CPU
 * (0 without windows or clock). */
double nodus_off_turn_share(const struct nodus_off_turn *o, int role);

/* Whether side `role` used more than both bounds. */
int nodus_off_turn_exceeded(const struct nodus_off_turn *o, int role);

#endif
