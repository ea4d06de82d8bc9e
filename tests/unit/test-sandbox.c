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
#include <dlfcn.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
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

static int do_prlimit_parent_fsize(void *a)
{
	(void)a;
	struct rlimit r;
	/* only reads the parent's limit: even if the filter failed nothing is hurt */
	prlimit(getppid(), RLIMIT_FSIZE, NULL, &r);
	return SURVIVED;
}

static int do_prlimit_pid_one(void *a)
{
	(void)a;
	struct rlimit r;
	prlimit(1, RLIMIT_CPU, NULL, &r);
	return SURVIVED;
}

static int do_setpriority_parent(void *a)
{
	(void)a;
	/* getpriority: the same rule, and harmless should it pass */
	errno = 0;
	getpriority(PRIO_PROCESS, (id_t)getppid());
	return SURVIVED;
}

static int do_setpriority_group(void *a)
{
	(void)a;
	getpriority(PRIO_PGRP, 0);
	return SURVIVED;
}

static int do_setpriority_user(void *a)
{
	(void)a;
	getpriority(PRIO_USER, 0);
	return SURVIVED;
}

static int do_setpriority_raise_parent(void *a)
{
	(void)a;
	setpriority(PRIO_PROCESS, (id_t)getppid(), 0);
	return SURVIVED;
}

static int do_sched_affinity_parent(void *a)
{
	(void)a;
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(getppid(), sizeof(set), &set) == 0) /* allowed: reads */
		sched_setaffinity(getppid(), sizeof(set), &set);   /* the same set: harmless */
	return SURVIVED;
}

static int do_sched_param_parent(void *a)
{
	(void)a;
	struct sched_param sp = {0};
	sched_setparam(getppid(), &sp);
	return SURVIVED;
}

static int do_ptrace_attach(void *a)
{
	(void)a;
	ptrace(PTRACE_ATTACH, getppid(), NULL, NULL);
	return SURVIVED;
}

static int do_shmget(void *a)
{
	(void)a;
	shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	return SURVIVED;
}

static int do_semget(void *a)
{
	(void)a;
	semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	return SURVIVED;
}

static int do_msgget(void *a)
{
	(void)a;
	msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	return SURVIVED;
}

static int do_mq_open(void *a)
{
	(void)a;
	mq_open("/nodus-sandbox-test", O_RDONLY);
	return SURVIVED;
}

static int do_keyctl(void *a)
{
	(void)a;
	syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
	return SURVIVED;
}

static int do_io_uring(void *a)
{
	(void)a;
	syscall(SYS_io_uring_setup, 1, NULL);
	return SURVIVED;
}

static int do_mmap_exec(void *a)
{
	(void)a;
	mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return SURVIVED;
}

static int do_mprotect_exec(void *a)
{
	(void)a;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	mprotect(p, 4096, PROT_READ | PROT_EXEC);
	return SURVIVED;
}

static int do_ftruncate(void *a)
{
	(void)a;
	ftruncate(1, 0);
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
		{"prlimit64 on the parent", do_prlimit_parent_fsize},
		{"prlimit64 on pid 1", do_prlimit_pid_one},
		{"getpriority of the parent", do_setpriority_parent},
		{"priority of the process group", do_setpriority_group},
		{"priority of the user", do_setpriority_user},
		{"setpriority of the parent", do_setpriority_raise_parent},
		{"sched_setaffinity on the parent", do_sched_affinity_parent},
		{"sched_setparam on the parent", do_sched_param_parent},
		{"ptrace attach", do_ptrace_attach},
		{"shmget", do_shmget},
		{"semget", do_semget},
		{"msgget", do_msgget},
		{"mq_open", do_mq_open},
		{"keyctl", do_keyctl},
		{"io_uring_setup", do_io_uring},
		{"mmap PROT_EXEC", do_mmap_exec},
		{"mprotect PROT_EXEC", do_mprotect_exec},
		{"ftruncate", do_ftruncate},
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
	/* its own limits, priority and affinity stay its own to change */
	struct rlimit r;
	if (prlimit(0, RLIMIT_NOFILE, NULL, &r) || prlimit(getpid(), RLIMIT_NOFILE, &r, NULL) ||
	    getrlimit(RLIMIT_AS, &r))
		return 7;
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, 0);
	if ((prio == -1 && errno) || setpriority(PRIO_PROCESS, 0, prio) ||
	    setpriority(PRIO_PROCESS, (id_t)getpid(), prio))
		return 8;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) || sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setaffinity(getpid(), sizeof(set), &set))
		return 9;
	/* non-executable mappings and protections */
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, 4096, PROT_READ) || munmap(m, 4096))
		return 10;
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

/* ---- before loading: the load filter, Landlock, the census ---- */

/* Like run_locked, but the child runs nodus_sandbox_prepare() with opts
 * (the stage before dlopen) instead of the full filter. */
static int run_prepared(const nodus_sandbox_opts *o, int (*fn)(nodus_sandbox_state *))
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit none = {0, 0};
		nodus_error err;
		static nodus_sandbox_state sb;
		setrlimit(RLIMIT_CORE, &none);
		if (nodus_sandbox_prepare(&sb, o, &err)) {
			dprintf(2, "prepare: %s\n", err.message);
			_exit(LOCK_FAILED);
		}
		_exit(fn(&sb));
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	return st;
}

static const nodus_sandbox_opts cpu_opts = {.write_dir = "/tmp"};
static const nodus_sandbox_opts cuda_opts = {.cuda = 1, .write_dir = "/tmp"};

/* what the dynamic loader does: read-only opens, executable mappings */
static int do_loader_things(nodus_sandbox_state *sb)
{
	(void)sb;
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	close(fd);
	void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		dprintf(2, "dlopen: %s\n", dlerror());
		return 2;
	}
	if (!dlsym(h, "crc32"))
		return 3;
	void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 4;
	return SURVIVED;
}

static int do_open_for_writing(nodus_sandbox_state *sb)
{
	(void)sb;
	open("/tmp/nodus-sandbox-test-w", O_WRONLY);
	return SURVIVED;
}

static int do_open_create(nodus_sandbox_state *sb)
{
	(void)sb;
	open("/tmp/nodus-sandbox-test-c", O_RDONLY | O_CREAT, 0600);
	return SURVIVED;
}

static int do_open_rdwr(nodus_sandbox_state *sb)
{
	(void)sb;
	syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
	return SURVIVED;
}

static int do_prepared_fork(nodus_sandbox_state *sb)
{
	(void)sb;
	do_fork(NULL);
	return SURVIVED;
}

static int do_prepared_thread(nodus_sandbox_state *sb)
{
	(void)sb;
	return do_thread(NULL);
}

static int do_prepared_kill_parent(nodus_sandbox_state *sb)
{
	(void)sb;
	return do_kill_parent(NULL);
}

static int do_prepared_prlimit_parent(nodus_sandbox_state *sb)
{
	(void)sb;
	return do_prlimit_parent_fsize(NULL);
}

static int do_prepared_shmget(nodus_sandbox_state *sb)
{
	(void)sb;
	return do_shmget(NULL);
}

static int do_prepared_socket(nodus_sandbox_state *sb)
{
	(void)sb;
	return do_socket(NULL);
}

static int do_prepared_setsid(nodus_sandbox_state *sb)
{
	(void)sb;
	return do_setsid(NULL);
}

/* Landlock: files outside the allowed trees cannot be read at all (the
 * open fails, nothing is killed) */
static int do_read_outside(nodus_sandbox_state *sb)
{
	(void)sb;
	if (open("/etc/passwd", O_RDONLY) >= 0)
		return 1;
	if (errno != EACCES)
		return 2;
	if (open("/proc/self/environ", O_RDONLY) >= 0 || open("/proc/1/cmdline", O_RDONLY) >= 0)
		return 3;
	return SURVIVED;
}

static int do_census_clean(nodus_sandbox_state *sb)
{
	char what[256];
	return nodus_sandbox_check_loaded(sb, what, sizeof(what)) ? 1 : SURVIVED;
}

static int do_census_new_fd(nodus_sandbox_state *sb)
{
	char what[256];
	if (dup(2) < 0)
		return 2;
	if (!nodus_sandbox_check_loaded(sb, what, sizeof(what)))
		return 1;
	return strstr(what, "file descriptor") ? SURVIVED : 3;
}

static void *census_sleeper(void *a)
{
	for (;;)
		pause();
	return a;
}

/* cuda profile: threads may be made (the driver's), and the census names
 * one started after it */
static int do_census_new_thread(nodus_sandbox_state *sb)
{
	char what[256];
	pthread_t t;
	if (pthread_create(&t, NULL, census_sleeper, NULL))
		return 2;
	struct timespec nap = {0, 20000000};
	nanosleep(&nap, NULL);
	if (!nodus_sandbox_check_loaded(sb, what, sizeof(what)))
		return 1;
	return strstr(what, "thread") ? SURVIVED : 3;
}

static void test_load_filter(void **state)
{
	(void)state;
	int st = run_prepared(&cpu_opts, do_loader_things);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
	static const struct {
		const char *name;
		int (*fn)(nodus_sandbox_state *);
	} killed[] = {
		{"open O_WRONLY", do_open_for_writing},
		{"open O_CREAT", do_open_create},
		{"openat O_RDWR", do_open_rdwr},
		{"fork", do_prepared_fork},
		{"pthread_create", do_prepared_thread},
		{"kill(getppid())", do_prepared_kill_parent},
		{"prlimit64 on the parent", do_prepared_prlimit_parent},
		{"shmget", do_prepared_shmget},
		{"socket", do_prepared_socket},
		{"setsid", do_prepared_setsid},
	};
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(killed); i++)
		assert_killed_by(run_prepared(&cpu_opts, killed[i].fn), SIGSYS, killed[i].name);
}

static void test_landlock_reads(void **state)
{
	(void)state;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u);
	if (abi <= 0)
		skip(); /* the kernel has no Landlock: the filters alone hold */
	int st = run_prepared(&cpu_opts, do_read_outside);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
}

static void test_census(void **state)
{
	(void)state;
	int st = run_prepared(&cpu_opts, do_census_clean);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
	st = run_prepared(&cpu_opts, do_census_new_fd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
	st = run_prepared(&cuda_opts, do_census_new_thread);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
}

/* the cuda profile: threads allowed, processes, programs, the network,
 * other processes and SysV IPC still kill */
static void test_cuda_profile(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int (*fn)(nodus_sandbox_state *);
	} killed[] = {
		{"fork", do_prepared_fork},
		{"kill(getppid())", do_prepared_kill_parent},
		{"prlimit64 on the parent", do_prepared_prlimit_parent},
		{"shmget", do_prepared_shmget},
		{"socket AF_INET", do_prepared_socket},
		{"setsid", do_prepared_setsid},
	};
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(killed); i++)
		assert_killed_by(run_prepared(&cuda_opts, killed[i].fn), SIGSYS, killed[i].name);
}

/* mseal: after lockdown the worker's own code cannot be unmapped or made
 * writable (EPERM), and nothing is killed for trying */
static int do_touch_own_code(void *a)
{
	(void)a;
	uintptr_t page = (uintptr_t)&do_touch_own_code & ~(uintptr_t)4095;
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) == 0)
		return 1;
	if (errno != EPERM)
		return 2;
	if (munmap((void *)page, 4096) == 0)
		return 3;
	return SURVIVED;
}

static void test_code_sealed(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#endif
	errno = 0;
	if (syscall(462, 0, 0, 0) != 0 && errno == ENOSYS)
		skip(); /* no mseal before Linux 6.10: W^X alone holds */
	int st = run_locked(do_touch_own_code, NULL);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), SURVIVED);
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
		cmocka_unit_test(test_load_filter),
		cmocka_unit_test(test_landlock_reads),
		cmocka_unit_test(test_census),
		cmocka_unit_test(test_cuda_profile),
		cmocka_unit_test(test_code_sealed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
