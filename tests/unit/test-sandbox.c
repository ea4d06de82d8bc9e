/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-sandbox.c: unit tests of src/exec/sandbox.c.
 *
 * Each case forks a child, which locks itself down and then does one
 * thing. Forbidden things must end the child by SIGSYS (the filter kills
 * the process; nothing in it can catch that). Things a worker needs after
 * lockdown (memory, clocks, writing its result pipe, signalling itself,
 * abort()) must keep working. The last cases run the sandbox in an exec'd
 * worker started through nodus_child_start(), as the orchestrator does.
 *
 * Children leave with _exit(): a sanitizer build's leak check at exit()
 * clones a thread, which the filter forbids.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/exec.h"

#define MS (1000000ull)

/* Exit codes of a locked-down child that survived; anything but 0 says
 * which step went wrong. */
enum {
	SURVIVED = 0,
	LOCK_FAILED = 100,
};

/* Forks; the child drops core dumps (SIGSYS would write one), locks down,
 * runs fn(arg) and exits with its return value. Returns the wait status. */
static int run_locked(int (*fn)(void *), void *arg)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit none = {0, 0};
		nodus_error err;
		setrlimit(RLIMIT_CORE, &none);
		if (nodus_sandbox_lock_down(NULL, &err)) {
			dprintf(2, "lock down: %s\n", err.message);
			_exit(LOCK_FAILED);
		}
		_exit(fn(arg));
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	return st;
}

static void assert_killed_by(int st, int sig, const char *what)
{
	if (WIFEXITED(st))
		fail_msg("%s: expected death by signal %d, got exit %d", what, sig, WEXITSTATUS(st));
	if (WTERMSIG(st) != sig)
		fail_msg("%s: expected death by signal %d, got signal %d", what, sig, WTERMSIG(st));
}

/* ---- forbidden: each must die by SIGSYS ---- */

static int do_fork(void *a)
{
	(void)a;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	return SURVIVED;
}

static int do_open(void *a)
{
	(void)a;
	int fd = open("/etc/passwd", O_RDONLY);
	(void)fd;
	return SURVIVED;
}

static int do_openat_raw(void *a)
{
	(void)a;
	syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY);
	return SURVIVED;
}

static int do_socket(void *a)
{
	(void)a;
	socket(AF_INET, SOCK_STREAM, 0);
	return SURVIVED;
}

static int do_unix_socketpair(void *a)
{
	(void)a;
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	return SURVIVED;
}

static int do_execve(void *a)
{
	(void)a;
	char *const argv[] = {"/bin/true", NULL};
	char *const envp[] = {NULL};
	execve("/bin/true", argv, envp);
	return SURVIVED;
}

static int do_kill_parent(void *a)
{
	(void)a;
	kill(getppid(), 0);
	return SURVIVED;
}

static int do_kill_everyone(void *a)
{
	(void)a;
	/* signal 0 only probes: even if the filter failed nothing is hurt */
	kill(-1, 0);
	return SURVIVED;
}

static int do_kill_pid_one(void *a)
{
	(void)a;
	kill(1, 0);
	return SURVIVED;
}

static int do_tgkill_parent(void *a)
{
	(void)a;
	syscall(SYS_tgkill, getppid(), getppid(), 0);
	return SURVIVED;
}

static int do_tkill_parent(void *a)
{
	(void)a;
	syscall(SYS_tkill, getppid(), 0);
	return SURVIVED;
}

static void *thread_main(void *a)
{
	return a;
}

static int do_thread(void *a)
{
	(void)a;
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, NULL) == 0)
		pthread_join(t, NULL);
	return SURVIVED;
}

static int do_unlink(void *a)
{
	(void)a;
	unlink("/nonexistent/nodus-sandbox-test");
	return SURVIVED;
}

static int do_mkdir(void *a)
{
	(void)a;
	mkdir("/nonexistent/nodus-sandbox-test", 0700);
	return SURVIVED;
}

static int do_setsid(void *a)
{
	(void)a;
	setsid();
	return SURVIVED;
}

static int do_ptrace_peer(void *a)
{
	(void)a;
	char buf[8];
	struct iovec local = {buf, sizeof(buf)}, remote = {buf, sizeof(buf)};
	process_vm_readv(getppid(), &local, 1, &remote, 1, 0);
	return SURVIVED;
}

static void test_forbidden_calls_die_by_sigsys(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int (*fn)(void *);
	} cases[] = {
		{"fork", do_fork},
		{"open /etc/passwd", do_open},
		{"raw openat", do_openat_raw},
		{"socket", do_socket},
		{"socketpair", do_unix_socketpair},
		{"execve", do_execve},
		{"kill(getppid(), 0)", do_kill_parent},
		{"kill(-1, 0)", do_kill_everyone},
		{"kill(1, 0)", do_kill_pid_one},
		{"tgkill on the parent", do_tgkill_parent},
		{"tkill on the parent", do_tkill_parent},
		{"pthread_create", do_thread},
		{"unlink", do_unlink},
		{"mkdir", do_mkdir},
		{"setsid", do_setsid},
		{"process_vm_readv", do_ptrace_peer},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_killed_by(run_locked(cases[i].fn, NULL), SIGSYS, cases[i].name);
}

/* ---- still allowed ---- */

struct pipe_arg {
	int fd; /* write end the child writes to */
};

static int do_worker_things(void *a)
{
	const struct pipe_arg *p = a;
	size_t big = 100u << 20;
	unsigned char *mem = malloc(big);
	if (!mem)
		return 1;
	memset(mem, 0xab, big);
	if (mem[big - 1] != 0xab)
		return 2;
	free(mem);
	struct timespec t0, t1;
	if (clock_gettime(CLOCK_MONOTONIC, &t0))
		return 3;
	struct timespec nap = {0, 1000000};
	if (nanosleep(&nap, NULL))
		return 3;
	if (clock_gettime(CLOCK_MONOTONIC, &t1))
		return 3;
	int64_t slept_ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
	if (slept_ns < 1000000)
		return 4;
	/* signalling itself, or its own group, is allowed */
	if (kill(getpid(), 0) || kill(0, 0) || syscall(SYS_tgkill, getpid(), gettid(), 0) ||
	    syscall(SYS_tkill, gettid(), 0))
		return 5;
	if (nodus_ipc_write(p->fd, 7, "locked", 6))
		return 6;
	return SURVIVED;
}

static void test_worker_needs_still_work(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	struct pipe_arg arg = {fds[1]};
	int st = run_locked(do_worker_things, &arg);
	close(fds[1]);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type = 0;
	assert_int_equal(nodus_ipc_read(fds[0], &type, &b, nodus_now_ns() + 5000 * MS), 0);
	assert_int_equal(type, 7);
	assert_string_equal(b.data, "locked");
	close(fds[0]);
	nodus_buf_release(&b);
}

static int do_abort(void *a)
{
	(void)a;
	abort();
}

static void test_abort_is_sigabrt_not_sigsys(void **state)
{
	(void)state;
	assert_killed_by(run_locked(do_abort, NULL), SIGABRT, "abort()");
}

/* ---- in an exec'd worker ---- */

static void test_sandboxed_worker_round_trip(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type = 0;
	nodus_child_opts o = {
		.argv = (const char *const[]){"/proc/self/exe", "--helper-echo-sandboxed", NULL},
		.stdin_fd = -1,
		.want_result_pipe = 1,
		.rlimit_core = -1,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_int_equal(nodus_ipc_write(c.in_fd, 3, "ping", 4), 0);
	assert_int_equal(nodus_ipc_read(c.result_fd, &type, &b, nodus_now_ns() + 10000 * MS), 0);
	assert_int_equal(type, 3);
	assert_string_equal(b.data, "ping");
	/* the second frame asks the worker to open a file: it dies of SIGSYS,
	 * and the reader sees EOF instead of an answer */
	assert_int_equal(nodus_ipc_write(c.in_fd, 99, NULL, 0), 0);
	assert_int_equal(nodus_ipc_read(c.result_fd, &type, &b, nodus_now_ns() + 10000 * MS),
			 NODUS_ENOTFOUND);
	assert_int_equal(nodus_child_finish(&c), 128 + SIGSYS);
	nodus_buf_release(&b);
}

/* Echoes frames from stdin to fd 3 after lockdown; frame type 99 makes it
 * try to open a file. */
static int helper_echo_sandboxed(void)
{
	nodus_buf b = NODUS_BUF_INIT;
	nodus_error err;
	uint32_t type;
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
	if (nodus_sandbox_lock_down(NULL, &err)) {
		dprintf(2, "lock down: %s\n", err.message);
		_exit(LOCK_FAILED);
	}
	for (;;) {
		int rc = nodus_ipc_read(0, &type, &b, 0);
		if (rc == NODUS_ENOTFOUND)
			break;
		if (rc)
			_exit(2);
		if (type == 99)
			open("/etc/passwd", O_RDONLY);
		if (nodus_ipc_write(3, type, b.data, b.len))
			_exit(4);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--helper-echo-sandboxed") == 0)
		return helper_echo_sandboxed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forbidden_calls_die_by_sigsys),
		cmocka_unit_test(test_worker_needs_still_work),
		cmocka_unit_test(test_abort_is_sigabrt_not_sigsys),
		cmocka_unit_test(test_sandboxed_worker_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
