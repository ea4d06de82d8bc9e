/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-audit.c: how the audit process confines itself before it loads a
 * reference (nodus__audit_confine, src/audit/audit.c).
 *
 * The cuda path needs no GPU to be checked: it is the cuda workers'
 * profile (nodus_sandbox_opts_cuda + nodus_sandbox_prepare), put on
 * before the reference's dlopen, so this machine can show what it allows
 * and refuses. Each case runs in a forked child (confinement cannot be
 * undone), which answers with its exit status.
 *   1. cuda: the reference's object stays readable, a file beside it is
 *      not (Landlock), threads may be made (the driver's), an fd left
 *      open after "loading" is named by the census, fork and a TCP
 *      socket die of SIGSYS (the cuda filter);
 *   2. NODUS_CUDA_SANDBOX=0 leaves a cuda audit unconfined, as it does
 *      cuda workers;
 *   3. cpu: the object is readable, the file beside it is not.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "audit/audit.h"
#include "exec/landlock.h"

enum { OK = 0, CONFINE_FAILED = 90, SURVIVED = 91 };

static char dir[] = "/tmp/nodus-test-audit-XXXXXX";
static char obj[64], secret[64], work[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(obj, sizeof(obj), "%s/ref.so", dir);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(work, sizeof(work), "%s/work", dir);
	FILE *a = fopen(obj, "w"), *b = fopen(secret, "w");
	if (!a || !b)
		return -1;
	fputs("not really an object\n", a);
	fputs("the reference must not read this\n", b);
	fclose(a);
	fclose(b);
	return mkdir(work, 0700);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void *idle(void *arg)
{
	return arg;
}

/* What the child checks once confined; returns its exit status. */
typedef int (*check_fn)(nodus_sandbox_state *sb);

static int run_confined(int backend, check_fn fn)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		nodus_sandbox_state sb;
		char why[512];
		if (chdir(work) || nodus__audit_confine(&sb, backend, obj, 0, why, sizeof(why))) {
			dprintf(2, "confine: %s\n", why);
			_exit(CONFINE_FAILED);
		}
		_exit(fn(&sb));
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	return st;
}

static void assert_exit(int st, int want, const char *what)
{
	if (!WIFEXITED(st) || WEXITSTATUS(st) != want)
		fail_msg("%s: expected exit %d, got %s %d", what, want,
			 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static void assert_signal(int st, int sig, const char *what)
{
	if (!WIFSIGNALED(st) || WTERMSIG(st) != sig)
		fail_msg("%s: expected signal %d, got %s %d", what, sig,
			 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* the object readable, the file beside it not (where Landlock exists) */
static int reads(nodus_sandbox_state *sb)
{
	(void)sb;
	int fd = open(obj, O_RDONLY);
	if (fd < 0)
		return 1;
	close(fd);
	fd = open(secret, O_RDONLY);
	if (nodus_landlock_abi() > 0 && (fd >= 0 || errno != EACCES))
		return 2;
	return OK;
}

/* the cuda profile: threads are the driver's business, and allowed */
static int thread_and_census(nodus_sandbox_state *sb)
{
	pthread_t t;
	if (pthread_create(&t, NULL, idle, NULL) || pthread_join(t, NULL))
		return 1;
	char what[320];
	if (nodus_sandbox_check_loaded(sb, what, sizeof(what)))
		return 2; /* a thread that ended leaves nothing behind */
	int fd = open(obj, O_RDONLY); /* as a constructor that keeps an fd */
	if (fd < 0 || !nodus_sandbox_check_loaded(sb, what, sizeof(what)))
		return 3;
	if (!strstr(what, "ref.so")) {
		dprintf(2, "census said: %s\n", what);
		return 4;
	}
	return OK;
}

static int forks(nodus_sandbox_state *sb)
{
	(void)sb;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	return SURVIVED;
}

static int tcp_socket(nodus_sandbox_state *sb)
{
	(void)sb;
	socket(AF_INET, SOCK_STREAM, 0);
	return SURVIVED;
}

/* 1. */
static void test_cuda_profile(void **state)
{
	(void)state;
	unsetenv("NODUS_CUDA_SANDBOX");
	assert_exit(run_confined(NODUS_BACKEND_CUDA, reads), OK, "cuda: reads");
	assert_exit(run_confined(NODUS_BACKEND_CUDA, thread_and_census), OK, "cuda: threads, census");
	assert_signal(run_confined(NODUS_BACKEND_CUDA, forks), SIGSYS, "cuda: fork");
	assert_signal(run_confined(NODUS_BACKEND_CUDA, tcp_socket), SIGSYS, "cuda: TCP socket");
}

/* 2. */
static int unconfined(nodus_sandbox_state *sb)
{
	(void)sb;
	int fd = open(secret, O_RDONLY);
	if (fd < 0)
		return 1;
	close(fd);
	pid_t p = fork();
	if (p < 0)
		return 2;
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return OK;
}

static void test_cuda_sandbox_off(void **state)
{
	(void)state;
	setenv("NODUS_CUDA_SANDBOX", "0", 1);
	int st = run_confined(NODUS_BACKEND_CUDA, unconfined);
	unsetenv("NODUS_CUDA_SANDBOX");
	assert_exit(st, OK, "cuda with NODUS_CUDA_SANDBOX=0");
}

/* 3. */
static void test_cpu(void **state)
{
	(void)state;
	assert_exit(run_confined(NODUS_BACKEND_CPU, reads), OK, "cpu: reads");
}

int main(void)
{
	/* the ruleset before the driver is opt-in (sandbox.c): on here */
	setenv("NODUS_CUDA_PREDRIVER_LANDLOCK", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_profile),
		cmocka_unit_test(test_cuda_sandbox_off),
		cmocka_unit_test(test_cpu),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
