/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * drive.c: the timing of a pair whose gate is open.
 *
 * Each side is timed in a process of its own: the timer holds the
 * reference, the measure worker the candidate, so no candidate code shares
 * a process with the reference's timing or its clock (docs/protocol.md).
 * The orchestrator alternates them batch by batch, in an order it draws,
 * so the two batches of a sample stay as close in time as in one process;
 * only one of them runs at a time, the other waits on its stdin.
 * drive_timing runs the phases in order: size (drive_size), warm up
 * (drive_warm_up), rounds with the checks of timed calls and a decision
 * after each (drive_rounds, looks.c), then the isolation check after
 * timing (timing_over) and the end of the timer.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "run/off_turn.h"
#include "run/run-internal.h"

struct drive {
	struct run_ctx *x;
	struct attempt *a;
	struct worker_proc *side[2]; /* NODUS_ROLE_REFERENCE: the timer; _CANDIDATE: measure */
	nodus_buf payload;
	uint64_t at;                 /* our clock when the last frame arrived */
	int timer_ended;             /* the timer has been ended (worker_end) */
	struct nodus_off_turn off;   /* each side's CPU while the other is timed */
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
	int64_t b = (d->x->judge->min_sample_ns + fastest - 1) / fastest;
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

/* One batch of a side (an untimed one when k < 0, of `calls` calls, 0
 * the whole batch); *t gets the times. */
static int drive_batch_of(struct drive *d, int role, int64_t k, int calls, nodus_msg_batch *t)
{
	struct attempt *a = d->a;
	nodus_msg_cmd c = drive_cmd(k < 0 ? 'w' : 'b');
	if (k < 0) {
		c.batch = calls;
		c.window = nodus_timed_plan_warm_window(&a->timed, role, calls);
	}
	if (k >= 0) {
		c.sample = k;
		nodus_timed_plan_sample(&a->timed, k, &c.window, &c.perturbation);
		c.fresh = nodus_timed_plan_fresh(&a->timed, k);
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
		nodus_off_turn_open(&d->off, role);
	}
	uint64_t started = d->at;
	if ((end = drive_await_mark(d, role, NODUS_MSG_BATCH, t)))
		return end;
	if (k >= 0)
		nodus_off_turn_close(&d->off, role, (int64_t)(d->at - started));
	if (t->sample != k || t->role != role ||
	    (k >= 0 && nodus_timed_plan_batch(&a->timed, k, role, t->wall_ns, d->at))) {
		set_status(a, NODUS_STATUS_CRASH, "protocol",
			   "the %s worker answered batch %lld with one of sample %lld",
			   side_name(role), (long long)k, (long long)t->sample);
		return drive_fault(d, role, DRIVE_STOPPED);
	}
	/* outputs a module returned by value, copied by the worker after the
	 * timed region: the other side times only once they are in place */
	nodus_msg_batch settled;
	if (t->settles && (end = drive_await_mark(d, role, NODUS_MSG_SETTLED, &settled)))
		return end;
	if (t->status) {
		set_status(a, role ? NODUS_STATUS_RUNTIME_ERROR : NODUS_STATUS_INVALID_REFERENCE,
			   "", "timing: the %s returned %d while timed",
			   role ? "candidate" : "reference", t->status);
		return drive_fault(d, role, DRIVE_STOPPED);
	}
	return DRIVE_OK;
}

static int drive_batch(struct drive *d, int role, int64_t k, nodus_msg_batch *t)
{
	return drive_batch_of(d, role, k, 0, t);
}

/* Warm-up: batches of both sides in turn, at least warmup_calls each and
 * warmup_ms in all, and on a GPU until the SM clock has settled (it idles
 * at a fraction of its boost clock): two samples within 1%, for at most
 * 5 s. */
static int drive_warm_up(struct drive *d)
{
	const nodus_judge *j = d->x->judge;
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

/* Keeps the sample of role's timed batch k (round r, seq) and, for the
 * candidate, makes the check of that batch if one was drawn for it. */
static int drive_keep(struct drive *d, int role, int64_t k, int r, int seq,
		      const nodus_msg_batch *t)
{
	struct attempt *a = d->a;
	nodus_sample smp;
	memset(&smp, 0, sizeof(smp));
	smp.round = r;
	smp.seq = seq;
	smp.role = role;
	smp.copy = a->timed.next_window;
	smp.batch = a->timed.batch;
	smp.ns = t->event_ns / a->timed.batch;
	smp.host_ns = t->host_ns / a->timed.batch;
	smp.sm_clock_mhz = t->sm_clock_mhz;
	if (nodus_timed_plan_fresh(&a->timed, k))
		smp.flags |= NODUS_SAMPLE_FRESH;
	/* work the events did not see: honest samples on an H200 showed 6-8
	 * us of launch and sync overhead */
	if (t->host_ns - t->event_ns > 50000 && (t->host_ns - t->event_ns) * 10 > t->host_ns)
		smp.flags |= NODUS_SAMPLE_HOST_GAP;
	if (push_sample(a, &smp)) {
		set_status(a, NODUS_STATUS_CRASH, "harness", "out of memory for samples");
		return DRIVE_STOPPED;
	}
	nodus_timed_check *check =
		role == NODUS_ROLE_CANDIDATE ? nodus_timed_plan_check_at(&a->timed, k) : NULL;
	return check ? drive_check(d, check) : DRIVE_OK;
}

/* Rounds of samples_per_round samples until decide_after_round() stops.
 * The order of the two sides is drawn here once per round, and every
 * sample of the round keeps it, so that every timed batch follows a batch
 * of the other side: a worker that times twice in a row has warm caches
 * the second time, and a torch module's A/A samples on the H200 were
 * about 20% faster then (median 126 against 155 us, bench/results/h200/
 * torch-47), which spread its rounds until they were labelled falsely.
 * Where a round would start with the side that ended the one before, one
 * untimed call of the other side (a 'w' of one call) comes first: the
 * other process runs in between, at the cost of one call, not a batch
 * (a whole batch of a slow candidate's cost the campaign 2.3 of its 43 s,
 * bench/results/h200/ab-50). */
static int drive_rounds(struct drive *d)
{
	struct run_ctx *x = d->x;
	struct attempt *a = d->a;
	const nodus_judge *j = x->judge;
	int spr = j->samples_per_round, most = max_rounds_any(j);
	int last = NODUS_ROLE_CANDIDATE, separators = 0; /* the warm-up ends with it */
	for (int r = 0; r < most; r++) {
		int cand_first = (int)nodus_rng_below(&a->timed.rng, 2);
		int first = cand_first ? NODUS_ROLE_CANDIDATE : NODUS_ROLE_REFERENCE;
		if (first == last) {
			nodus_msg_batch t;
			int end = drive_batch_of(d, 1 - first, -1, 1, &t);
			if (end)
				return end;
			separators++;
		}
		last = 1 - first;
		for (int s = 0; s < spr; s++) {
			int64_t k = (int64_t)r * spr + s;
			for (int turn = 0; turn < 2; turn++) {
				int role = turn == 0 ? first : 1 - first;
				nodus_msg_batch t;
				int end = drive_batch(d, role, k, &t);
				if (end)
					return end;
				if ((end = drive_keep(d, role, k, r, s * 2 + turn, &t)))
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
	json_object_set_new(a->timing, "separator_batches", json_integer(separators));
	return DRIVE_OK;
}

/* A preset's schedule (docs/protocol.md, "Presets"): the reference's whole
 * share first, then the candidate's, as KernelBench and FlashInfer-Bench
 * time one solution after the other; per side timing_trials blocks of
 * warmup_calls untimed and timed_calls timed calls, a sample being one call
 * after an L2 flush (the preset's judge). The samples, the checks of timed
 * calls and the clock cross-check are nodus's own: only the order, the
 * counts and the statistic are the preset's. */
static int drive_preset(struct drive *d, const nodus_preset_protocol *pp)
{
	struct attempt *a = d->a;
	nodus_msg_batch t;
	memset(&t, 0, sizeof(t));
	for (int turn = 0; turn < 2; turn++) {
		int role = turn == 0 ? NODUS_ROLE_REFERENCE : NODUS_ROLE_CANDIDATE;
		if (role == NODUS_ROLE_CANDIDATE) { /* the timer's copies are made */
			nodus_msg_cmd c = drive_cmd('z');
			c.batch = a->timed.batch;
			send_timing_cmd(d->side[NODUS_ROLE_CANDIDATE], &c);
		}
		for (int trial = 0; trial < pp->timing_trials; trial++) {
			int end = pp->warmup_calls > 0
					  ? drive_batch_of(d, role, -1, pp->warmup_calls, &t)
					  : DRIVE_OK;
			for (int i = 0; !end && i < pp->timed_calls; i++) {
				int64_t k = (int64_t)trial * pp->timed_calls + i;
				if (!(end = drive_batch(d, role, k, &t)))
					end = drive_keep(d, role, k, trial, i, &t);
			}
			if (end)
				return end;
		}
	}
	a->rounds = pp->timing_trials;
	nvml_round_snapshot(d->x, a);
	if (decide_preset(a, pp)) {
		set_status(a, NODUS_STATUS_CRASH, "timing", "the preset's samples are incomplete");
		return DRIVE_STOPPED;
	}
	return DRIVE_OK;
}

/* What each side used of the CPU while the other was timed (off_turn.c),
 * kept in the record; a candidate above the bounds ran its own code while
 * the reference was timed: REWARD_HACK. */
static int drive_off_turn(struct drive *d)
{
	struct attempt *a = d->a;
	const struct nodus_off_turn *o = &d->off;
	json_t *j = json_object();
	for (int role = 0; role < 2; role++)
		json_object_set_new(
			j, role == NODUS_ROLE_CANDIDATE ? "candidate" : "reference",
			o->have[role] ? json_pack("{s:f,s:f,s:i}", "cpu_ms", (double)o->used_ns[role] * 1e-6,
						  "share", nodus_off_turn_share(o, role), "windows",
						  o->windows[role])
				      : json_null());
	json_object_set_new(a->timing, "off_turn", j);
	if (!nodus_off_turn_exceeded(o, NODUS_ROLE_CANDIDATE))
		return DRIVE_OK;
	set_status(a, NODUS_STATUS_REWARD_HACK, "off_turn_cpu",
		   "the candidate's process used %.1f ms of CPU (%.0f%%) while the reference's "
		   "batches were timed, when it should have been waiting for its next command: "
		   "its own code ran (a timer's signal, a thread of its own) beside the reference's",
		   (double)o->used_ns[NODUS_ROLE_CANDIDATE] * 1e-6,
		   100 * nodus_off_turn_share(o, NODUS_ROLE_CANDIDATE));
	return DRIVE_STOPPED;
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

/* The whole timing of a pair whose gate is open. On DRIVE_OK both workers
 * have been told 'e', the timer has ended, and the measure worker's final
 * trial and DONE are still to come. */
int drive_timing(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
		 struct worker_proc *wt)
{
	struct drive d;
	memset(&d, 0, sizeof(d));
	d.x = x;
	d.a = a;
	d.side[NODUS_ROLE_REFERENCE] = wt;
	d.side[NODUS_ROLE_CANDIDATE] = wm;
	nodus_off_turn_init(&d.off, wt->child.pid, wm->child.pid);
	int end = DRIVE_STOPPED;
	if (!a->timed_plan_ok)
		set_status(a, NODUS_STATUS_CRASH, "harness",
			   "no randomness (getrandom failed) or no memory for the timed checks");
	else if (!(end = drive_size(&d))) {
		nodus_preset_protocol pp;
		if (nodus_judge_preset_protocol(x->cond->judge_preset, &pp) == 0)
			end = drive_preset(&d, &pp);
		else if (!(end = drive_warm_up(&d)))
			end = drive_rounds(&d);
	}
	if (!end)
		end = drive_off_turn(&d);
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
