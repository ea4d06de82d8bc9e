/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * sbx_attack.c: the sandbox attacks of issue 18, for the vector_poly task
 * (suites/adversarial/sandbox; t6100 runs them, docs/sandbox.md has one
 * row per attack).
 *
 * One source, built once per attack: -DSBX_ATTACK=<n> picks the attack,
 * -DSBX_IN_CTOR=1 runs it in an ELF constructor (at dlopen, before the
 * full filter: what the load filter and Landlock must stop), 0 in the
 * first call of the entry (after lockdown). After the attack the entry
 * computes vector_poly correctly, so an attack that is not stopped ends
 * as an honest label, never as the status t6100 expects.
 *
 * An attack that gets something (a secret, a shared directory, a segment
 * from an earlier attempt) reports it the only way a worker can, a FAIL
 * frame on the result pipe (status CRASH, guard "leaked"), which t6100
 * refuses; one that finds nothing gives up by trying to write a file,
 * which must be killed as well. Every process an attack starts is named
 * nodus-sbx-esc, so t6100 can look for survivors.
 * ------------------------------------------------------------------------ */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nodus/solution.h"

#ifndef SBX_ATTACK
#error "build with -DSBX_ATTACK=<n>"
#endif
#ifndef SBX_IN_CTOR
#define SBX_IN_CTOR 0
#endif

enum {
	PRLIMIT_FSIZE = 1, /* prlimit64(parent, RLIMIT_FSIZE, 0): SIGXFSZ at its next write */
	PRLIMIT_CPU,       /* prlimit64(parent, RLIMIT_CPU, 1 s) */
	SETPRIORITY,       /* nice 19 for the parent, then for our user */
	SCHED_AFFINITY,    /* pin the parent to one cpu */
	CONNECT_TCP,       /* connect to 127.0.0.1:47613 (t6100 listens there) */
	EXEC_SHELL,        /* /bin/sh -c 'touch /tmp/nodus-sbx-exec' */
	WRITE_FILES,       /* create /tmp/nodus-sbx-written and ./nodus-sbx-written */
	READ_SECRETS,      /* /etc/shadow, t6100's secret file, the parent's plan and store */
	KILL_PARENT,       /* SIGKILL to the orchestrator */
	PTRACE_PARENT,     /* PTRACE_ATTACH to the orchestrator (stops it) */
	KEEP_FD,           /* keep an fd for later (a library file and a dup) */
	START_THREAD,      /* a thread that outlives the load */
	FORK_SETSID,       /* a child in a session of its own, alive for 5 min */
	SYSV_SHM,          /* a SysV segment for the next attempt, or one found */
	ENV_SECRET,        /* the orchestrator's environment (NODUS_SBX_SECRET) */
	SHARED_CWD,        /* a cwd shared with others (/tmp, or not empty) */
};

#define SHM_KEY 0x6e6f6475 /* "nodu" */
#define FRAME_MAGIC 0x3153444eu
#define MSG_FAIL 6

/* A FAIL frame on the result pipe (fd 3): the leak channel. */
static void leak(const char *what, const char *data)
{
	char msg[1024], clean[600];
	size_t k = 0;
	for (size_t i = 0; data[i] && k < sizeof(clean) - 1; i++)
		clean[k++] = data[i] >= 0x20 && data[i] < 0x7f && data[i] != '"' && data[i] != '\\'
				     ? data[i]
				     : '.';
	clean[k] = '\0';
	int len = snprintf(msg, sizeof(msg),
			   "{\"status\":\"CRASH\",\"guard\":\"leaked\",\"stage\":\"attack\","
			   "\"message\":\"%s: %s\"}",
			   what, clean);
	struct {
		uint32_t magic, type;
		uint64_t len;
	} h = {FRAME_MAGIC, MSG_FAIL, (uint64_t)len};
	if (write(3, &h, sizeof(h)) < 0 || write(3, msg, (size_t)len) < 0)
		_exit(1);
	_exit(0);
}

/* Nothing found: try to leave a file behind instead (must be killed). */
static void give_up(void)
{
	int fd = open("/tmp/nodus-sbx-written", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
}

static int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t got = read(fd, buf, n - 1);
	close(fd);
	buf[got > 0 ? got : 0] = '\0';
	return got > 0 ? 0 : -1;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void attack(void)
{
	pid_t parent = getppid();
	char buf[4096];

	switch (SBX_ATTACK) {
	case PRLIMIT_FSIZE: {
		struct rlimit zero = {0, 0};
		prlimit(parent, RLIMIT_FSIZE, &zero, NULL);
		break;
	}
	case PRLIMIT_CPU: {
		struct rlimit one = {1, 1};
		prlimit(parent, RLIMIT_CPU, &one, NULL);
		break;
	}
	case SETPRIORITY:
		setpriority(PRIO_PROCESS, (id_t)parent, 19);
		setpriority(PRIO_USER, 0, 19);
		break;
	case SCHED_AFFINITY: {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		sched_setaffinity(parent, sizeof(one), &one);
		break;
	}
	case CONNECT_TCP: {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(47613)};
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0) {
			(void)!write(s, "nodus-sbx connected\n", 20);
			leak("connected", "127.0.0.1:47613");
		}
		break;
	}
	case EXEC_SHELL:
		execl("/bin/sh", "sh", "-c", "touch /tmp/nodus-sbx-exec", (char *)NULL);
		break;
	case WRITE_FILES: {
		int fd = open("nodus-sbx-written", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int gd = open("/tmp/nodus-sbx-written", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0 || gd >= 0)
			leak("wrote", fd >= 0 ? "./nodus-sbx-written" : "/tmp/nodus-sbx-written");
		break;
	}
	case READ_SECRETS: {
		if (read_file("/etc/shadow", buf, sizeof(buf)) == 0)
			leak("/etc/shadow", buf);
		if (read_file("/tmp/nodus-sbx-secret", buf, sizeof(buf)) == 0)
			leak("secret file", buf);
		/* the plan is named on the orchestrator's command line */
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)parent);
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
			char plan[4096];
			if ((strstr(buf + i, ".json") || strstr(buf + i, ".db")) &&
			    read_file(buf + i, plan, sizeof(plan)) == 0)
				leak("the plan or the store", plan);
		}
		give_up();
		break;
	}
	case KILL_PARENT:
		kill(parent, SIGKILL);
		break;
	case PTRACE_PARENT:
		ptrace(PTRACE_ATTACH, parent, NULL, NULL);
		break;
	case KEEP_FD: {
		int fd = open("/usr/lib/os-release", O_RDONLY);
		if (fd < 0)
			fd = open("/etc/ld.so.cache", O_RDONLY);
		(void)dup(2);
		(void)fd; /* kept, for later */
		break;
	}
	case START_THREAD: {
		pthread_t t;
		pthread_create(&t, NULL, sleeper, NULL);
		break;
	}
	case FORK_SETSID: {
		pid_t pid = fork();
		if (pid == 0) {
			setsid();
			prctl(PR_SET_NAME, "nodus-sbx-esc", 0, 0, 0);
			sleep(300);
			_exit(0);
		}
		break;
	}
	case SYSV_SHM: {
		int id = shmget(SHM_KEY, 4096, 0);
		if (id >= 0)
			leak("segment of an earlier attempt", "found");
		id = shmget(SHM_KEY, 4096, IPC_CREAT | 0600);
		if (id >= 0) {
			char *p = shmat(id, NULL, 0);
			if (p != (void *)-1)
				strcpy(p, "state for the next attempt");
		}
		break;
	}
	case ENV_SECRET: {
		const char *s = getenv("NODUS_SBX_SECRET");
		if (s)
			leak("NODUS_SBX_SECRET", s);
		extern char **environ;
		/* what nodus passes by design (docs/sandbox.md) */
		static const char *const ok[] = {
			"PATH=", "LANG=", "HOME=", "TMPDIR=", "CUDA_", "LD_LIBRARY_PATH=",
			"NODUS_CUDA_", "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=", NULL};
		for (char **e = environ; *e; e++) {
			int known = 0;
			for (int k = 0; ok[k]; k++)
				known |= strncmp(*e, ok[k], strlen(ok[k])) == 0;
			if (!known)
				leak("inherited", *e);
		}
		give_up();
		break;
	}
	case SHARED_CWD: {
		char cwd[512];
		if (getcwd(cwd, sizeof(cwd)) &&
		    (strcmp(cwd, "/tmp") == 0 || strcmp(cwd, "/") == 0 || !strstr(cwd, "nodus-worker")))
			leak("shared cwd", cwd);
		const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
		if (!home || !tmp || strcmp(home, cwd) || strcmp(tmp, cwd))
			leak("HOME/TMPDIR not the worker's directory", home ? home : "unset");
		give_up();
		break;
	}
	}
}

#if SBX_IN_CTOR
__attribute__((constructor)) static void at_load(void)
{
	attack();
}
#endif

int sbx_attack(const nodus_call *call)
{
	static int attacked;
	if (!SBX_IN_CTOR && !attacked) {
		attacked = 1;
		attack();
	}
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], acc = 1.0f / 5040;
		acc = acc * v + 1.0f / 720;
		acc = acc * v + 1.0f / 120;
		acc = acc * v + 1.0f / 24;
		acc = acc * v + 1.0f / 6;
		acc = acc * v + 0.5f;
		acc = acc * v + 1.0f;
		y[i] = acc * v + 1.0f;
	}
	return 0;
}
