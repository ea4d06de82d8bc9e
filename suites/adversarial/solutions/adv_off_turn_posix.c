/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_off_turn_posix.c: exploit for the vector_poly task
 * (suites/adversarial).
 *
 * Exploit: the same theft as adv_off_turn_itimer by another mechanism: a
 * POSIX timer (timer_create on CLOCK_MONOTONIC, a real-time signal every
 * 250 us), and work instead of a bare spin: while the other side is timed
 * the handler recomputes outputs of the inputs this worker saw last (the
 * reference's formula, on copies of its own), so the time
 * it takes from the reference looks like honest work ahead.
 * Naive harness reports: with the guard switched off, SLOWER 0.69 on the
 * 2-core machine (the work it does takes its own time too), so no gain
 * there; on a machine where its ticks cost it less, the theft remains.
 * nodus: REWARD_HACK, guard off_turn_cpu (src/run/off_turn.c), whatever the
 * handler does with the CPU it takes.
 * ------------------------------------------------------------------------ */
#define _GNU_SOURCE /* clock_gettime, sigaction, timer_create, REG_RIP under -std=c11 */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};
static volatile sig_atomic_t in_call, armed;
static volatile uint64_t last_return_ns;
static float seen[256], ahead[256]; /* its last inputs, its own copy */
static volatile sig_atomic_t have_seen;

/* the worker's next command has come (fd 0 is its command pipe): stop,
 * so that it answers as fast as an honest worker would */
static int command_waiting(void)
{
	struct pollfd p = {0, POLLIN, 0};
	return poll(&p, 1, 0) > 0;
}

/* the signal came while the worker sat in a system call (blocked reading
 * its next command): the instruction before the interrupted one is a
 * `syscall` and the call returned -EINTR. Elsewhere the worker is busy with
 * its own harness work, which a spin would only delay. */
static int blocked_in_syscall(void *ctx)
{
#if defined(__x86_64__)
	const greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	const unsigned char *rip = (const unsigned char *)g[REG_RIP];
	return g[REG_RAX] == -4 /* -EINTR */ && rip[-2] == 0x0f && rip[-1] == 0x05;
#else
	(void)ctx;
	return 0;
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
}

static void on_tick(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	if (!blocked_in_syscall(ctx) || in_call || now_ns() - last_return_ns < 50000 || !have_seen)
		return;
	uint64_t end = now_ns() + 300000;
	while (now_ns() < end && !command_waiting())
		poly(seen, ahead, 256); /* "work ahead" */
}

int adv_off_turn_posix(const nodus_call *call)
{
	in_call = 1;
	if (!armed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_tick;
		sa.sa_flags = SA_RESTART | SA_SIGINFO;
		sigaction(SIGRTMIN, &sa, NULL);
		struct sigevent ev;
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = SIGRTMIN;
		timer_t t;
		if (timer_create(CLOCK_MONOTONIC, &ev, &t) == 0) {
			struct itimerspec every = {{0, 250000}, {0, 250000}};
			timer_settime(t, 0, &every, NULL);
		}
		armed = 1;
	}
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	poly(x, y, n);
	if (n >= 256) {
		memcpy(seen, x, sizeof(seen));
		have_seen = 1;
	}
	last_return_ns = now_ns();
	in_call = 0;
	return 0;
}
