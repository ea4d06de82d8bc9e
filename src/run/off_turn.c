/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * off_turn.c: the CPU each timing worker uses while the other side is
 * timed (docs/protocol.md, "Off-turn CPU").
 *
 * The orchestrator alternates the two timing processes on one core, and
 * only one runs at a time: the other waits for its next command. A
 * candidate that runs anyway, from a timer's signal on the cpu or a
 * thread of its own on cuda, takes the core from the reference while the
 * reference is timed (a SIGALRM handler spinning whenever the worker sat
 * in its read made the reference's samples two to five times longer:
 * FASTER 1.2-2.4 on the 2-core machine), or computes its next outputs
 * ahead, out of its own timed window. Both show as CPU time of the idle
 * process, which its process CPU clock (clock_getcpuclockid) counts to the
 * nanosecond at the cost of one system call per reading. It is read when
 * a batch's START mark arrives and again at its BATCH mark: by then the
 * idle side has long finished what follows its own last batch.
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "run/off_turn.h"

static int64_t cpu_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void nodus_off_turn_init(struct nodus_off_turn *o, pid_t reference, pid_t candidate)
{
	memset(o, 0, sizeof(*o));
	pid_t pid[2] = {reference, candidate};
	for (int r = 0; r < 2; r++)
		o->have[r] = pid[r] > 0 && clock_getcpuclockid(pid[r], &o->clock[r]) == 0 &&
			     cpu_ns(o->clock[r]) >= 0;
}

void nodus_off_turn_open(struct nodus_off_turn *o, int role)
{
	int other = 1 - role;
	o->at[other] = o->have[other] ? cpu_ns(o->clock[other]) : -1;
}

void nodus_off_turn_close(struct nodus_off_turn *o, int role, int64_t window_ns)
{
	int other = 1 - role;
	if (!o->have[other] || o->at[other] < 0)
		return;
	int64_t now = cpu_ns(o->clock[other]);
	if (now < o->at[other])
		return; /* the process has gone: its clock reads no more */
	o->used_ns[other] += now - o->at[other];
	o->window_ns[other] += window_ns > 0 ? window_ns : 0;
	o->windows[other]++;
	o->at[other] = -1;
}

double nodus_off_turn_share(const struct nodus_off_turn *o, int role)
{
	return o->window_ns[role] > 0 ? (double)o->used_ns[role] / (double)o->window_ns[role] : 0;
}

int nodus_off_turn_exceeded(const struct nodus_off_turn *o, int role)
{
	return o->used_ns[role] > NODUS_OFF_TURN_MIN_NS &&
	       nodus_off_turn_share(o, role) > NODUS_OFF_TURN_MAX_SHARE;
}
