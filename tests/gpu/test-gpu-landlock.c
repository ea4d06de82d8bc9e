/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-gpu-landlock.c: every thread of a cuda worker is in a Landlock
 * domain, the CUDA driver's included (docs/sandbox.md, "The cuda backend").
 *
 * Usage: test-gpu-landlock KERNELS.so   (libnodus_cuda.so through
 * $NODUS_CUDA_BACKEND, as for test-gpu-backend). Without a driver, a GPU,
 * the backend or Landlock it prints "skipped: no GPU (...)" (or "skipped:
 * no Landlock") and exits 77, which CTest reports as skipped.
 *
 * It does what a cuda worker does, in its order: the pre-driver ruleset
 * (nodus_sandbox_before_driver, one thread), the backend and its context
 * (the driver's threads), a few calls, the job's ruleset
 * (nodus_sandbox_prepare, cuda profile, driver_confined), the dlopen of
 * the job's object. Then every thread listed in /proc/self/task is made
 * to try to open files (a signal whose handler opens and records, on the
 * thread it was sent to):
 * 1 the pre-driver ruleset holds with one thread
 * 2 the driver starts and runs a kernel under it
 * 3 the job's ruleset holds; the object loads
 * 4 the driver made threads of its own
 * 5 every thread that answered cannot open a file outside both rulesets
 * 6 at least one thread the driver made answered (threads that block the
 *   signal are listed as info lines: by construction they are in the
 *   pre-driver domain, as they were made after it)
 * 7 another object of the cache: refused on every thread under TSYNC
 *   (Landlock ABI 8); without, refused on the loading thread and, on the
 *   driver's threads, listed as info (the pre-driver ruleset lets the
 *   cache be read, the job not being known yet)
 * 8 a host function the solution enqueues (cudaLaunchHostFunc: the
 *   runtime runs it on a thread of its own, whatever that thread does with
 *   signals) cannot open the file outside both rulesets either
 * ------------------------------------------------------------------------ */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "common/common.h"
#include "exec/exec.h"
#include "exec/landlock.h"

#define MAX_THREADS 256
#define PROBE_SIGNAL (SIGRTMIN + 2)

/* One thread's answer, written by the handler on that thread. */
struct answer {
	int tid;                   /* the thread asked */
	volatile sig_atomic_t done; /* 1 once it answered */
	int secret;                /* open of the secret: 1 opened, 0 EACCES, 2 other errno */
	int other;                 /* open of the cache's other object, the same */
};

static struct answer answers[MAX_THREADS];
static int n_answers;
static char secret[96], other_so[96];

static int try_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == EACCES ? 0 : 2;
}

/* async-signal-safe: gettid, open, close */
static void on_probe(int sig)
{
	(void)sig;
	int saved = errno, tid = (int)syscall(SYS_gettid);
	for (int i = 0; i < n_answers; i++) {
		if (answers[i].tid != tid)
			continue;
		answers[i].secret = try_open(secret);
		answers[i].other = try_open(other_so);
		answers[i].done = 1;
	}
	errno = saved;
}

static int failures, test_no;

static void check(int ok, const char *what)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++test_no, what);
	fflush(stdout);
	failures += !ok;
}

/* A GPU at all, outside any sandbox (a forked child): 0, or 77 printed. */
static int probe_gpu(void)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		const nodus_backend_ops *ops;
		void *ctx;
		nodus_error err;
		int rc = nodus_backend_cuda_load(&ops, &err);
		if (!rc)
			rc = ops->open(&ctx, &err);
		if (rc)
			printf("skipped: no GPU (%s)\n", err.message);
		fflush(stdout);
		_exit(rc ? 77 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 77;
}

static int copy_file(const char *from, const char *to)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	return system(cmd);
}

/* Sends the probe to every thread but this one and waits for answers. */
static void ask_every_thread(int *n_threads)
{
	int tids[MAX_THREADS], n = 0, self = (int)syscall(SYS_gettid);
	/* read with opendir: /proc is readable under the cuda profile */
	DIR *d = opendir("/proc/self/task");
	for (struct dirent *de; d && (de = readdir(d));) {
		int tid = atoi(de->d_name);
		if (tid > 0 && n < MAX_THREADS)
			tids[n++] = tid;
	}
	if (d)
		closedir(d);
	*n_threads = n;
	n_answers = 0;
	for (int i = 0; i < n; i++)
		answers[n_answers++] = (struct answer){tids[i], 0, -1, -1};
	for (int i = 0; i < n_answers; i++) {
		if (answers[i].tid == self) {
			answers[i].secret = try_open(secret);
			answers[i].other = try_open(other_so);
			answers[i].done = 1;
			continue;
		}
		syscall(SYS_tgkill, getpid(), answers[i].tid, PROBE_SIGNAL);
	}
	struct timespec pause = {0, 10 * 1000 * 1000};
	for (int waited = 0; waited < 200; waited++) {
		int all = 1;
		for (int i = 0; i < n_answers; i++)
			all &= answers[i].done != 0;
		if (all)
			break;
		nanosleep(&pause, NULL);
	}
}

int main(int argc, char **argv)
{
	/* the ruleset before the driver is opt-in (sandbox.c): on here */
	setenv("NODUS_CUDA_PREDRIVER_LANDLOCK", "1", 1);
	if (argc != 2) {
		fprintf(stderr, "usage: test-gpu-landlock KERNELS.so\n");
		return 2;
	}
	if (probe_gpu())
		return 77;
	if (nodus_landlock_abi() < 1) {
		printf("skipped: no Landlock (the kernel has none)\n");
		return 77;
	}
	char dir[] = "/tmp/nodus-gpu-landlock-XXXXXX", cache[64], job_so[96], work[64];
	if (!mkdtemp(dir))
		return 2;
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(job_so, sizeof(job_so), "%s/job.so", cache);
	snprintf(other_so, sizeof(other_so), "%s/other.so", cache);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(work, sizeof(work), "%s/work", dir);
	char mk[256];
	snprintf(mk, sizeof(mk), "mkdir -p '%s' '%s' && echo secret > '%s'", cache, work, secret);
	if (system(mk) || copy_file(argv[1], job_so) || copy_file(argv[1], other_so) || chdir(work))
		return 2;
	setenv("HOME", work, 1); /* the driver's JIT cache, as in a worker */

	/* 1 */
	char lib[4096];
	nodus_error err = {0};
	const char *dirs[2], *extra[] = {cache, NULL, NULL};
	if (nodus_backend_cuda_path(lib, sizeof(lib), &err) == 0)
		extra[1] = lib;
	nodus_sandbox_opts o;
	nodus_sandbox_opts_cuda(&o, NULL, work, dirs);
	int abi = 0;
	int rc = nodus_sandbox_before_driver(&o, extra, &abi, &err);
	check(rc == 0 && abi > 0, "the pre-driver ruleset holds with one thread");
	if (rc)
		printf("info %s\n", err.message);

	/* 2 */
	const nodus_backend_ops *ops = NULL;
	void *ctx = NULL, *buf = NULL;
	rc = nodus_backend_cuda_load(&ops, &err);
	if (!rc)
		rc = ops->open(&ctx, &err);
	if (!rc)
		rc = ops->alloc(ctx, 1 << 20, &buf, &err);
	check(rc == 0, "the driver starts under the pre-driver ruleset");
	if (rc) {
		printf("info %s\n", err.message);
		return 1;
	}

	/* 3 */
	const char *files[] = {job_so, NULL};
	nodus_sandbox_opts_cuda(&o, files, work, dirs);
	o.driver_confined = 1;
	nodus_sandbox_state sb;
	rc = nodus_sandbox_prepare(&sb, &o, &err);
	void *h = rc ? NULL : dlopen(job_so, RTLD_NOW | RTLD_LOCAL);
	void *sym = h ? dlsym(h, "tiny") : NULL;
	check(sym != NULL, "the job's ruleset holds and the object loads");
	if (!sym) {
		printf("info %s\n", rc ? err.message : dlerror());
		return 1;
	}
	nodus_entry_fn tiny;
	memcpy(&tiny, &sym, sizeof(sym));
	nodus_tensor out = {buf, NODUS_DTYPE_FLOAT32, 1, {32}, 32, 128, "y"};
	nodus_call call = {NODUS_ABI_VERSION, sizeof(nodus_call), 0, 1, NULL, &out, 0, 0, NULL,
			   NULL, ops->stream(ctx), NULL, 0};
	int status = 0;
	for (int i = 0; i < 8 && !rc; i++)
		rc = ops->call_sync(ctx, tiny, &call, &status, &err);
	if (rc || status)
		printf("info the kernel did not run: %s\n", rc ? err.message : "status");

	/* 4 */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_probe;
	sigemptyset(&sa.sa_mask);
	sigaction(PROBE_SIGNAL, &sa, NULL);
	int n_threads = 0;
	ask_every_thread(&n_threads);
	check(n_threads > 1, "the driver made threads of its own");
	printf("info %d threads; Landlock ABI %d; job ruleset on %s\n", n_threads, sb.landlock_abi,
	       sb.landlock_tsync ? "every thread (TSYNC)" : "the loading thread");

	/* 5, 6, 7 */
	int self = (int)syscall(SYS_gettid), leaked = 0, driver_answered = 0, other_bad = 0;
	for (int i = 0; i < n_answers; i++) {
		struct answer *a = &answers[i];
		if (!a->done) {
			printf("info thread %d did not answer (it blocks the probe signal)\n", a->tid);
			continue;
		}
		driver_answered += a->tid != self;
		if (a->secret != 0) {
			printf("info thread %d opened the secret (%d)\n", a->tid, a->secret);
			leaked++;
		}
		if (a->other != 0 && (sb.landlock_tsync || a->tid == self)) {
			printf("info thread %d opened another object of the cache\n", a->tid);
			other_bad++;
		} else if (a->other != 0) {
			printf("info thread %d (the driver's) may read the cache: no TSYNC\n", a->tid);
		}
	}
	check(leaked == 0, "no thread that answered can open a file outside both rulesets");
	check(driver_answered > 0, "at least one thread the driver made answered the probe");
	check(other_bad == 0, "another object of the cache: refused where the job's ruleset holds");

	/* 8 */
	void (*set_path)(const char *);
	int (*result)(int *);
	void *p1 = dlsym(h, "host_probe_path"), *p2 = dlsym(h, "host_probe_result"),
	     *p3 = dlsym(h, "host_probe");
	int outcome = -1, cb_tid = 0;
	if (p1 && p2 && p3) {
		nodus_entry_fn probe;
		memcpy(&set_path, &p1, sizeof(p1));
		memcpy(&result, &p2, sizeof(p2));
		memcpy(&probe, &p3, sizeof(p3));
		set_path(secret);
		if (ops->call_sync(ctx, probe, &call, &status, &err) == 0 && status == 0)
			outcome = result(&cb_tid);
	}
	printf("info the host function ran on thread %d (the loading thread is %d): %s\n", cb_tid,
	       self, outcome == 0 ? "refused" : outcome == 1 ? "OPENED" : "did not run or failed");
	check(outcome == 0 && cb_tid != self,
	      "a host function on a runtime thread cannot open a file outside both rulesets");
	printf("%s\n", failures ? "FAIL" : "PASS");
	fflush(stdout);
	_exit(failures ? 1 : 0); /* no exit-time hooks under the filter */
}
