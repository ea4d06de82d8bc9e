/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-sandbox-driver.c: Landlock covers the threads a cuda process has
 * before its job (nodus_sandbox_before_driver, src/exec/sandbox.c).
 *
 * A Landlock ruleset holds on the thread that enforces it and on the
 * threads it makes later. The CUDA driver makes its threads at context
 * creation, before the job's ruleset (nodus_sandbox_prepare), so without
 * more they would have none. No GPU here: a thread made between the two
 * rulesets stands in for a driver thread, and answers, on request, whether
 * it can open a file. Each case runs in a forked child (confinement cannot
 * be undone) and exits with the number of the first check that failed.
 *   1. without the pre-driver ruleset, the early thread reads a secret the
 *      job's ruleset refuses to the loading thread (the hole, shown so the
 *      next case means something; only where TSYNC, Landlock ABI 8, is
 *      missing, as TSYNC closes it alone);
 *   2. with it: the early thread cannot read the secret, the loading
 *      thread cannot either, both read the job's object; another object
 *      of the cache is readable to the early thread only without TSYNC
 *      (the pre-driver ruleset lets the cache be read: the job was not
 *      known yet); the state says driver_confined, and landlock_tsync as
 *      the kernel has it;
 *   3. a process that already has a second thread is refused, naming the
 *      count, and stays unconfined;
 *   4. the cuda profile's options (nodus_sandbox_opts_cuda) carry the MPS
 *      pipe directory exactly when $CUDA_MPS_PIPE_DIRECTORY is set.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "exec/landlock.h"

static char dir[] = "/tmp/nodus-test-driver-XXXXXX";
static char objs[64], job_so[80], other_so[80], secret[64], work[64];

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(objs, sizeof(objs), "%s/cache", dir);
	snprintf(job_so, sizeof(job_so), "%s/job.so", objs);
	snprintf(other_so, sizeof(other_so), "%s/other.so", objs);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(work, sizeof(work), "%s/work", dir);
	if (mkdir(objs, 0700) || mkdir(work, 0700))
		return -1;
	return write_file(job_so, "job\n") || write_file(other_so, "other\n") ||
		       write_file(secret, "secret\n")
		       ? -1
		       : 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- the early thread: opens what it is asked to, says whether it could ---- */

struct early {
	pthread_t thread;
	int ask[2];    /* main -> thread: a path's index, -1 to stop */
	int answer[2]; /* thread -> main: 1 opened, 0 refused with EACCES, 2 other error */
};

static const char *const probe_paths[] = {secret, job_so, other_so};
enum { P_SECRET, P_JOB, P_OTHER };

static int try_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == EACCES ? 0 : 2;
}

static void *early_main(void *arg)
{
	struct early *e = arg;
	int k;
	while (read(e->ask[0], &k, sizeof(k)) == (ssize_t)sizeof(k) && k >= 0) {
		int r = try_open(probe_paths[k]);
		if (write(e->answer[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			break;
	}
	return NULL;
}

static int early_start(struct early *e)
{
	if (pipe(e->ask) || pipe(e->answer))
		return -1;
	return pthread_create(&e->thread, NULL, early_main, e) ? -1 : 0;
}

/* What the early thread gets opening probe_paths[k]; -1 if it is gone. */
static int early_open(struct early *e, int k)
{
	int r = -1;
	if (write(e->ask[1], &k, sizeof(k)) != (ssize_t)sizeof(k) ||
	    read(e->answer[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
		return -1;
	return r;
}

/* ---- the two rulesets, in a worker's order ---- */

static int before_driver(int *abi)
{
	const char *dirs[2], *extra[] = {objs, NULL};
	nodus_sandbox_opts o;
	nodus_error err;
	nodus_sandbox_opts_cuda(&o, NULL, work, dirs);
	if (nodus_sandbox_before_driver(&o, extra, abi, &err)) {
		dprintf(2, "before_driver: %s\n", err.message);
		return -1;
	}
	return 0;
}

static int job_ruleset(nodus_sandbox_state *sb, int driver_confined)
{
	const char *dirs[2], *files[] = {job_so, NULL};
	nodus_sandbox_opts o;
	nodus_error err;
	nodus_sandbox_opts_cuda(&o, files, work, dirs);
	o.driver_confined = driver_confined;
	if (nodus_sandbox_prepare(sb, &o, &err)) {
		dprintf(2, "prepare: %s\n", err.message);
		return -1;
	}
	return 0;
}

/* Runs fn in a forked child; returns its exit code (-1: it did not exit). */
static int in_child(int (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir(work))
			_exit(99);
		_exit(fn());
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 1. */
static int hole_without(void)
{
	static nodus_sandbox_state sb;
	struct early e;
	if (early_start(&e))
		return 1;
	if (job_ruleset(&sb, 0))
		return 2;
	if (try_open(secret) != 0)
		return 3; /* the loading thread is confined */
	if (sb.landlock_tsync)
		return early_open(&e, P_SECRET) == 0 ? 0 : 4; /* TSYNC closes it */
	return early_open(&e, P_SECRET) == 1 ? 0 : 5; /* the hole */
}

static void test_hole_without(void **state)
{
	(void)state;
	if (nodus_landlock_abi() < 1)
		skip();
	assert_int_equal(in_child(hole_without), 0);
}

/* 2. */
static int covered_with(void)
{
	static nodus_sandbox_state sb;
	struct early e;
	int abi = 0;
	if (before_driver(&abi) || abi < 1)
		return 1;
	if (early_start(&e)) /* the driver's thread, made at context creation */
		return 2;
	if (job_ruleset(&sb, 1))
		return 3;
	if (!sb.driver_confined)
		return 4;
	if (early_open(&e, P_SECRET) != 0)
		return 5; /* the early thread: in the pre-driver domain */
	if (try_open(secret) != 0 || try_open(other_so) != 0)
		return 6; /* the loading thread: the job's domain */
	if (try_open(job_so) != 1 || early_open(&e, P_JOB) != 1)
		return 7;
	/* the cache: the early thread's only without TSYNC */
	if (early_open(&e, P_OTHER) != (sb.landlock_tsync ? 0 : 1))
		return 8;
	return 0;
}

static void test_covered_with(void **state)
{
	(void)state;
	if (nodus_landlock_abi() < 1)
		skip();
	assert_int_equal(in_child(covered_with), 0);
}

/* 3. */
static int refused_when_threaded(void)
{
	struct early e;
	if (early_start(&e))
		return 1;
	const char *dirs[2], *extra[] = {objs, NULL};
	nodus_sandbox_opts o;
	nodus_error err;
	int abi = -1;
	nodus_sandbox_opts_cuda(&o, NULL, work, dirs);
	int rc = nodus_sandbox_before_driver(&o, extra, &abi, &err);
	if (rc != NODUS_EINTERNAL || abi != 0)
		return 2;
	if (!strstr(err.message, "2 threads already")) {
		dprintf(2, "message: %s\n", err.message);
		return 3;
	}
	return try_open(secret) == 1 ? 0 : 4; /* nothing was put on */
}

static void test_refused_when_threaded(void **state)
{
	(void)state;
	assert_int_equal(in_child(refused_when_threaded), 0);
}

/* 4. the profile's options: the MPS pipe directory when it is set */
static void test_opts_cuda(void **state)
{
	(void)state;
	const char *dirs[2], *files[] = {job_so, NULL};
	nodus_sandbox_opts o;
	unsetenv("CUDA_MPS_PIPE_DIRECTORY");
	nodus_sandbox_opts_cuda(&o, files, work, dirs);
	assert_int_equal(o.cuda, 1);
	assert_ptr_equal(o.read_files, files);
	assert_string_equal(o.write_dir, work);
	assert_null(o.cuda_dirs);
	assert_int_equal(o.driver_confined, 0);
	setenv("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nodus-mps-pipe", 1);
	nodus_sandbox_opts_cuda(&o, files, work, dirs);
	unsetenv("CUDA_MPS_PIPE_DIRECTORY");
	assert_non_null(o.cuda_dirs);
	assert_string_equal(o.cuda_dirs[0], "/tmp/nodus-mps-pipe");
	assert_null(o.cuda_dirs[1]);
}

int main(void)
{
	/* the ruleset before the driver is opt-in (sandbox.c): on here */
	setenv("NODUS_CUDA_PREDRIVER_LANDLOCK", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hole_without),
		cmocka_unit_test(test_covered_with),
		cmocka_unit_test(test_refused_when_threaded),
		cmocka_unit_test(test_opts_cuda),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
