/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-exec.c: unit tests of src/exec/ child.c and ipc.c.
 *
 * What a caller relies on: exit codes and 128+signal come back from
 * finish; a missing program is an error from start with a message, not a
 * child that exits 127; killing a child kills what it started; rlimits are
 * in force in the child; only fds 0..3 reach it (and 4 when shared); frames survive the result
 * pipe intact at 0 bytes, 1 byte and 5 MB; a silent worker costs the reader
 * its deadline and no more; EOF and garbage are told apart.
 *
 * Some tests re-execute this binary (/proc/self/exe) in a helper mode
 * chosen by argv[1] (see main()), to have a child whose behaviour is known.
 * The test process makes itself a child subreaper, so grandchildren
 * orphaned by a kill are re-parented to it and can be reaped and checked.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/exec.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define MS (1000000ull)

/* ---- helpers ---- */

static int run_argv(const char *const *argv, nodus_child_opts *opts)
{
	nodus_child c;
	nodus_error err;
	opts->argv = argv;
	int rc = nodus_child_start(&c, opts, &err);
	if (rc)
		fail_msg("start %s: %s", argv[0], err.message);
	return nodus_child_finish(&c);
}

/* Reads fd until EOF or timeout_ms, appending to b. Returns 0 at EOF. */
static int read_until_eof(int fd, nodus_buf *b, int timeout_ms)
{
	uint64_t deadline = nodus_now_ns() + (uint64_t)timeout_ms * MS;
	char chunk[4096];
	for (;;) {
		uint64_t now = nodus_now_ns();
		if (now >= deadline)
			return -1;
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, (int)((deadline - now) / MS) + 1) <= 0)
			continue;
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			assert_int_equal(nodus_buf_add(b, chunk, (size_t)n), 0);
	}
}

/* Reads one '\n'-terminated line (without the newline) from fd. */
static void read_line(int fd, char *out, size_t out_size, int timeout_ms)
{
	uint64_t deadline = nodus_now_ns() + (uint64_t)timeout_ms * MS;
	size_t len = 0;
	while (len + 1 < out_size) {
		uint64_t now = nodus_now_ns();
		assert_true(now < deadline);
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, (int)((deadline - now) / MS) + 1) <= 0)
			continue;
		char ch;
		ssize_t n = read(fd, &ch, 1);
		assert_true(n == 1);
		if (ch == '\n')
			break;
		out[len++] = ch;
	}
	out[len] = '\0';
}

/* Reaps a grandchild re-parented to us; returns its wait status, or -1 if
 * it is still running after timeout_ms. */
static int reap_orphan(pid_t pid, int timeout_ms)
{
	uint64_t deadline = nodus_now_ns() + (uint64_t)timeout_ms * MS;
	while (nodus_now_ns() < deadline) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		struct timespec ts = {0, 10 * (long)MS};
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* The state letter of /proc/PID/stat (R, S, Z ...), 0 when there is no
 * such process. */
static char process_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* ---- starting and finishing ---- */

static void test_exit_codes(void **state)
{
	(void)state;
	nodus_child_opts o = {0};
	assert_int_equal(run_argv((const char *const[]){"/bin/true", NULL}, &o), 0);
	assert_int_equal(run_argv((const char *const[]){"/bin/false", NULL}, &o), 1);
	/* a bare name is looked up in PATH */
	assert_int_equal(run_argv((const char *const[]){"false", NULL}, &o), 1);
	assert_int_equal(run_argv((const char *const[]){"/bin/sh", "-c", "exit 42", NULL}, &o), 42);
}

static void test_signal_death(void **state)
{
	(void)state;
	nodus_child_opts o = {.rlimit_core = -1};
	const char *const argv[] = {"/bin/sh", "-c", "kill -SEGV $$", NULL};
	assert_int_equal(run_argv(argv, &o), 128 + SIGSEGV);
}

static void test_missing_program(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_child_opts o = {0};

	/* with a slash: execve() fails in the child, reported over the pipe */
	o.argv = (const char *const[]){"/nonexistent/nodus-no-such-program", NULL};
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_ECHILD);
	assert_string_equal(err.message,
			    "cannot run '/nonexistent/nodus-no-such-program': No such file or directory");
	assert_int_equal(c.pid, -1);

	/* without: the PATH lookup fails before fork */
	o.argv = (const char *const[]){"nodus-no-such-program", NULL};
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_ECHILD);
	assert_string_equal(err.message,
			    "cannot run 'nodus-no-such-program': No such file or directory");

	/* exists but is not executable */
	o.argv = (const char *const[]){"/etc/passwd", NULL};
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_ECHILD);
	assert_string_equal(err.message, "cannot run '/etc/passwd': Permission denied");

	o.argv = (const char *const[]){"/bin/true", NULL};
	o.cwd = "/nonexistent-dir";
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_ECHILD);
	assert_string_equal(err.message, "cannot run '/bin/true': cannot change to "
					 "'/nonexistent-dir': No such file or directory");
	/* a failed start leaves no child behind */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_bad_options(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_child_opts o = {.argv = (const char *const[]){NULL}};
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_EINVAL);
	o.argv = (const char *const[]){"/bin/true", NULL};
	o.rlimit_cpu_s = -5;
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_EINVAL);
	assert_string_equal(err.message, "RLIMIT_CPU: expected a value >= 0, got -5");
}

static void test_cwd_env_stdio(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_buf out = NODUS_BUF_INIT;
	nodus_child_opts o = {
		.argv = (const char *const[]){"/bin/sh", "-c", "read x; echo \"$x $NODUS_T $(pwd)\"",
					      NULL},
		.env = (const char *const[]){"NODUS_T=env-ok", "PATH=/usr/bin:/bin", NULL},
		.cwd = "/tmp",
		.stdin_fd = -1,
		.stdout_fd = -1,
		.stderr_fd = -2,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_true(c.in_fd >= 0 && c.out_fd >= 0);
	assert_int_equal(c.err_fd, -1);
	assert_int_equal(c.result_fd, -1);
	assert_int_equal(write(c.in_fd, "hello\n", 6), 6);
	assert_int_equal(read_until_eof(c.out_fd, &out, 5000), 0);
	assert_string_equal(out.data, "hello env-ok /tmp\n");
	assert_int_equal(nodus_child_finish(&c), 0);
	assert_int_equal(c.pid, -1);
	assert_int_equal(c.out_fd, -1);
	nodus_buf_release(&out);
}

/* A worker's own directory (cwd, HOME, TMPDIR), its minimal environment
 * (nothing of ours unless named), its own session; the directory is gone
 * after finish, and removing it follows no symlink out of it. */
static void test_private_dir_minimal_env_session(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_buf out = NODUS_BUF_INIT;
	char outside[] = "/tmp/nodus-test-outside.XXXXXX";
	assert_non_null(mkdtemp(outside));
	char keep[128];
	snprintf(keep, sizeof(keep), "%s/keep", outside);
	int kfd = open(keep, O_WRONLY | O_CREAT, 0600);
	assert_true(kfd >= 0);
	close(kfd);
	setenv("NODUS_T_SECRET", "do-not-pass", 1);
	setenv("NODUS_T_NAMED", "named-ok", 1);
	setenv("NODUS_T_LISTED", "listed-ok", 1);
	setenv("NODUS_WORKER_ENV", "NODUS_T_LISTED,NODUS_T_UNSET", 1);
	char script[512];
	snprintf(script, sizeof(script),
		 "echo \"$(pwd)|$HOME|$TMPDIR|$LANG|${NODUS_T_SECRET-unset}|$NODUS_T_NAMED|"
		 "$NODUS_T_LISTED|$NODUS_T_ADDED${NODUS_T_UNNAMED-}|$(ls -A | wc -l)|$(cut -d' ' -f6 /proc/self/stat)|$$\"; "
		 "mkdir sub; touch sub/f; ln -s %s link; ln -s %s sub/link", outside, outside);
	nodus_child_opts o = {
		.argv = (const char *const[]){"/bin/sh", "-c", script, NULL},
		/* values for named variables only: an unnamed entry is not passed */
		.env = (const char *const[]){"NODUS_T_ADDED=added-ok", "NODUS_T_UNNAMED=no", NULL},
		.env_pass = (const char *const[]){"NODUS_T_NAMED", "NODUS_T_ADDED", NULL},
		.private_dir = 1,
		.minimal_env = 1,
		.new_session = 1,
		.stdout_fd = -1,
		.stderr_fd = -2,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	char dir[sizeof(c.dir)];
	snprintf(dir, sizeof(dir), "%s", c.dir);
	assert_true(strstr(dir, "nodus-worker.") != NULL);
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(read_until_eof(c.out_fd, &out, 5000), 0);
	assert_int_equal(nodus_child_finish(&c), 0);
	unsetenv("NODUS_T_SECRET");
	unsetenv("NODUS_T_NAMED");
	unsetenv("NODUS_T_LISTED");
	unsetenv("NODUS_WORKER_ENV");
	char want[1024];
	/* the shell is its session's leader: field 6 of stat (session) is its pid */
	char *bar = strrchr(out.data, '|');
	assert_non_null(bar);
	char pid[32];
	snprintf(pid, sizeof(pid), "%.*s", (int)strcspn(bar + 1, "\n"), bar + 1);
	snprintf(want, sizeof(want), "%s|%s|%s|C|unset|named-ok|listed-ok|added-ok|0|%s|%s\n", dir,
		 dir, dir, pid, pid);
	assert_string_equal(out.data, want);
	/* gone after finish, and nothing outside it followed */
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(stat(keep, &st), 0);
	unlink(keep);
	rmdir(outside);
	nodus_buf_release(&out);
}

/* A child that is not on the live list (what a worker orphans comes to a
 * subreaper like that) is killed and reaped; a listed one is left alone. */
static void test_reap_strays(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_child_opts o = {
		.argv = (const char *const[]){"/bin/sleep", "30", NULL},
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	fflush(NULL);
	pid_t stray = fork();
	assert_true(stray >= 0);
	if (stray == 0) {
		setsid(); /* out of every group nodus knows */
		pause();
		_exit(0);
	}
	assert_true(nodus_exec_reap_strays() >= 1);
	errno = 0;
	assert_int_equal(kill(stray, 0), -1); /* reaped: the pid is gone */
	assert_int_equal(errno, ESRCH);
	assert_int_equal(kill(c.pid, 0), 0); /* the listed child lives on */
	nodus_child_kill(&c);
	assert_int_equal(nodus_child_finish(&c), 128 + SIGKILL);
}

static void test_only_std_fds_inherited(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_buf out = NODUS_BUF_INIT;
	/* an fd the parent forgot to mark close-on-exec */
	int leak = open("/dev/null", O_RDONLY);
	assert_true(leak >= 0);
	nodus_child_opts o = {
		.argv = (const char *const[]){"/proc/self/exe", "--helper-fds", NULL},
		.stdin_fd = -2, /* whatever the test runner left at 0 and 2 */
		.stdout_fd = -1,
		.stderr_fd = -2,
		.want_result_pipe = 1,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_int_equal(read_until_eof(c.out_fd, &out, 10000), 0);
	assert_string_equal(out.data, "0 1 2 3\n");
	assert_int_equal(nodus_child_finish(&c), 0);

	nodus_buf_reset(&out);
	o.want_result_pipe = 0;
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_int_equal(read_until_eof(c.out_fd, &out, 10000), 0);
	assert_string_equal(out.data, "0 1 2\n");
	assert_int_equal(nodus_child_finish(&c), 0);

	/* share_fd: our fd (not at 4 here) is the child's fd 4, and the
	 * child writes through it into the very file we hold */
	int made = memfd_create("test-share", MFD_CLOEXEC);
	assert_true(made >= 0);
	int shared = fcntl(made, F_DUPFD_CLOEXEC, 10); /* anywhere but 4 */
	assert_true(shared >= 10);
	close(made);
	nodus_buf_reset(&out);
	o.want_result_pipe = 1;
	o.share_fd = shared;
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_int_equal(read_until_eof(c.out_fd, &out, 10000), 0);
	assert_string_equal(out.data, "0 1 2 3 4\n");
	assert_int_equal(nodus_child_finish(&c), 0);
	char got[16] = {0};
	assert_int_equal(pread(shared, got, sizeof(got) - 1, 0), 9);
	assert_string_equal(got, "via fd 4\n");

	/* a shared fd needs the result pipe (fd 3 would be a hole) */
	o.want_result_pipe = 0;
	assert_int_equal(nodus_child_start(&c, &o, &err), NODUS_EINVAL);
	assert_non_null(strstr(err.message, "share_fd"));
	close(shared);
	close(leak);
	nodus_buf_release(&out);
}

/* ---- killing ---- */

static void test_kill_reaches_grandchild(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	char line[32];
	nodus_child_opts o = {
		.argv = (const char *const[]){"/bin/sh", "-c", "sleep 100 & echo $!; sleep 100",
					      NULL},
		.stdout_fd = -1,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	read_line(c.out_fd, line, sizeof(line), 5000);
	pid_t grandchild = (pid_t)atoi(line);
	assert_true(grandchild > 0);
	assert_int_equal(kill(grandchild, 0), 0);

	nodus_child_kill(&c);
	nodus_child_kill(&c); /* safe twice */
	assert_int_equal(nodus_child_finish(&c), 128 + SIGKILL);

	/* sh is gone, so sleep was re-parented to us (subreaper) */
	int st = reap_orphan(grandchild, 20000); /* generous: a loaded CI machine */
	if (st == -1)
		kill(grandchild, SIGKILL);
	assert_int_not_equal(st, -1);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_int_equal(kill(grandchild, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_finish_timeout(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_child_opts o = {.argv = (const char *const[]){"sleep", "100", NULL}};

	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	uint64_t t0 = nodus_now_ns();
	assert_int_equal(nodus_child_finish_timeout(&c, 200), 128 + SIGKILL);
	uint64_t took_ms = (nodus_now_ns() - t0) / MS;
	assert_in_range(took_ms, 200, 3000);

	o.argv = (const char *const[]){"/bin/sh", "-c", "exit 7", NULL};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_int_equal(nodus_child_finish_timeout(&c, 10000), 7);
	assert_int_equal(nodus_child_finish(&c), -1); /* not running any more */
}

static void test_kill_all(void **state)
{
	(void)state;
	nodus_child a, b;
	nodus_error err;
	nodus_child_opts o = {.argv = (const char *const[]){"sleep", "100", NULL}};
	assert_int_equal(nodus_child_start(&a, &o, &err), 0);
	assert_int_equal(nodus_child_start(&b, &o, &err), 0);
	nodus_exec_kill_all();
	assert_int_equal(nodus_child_finish_timeout(&a, 5000), 128 + SIGKILL);
	assert_int_equal(nodus_child_finish_timeout(&b, 5000), 128 + SIGKILL);
}

/* The helper installs the handlers, starts a shell that starts `sleep 100`
 * and waits; SIGTERM to the helper alone must take the whole group of the
 * shell down with it, the sleep included. */
static void test_signal_handler_kills_children(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	char line[32];
	nodus_child_opts o = {
		.argv = (const char *const[]){"/proc/self/exe", "--helper-sigterm", NULL},
		.stdout_fd = -1,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	read_line(c.out_fd, line, sizeof(line), 10000);
	pid_t grandchild = (pid_t)atoi(line);
	assert_true(grandchild > 0);
	assert_int_equal(kill(c.pid, SIGTERM), 0);
	/* re-raised with the default action: the helper dies of SIGTERM */
	assert_int_equal(nodus_child_finish_timeout(&c, 10000), 128 + SIGTERM);
	/* generous: a loaded CI machine. The grandchild comes to us (a
	 * subreaper) once its shell is dead; should it have been reaped
	 * elsewhere, or still be a zombie of a dying parent, it was killed
	 * all the same, which is what this test is about. */
	uint64_t deadline = nodus_now_ns() + (uint64_t)20000 * MS;
	int st = -1, gone = 0;
	char seen = '?';
	while (nodus_now_ns() < deadline) {
		if (waitpid(grandchild, &st, WNOHANG) == grandchild)
			break;
		st = -1;
		seen = process_state(grandchild);
		if (seen == 0 || seen == 'Z') {
			gone = 1;
			break;
		}
		struct timespec ts = {0, 10 * (long)MS};
		nanosleep(&ts, NULL);
	}
	if (st == -1 && !gone) {
		kill(grandchild, SIGKILL);
		fail_msg("the grandchild %d is still alive 20 s after its group's leader died "
			 "(state %c)",
			 (int)grandchild, seen);
	}
	if (!gone) {
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGKILL);
	}
}

/* ---- limits ---- */

static void test_rlimits_in_force(void **state)
{
	(void)state;
	nodus_child c;
	nodus_error err;
	nodus_buf out = NODUS_BUF_INIT;
	nodus_child_opts o = {
		.argv = (const char *const[]){"/bin/sh", "-c",
					      "ulimit -v; ulimit -n; ulimit -c; ulimit -t; ulimit -f",
					      NULL},
		.stdout_fd = -1,
		.rlimit_as_bytes = 512ll << 20,
		.rlimit_nofile = 64,
		.rlimit_core = -1,
		.rlimit_cpu_s = 30,
		.rlimit_fsize_bytes = 1 << 20,
	};
	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_int_equal(read_until_eof(c.out_fd, &out, 5000), 0);
	/* sh reports -v in KiB and -f in 512-byte blocks */
	assert_string_equal(out.data, "524288\n64\n0\n30\n2048\n");
	assert_int_equal(nodus_child_finish(&c), 0);
	nodus_buf_release(&out);
}

/* Runs an allocation of alloc_mb MiB under a 512 MiB RLIMIT_AS. An
 * instrumented binary cannot run under any RLIMIT_AS (ASan reserves
 * terabytes of address space for its shadow), so the ASan build allocates
 * in an uninstrumented python3 instead of in this binary. */
static int alloc_under_limit(int alloc_mb)
{
	char arg[64];
	nodus_child_opts o = {.rlimit_as_bytes = 512ll << 20, .rlimit_core = -1, .stderr_fd = -2};
	if (UNDER_ASAN) {
		snprintf(arg, sizeof(arg), "bytearray(%d << 20)", alloc_mb);
		return run_argv((const char *const[]){"python3", "-c", arg, NULL}, &o);
	}
	snprintf(arg, sizeof(arg), "%d", alloc_mb);
	return run_argv((const char *const[]){"/proc/self/exe", "--helper-alloc", arg, NULL}, &o);
}

static void test_rlimit_as_stops_allocation(void **state)
{
	(void)state;
	if (UNDER_ASAN && access("/usr/bin/python3", X_OK) != 0) {
		print_message("skipped: ASan build and no /usr/bin/python3 to allocate in\n");
		skip();
	}
	/* control: the helper itself runs fine under the limit */
	assert_int_equal(alloc_under_limit(64), 0);
	int code = alloc_under_limit(2048);
	print_message("2 GiB under a 512 MiB RLIMIT_AS: exit %d\n", code);
	assert_int_not_equal(code, 0);
}

/* ---- frames over the result pipe ---- */

static void roundtrip(nodus_child *c, uint32_t type, const unsigned char *data, uint64_t len)
{
	nodus_buf got = NODUS_BUF_INIT;
	uint32_t got_type = 0;
	assert_int_equal(nodus_ipc_write(c->in_fd, type, data, len), 0);
	assert_int_equal(nodus_ipc_read(c->result_fd, &got_type, &got, nodus_now_ns() + 20000 * MS),
			 0);
	assert_int_equal(got_type, type);
	assert_int_equal(got.len, len);
	assert_true(len == 0 || memcmp(got.data, data, len) == 0);
	assert_int_equal(got.data[got.len], '\0');
	nodus_buf_release(&got);
}

static void echo_roundtrip(const char *mode)
{
	nodus_child c;
	nodus_error err;
	nodus_child_opts o = {
		.argv = (const char *const[]){"/proc/self/exe", mode, NULL},
		.stdin_fd = -1,
		.want_result_pipe = 1,
	};
	size_t big = 5u << 20;
	unsigned char *data = malloc(big);
	assert_non_null(data);
	for (size_t i = 0; i < big; i++)
		data[i] = (unsigned char)(i * 31 + 7);

	assert_int_equal(nodus_child_start(&c, &o, &err), 0);
	assert_true(c.result_fd >= 0);
	roundtrip(&c, 1, NULL, 0);
	roundtrip(&c, 2, data, 1);
	roundtrip(&c, 0xfffffffeu, data, big);
	close(c.in_fd); /* clean EOF: the helper exits 0 */
	c.in_fd = -1;
	nodus_buf tail = NODUS_BUF_INIT;
	uint32_t type;
	assert_int_equal(nodus_ipc_read(c.result_fd, &type, &tail, nodus_now_ns() + 10000 * MS),
			 NODUS_ENOTFOUND);
	assert_int_equal(nodus_child_finish(&c), 0);
	free(data);
}

static void test_result_pipe_roundtrip(void **state)
{
	(void)state;
	echo_roundtrip("--helper-echo");
}

/* ---- frame reader edge cases ---- */

static void test_ipc_deadline(void **state)
{
	(void)state;
	int p[2];
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type;
	assert_int_equal(pipe(p), 0);

	uint64_t t0 = nodus_now_ns();
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, t0 + 200 * MS), NODUS_ETIMEOUT);
	uint64_t took_ms = (nodus_now_ns() - t0) / MS;
	assert_in_range(took_ms, 200, 1200);

	/* half a header, then silence: still the deadline, not a hang */
	assert_int_equal(write(p[1], "NDS1abc", 7), 7);
	t0 = nodus_now_ns();
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, t0 + 150 * MS), NODUS_ETIMEOUT);
	took_ms = (nodus_now_ns() - t0) / MS;
	assert_in_range(took_ms, 150, 1150);

	/* a deadline already past returns at once */
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, 1), NODUS_ETIMEOUT);
	close(p[0]);
	close(p[1]);
}

static void test_ipc_eof(void **state)
{
	(void)state;
	int p[2];
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type;

	assert_int_equal(pipe(p), 0);
	close(p[1]);
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, 0), NODUS_ENOTFOUND);
	close(p[0]);

	/* EOF inside the header */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "NDS1", 4), 4);
	close(p[1]);
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, 0), NODUS_EIO);
	close(p[0]);

	/* EOF inside the payload: a frame announcing 10 bytes, with 3 */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(nodus_ipc_write(p[1], 5, "0123456789", 10), 0);
	close(p[1]);
	int trunc[2];
	assert_int_equal(pipe(trunc), 0);
	char raw[32];
	assert_int_equal(read(p[0], raw, sizeof(raw)), 26);
	assert_int_equal(write(trunc[1], raw, 19), 19);
	close(trunc[1]);
	assert_int_equal(nodus_ipc_read(trunc[0], &type, &b, 0), NODUS_EIO);
	close(trunc[0]);
	close(p[0]);
	nodus_buf_release(&b);
}

static void test_ipc_bad_frames(void **state)
{
	(void)state;
	int p[2];
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type = 0;
	unsigned char head[16] = {'N', 'D', 'S', '2', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], head, 16), 16);
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, 0), NODUS_EIO);
	close(p[0]);
	close(p[1]);

	/* right magic, length above the cap: refused before reading on */
	assert_int_equal(pipe(p), 0);
	head[3] = '1';
	uint64_t len = NODUS_IPC_MAX_FRAME + 1;
	for (int i = 0; i < 8; i++)
		head[8 + i] = (unsigned char)(len >> (8 * i));
	assert_int_equal(write(p[1], head, 16), 16);
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, nodus_now_ns() + 1000 * MS), NODUS_EIO);
	close(p[0]);
	close(p[1]);

	/* the wire format is little-endian with magic "NDS1" */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(nodus_ipc_write(p[1], 0x01020304u, "x", 1), 0);
	unsigned char raw[17];
	assert_int_equal(read(p[0], raw, sizeof(raw)), 17);
	const unsigned char want[17] = {'N', 'D', 'S', '1', 4, 3, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 'x'};
	assert_memory_equal(raw, want, 17);
	close(p[0]);
	close(p[1]);
	nodus_buf_release(&b);
}

/* A frame written in two parts is one frame, byte for byte the frame of
 * the parts written together (the worker sends an output's header and its
 * data this way, without copying them into one buffer). */
static void test_ipc_write_two_parts(void **state)
{
	(void)state;
	int p[2];
	unsigned char one[64], two[64];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(nodus_ipc_write(p[1], 9, "head+body bytes", 15), 0);
	assert_int_equal(read(p[0], one, sizeof(one)), 31);
	assert_int_equal(nodus_ipc_write2(p[1], 9, "head+", 5, "body bytes", 10), 0);
	assert_int_equal(read(p[0], two, sizeof(two)), 31);
	assert_memory_equal(one, two, 31);
	/* either part may be empty; a missing part with a length is refused */
	assert_int_equal(nodus_ipc_write2(p[1], 9, NULL, 0, "x", 1), 0);
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type = 0;
	assert_int_equal(nodus_ipc_read(p[0], &type, &b, 0), 0);
	assert_int_equal(type, 9);
	assert_int_equal(b.len, 1);
	assert_int_equal(nodus_ipc_write2(p[1], 9, "a", 1, NULL, 3), NODUS_EINVAL);
	assert_int_equal(nodus_ipc_write2(p[1], 9, "a", 1, "b", NODUS_IPC_MAX_FRAME), NODUS_EINVAL);
	nodus_buf_release(&b);
	close(p[0]);
	close(p[1]);
}

static void test_ipc_write_to_closed_pipe(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	/* SIGPIPE keeps its default (fatal) action; the write must not raise it */
	assert_true(signal(SIGPIPE, SIG_DFL) != SIG_ERR);
	assert_int_equal(nodus_ipc_write(p[1], 1, "abc", 3), NODUS_EIO);
	sigset_t pending;
	sigpending(&pending);
	assert_int_equal(sigismember(&pending, SIGPIPE), 0);
	close(p[1]);
	assert_int_equal(nodus_ipc_write(-1, 1, NULL, 0), NODUS_EIO);
	assert_int_equal(nodus_ipc_write(1, 1, NULL, 5), NODUS_EINVAL);
}

/* ---- helper modes ---- */

static int helper_alloc(const char *mb_text)
{
	size_t bytes = (size_t)atol(mb_text) << 20;
	volatile unsigned char *p = malloc(bytes);
	if (!p)
		return 3;
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = (unsigned char)i;
	free((void *)p);
	return 0;
}

static int helper_fds(void)
{
	char out[256] = "";
	size_t len = 0;
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%d", len ? " " : "",
						fd);
	if (fcntl(4, F_GETFD) != -1 && pwrite(4, "via fd 4\n", 9, 0) != 9)
		return 3;
	dprintf(1, "%s\n", out);
	return 0;
}

/* Echoes frames from stdin to fd 3 until a clean EOF. */
static int helper_echo(void)
{
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type;
	for (;;) {
		int rc = nodus_ipc_read(0, &type, &b, 0);
		if (rc == NODUS_ENOTFOUND)
			break;
		if (rc)
			return 2;
		if (nodus_ipc_write(3, type, b.data, b.len))
			return 4;
	}
	nodus_buf_release(&b);
	return 0;
}

/* Starts a shell that starts `sleep 100` and prints its pid to our
 * stdout, then waits for a signal. */
static int helper_sigterm(void)
{
	nodus_child c;
	nodus_error err;
	nodus_child_opts o = {
		.argv = (const char *const[]){"/bin/sh", "-c", "sleep 100 & echo $!; sleep 100",
					      NULL},
	};
	nodus_exec_install_signal_handlers();
	if (nodus_child_start(&c, &o, &err))
		return 9;
	for (;;)
		pause();
}

static int run_helper(int argc, char **argv)
{
	if (strcmp(argv[1], "--helper-alloc") == 0 && argc > 2)
		return helper_alloc(argv[2]);
	if (strcmp(argv[1], "--helper-fds") == 0)
		return helper_fds();
	if (strcmp(argv[1], "--helper-echo") == 0)
		return helper_echo();
	if (strcmp(argv[1], "--helper-sigterm") == 0)
		return helper_sigterm();
	return 99;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strncmp(argv[1], "--helper-", 9) == 0)
		return run_helper(argc, argv);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_signal_death),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_cwd_env_stdio),
		cmocka_unit_test(test_only_std_fds_inherited),
		cmocka_unit_test(test_private_dir_minimal_env_session),
		cmocka_unit_test(test_reap_strays),
		cmocka_unit_test(test_kill_reaches_grandchild),
		cmocka_unit_test(test_finish_timeout),
		cmocka_unit_test(test_kill_all),
		cmocka_unit_test(test_signal_handler_kills_children),
		cmocka_unit_test(test_rlimits_in_force),
		cmocka_unit_test(test_rlimit_as_stops_allocation),
		cmocka_unit_test(test_result_pipe_roundtrip),
		cmocka_unit_test(test_ipc_deadline),
		cmocka_unit_test(test_ipc_eof),
		cmocka_unit_test(test_ipc_bad_frames),
		cmocka_unit_test(test_ipc_write_two_parts),
		cmocka_unit_test(test_ipc_write_to_closed_pipe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
