/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * pool.c: the orchestrator's worker processes.
 *
 * Workers are started ahead of their jobs (spares: a CUDA context takes
 * 0.2-0.3 s on an H200), as many at the start of an attempt as its own
 * untimed work will hide (spares_fill), and never while a pair is timed.
 * worker_start hands a job to the oldest spare, or to a new worker;
 * worker_end ends one and classifies an unexpected death into a status
 * (SIGSYS: REWARD_HACK, our watchdog: TIMEOUT, near its memory limit:
 * OUT_OF_MEMORY, else CRASH; a reference's fault is INVALID_REFERENCE);
 * apply_fail_frame does the same for a worker's own FAIL frame. A worker
 * that reported DONE is left to exit on its own (exiting) and reaped
 * before the next timing starts (exiting_reap).
 * ------------------------------------------------------------------------ */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/backend.h"
#include "run/run-internal.h"

/* NODUS_CUDA_SANDBOX=0 in the orchestrator's environment turns the cuda
 * workers' filter and Landlock off (docs/sandbox.md), should a driver
 * need something they refuse. */
int cuda_sandbox_off(void)
{
	return nodus_sandbox_cuda_off();
}

/* The output arena for a new worker (protocol.h), or -1: then every
 * output comes through the pipe, which always works. */
static int arena_create(void)
{
	int fd = memfd_create("nodus-outputs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)NODUS_ARENA_BYTES) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		close(fd);
		return -1;
	}
	return fd;
}

void arena_close(struct worker_proc *w)
{
	if (w->has_arena)
		close(w->arena_fd);
	w->has_arena = 0;
}

/* Starts a worker process that opens its backend at once and then waits
 * for its job. */
/* The values a worker's environment takes from us (exec.h, o.env): the
 * condition's (MPS) and, on cuda, one hardware queue for the context
 * (CUDA_DEVICE_MAX_CONNECTIONS=1). A worker times one stream, so the other
 * seven queues of the default only cost time: on the H200 a context then
 * took 0.16 s to create instead of 0.22-0.36 s, two at once 0.19 s instead
 * of 0.30 s, and a small pair's fixed overhead fell from 0.385 to 0.234 s
 * (bench/results/h200/ctx-48, retest-48). Work a solution puts on another
 * stream either still runs outside the timed one's events, where the
 * host-gap check catches it (rogue_stream), or queues behind it in the one
 * queue and is timed with it (the torch side-stream candidate in
 * torch-49). The streams condition keeps the driver's default: its loads
 * must run beside the timed stream, not queue behind it. A value in our
 * own environment wins. */
static const char *const *worker_env(const struct run_ctx *x, int cuda, const char **env,
				     size_t cap)
{
	size_t n = 0;
	for (int i = 0; x->worker_env && x->worker_env[i] && n + 2 < cap; i++)
		env[n++] = x->worker_env[i];
	if (cuda && !getenv("CUDA_DEVICE_MAX_CONNECTIONS") &&
	    !(x->cond && x->cond->kind == NODUS_COND_STREAMS))
		env[n++] = "CUDA_DEVICE_MAX_CONNECTIONS=1";
	env[n] = NULL;
	return n ? env : x->worker_env;
}

static int worker_spawn(struct run_ctx *x, struct worker_proc *w, nodus_error *err)
{
	const nodus_judge *j = x->judge;
	int cuda = x->c->target.backend == NODUS_BACKEND_CUDA;
	/* a cuda worker confines itself before its driver starts, with the
	 * cache its objects will come from readable */
	const char *argv[] = {x->o->self_path, "__worker", cuda ? "cuda" : "cpu",
			      cuda && !cuda_sandbox_off() ? x->cache_dir : NULL, NULL};
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stdin_fd = -1;
	o.stdout_fd = -2;
	o.stderr_fd = -2;
	o.want_result_pipe = 1;
	o.want_clock_socket = 1;
	o.die_with_parent = 1;
	/* its own session, directory and a minimal environment (exec.h):
	 * the MPS condition's settings come from worker_env, the rest by
	 * name only (docs/sandbox.md lists them; NODUS_WORKER_ENV adds more) */
	static const char *const pass[] = {
		"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MPS_PIPE_DIRECTORY",
		"CUDA_MPS_LOG_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "LD_LIBRARY_PATH",
		"NODUS_CUDA_BACKEND", "NODUS_CUDA_DEVICE", "NODUS_CUDA_PREDRIVER_LANDLOCK",
		"CUDA_DEVICE_MAX_CONNECTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS",
		"LSAN_OPTIONS", NULL};
	o.new_session = 1;
	o.private_dir = 1;
	o.minimal_env = 1;
	o.env_pass = pass;
	const char *env[16];
	o.env = worker_env(x, cuda, env, NODUS_ARRAY_SIZE(env));
	o.rlimit_core = -1;
	o.rlimit_nproc = j->processes;
	o.rlimit_nofile = j->open_files;
	o.rlimit_fsize_bytes = 64 << 20;
	if (!cuda) {
#if !defined(__SANITIZE_ADDRESS__)
		/* AddressSanitizer reserves terabytes of address space at start, so
		 * a sanitizer build (tests only) runs its workers without this limit */
		/* the judge's limit is the solutions' memory; the backend's own
		 * cache-flush buffer (twice the last-level cache) comes on top */
		if (j->address_space_mb > 0) /* 0: no limit */
			o.rlimit_as_bytes = (j->address_space_mb << 20) +
					    (int64_t)nodus_backend_cpu_reserved_bytes();
#endif
		o.rlimit_cpu_s = j->cpu_time_s;
	}
	memset(w, 0, sizeof(*w));
	int arena = arena_create();
	if (arena >= 0)
		o.share_fd = arena;
	int rc = nodus_child_start(&w->child, &o, err);
	if (rc) {
		if (arena >= 0)
			close(arena);
		return rc;
	}
	w->running = 1;
	w->has_arena = arena >= 0;
	w->arena_fd = arena;
	return 0;
}

/* Waits for the workers that finished their job and were left to end on
 * their own (tearing down a CUDA context takes 60-90 ms on an H200). Called
 * before any timing starts, so no measurement overlaps their exit. */
void exiting_reap(struct run_ctx *x)
{
	if (x->n_exiting == 0)
		return;
	for (int i = 0; i < x->n_exiting; i++)
		nodus_child_finish_timeout(&x->exiting[i], 5000);
	x->reaped_n = x->n_exiting;
	x->reaped_ns = nodus_now_ns();
	x->n_exiting = 0;
}

/* Kills the workers started ahead, if any (the condition changed, or the
 * run ends), after reaping those that are ending. */
void spare_drop(struct run_ctx *x)
{
	exiting_reap(x);
	for (int i = 0; i < x->n_spares; i++) {
		nodus_child_kill(&x->spare[i].child);
		nodus_child_finish(&x->spare[i].child);
		arena_close(&x->spare[i]);
	}
	x->n_spares = 0;
}

/* Starts workers ahead of their jobs until there are `want` (at most
 * NODUS_SPARES). Called only where nothing is timed. */
static void spares_start(struct run_ctx *x, int want)
{
	if (want > NODUS_SPARES)
		want = NODUS_SPARES;
	while (x->n_spares < want) {
		nodus_error err;
		if (worker_spawn(x, &x->spare[x->n_spares], &err))
			break; /* not fatal: the next worker starts cold */
		x->n_spares++;
	}
}

void spares_top_up(struct run_ctx *x)
{
	spares_start(x, NODUS_SPARES);
}

/* Bytes an attempt's workers draw and move before its timing gate: each
 * instance's inputs and outputs, once per worker. */
double attempt_bytes(const struct attempt *a, int workers)
{
	double per = nodus__call_bytes(a->task, a->wl);
	const nodus_judge *j = a->judge;
	double bytes = per * (double)(j->trials + 2 + nodus__timed_checks_for(a->task, a->wl,
									     j->recheck_reps)) *
		       workers;
	return bytes >= 0 ? bytes : INFINITY; /* an overflowed size is a large one */
}

/* At the start of an attempt: the workers it takes, plus as many spares
 * as its own untimed work will hide. */
void spares_fill(struct run_ctx *x, const struct attempt *a)
{
	/* oracle (unless prepared), measure, timer; the timer moves no trial data */
	int need = a->oracle_prepared ? 2 : 3;
	double hidden = attempt_bytes(a, need - 1) * 1e-9 * HIDDEN_S_PER_GB;
	double more = hidden < SPARE_FIRST_S ? 0 : 1 + (hidden - SPARE_FIRST_S) / SPARE_NEXT_S;
	if (!(more <= NODUS_SPARES)) /* NaN too */
		more = NODUS_SPARES;
	spares_start(x, (x->n_spares > need ? x->n_spares : need) + (int)more);
}

void keep_startup(struct worker_proc *w, const nodus_buf *frame)
{
	size_t n = frame->len < sizeof(w->startup) - 1 ? frame->len : sizeof(w->startup) - 1;
	memcpy(w->startup, frame->data, n);
	w->startup[n] = '\0';
	const char *rss = strstr(w->startup, "\"rss_bytes\":");
	w->base_rss = rss ? strtoll(rss + strlen("\"rss_bytes\":"), NULL, 10) : 0;
	if (w->base_rss < 0)
		w->base_rss = 0;
}

/* Waits until every spare has finished starting (its WARM frame), so
 * that no start-up of ours competes with a timed pair for the CPU or the
 * driver (a launch-bound kernel's time follows the host's launch rate).
 * Spares that have not said WARM within 10 s together are dropped. */
void spares_wait_warm(struct run_ctx *x)
{
	nodus_buf frame = NODUS_BUF_INIT;
	uint64_t deadline = nodus_now_ns() + 10000000000ull;
	for (int i = 0; i < x->n_spares; i++) {
		struct worker_proc *s = &x->spare[i];
		uint32_t type = 0;
		if (s->warm)
			continue;
		if (nodus_ipc_read(s->child.result_fd, &type, &frame, deadline) == 0 &&
		    type == NODUS_MSG_WARM) {
			s->warm = 1;
			keep_startup(s, &frame);
			continue;
		}
		nodus_child_kill(&s->child);
		nodus_child_finish(&s->child);
		arena_close(s);
		memmove(s, s + 1, (size_t)(x->n_spares - i - 1) * sizeof(*s));
		x->n_spares--;
		i--;
	}
	nodus_buf_release(&frame);
}

/* Hands the job to a worker: the oldest one started ahead when there is
 * one (its context creation then happened off the critical path), else a
 * new one. The watchdog counts from the job, not from the process start. */
int worker_start(struct run_ctx *x, struct worker_proc *w, json_t *job, nodus_error *err)
{
	char *text = json_dumps(job, JSON_COMPACT);
	if (!text)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	int rc = 0, cold = 0;
	for (;;) {
		if (x->n_spares > 0) {
			*w = x->spare[0];
			memmove(&x->spare[0], &x->spare[1],
				(size_t)(x->n_spares - 1) * sizeof(x->spare[0]));
			x->n_spares--;
		} else if (cold++ == 0) {
			if ((rc = worker_spawn(x, w, err)))
				break;
		} else {
			break; /* rc holds why the cold worker did not take it */
		}
		w->started_ns = nodus_now_ns();
		w->deadline_ns = w->started_ns + (uint64_t)(x->judge->timeout_s * 1e9);
		rc = nodus_ipc_write(w->child.in_fd, NODUS_MSG_JOB, text, strlen(text));
		if (rc == 0)
			break;
		/* the worker died before its job (a spare killed meanwhile, by the
		 * OOM killer or a driver fault): reap it and try the next spare,
		 * then once a fresh one */
		int code = nodus_child_finish_timeout(&w->child, 1000);
		w->running = 0;
		arena_close(w);
		rc = NODUS_ERR(err, NODUS_ECHILD,
			       "a worker ended (status %d) before it could take its job", code);
	}
	free(text);
	return rc;
}

void send_cmd(struct worker_proc *w, char cmd)
{
	nodus_msg_cmd c;
	memset(&c, 0, sizeof(c));
	c.op = cmd;
	c.window = -1;
	nodus_ipc_write(w->child.in_fd, NODUS_MSG_CMD, &c, sizeof(c));
}

/* A CMD during timing (protocol.h): op and its fields. */
void send_timing_cmd(struct worker_proc *w, const nodus_msg_cmd *c)
{
	nodus_ipc_write(w->child.in_fd, NODUS_MSG_CMD, c, sizeof(*c));
}

/* Peak resident memory of a reaped worker, less what it held before its
 * job (the backend's own buffers: the cpu flush buffer is twice the
 * last-level cache), as a share of the judge's limit, which the worker's
 * address-space limit exceeds by that buffer; 0 when unknown. */
static double peak_rss_fraction(const struct run_ctx *x, const struct worker_proc *w)
{
	int64_t limit = x->judge->address_space_mb << 20;
	int64_t peak = w->child.peak_rss_bytes, base = w->base_rss;
	if (base >= peak)
		base = 0; /* a figure we cannot use: judge by the peak alone */
	if (limit <= 0 || peak <= 0)
		return 0;
	return (double)(peak - base) / (double)limit;
}

/* Ends a worker; classifies an unexpected death into a status. timed_out
 * says our watchdog fired. */
void worker_end(struct run_ctx *x, struct worker_proc *w, struct attempt *a, int timed_out, int got_done,
		const char *who)
{
	if (!w->running)
		return;
	arena_close(w); /* what it wrote there is mapped where still needed */
	if (got_done && !timed_out && x->n_exiting < MAX_EXITING) {
		/* its work is done and reported: let it end off the critical path */
		x->exiting[x->n_exiting++] = w->child;
		w->running = 0;
		a->device_s += (double)(nodus_now_ns() - w->started_ns) * 1e-9;
		return;
	}
	if (timed_out)
		nodus_child_kill(&w->child);
	int code = got_done ? nodus_child_finish_timeout(&w->child, 5000)
			    : nodus_child_finish_timeout(&w->child, 2000);
	w->running = 0;
	a->device_s += (double)(nodus_now_ns() - w->started_ns) * 1e-9;
	if (got_done || a->status != NODUS_STATUS_OK)
		return;
	int ref_fault = strcmp(who, "oracle") == 0 || strcmp(who, "timer") == 0;
	if (timed_out)
		set_status(a, ref_fault ? NODUS_STATUS_INVALID_REFERENCE : NODUS_STATUS_TIMEOUT,
			   "watchdog", "%s worker passed its %.0f s wall-clock limit", who,
			   (double)(w->deadline_ns - w->started_ns) * 1e-9);
	else if (code == 128 + SIGSYS)
		set_status(a, NODUS_STATUS_REWARD_HACK, "syscall_filter",
			   "%s worker made a system call its sandbox forbids (a process, a "
			   "program, a socket, a file, another process, IPC; docs/sandbox.md)",
			   who);
	else if (code == 128 + SIGXCPU)
		set_status(a, ref_fault ? NODUS_STATUS_INVALID_REFERENCE : NODUS_STATUS_TIMEOUT,
			   "cpu_time_limit", "%s worker passed its cpu-time limit", who);
	else if (code == 128 + SIGKILL && peak_rss_fraction(x, w) > 0.5)
		set_status(a, NODUS_STATUS_OUT_OF_MEMORY, "memory_limit",
			   "%s worker was killed near its memory limit", who);
	else if (code > 128 && peak_rss_fraction(x, w) > 0.5)
		set_status(a, NODUS_STATUS_OUT_OF_MEMORY, "memory_limit",
			   "%s worker died by signal %d after reaching its memory limit", who,
			   code - 128);
	else if (code > 128)
		set_status(a, ref_fault ? NODUS_STATUS_INVALID_REFERENCE : NODUS_STATUS_CRASH,
			   "signal", "%s worker died by signal %d (%s)", who, code - 128,
			   strsignal(code - 128));
	else
		set_status(a, ref_fault ? NODUS_STATUS_INVALID_REFERENCE : NODUS_STATUS_CRASH,
			   "early_exit", "%s worker exited with status %d before finishing", who,
			   code);
}

void apply_fail_frame(struct attempt *a, const nodus_buf *payload, int ref_fault)
{
	json_t *o = json_loadb(payload->data, payload->len, 0, NULL);
	const char *status = json_string_value(json_object_get(o, "status"));
	const char *guard = json_string_value(json_object_get(o, "guard"));
	const char *stage = json_string_value(json_object_get(o, "stage"));
	const char *msg = json_string_value(json_object_get(o, "message"));
	int st = status ? nodus_status_from_name(status) : -1;
	if (st < 0)
		st = NODUS_STATUS_CRASH;
	if (ref_fault && st != NODUS_STATUS_OK)
		st = NODUS_STATUS_INVALID_REFERENCE;
	set_status(a, st, guard, "%s: %s", stage ? stage : "worker", msg ? msg : "failed");
	json_decref(o);
}
