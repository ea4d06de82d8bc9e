/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * run.c: the orchestrator (see run.h).
 *
 * One attempt at one (pair, condition), in order:
 *   1. isolation check before (isolated condition only);
 *   2. build both solutions (content-addressed cache);
 *   3. choose the instances: correctness trials with their variants, the
 *      probe shape, the determinism repeat, rechecks of timed samples and a
 *      final fresh trial - all seeds drawn here, none predictable by a
 *      solution;
 *   4. oracle worker: reference outputs for every instance; the measure
 *      worker gets its job at the same time and runs its trials meanwhile;
 *   5. measure worker: candidate outputs are compared as the oracle's
 *      arrive; once the trials pass and the oracle has exited, timing
 *      starts and every round is judged here (sequential looks) until the
 *      label is decided or rounds run out;
 *   6. isolation check after; the record, with its samples, in one
 *      transaction.
 * Worker deaths are classified from how they died: SIGSYS (the sandbox) is
 * REWARD_HACK, our watchdog's SIGKILL is TIMEOUT, other signals and early
 * exits are CRASH (OUT_OF_MEMORY when the worker's peak memory reached its
 * limit).
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "run/retry.h"
#include "run/run-internal.h"

static int timer_start(struct run_ctx *x, struct attempt *a, struct worker_proc *wt,
		       nodus_error *err);

void set_status(struct attempt *a, int status, const char *guard, const char *fmt, ...)
{
	if (a->status != NODUS_STATUS_OK)
		return; /* the first failure decides */
	a->status = status;
	snprintf(a->guard, sizeof(a->guard), "%s", guard ? guard : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->message, sizeof(a->message), fmt, ap);
	va_end(ap);
}

/* Per round on cuda: clocks, clocks-event reasons, temperature, power and
 * the processes NVML sees (what a sharing condition really looked like). */
static void nvml_round_snapshot(struct run_ctx *x, struct attempt *a)
{
	if (!x->nvml)
		return;
	nodus_nvml_snapshot snap;
	int compute = -1, mps = -1;
	nodus_error err;
	if (nodus_nvml_snapshot_read(x->nvml, &snap, &err))
		return;
	nodus_nvml_process_counts(x->nvml, &compute, &mps, &err);
	json_t *arr = json_object_get(a->detail, "nvml_rounds");
	if (!arr) {
		arr = json_array();
		json_object_set_new(a->detail, "nvml_rounds", arr);
	}
	json_array_append_new(arr, json_pack("{s:i,s:i,s:i,s:I,s:i,s:i,s:i,s:i}", "round",
					     a->rounds - 1, "sm_mhz", snap.sm_clock_mhz, "mem_mhz",
					     snap.mem_clock_mhz, "reasons",
					     (json_int_t)snap.clocks_event_reasons, "temp_c",
					     snap.temperature_c, "power_mw", snap.power_mw,
					     "compute_procs", compute, "mps_procs", mps));
}

static void phase_since(struct attempt *a, const char *name, uint64_t t0)
{
	json_object_set_new(a->phases, name, json_real((double)(nodus_now_ns() - t0) * 1e-9));
}

/* After the last timed round, while both timing workers wait for our
 * answer (returns how long it took, which the worker's watchdog gets
 * back): the isolation check after timing (the spares are all WARM and
 * none has started since the gate, so the count of our own processes is
 * exact without waiting for the worker to exit). Its status is applied at
 * the end of the attempt, so that a failure of the final trial still names
 * the real fault. */
static uint64_t timing_over(struct run_ctx *x, struct attempt *a)
{
	uint64_t t0 = nodus_now_ns();
	if (x->spares_during_timing)
		spares_wait_warm(x); /* for an exact count */
	isolation_check(x, "isolation_after", 2, a->detail, &a->isolation_after_ok);
	a->isolation_after_checked = 1;
	phase_since(a, "isolation_after_s", t0);
	return nodus_now_ns() - t0;
}

struct drive {
	struct run_ctx *x;
	struct attempt *a;
	struct worker_proc *side[2]; /* NODUS_ROLE_REFERENCE: the timer; _CANDIDATE: measure */
	nodus_buf payload;
	uint64_t at;                 /* our clock when the last frame arrived */
	int timer_ended;             /* the timer has been ended (worker_end) */
};

static const char *side_name(int role)
{
	return role == NODUS_ROLE_CANDIDATE ? "measure" : "timer";
}

/* Ends the timer after its DONE or FAIL (got_done), or after it died or
 * broke the protocol: worker_end classifies a death as the reference's. */
static void drive_end_timer(struct drive *d, int timed_out, int got_done)
{
	if (d->timer_ended)
		return;
	d->timer_ended = 1;
	worker_end(d->x, d->side[NODUS_ROLE_REFERENCE], d->a, timed_out, got_done, "timer");
}

/* Stops a timer that did nothing wrong (the candidate failed, the pair
 * was decided without it): told to stop, it exits on its own. */
static void drive_stop_timer(struct drive *d)
{
	if (d->timer_ended)
		return;
	send_cmd(d->side[NODUS_ROLE_REFERENCE], 's');
	drive_end_timer(d, 0, 1);
}

/* Reads role's frames until one of type want, which is left in
 * d->payload. A check's outputs are judged on the way (the candidate
 * only). Returns DRIVE_OK, or how it ended: for the timer, its death or
 * failure is the reference's (INVALID_REFERENCE) and ends it here. */
/* How a side's conversation ended (end != DRIVE_OK): for the timer, its
 * death or failure is the reference's, and it is ended here. */
static int drive_fault(struct drive *d, int role, int end)
{
	if (role != NODUS_ROLE_REFERENCE)
		return end;
	if (end == DRIVE_FAILED)
		drive_end_timer(d, 0, 1);
	else if (end == DRIVE_STOPPED)
		drive_end_timer(d, 1, 0); /* a status is set: just kill it */
	else
		drive_end_timer(d, end == DRIVE_TIMEOUT, 0);
	return DRIVE_STOPPED;
}

/* Handles one frame of role's result pipe: *matched says it was of type
 * want (left in d->payload; a check's output is judged here). WARM and the
 * timer's READY are taken in passing; FAIL and anything else end. */
static int drive_pipe_frame(struct drive *d, int role, uint32_t want, int *matched)
{
	struct attempt *a = d->a;
	struct worker_proc *w = d->side[role];
	uint32_t type = 0;
	*matched = 0;
	int rc = nodus_ipc_read(w->child.result_fd, &type, &d->payload, w->deadline_ns);
	int end = rc == NODUS_ETIMEOUT ? DRIVE_TIMEOUT : rc ? DRIVE_DEAD : DRIVE_OK;
	if (end)
		return drive_fault(d, role, end);
	if (want && type == want) {
		if (role == NODUS_ROLE_CANDIDATE && is_trial_frame(type))
			on_trial_frame(a, type, &d->payload, 0, w); /* judged now */
		*matched = 1;
		return DRIVE_OK;
	}
	if (type == NODUS_MSG_WARM) {
		if (!w->startup[0]) /* its own, the first frame; a later one is ignored */
			keep_startup(w, &d->payload);
		return DRIVE_OK;
	}
	if (type == NODUS_MSG_READY && role == NODUS_ROLE_REFERENCE) {
		on_ready(d->x, a, &d->payload);
		return DRIVE_OK;
	}
	if (type == NODUS_MSG_FAIL) {
		apply_fail_frame(a, &d->payload, role == NODUS_ROLE_REFERENCE);
		return drive_fault(d, role, DRIVE_FAILED);
	}
	set_status(a, NODUS_STATUS_CRASH, "protocol",
		   "%s worker sent frame %u during timing, where %u was due", side_name(role), type,
		   want);
	return drive_fault(d, role, DRIVE_STOPPED);
}

/* Reads role's result pipe until a frame of type want, left in
 * d->payload. Returns DRIVE_OK, or how it ended. */
static int drive_await(struct drive *d, int role, uint32_t want)
{
	int matched = 0, end;
	while (!(end = drive_pipe_frame(d, role, want, &matched)) && !matched)
		;
	return end;
}

/* Reads role's next mark of type want from its clock socket into *out,
 * with the kernel's time of its sending in d->at (CLOCK_REALTIME ns: only
 * differences are used). Its result pipe is watched meanwhile: a failure
 * or a death ends the wait. */
static int drive_await_mark(struct drive *d, int role, uint32_t want, nodus_msg_batch *out)
{
	struct attempt *a = d->a;
	struct worker_proc *w = d->side[role];
	for (;;) {
		uint64_t now = nodus_now_ns();
		if (now >= w->deadline_ns)
			return drive_fault(d, role, DRIVE_TIMEOUT);
		uint64_t left_ms = (w->deadline_ns - now) / 1000000 + 1;
		struct pollfd p[2] = {{w->child.clock_fd, POLLIN, 0},
				      {w->child.result_fd, POLLIN, 0}};
		int n = poll(p, 2, left_ms > 1000 ? 1000 : (int)left_ms);
		if (n < 0 && errno != EINTR)
			return drive_fault(d, role, DRIVE_DEAD);
		if (n <= 0)
			continue;
		if (p[1].revents) { /* only a failure or a fault can come this way now */
			int matched, end = drive_pipe_frame(d, role, 0, &matched);
			if (end)
				return end;
			continue;
		}
		nodus_clock_mark m;
		char ctl[CMSG_SPACE(sizeof(struct timespec)) + 64];
		struct iovec iov = {&m, sizeof(m)};
		struct msghdr msg;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		ssize_t got = recvmsg(w->child.clock_fd, &msg, MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return drive_fault(d, role, DRIVE_DEAD);
		int stamped = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				d->at = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
				stamped = 1;
			}
		}
		if (got != (ssize_t)sizeof(m) || (msg.msg_flags & MSG_TRUNC) ||
		    m.magic != NODUS_CLOCK_MAGIC || m.type != want || !stamped) {
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "%s worker sent a malformed or unexpected mark on its clock socket "
				   "(%zd bytes, type %u where %u was due)",
				   side_name(role), got, m.type, want);
			return drive_fault(d, role, DRIVE_STOPPED);
		}
		*out = m.batch;
		return DRIVE_OK;
	}
}

static nodus_msg_cmd drive_cmd(char op)
{
	nodus_msg_cmd c;
	memset(&c, 0, sizeof(c));
	c.op = op;
	c.instance = c.copy = c.window = -1;
	return c;
}

/* The CPU both timing workers run on: the last one this process may use.
 * On one core the two sides launch, flush and read their clocks with the
 * same core's caches and clock, as they did when both ran in one process;
 * on the H200, with the scheduler free to place them, the sub-10 us A/A
 * pair's interval doubled (bench/results/h200/ab-41). -1: any. */
static int timing_cpu(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

/* Sizing: each side's time for one call (its second), then one batch for
 * both, so that a sample of the faster lasts min_sample_ns. */
static int drive_size(struct drive *d)
{
	struct attempt *a = d->a;
	int64_t call_ns[2];
	int cpu = timing_cpu();
	json_object_set_new(a->timing, "cpu", json_integer(cpu));
	for (int role = 0; role < 2; role++) {
		nodus_msg_cmd c = drive_cmd('c');
		c.batch = cpu; /* 'c': the CPU to run on */
		send_timing_cmd(d->side[role], &c);
		int end = drive_await(d, role, NODUS_MSG_SIZED);
		if (end)
			return end;
		nodus_msg_sized sz;
		if (d->payload.len != sizeof(sz)) {
			set_status(a, NODUS_STATUS_CRASH, "protocol", "malformed SIZED frame");
			return DRIVE_STOPPED;
		}
		memcpy(&sz, d->payload.data, sizeof(sz));
		if (sz.copies != a->timing_copies) {
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "the %s worker has %d timing copies (its job: %d)",
				   side_name(role), sz.copies, a->timing_copies);
			return DRIVE_STOPPED;
		}
		call_ns[role] = sz.call_ns > 0 ? sz.call_ns : 1;
	}
	int64_t fastest = call_ns[0] < call_ns[1] ? call_ns[0] : call_ns[1];
	int64_t b = (d->x->c->judge.min_sample_ns + fastest - 1) / fastest;
	int64_t most = a->timing_copies < NODUS_MAX_BATCH ? a->timing_copies : NODUS_MAX_BATCH;
	int batch = (int)(b < 1 ? 1 : b > most ? most : b);
	if (nodus_timed_plan_sized(&a->timed, batch, a->timing_copies)) {
		set_status(a, NODUS_STATUS_CRASH, "harness", "a batch of %d calls on %d copies", batch,
			   a->timing_copies);
		return DRIVE_STOPPED;
	}
	json_object_set_new(a->detail, "timing_copies", json_integer(a->timing_copies));
	json_object_set_new(a->timing, "sized_call_ns",
			    json_pack("{s:I,s:I}", "reference", (json_int_t)call_ns[0], "candidate",
				      (json_int_t)call_ns[1]));
	/* the timer makes its copies now, the measure worker once the timer's
	 * are made (drive_warm_up): two contexts filling memory at once on one
	 * GPU took 16 times as long (0.2 s for 128 copies of a 4k vector) */
	nodus_msg_cmd c = drive_cmd('z');
	c.batch = batch;
	send_timing_cmd(d->side[NODUS_ROLE_REFERENCE], &c);
	return DRIVE_OK;
}

/* One batch of a side (a warm-up batch when k < 0); *t gets the times. */
static int drive_batch(struct drive *d, int role, int64_t k, nodus_msg_batch *t)
{
	struct attempt *a = d->a;
	nodus_msg_cmd c = drive_cmd(k < 0 ? 'w' : 'b');
	if (k >= 0) {
		c.sample = k;
		nodus_timed_plan_sample(&a->timed, k, &c.window, &c.perturbation);
	}
	send_timing_cmd(d->side[role], &c);
	int end;
	if (k >= 0) {
		if ((end = drive_await_mark(d, role, NODUS_MSG_START, t)))
			return end;
		if (t->sample != k || t->role != role) {
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "the %s worker started batch %lld as sample %lld",
				   side_name(role), (long long)k, (long long)t->sample);
			return drive_fault(d, role, DRIVE_STOPPED);
		}
		nodus_timed_plan_start(&a->timed, k, role, d->at);
	}
	if ((end = drive_await_mark(d, role, NODUS_MSG_BATCH, t)))
		return end;
	if (t->sample != k || t->role != role ||
	    (k >= 0 && nodus_timed_plan_batch(&a->timed, k, role, t->wall_ns, d->at))) {
		set_status(a, NODUS_STATUS_CRASH, "protocol",
			   "the %s worker answered batch %lld with one of sample %lld",
			   side_name(role), (long long)k, (long long)t->sample);
		return drive_fault(d, role, DRIVE_STOPPED);
	}
	if (t->status) {
		set_status(a, role ? NODUS_STATUS_RUNTIME_ERROR : NODUS_STATUS_INVALID_REFERENCE,
			   "", "timing: the %s returned %d while timed",
			   role ? "candidate" : "reference", t->status);
		return drive_fault(d, role, DRIVE_STOPPED);
	}
	return DRIVE_OK;
}

/* Warm-up: batches of both sides in turn, at least warmup_calls each and
 * warmup_ms in all, and on a GPU until the SM clock has settled (it idles
 * at a fraction of its boost clock): two samples within 1%, for at most
 * 5 s. */
static int drive_warm_up(struct drive *d)
{
	const nodus_judge *j = &d->x->c->judge;
	uint64_t start = nodus_now_ns();
	int done = 0, last_mhz = 0, stable = 0;
	nodus_msg_batch t;
	memset(&t, 0, sizeof(t));
	while (done < j->warmup_calls || (double)(nodus_now_ns() - start) * 1e-6 < j->warmup_ms ||
	       (!stable && (double)(nodus_now_ns() - start) * 1e-9 < 5.0)) {
		int end = drive_batch(d, NODUS_ROLE_REFERENCE, -1, &t);
		if (!end && done == 0) { /* the timer's copies are made: the measure worker's now */
			nodus_msg_cmd c = drive_cmd('z');
			c.batch = d->a->timed.batch;
			send_timing_cmd(d->side[NODUS_ROLE_CANDIDATE], &c);
		}
		if (!end)
			end = drive_batch(d, NODUS_ROLE_CANDIDATE, -1, &t);
		if (end)
			return end;
		stable = t.sm_clock_mhz == 0 ||
			 (last_mhz > 0 && abs(t.sm_clock_mhz - last_mhz) * 100 < last_mhz);
		last_mhz = t.sm_clock_mhz;
		if (++done > 100000)
			break;
	}
	json_object_set_new(d->a->timing, "warmup_s",
			    json_real((double)(nodus_now_ns() - start) * 1e-9));
	json_object_set_new(d->a->timing, "warmup_sm_mhz", json_integer(last_mhz));
	return DRIVE_OK;
}

/* The check of a timed call: its outputs, asked for once its batch has
 * run, before anything else runs. */
static int drive_check(struct drive *d, nodus_timed_check *check)
{
	struct attempt *a = d->a;
	nodus_msg_cmd c = drive_cmd('k');
	c.instance = check->instance;
	c.copy = check->copy;
	check->sent = 1;
	send_timing_cmd(d->side[NODUS_ROLE_CANDIDATE], &c);
	for (int o = 0; o < a->task->n_outputs; o++) {
		int end = drive_await(d, NODUS_ROLE_CANDIDATE, NODUS_MSG_OUTPUT);
		if (end)
			return end;
		if (a->status != NODUS_STATUS_OK)
			return DRIVE_STOPPED; /* a failed check stops the timing at once */
	}
	return DRIVE_OK;
}

/* Rounds of samples_per_round samples, each the two sides' batches in an
 * order drawn here, until decide_after_round() stops. */
static int drive_rounds(struct drive *d)
{
	struct run_ctx *x = d->x;
	struct attempt *a = d->a;
	const nodus_judge *j = &x->c->judge;
	int spr = j->samples_per_round, most = max_rounds_any(j);
	for (int r = 0; r < most; r++) {
		for (int s = 0; s < spr; s++) {
			int64_t k = (int64_t)r * spr + s;
			int cand_first = (int)nodus_rng_below(&a->timed.rng, 2);
			for (int turn = 0; turn < 2; turn++) {
				int role = (turn == 0) == cand_first ? NODUS_ROLE_CANDIDATE
								     : NODUS_ROLE_REFERENCE;
				nodus_msg_batch t;
				int end = drive_batch(d, role, k, &t);
				if (end)
					return end;
				nodus_sample smp;
				memset(&smp, 0, sizeof(smp));
				smp.round = r;
				smp.seq = s * 2 + turn;
				smp.role = role;
				smp.copy = a->timed.next_window;
				smp.batch = a->timed.batch;
				smp.ns = t.event_ns / a->timed.batch;
				smp.host_ns = t.host_ns / a->timed.batch;
				smp.sm_clock_mhz = t.sm_clock_mhz;
				/* work the events did not see: honest samples on an
				 * H200 showed 6-8 us of launch and sync overhead */
				if (t.host_ns - t.event_ns > 50000 &&
				    (t.host_ns - t.event_ns) * 10 > t.host_ns)
					smp.flags |= NODUS_SAMPLE_HOST_GAP;
				if (push_sample(a, &smp)) {
					set_status(a, NODUS_STATUS_CRASH, "harness",
						   "out of memory for samples");
					return DRIVE_STOPPED;
				}
				nodus_timed_check *check = role == NODUS_ROLE_CANDIDATE
								   ? nodus_timed_plan_check_at(&a->timed, k)
								   : NULL;
				if (check && (end = drive_check(d, check)))
					return end;
			}
		}
		a->rounds = r + 1;
		uint64_t t_round = nodus_now_ns();
		nvml_round_snapshot(x, a);
		uint64_t t_nvml = nodus_now_ns();
		char cmd = decide_after_round(x, a);
		a->round_nvml_s += (double)(t_nvml - t_round) * 1e-9;
		a->round_decide_s += (double)(nodus_now_ns() - t_nvml) * 1e-9;
		if (cmd == 's')
			break;
	}
	return DRIVE_OK;
}

/* The whole timing of a pair whose gate is open. On DRIVE_OK both workers
 * have been told 'e', the timer has ended, and the measure worker's final
 * trial and DONE are still to come. */
static int drive_timing(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
			struct worker_proc *wt)
{
	struct drive d;
	memset(&d, 0, sizeof(d));
	d.x = x;
	d.a = a;
	d.side[NODUS_ROLE_REFERENCE] = wt;
	d.side[NODUS_ROLE_CANDIDATE] = wm;
	int end = DRIVE_STOPPED;
	if (!a->timed_plan_ok)
		set_status(a, NODUS_STATUS_CRASH, "harness",
			   "no randomness for the timed checks (getrandom failed)");
	else if (!(end = drive_size(&d)) && !(end = drive_warm_up(&d)))
		end = drive_rounds(&d);
	if (!end) {
		/* both wait while the isolation after timing is checked */
		uint64_t waited = timing_over(x, a);
		wm->deadline_ns += waited;
		wt->deadline_ns += waited;
		nodus_msg_cmd c = drive_cmd('e');
		send_timing_cmd(wt, &c);
		send_timing_cmd(wm, &c);
		if (!drive_await(&d, NODUS_ROLE_REFERENCE, NODUS_MSG_DONE)) {
			json_t *o = json_loadb(d.payload.data, d.payload.len, 0, NULL);
			json_t *phases = json_object_get(o, "phases");
			if (phases)
				json_object_set(a->phases, "timer", phases);
			json_t *startup = json_loads(wt->startup, 0, NULL);
			if (json_is_object(startup))
				json_object_set(a->startup, "timer", startup);
			json_decref(startup);
			json_decref(o);
			drive_end_timer(&d, 0, 1);
		}
	}
	if (end == DRIVE_OK && a->status != NODUS_STATUS_OK)
		end = DRIVE_STOPPED; /* the timer failed at the end */
	int sent = 0;
	for (int r = 0; r < a->timed.n_checks; r++)
		sent += a->timed.check[r].sent;
	json_object_set_new(a->timing, "timed_checks",
			    json_pack("{s:i,s:i}", "drawn", a->timed.n_checks, "made", sent));
	drive_stop_timer(&d);
	nodus_buf_release(&d.payload);
	return end;
}

/* Reads the timer's frames up to its READY (its WARM on the way). 0, or 1
 * when it failed or died first: the reference's fault, recorded. */
static int timer_ready(struct run_ctx *x, struct attempt *a)
{
	struct worker_proc *w = a->timer;
	nodus_buf payload = NODUS_BUF_INIT;
	int rc = 1;
	for (;;) {
		uint32_t type = 0;
		int r = nodus_ipc_read(w->child.result_fd, &type, &payload, w->deadline_ns);
		if (r) {
			worker_end(x, w, a, r == NODUS_ETIMEOUT, 0, "timer");
			break;
		}
		if (type == NODUS_MSG_WARM) {
			if (!w->startup[0])
				keep_startup(w, &payload);
			continue;
		}
		if (type == NODUS_MSG_READY) {
			on_ready(x, a, &payload);
			rc = 0;
			break;
		}
		if (type == NODUS_MSG_FAIL) {
			apply_fail_frame(a, &payload, 1);
			worker_end(x, w, a, 0, 1, "timer");
		} else {
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "timer worker sent frame %u before READY", type);
			worker_end(x, w, a, 1, 0, "timer");
		}
		break;
	}
	nodus_buf_release(&payload);
	return rc;
}

/* Reads frames until DONE, FAIL, death or timeout. For the oracle, side is
 * the measure worker, whose frames wait in q meanwhile; for the measure
 * worker, q's frames come first. The measure worker's conversation answers
 * the correctness gate and every round. */
static void converse(struct run_ctx *x, struct attempt *a, struct worker_proc *w, int measure,
		     struct worker_proc *side, struct early_queue *q)
{
	nodus_buf payload = NODUS_BUF_INIT;
	int expected_trial_frames = 0;
	if (measure)
		expected_trial_frames = (a->n_trials + (a->det_id >= 0)) * a->task->n_outputs +
					a->n_trials; /* outputs + checksums */
	int gate_open = 0, got_done = 0, timed_out = 0;
	const char *who = measure ? "measure" : "oracle";
	uint64_t t_start = nodus_now_ns(); /* measure: once the oracle is done */
	for (;;) {
		if (measure && !gate_open && a->trial_frames >= expected_trial_frames) {
			gate_open = 1;
			a->validation_s = (double)(nodus_now_ns() - a->validation_from_ns) * 1e-9;
			json_object_set_new(a->phases, "trials_s",
					    json_real((double)(nodus_now_ns() - t_start) * 1e-9));
			if (a->status != NODUS_STATUS_OK) {
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			/* The timer gets its job only now: its set-up (loading the
			 * reference, its buffers) beside the candidate's trials put two
			 * contexts to work on one GPU at once, which slowed the trials
			 * from 0.05 to 0.38 s on the H200 (bench/results/h200/ab-42).
			 * It is a spare already started, so it adds no process. */
			nodus_error terr;
			uint64_t t_timer = nodus_now_ns();
			if (timer_start(x, a, a->timer_slot, &terr)) {
				set_status(a, NODUS_STATUS_CRASH, "harness",
					   "cannot start the reference's timer: %s", terr.message);
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			/* its READY comes once its solution is loaded (a torch module's
			 * import is a second of CPU): the isolation check below must
			 * not see our own timer at work */
			if (timer_ready(x, a)) {
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			w->deadline_ns += nodus_now_ns() - t_timer;
			uint64_t t_quiet = nodus_now_ns();
			/* nothing of ours starts or ends while the pair is timed */
			exiting_reap(x);
			spares_wait_warm(x);
			int ok;
			isolation_check(x, "isolation_before", 2, a->detail, &ok);
			if (ok && test_refuses_isolation(x, a))
				ok = 0;
			uint64_t waited = nodus_now_ns() - t_quiet;
			phase_since(a, "quiesce_s", t_quiet);
			w->deadline_ns += waited; /* the harness's wait, not the worker's time */
			a->timer->deadline_ns += waited;
			if (!ok) {
				set_status(a, NODUS_STATUS_NOT_ISOLATED, "isolation_before",
					   "other load on the machine before the pair was timed (the "
					   "limit is judge.isolation_max_busy_cores on cpu, no other "
					   "process on the GPU on cuda; detail.isolation_before says what "
					   "was seen; nodus run --resume tries the pair again)");
				send_cmd(w, 's');
				got_done = 1;
				break;
			}
			if (x->spares_during_timing)
				spares_top_up(x);
			int end = drive_timing(x, a, w, a->timer);
			if (end == DRIVE_TIMEOUT) {
				timed_out = 1;
				break;
			}
			if (end == DRIVE_FAILED)
				got_done = 1;
			if (end == DRIVE_STOPPED)
				send_cmd(w, 's');
			if (end != DRIVE_OK)
				break; /* DRIVE_DEAD: worker_end says how it died */
		}
		uint32_t type = 0;
		int rc;
		if (measure && q->n > 0)
			rc = early_pop(q, &type, &payload);
		else if (!measure)
			rc = oracle_read(x, a, w, side, q, &type, &payload);
		else
			rc = nodus_ipc_read(w->child.result_fd, &type, &payload, w->deadline_ns);
		if (rc == NODUS_ETIMEOUT) {
			timed_out = 1;
			break;
		}
		if (rc)
			break; /* EOF or garbage: the worker died */
		/* read now: on_output takes an oracle output frame's buffer */
		int inst = frame_instance(type, &payload);
		if (type == NODUS_MSG_WARM) {
			/* the worker's own WARM is the first frame in its pipe; a
			 * later one can only come from the loaded solution */
			if (!w->startup[0])
				keep_startup(w, &payload);
			continue;
		} else if (type == NODUS_MSG_READY) {
			on_ready(x, a, &payload);
			if (!measure)
				a->oracle_ready = 1;
		} else if (is_trial_frame(type)) {
			on_trial_frame(a, type, &payload, !measure, w);
		} else if (type == NODUS_MSG_SIZED || type == NODUS_MSG_START ||
			   type == NODUS_MSG_BATCH) {
			/* timing frames are read by drive_timing, in their place */
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "%s worker sent a timing frame out of turn", who);
			break;
		} else if (type == NODUS_MSG_FAIL) {
			apply_fail_frame(a, &payload, !measure);
			got_done = 1;
			break;
		} else if (type == NODUS_MSG_DONE) {
			char bent[400];
			nodus_clock_view cv;
			if (measure && !nodus_timed_plan_clock_view(&a->timed, &cv))
				json_object_set_new(
					a->detail, "clock",
					json_pack("{s:[i,i],s:[f,f],s:[f,f],s:[f,f],s:f,s:f}", "batches",
						  cv.n[0], cv.n[1], "gap_median_us", cv.gap_med[0] * 1e-3,
						  cv.gap_med[1] * 1e-3, "gap_iqr_us", cv.gap_iqr[0] * 1e-3,
						  cv.gap_iqr[1] * 1e-3, "host_median_us",
						  cv.host_med[0] * 1e-3, cv.host_med[1] * 1e-3, "z", cv.z,
						  "allowed_us", cv.allow * 1e-3));
			if (measure && nodus_timed_plan_clock_bent(&a->timed, bent, sizeof(bent)))
				set_status(a, NODUS_STATUS_REWARD_HACK, "clock_crosscheck", "%s", bent);
			json_t *o = json_loadb(payload.data, payload.len, 0, NULL);
			json_t *timing = json_object_get(o, "timing");
			if (measure && json_is_object(timing)) {
				/* the worker's side, with what the orchestrator chose */
				json_object_update(timing, a->timing);
				json_object_set(a->detail, "timing", timing);
			}
			json_t *phases = json_object_get(o, "phases");
			if (phases)
				json_object_set(a->phases, who, phases);
			json_t *startup = json_loads(w->startup, 0, NULL);
			if (json_is_object(startup)) /* before the job: outside the wall time */
				json_object_set(a->startup, who, startup);
			json_decref(startup);
			json_decref(o);
			got_done = 1;
			break;
		} else {
			/* a frame no worker sends here: candidate code writing to
			 * the result pipe (a forged timing round, say) */
			set_status(a, NODUS_STATUS_CRASH, "protocol",
				   "%s worker sent a frame of unknown type %u", who, type);
			break;
		}
		if (!measure && is_trial_frame(type)) {
			if (inst > a->oracle_progress && inst < a->n_inst)
				a->oracle_progress = inst;
			/* a group's oracle gets each later pair's time as it reaches
			 * that pair's instances, not before: a reference that hangs
			 * on the first pair is stopped after one timeout */
			while (a->followers_reached < a->n_followers &&
			       inst >= a->follower_first[a->followers_reached]) {
				w->deadline_ns += (uint64_t)(x->c->judge.timeout_s * 1e9);
				a->followers_reached++;
			}
			if (side)
				early_judge(x, a, side, q);
		}
		if (a->status != NODUS_STATUS_OK && !measure)
			break;
	}
	if (!measure)
		a->validation_s = (double)(nodus_now_ns() - a->validation_from_ns) * 1e-9;
	else if (!gate_open)
		a->validation_s = (double)(nodus_now_ns() - a->validation_from_ns) * 1e-9;
	if (!got_done && a->status != NODUS_STATUS_OK)
		timed_out = 1; /* we stop it ourselves */
	uint64_t t_end = nodus_now_ns();
	worker_end(x, w, a, timed_out, got_done, who);
	json_object_set_new(a->phases, measure ? "measure_s" : "oracle_s",
			    json_real((double)(t_end - t_start) * 1e-9));
	json_object_set_new(a->phases, measure ? "measure_exit_s" : "oracle_exit_s",
			    json_real((double)(nodus_now_ns() - t_end) * 1e-9));
	nodus_buf_release(&payload);
}

static int build_both(struct run_ctx *x, struct attempt *a, char *ref_so, char *cand_so,
		      nodus_error *err)
{
	nodus_build_result r;
	int rc = nodus_build_solution(a->ref, &x->bopts, &r, err);
	if (rc)
		return rc;
	a->compile_s += r.compile_s;
	a->cache_hits += r.cache_hit;
	if (!r.ok) {
		set_status(a, NODUS_STATUS_INVALID_REFERENCE, r.guard[0] ? r.guard : "compile",
			   "reference '%s' did not compile: %s", a->ref->name, r.log);
		return 0;
	}
	snprintf(ref_so, 1024, "%s", r.so_path);
	rc = nodus_build_solution(a->cand, &x->bopts, &r, err);
	if (rc)
		return rc;
	a->compile_s += r.compile_s;
	a->cache_hits += r.cache_hit;
	if (!r.ok && r.hack) {
		/* it made the tool chain read what no solution may: not a mistake */
		set_status(a, NODUS_STATUS_REWARD_HACK, r.guard,
			   "candidate '%s' was refused at build: %s", a->cand->name, r.log);
		return 0;
	}
	if (!r.ok) {
		set_status(a, NODUS_STATUS_COMPILE_ERROR, r.guard[0] ? r.guard : "compile",
			   "candidate '%s' did not compile: %s", a->cand->name, r.log);
		return 0;
	}
	snprintf(cand_so, 1024, "%s", r.so_path);
	return 0;
}

static void attempt_release(struct attempt *a)
{
	for (int i = 0; i < MAX_INSTANCES; i++)
		for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
			kept_release(&a->oracle[i][o]);
	for (int o = 0; o < NODUS_MAX_OUTPUTS; o++) {
		nodus_buf_release(&a->cand_first[o]);
		nodus_judge_follow_release(&a->follow[o]);
	}
	free(a->samples);
	nodus_timed_plan_release(&a->timed);
	json_decref(a->detail);
	json_decref(a->phases);
	json_decref(a->startup);
	json_decref(a->timing);
}

static void attempt_init(struct run_ctx *x, struct attempt *a, const nodus_pair_spec *p, int n)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < MAX_INSTANCES; i++)
		for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
			nodus_buf_init(&a->oracle[i][o].frame);
	for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
		nodus_buf_init(&a->cand_first[o]);
	a->pair = p;
	a->wl = &x->c->workloads[p->workload];
	a->task = &x->c->tasks[a->wl->task];
	a->cand = &x->c->solutions[p->candidate];
	a->ref = &x->c->solutions[p->reference];
	a->attempt = n;
	a->judge = &x->c->judge;
	a->status = NODUS_STATUS_OK;
	a->label = NODUS_LABEL_NONE;
	a->short_call = -1;
	a->first_look = -1;
	a->ci.estimate = a->ci.lo = a->ci.hi = NAN;
	a->max_abs_err = a->max_rel_err = a->matched_ratio = NAN;
	a->det_id = -1;
	a->oracle_progress = -1;
	char key[512];
	snprintf(key, sizeof(key), "%s|%s|%d", p->id, x->cond->name, n);
	a->stream = nodus_judge_stream_id(key);
	a->detail = json_object();
	a->phases = json_object();
	a->startup = json_object();
	a->timing = json_object();
}

/* ---- oracle groups ----
 *
 * A pair's reference outputs depend only on the reference, the workload
 * and the pair's own instances. So the oracle of the pair being run also
 * computes them for up to oracle_group - 1 later pairs of the condition's
 * queue with the same reference and workload, each with its own instances
 * and seeds, and exits before any timing as always. Those pairs then start
 * only a measure worker: one CUDA context per pair instead of two, which
 * is most of a small pair's fixed cost. Only pairs too small to hide a
 * start-up behind their own work are grouped (see spares_fill). The candidate's measure job never
 * holds another pair's instances. If the group's oracle fails in any way,
 * nothing is decided from it: the pair runs again with an oracle of its
 * own (same seeds), and the others keep theirs. */
#define ORACLE_GROUP_BYTES ((size_t)4 << 30) /* reference outputs held for later pairs */

static size_t instance_output_bytes(const struct attempt *a, int i)
{
	size_t n = 0;
	for (int o = 0; o < a->task->n_outputs; o++)
		n += (size_t)output_numel(a, i, o) * nodus_dtype_size(a->task->outputs[o].dtype);
	return n;
}

static void oracle_group_dissolve(struct attempt *a)
{
	for (int k = 0; k < a->n_followers; k++) {
		attempt_release(a->follower[k]);
		free(a->follower[k]);
	}
	a->n_followers = 0;
	a->n_inst = a->n_own;
}

/* Appends the instances of later pairs with the same reference and
 * workload to a's (its oracle job's) list; a's own come first, so that its
 * candidate's frames are judged as early as before. */
static int oracle_group_form(struct run_ctx *x, struct attempt *a, nodus_error *err)
{
	a->n_own = a->n_inst;
	if (x->c->judge.oracle_group <= 1 || x->group_off || !x->prepared ||
	    (x->no_group && x->no_group[a->pair->reference]))
		return 0;
	/* a pair whose own untimed work hides a worker's start-up gains
	 * nothing, and its timing would wait for the others' reference work */
	if (attempt_bytes(a, 2) * 1e-9 * HIDDEN_S_PER_GB >= SPARE_FIRST_S)
		return 0;
	size_t bytes = 0;
	for (int i = 0; i < a->n_inst; i++)
		bytes += instance_output_bytes(a, i);
	for (int k = x->queue_head;
	     k < x->queue_tail && a->n_followers + 1 < x->c->judge.oracle_group &&
	     a->n_followers < (int)NODUS_ARRAY_SIZE(a->follower);
	     k++) {
		int q = x->queue[k];
		const nodus_pair_spec *ps = &x->c->pairs[q];
		if (ps == a->pair || x->prepared[q] || ps->reference != a->pair->reference ||
		    ps->workload != a->pair->workload)
			continue;
		struct attempt *f = malloc(sizeof(*f));
		if (!f)
			return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		attempt_init(x, f, ps, x->next_attempt[q]);
		uint64_t t0 = nodus_now_ns();
		int rc = build_both(x, f, f->ref_so, f->cand_so, err);
		phase_since(f, "build_s", t0);
		if (rc || f->status != NODUS_STATUS_OK) {
			/* its own turn builds it again (cached) and records why */
			attempt_release(f);
			free(f);
			if (rc)
				return rc;
			continue;
		}
		choose_instances(x, f);
		size_t more = 0;
		for (int i = 0; i < f->n_inst; i++)
			more += instance_output_bytes(f, i);
		if (a->n_inst + f->n_inst > MAX_INSTANCES || bytes + more > ORACLE_GROUP_BYTES) {
			attempt_release(f);
			free(f);
			break;
		}
		bytes += more;
		a->follower_first[a->n_followers] = a->n_inst;
		a->follower[a->n_followers++] = f;
		for (int i = 0; i < f->n_inst; i++) {
			a->inst[a->n_inst] = f->inst[i];
			a->inst[a->n_inst].id = a->n_inst;
			a->n_inst++;
		}
	}
	return 0;
}

/* The group's oracle succeeded: each follower takes its reference outputs
 * and input checksums and waits in x->prepared for its turn. */
static void oracle_group_hand_over(struct run_ctx *x, struct attempt *a, double oracle_s)
{
	if (a->n_followers == 0) {
		a->n_inst = a->n_own;
		return;
	}
	json_t *pairs = json_array();
	json_array_append_new(pairs, json_string(a->pair->id));
	for (int k = 0; k < a->n_followers; k++)
		json_array_append_new(pairs, json_string(a->follower[k]->pair->id));
	/* the leader's attempt names its record: a leader retried (say
	 * NOT_ISOLATED) ends in a later record that need not lead this group */
	json_t *group = json_pack("{s:s,s:i,s:o,s:i,s:f}", "leader", a->pair->id,
				  "leader_attempt", a->attempt, "pairs", pairs, "instances",
				  a->n_inst, "oracle_s", oracle_s);
	for (int k = 0; k < a->n_followers; k++) {
		struct attempt *f = a->follower[k];
		int off = a->follower_first[k];
		for (int i = 0; i < f->n_inst; i++) {
			for (int o = 0; o < f->task->n_outputs; o++) {
				struct kept_output t = f->oracle[i][o];
				f->oracle[i][o] = a->oracle[off + i][o];
				a->oracle[off + i][o] = t;
			}
			memcpy(f->input_sum[i], a->input_sum[off + i], sizeof(f->input_sum[i]));
			f->has_input_sum[i] = a->has_input_sum[off + i];
		}
		f->oracle_ready = 1;
		f->oracle_progress = f->n_inst;
		f->oracle_prepared = 1;
		json_object_set(f->detail, "oracle_group", group);
		x->prepared[f->pair - x->c->pairs] = f;
	}
	json_object_set_new(a->detail, "oracle_group", group);
	a->n_followers = 0;
	a->n_inst = a->n_own;
}

/* Starts the attempt's timer, the reference's timing worker: at once,
 * with the others, so that its start-up is over before the gate. */
static int timer_start(struct run_ctx *x, struct attempt *a, struct worker_proc *wt,
		       nodus_error *err)
{
	json_t *job = job_json(x, a, JOB_TIMER);
	uint64_t t0 = nodus_now_ns();
	int rc = worker_start(x, wt, job, err);
	arena_close(wt); /* the oracle's only */
	phase_since(a, "timer_start_s", t0);
	json_decref(job);
	if (!rc)
		a->timer = wt;
	return rc;
}

/* Stops a timer that still lives and did nothing wrong (the pair ended
 * before or without it); told to stop, it exits on its own. */
static void timer_stop(struct run_ctx *x, struct attempt *a)
{
	if (a->timer && a->timer->running) {
		send_cmd(a->timer, 's');
		worker_end(x, a->timer, a, 0, 1, "timer");
	}
	a->timer = NULL;
}

/* A follower's attempt: its reference outputs are ready, so only its
 * measure worker starts; its trials are judged as they come. */
static int run_prepared(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
			struct worker_proc *wt, nodus_error *err)
{
	a->validation_from_ns = nodus_now_ns();
	json_t *job = job_json(x, a, JOB_MEASURE);
	uint64_t t0 = nodus_now_ns();
	int rc = worker_start(x, wm, job, err);
	arena_close(wm); /* a measure worker closes its own: the oracle's only */
	phase_since(a, "measure_start_s", t0);
	json_decref(job);
	(void)wt; /* the timer starts at the gate (converse) */
	return rc;
}

/* The workers of one attempt, from the builds to the end of timing. */
static int attempt_workers(struct run_ctx *x, struct attempt *a, struct worker_proc *wt,
			   nodus_error *err)
{
	int ok, rc;
	spares_fill(x, a);
	a->timer_slot = wt;
	uint64_t t0;
	struct worker_proc wo, wm;
	struct early_queue q;
	memset(&wo, 0, sizeof(wo));
	memset(&wm, 0, sizeof(wm));
	memset(&q, 0, sizeof(q));
	if (a->oracle_prepared) {
		if ((rc = run_prepared(x, a, &wm, wt, err)))
			return rc;
		goto measure;
	}
	t0 = nodus_now_ns();
	rc = build_both(x, a, a->ref_so, a->cand_so, err);
	phase_since(a, "build_s", t0);
	if (rc || a->status != NODUS_STATUS_OK)
		return rc;
	choose_instances(x, a);

	/* the jobs at once: the candidate's trials overlap the oracle's */
	json_t *measure_job = job_json(x, a, JOB_MEASURE);
	t0 = nodus_now_ns();
	rc = oracle_group_form(x, a, err);
	phase_since(a, "group_s", t0);
	a->validation_from_ns = nodus_now_ns(); /* the later pairs' builds are not validation */
	if (rc) {
		json_decref(measure_job);
		oracle_group_dissolve(a);
		return rc;
	}
	json_t *job = job_json(x, a, JOB_ORACLE);
	t0 = nodus_now_ns();
	rc = worker_start(x, &wo, job, err);
	phase_since(a, "oracle_start_s", t0);
	json_decref(job);
	if (rc) {
		json_decref(measure_job);
		oracle_group_dissolve(a);
		return rc;
	}
	t0 = nodus_now_ns();
	rc = worker_start(x, &wm, measure_job, err);
	arena_close(&wm); /* a measure worker closes its own: the oracle's only */
	phase_since(a, "measure_start_s", t0);
	json_decref(measure_job);
	if (rc) {
		worker_end(x, &wo, a, 1, 0, "oracle");
		oracle_group_dissolve(a);
		return rc;
	}
	uint64_t t_oracle = nodus_now_ns();
	converse(x, a, &wo, 0, &wm, &q);
	nodus_buf_release(&q.recycled); /* frames read from here on use converse's own */
	for (int i = 0; a->status == NODUS_STATUS_OK && i < a->n_inst; i++)
		for (int o = 0; o < a->task->n_outputs; o++)
			if (!a->oracle[i][o].present)
				set_status(a, NODUS_STATUS_INVALID_REFERENCE, "oracle",
					   "the oracle sent no output %d for instance %d", o, i);
	if (a->status != NODUS_STATUS_OK && a->n_followers > 0) {
		worker_end(x, &wm, a, 1, 0, "measure");
		early_release(&q);
		oracle_group_dissolve(a);
		a->regroup = 1;
		return 0;
	}
	oracle_group_hand_over(x, a, (double)(nodus_now_ns() - t_oracle) * 1e-9);
	if (a->status != NODUS_STATUS_OK) {
		worker_end(x, &wm, a, 1, 0, "measure"); /* stopped: the reference failed */
		early_release(&q);
		return 0;
	}
	if (q.failed_status) /* found while the oracle worked */
		set_status(a, q.failed_status, q.failed_guard, "%s", q.failed_message);
	/* the timing workers waited on us while the oracle worked */
	wm.deadline_ns += nodus_now_ns() - t_oracle;
measure:
	converse(x, a, &wm, 1, NULL, &q);
	early_release(&q);
	timer_stop(x, a);
	if (a->status == NODUS_STATUS_OK) {
		check_host_gap(a);
		check_speed_of_light(x, a);
		if (a->rounds == 0 || isnan(a->ci.estimate))
			set_status(a, NODUS_STATUS_CRASH, "timing", "no timing rounds completed");
	}
	if (a->rounds == 0)
		return 0; /* never timed: nothing to call isolated or not */
	if (a->isolation_after_checked) {
		ok = a->isolation_after_ok;
	} else { /* a worker ended during timing */
		t0 = nodus_now_ns();
		exiting_reap(x); /* the timing workers: the count of our processes is exact */
		isolation_check(x, "isolation_after", 0, a->detail, &ok);
		phase_since(a, "isolation_after_s", t0);
	}
	if (!ok)
		set_status(a, NODUS_STATUS_NOT_ISOLATED, "isolation_after",
			   "other load on the machine while the pair was timed (the limit is "
			   "judge.isolation_max_busy_cores on cpu, no other process on the GPU on "
			   "cuda; detail.isolation_after says what was seen; nodus run --resume "
			   "tries the pair again)");
	return 0;
}

static int run_attempt(struct run_ctx *x, struct attempt *a, nodus_error *err)
{
	struct worker_proc wt;
	memset(&wt, 0, sizeof(wt));
	int rc = attempt_workers(x, a, &wt, err);
	timer_stop(x, a); /* on every path: nothing of the attempt outlives it */
	return rc;
}

static int write_record(struct run_ctx *x, struct attempt *a, int final, double started,
			nodus_error *err)
{
	nodus_record r;
	memset(&r, 0, sizeof(r));
	snprintf(r.plan_digest, sizeof(r.plan_digest), "%s", x->plan->digest);
	snprintf(r.pair_id, sizeof(r.pair_id), "%s", a->pair->id);
	snprintf(r.condition, sizeof(r.condition), "%s", x->cond->name);
	r.attempt = a->attempt;
	r.final = final;
	r.status = a->status;
	snprintf(r.guard, sizeof(r.guard), "%s", a->guard);
	int ok = a->status == NODUS_STATUS_OK;
	r.label = ok ? a->label : NODUS_LABEL_NONE;
	r.speedup = ok ? a->ci.estimate : NAN;
	r.ci_lo = ok ? a->ci.lo : NAN;
	r.ci_hi = ok ? a->ci.hi : NAN;
	r.rounds = a->rounds;
	r.looks = a->looks;
	r.cand_ns_median = median_of_role(a, NODUS_ROLE_CANDIDATE);
	r.ref_ns_median = median_of_role(a, NODUS_ROLE_REFERENCE);
	r.max_abs_err = a->max_abs_err;
	r.max_rel_err = a->max_rel_err;
	r.matched_ratio = a->matched_ratio;
	r.device_s = a->device_s;
	/* a replay co-tenant is useful work: each of the M pairs sharing the
	 * device pays 1/M of the time; synthetic stressors are charged in full */
	r.charge_share = x->cond->kind == NODUS_COND_REPLAY ? 1.0 / (x->cond->tenants + 1) : 1.0;
	r.compile_s = a->compile_s;
	r.compile_cache_hits = a->cache_hits;
	r.validation_s = a->validation_s;
	r.started_at = started;
	r.finished_at = nodus_wall_time_s();
	r.wall_s = r.finished_at - started;
	snprintf(r.target_hash, sizeof(r.target_hash), "%s", a->target_hash);
	r.message = a->message[0] ? a->message : NULL;
	if (x->stress.n) {
		nodus_stressors_poll(&x->stress);
		json_object_set_new(a->detail, "condition_achieved",
				    nodus_stressors_describe(&x->stress, x->cond));
	}
	if (x->cond->kind == NODUS_COND_MPS)
		json_object_set_new(a->detail, "mps", nodus_mps_describe(&x->mps));
	if (a->n_samples) {
		json_object_set_new(a->detail, "tie_margin",
				    json_real(tie_margin_for(&x->c->judge, a)));
		json_object_set_new(a->detail, "max_rounds",
				    json_integer(max_rounds_for(&x->c->judge, a)));
		if (x->c->judge.min_timed_s > 0 && a->first_look >= 0)
			json_object_set_new(a->detail, "first_look", json_integer(a->first_look));
	}
	json_object_set_new(a->phases, "compare_s", json_real(a->compare_s));
	json_object_set_new(a->phases, "round_nvml_s", json_real(a->round_nvml_s));
	json_object_set_new(a->phases, "round_decide_s", json_real(a->round_decide_s));
	json_object_set_new(a->detail, "early_judged", json_integer(a->early_judged));
	json_object_set(a->detail, "phases", a->phases);
	if (json_object_size(a->startup))
		json_object_set(a->detail, "startup", a->startup);
	json_object_set_new(a->detail, "worker_schedule",
			    json_string(x->spares_during_timing ? "spares_during_timing"
								: "quiet_timing"));
	json_object_set_new(a->detail, "condition",
			    json_pack("{s:s,s:i,s:i,s:f}", "name", x->cond->name, "kind",
				      x->cond->kind, "tenants", x->cond->tenants, "duty_cycle",
				      x->cond->duty_cycle));
	char *detail = json_dumps(a->detail, JSON_COMPACT | JSON_SORT_KEYS);
	r.detail_json = detail;
	r.n_samples = a->n_samples;
	r.samples = a->samples;
	int rc = nodus_store_insert_record(x->store, &r, NULL, err);
	free(detail);
	if (!rc) {
		x->sum->records++;
		if (final && !ok)
			x->sum->failures++;
		if (final)
			x->cond_decided++;
		if (x->o->progress) {
			/* [k/N] pair condition label (elapsed, ETA): the message in
			 * full (nodus show DB PAIR prints every attempt) */
			double el = (double)(nodus_now_ns() - x->cond_started_ns) * 1e-9;
			int k = x->cond_decided, n = x->cond_pairs;
			char eta[48] = "";
			if (k > 0 && k < n)
				snprintf(eta, sizeof(eta), ", ETA %.0f s", el / k * (n - k));
			fprintf(x->o->progress, "  [%d/%d] %-56s %-10s %-19s %s%s%s%s (%.0f s%s)\n", k, n,
				a->pair->id, x->cond->name,
				ok ? nodus_label_name(a->label) : nodus_status_name(a->status),
				ok ? "" : a->guard, ok ? "" : ": ", ok ? "" : a->message,
				final ? "" : " (will retry)", el, eta);
		}
	}
	return rc;
}

/* A replay condition is a packed evaluation farm: tenants + 1 orchestrators
 * run disjoint shards of the pairs at the same time on the same device,
 * each writing its own records into the shared store (SQLite serialises
 * the writers). */
static int run_replay(struct run_ctx *x, const nodus_condition *cond, nodus_error *err)
{
	int m = cond->tenants + 1;
	nodus_child kids[NODUS_MAX_STRESSORS + 1];
	char shard[NODUS_MAX_STRESSORS + 1][32];
	int started = 0, rc = 0;
	if (m > NODUS_MAX_STRESSORS + 1)
		return NODUS_ERR(err, NODUS_EINVAL, "replay: at most %d tenants", NODUS_MAX_STRESSORS);
	if (x->o->progress)
		fprintf(x->o->progress, "condition %s: %d orchestrators side by side\n", cond->name, m);
	for (int i = 0; i < m; i++) {
		snprintf(shard[i], sizeof(shard[i]), "%d/%d", i, m);
		const char *argv[] = {x->o->self_path, "run", x->o->plan_path, "--db", x->o->db_path,
				      "--condition", cond->name, "--resume", "--cache", x->cache_dir,
				      "--shard", shard[i], x->o->progress ? NULL : "-q", NULL};
		nodus_child_opts o;
		memset(&o, 0, sizeof(o));
		o.argv = argv;
		o.stdin_fd = -2;
		if ((rc = nodus_child_start(&kids[i], &o, err)))
			break;
		started++;
	}
	int failed = 0;
	for (int i = 0; i < started; i++)
		failed |= nodus_child_finish(&kids[i]) != 0;
	if (!rc && failed)
		rc = NODUS_ERR(err, NODUS_ECHILD, "a replay shard of condition '%s' failed",
			       cond->name);
	return rc;
}

static int run_condition(struct run_ctx *x, const nodus_condition *cond, nodus_error *err)
{
	if (cond->kind == NODUS_COND_REPLAY && x->o->shard_count == 0)
		return run_replay(x, cond, err);
	x->cond = cond;
	const nodus_judge *j = &x->c->judge;
	int n = x->c->n_pairs;
	/* a queue of (pair, next attempt); retries go to the back ("later") */
	int *queue = malloc(sizeof(int) * (size_t)(n * (j->max_attempts + 1) + 1));
	int *next_attempt = calloc((size_t)n + 1, sizeof(int));
	struct attempt **prepared = calloc((size_t)n + 1, sizeof(*prepared));
	unsigned char *no_group = calloc((size_t)x->c->n_solutions + 1, 1);
	if (!queue || !next_attempt || !prepared || !no_group) {
		free(queue);
		free(next_attempt);
		free(prepared);
		free(no_group);
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	}
	int head = 0, tail = 0, rc = 0;
	for (int p = 0; p < n; p++) {
		int attempts = 0, has_final = 0;
		if (x->o->only_aa &&
		    strcmp(x->c->solutions[x->c->pairs[p].candidate].hash,
			   x->c->solutions[x->c->pairs[p].reference].hash) != 0)
			continue; /* A/A: the same code, under one name or two */
		if (x->o->shard_count > 0 && p % x->o->shard_count != x->o->shard_index)
			continue;
		rc = nodus_store_progress(x->store, x->plan->digest, x->c->pairs[p].id, cond->name,
					  &attempts, &has_final, err);
		if (rc)
			goto out;
		x->sum->pair_conditions++;
		if (has_final) {
			x->sum->skipped++;
			continue;
		}
		next_attempt[p] = attempts + 1;
		queue[tail++] = p;
	}
	if (tail == 0)
		goto out;
	if (cond->kind == NODUS_COND_MPS) {
		if ((rc = nodus_mps_start(&x->mps, cond->active_thread_pct, err)))
			goto out;
		x->worker_env = nodus_mps_env(&x->mps);
	}
	if ((cond->kind == NODUS_COND_CPU_STRESS || cond->kind == NODUS_COND_TIMESLICE ||
	     cond->kind == NODUS_COND_MPS) &&
	    (rc = nodus_stressors_start(&x->stress, cond, x->o->self_path, x->worker_env, err)))
		goto out;
	if (x->o->progress)
		fprintf(x->o->progress, "condition %s: %d pair(s) to run\n", cond->name, tail);
	x->cond_pairs = tail;
	x->cond_decided = 0;
	x->cond_started_ns = nodus_now_ns();
	x->queue = queue;
	x->next_attempt = next_attempt;
	x->prepared = prepared;
	x->no_group = no_group;
	while (head < tail) {
		int p = queue[head++];
		x->queue_head = head;
		x->queue_tail = tail;
		struct attempt a;
		if (prepared[p]) {
			a = *prepared[p]; /* its reference outputs were computed with an earlier pair's */
			free(prepared[p]);
			prepared[p] = NULL;
		} else {
			attempt_init(x, &a, &x->c->pairs[p], next_attempt[p]);
		}
		double started = nodus_wall_time_s();
		rc = run_attempt(x, &a, err);
		if (!rc && a.regroup) {
			/* the group's oracle failed: again, with the pair's own oracle */
			int again = a.attempt;
			attempt_release(&a);
			attempt_init(x, &a, &x->c->pairs[p], again);
			json_object_set_new(a.detail, "oracle_group_failed", json_true());
			if (x->no_group) /* it failed once: its later pairs run alone */
				x->no_group[x->c->pairs[p].reference] = 1;
			x->group_off = 1;
			rc = run_attempt(x, &a, err);
			x->group_off = 0;
		}
		if (rc) {
			attempt_release(&a);
			goto out;
		}
		/* nothing of the attempt outlives it (orphans come to us: cli
		 * makes nodus run a child subreaper) */
		int strays = nodus_exec_reap_strays();
		if (strays)
			json_object_set_new(a.detail, "strays_killed", json_integer(strays));
		int retry = a.status != NODUS_STATUS_OK && (j->retry_on & (1u << a.status)) &&
			    a.attempt < j->max_attempts;
		rc = write_record(x, &a, !retry, started, err);
		attempt_release(&a);
		if (rc)
			goto out;
		if (retry) {
			next_attempt[p]++;
			queue[tail++] = p;
			if (a.status == NODUS_STATUS_NOT_ISOLATED) /* "later": the load may go */
				nodus__not_isolated_pause(a.attempt); /* retry.c */
		}
	}
	if (x->o->progress && x->cond_pairs > 0)
		fprintf(x->o->progress, "condition %s: %d of %d pair(s) decided in %.0f s\n",
			cond->name, x->cond_decided, x->cond_pairs,
			(double)(nodus_now_ns() - x->cond_started_ns) * 1e-9);
out:
	spare_drop(x); /* it was started in this condition's environment */
	nodus_stressors_stop(&x->stress);
	nodus_mps_stop(&x->mps);
	x->worker_env = NULL;
	for (int p = 0; p < n; p++) {
		if (prepared[p]) { /* the run stopped early: its turn never came */
			attempt_release(prepared[p]);
			free(prepared[p]);
		}
	}
	x->prepared = NULL;
	x->queue = NULL;
	x->next_attempt = NULL;
	x->no_group = NULL;
	free(no_group);
	free(prepared);
	free(queue);
	free(next_attempt);
	return rc;
}

static int register_plan(struct run_ctx *x, nodus_error *err)
{
	char *text = json_dumps(x->plan->json, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	int rc = nodus_store_put_plan(x->store, x->plan->digest, x->c->name, text, err);
	free(text);
	for (int p = 0; !rc && p < x->c->n_pairs; p++) {
		const nodus_pair_spec *ps = &x->c->pairs[p];
		const nodus_solution *cs = &x->c->solutions[ps->candidate];
		const nodus_solution *rs = &x->c->solutions[ps->reference];
		const nodus_workload *w = &x->c->workloads[ps->workload];
		rc = nodus_store_put_pair(x->store, x->plan->digest, ps->id, x->c->tasks[w->task].name,
					  w->name, cs->name, rs->name, cs->hash, rs->hash, ps->expect,
					  err);
	}
	for (int i = 0; !rc && i < x->c->n_conditions; i++) {
		const nodus_condition *c = &x->c->conditions[i];
		char params[256];
		snprintf(params, sizeof(params),
			 "{\"tenants\":%d,\"load\":%d,\"duty_cycle\":%g,\"active_thread_pct\":%d}",
			 c->tenants, c->load, c->duty_cycle, c->active_thread_pct);
		rc = nodus_store_put_condition(x->store, x->plan->digest, c->name,
					       nodus_condition_kind_name(c->kind), params,
					       err);
	}
	return rc;
}

int nodus_run(const nodus_run_opts *o, nodus_run_summary *sum, nodus_diags *diags,
	      nodus_error *err)
{
	struct run_ctx x;
	memset(&x, 0, sizeof(x));
	memset(sum, 0, sizeof(*sum));
	const char *overlap = getenv("NODUS_EXPERIMENT_SPARES_DURING_TIMING");
	if (overlap && *overlap && strcmp(overlap, "0") != 0 && strcmp(overlap, "1") != 0)
		return NODUS_ERR(err, NODUS_EUSAGE,
				 "NODUS_EXPERIMENT_SPARES_DURING_TIMING is '%.40s': expected 1 "
				 "(spares start during timing) or 0 (nodus's quiet schedule)",
				 overlap);
	x.spares_during_timing = overlap && strcmp(overlap, "1") == 0;
	x.test_not_isolated_once = getenv("NODUS_TEST_NOT_ISOLATED_ONCE");
	x.o = o;
	x.sum = sum;
	int rc = nodus_plan_load(o->plan_path, &x.plan, diags);
	if (rc)
		return rc;
	x.c = x.plan->campaign;
	if (x.c->target.backend == NODUS_BACKEND_CUDA) {
		const nodus_backend_ops *ops;
		rc = nodus_backend_cuda_load(&ops, err);
		if (rc)
			goto out;
		nodus_mps_sweep_stale();
		nodus_error nerr;
		memset(&nerr, 0, sizeof(nerr));
		if (nodus_nvml_open(&x.nvml, NULL, NULL, &nerr))
			snprintf(x.nvml_why, sizeof(x.nvml_why), "NVML unavailable: %.200s", nerr.message);
	}
	rc = nodus_store_open(o->db_path, &x.store, err);
	if (rc)
		goto out;
	if (!o->resume && !o->only_aa) {
		int attempts = 0, has_final = 0;
		for (int p = 0; !rc && p < x.c->n_pairs; p++)
			for (int c = 0; !rc && c < x.c->n_conditions && !attempts; c++)
				rc = nodus_store_progress(x.store, x.plan->digest, x.c->pairs[p].id,
							  x.c->conditions[c].name, &attempts,
							  &has_final, err);
		if (!rc && attempts) {
			rc = NODUS_ERR(err, NODUS_EUSAGE,
				       "'%s' already holds records of this plan; use --resume to "
				       "continue it, or another database",
				       o->db_path);
			goto out;
		}
	}
	if (rc || (rc = register_plan(&x, err)))
		goto out;
	if (o->cache_dir) {
		snprintf(x.cache_dir, sizeof(x.cache_dir), "%s", o->cache_dir);
	} else {
		char tmp[1024];
		snprintf(tmp, sizeof(tmp), "%s", o->db_path);
		snprintf(x.cache_dir, sizeof(x.cache_dir), "%s/nodus-cache", dirname(tmp));
	}
	if (x.cache_dir[0] != '/') { /* workers run elsewhere: make it absolute */
		char cwd[512], rel[480];
		snprintf(rel, sizeof(rel), "%.479s", x.cache_dir);
		if (getcwd(cwd, sizeof(cwd)))
			snprintf(x.cache_dir, sizeof(x.cache_dir), "%s/%s", cwd, rel);
	}
	/* there before any worker: a cuda worker's Landlock, put on as it
	 * starts, grants nothing for a directory that does not exist yet (a
	 * failure is the first build's to report) */
	mkdir(x.cache_dir, 0755);
	nodus_build_include_dir(o->self_path, x.include_dir, sizeof(x.include_dir));
	x.bopts.cache_dir = x.cache_dir;
	x.bopts.include_dir = x.include_dir;
	x.bopts.self_path = o->self_path;
	x.bopts.cuda_arch = getenv("NODUS_CUDA_ARCH");
	x.bopts.python = x.c->target.python;
	int ran_any = 0;
	for (int i = 0; i < x.c->n_conditions; i++) {
		if (o->condition && strcmp(o->condition, x.c->conditions[i].name) != 0)
			continue;
		ran_any = 1;
		if ((rc = run_condition(&x, &x.c->conditions[i], err)))
			goto out;
	}
	if (!ran_any)
		rc = NODUS_ERR(err, NODUS_EUSAGE, "the plan has no condition named '%s'",
			       o->condition);
out:
	spare_drop(&x);
	nodus_nvml_close(x.nvml);
	nodus_store_close(x.store);
	nodus_plan_free(x.plan);
	return rc;
}
