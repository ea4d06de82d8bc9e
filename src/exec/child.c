/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * child.c: starting, killing and reaping worker processes (the
 * nodus_child_* half of exec.h), modelled on git's run-command.c.
 *
 * Everything the child needs is prepared in the parent before fork():
 * the resolved program path, the argv and environment vectors, /dev/null,
 * the pipes (all O_CLOEXEC so no other child inherits them) and the list
 * of rlimits. Between fork() and execve() the child makes only
 * async-signal-safe system calls: another thread of the parent may have
 * held the malloc or stdio lock at the moment of fork(), and that lock
 * stays taken forever in the child. A failure in that window is written
 * as {stage, errno} to a close-on-exec pipe: the parent reads zero bytes
 * when execve() succeeded and a report otherwise.
 *
 * Every started child leads its own process group (pgid == pid), so one
 * kill(-pgid) also reaches the grandchildren it started (a shell's
 * commands, a stressor's helpers). The live list below is the one mutable
 * global nodus allows (STYLE.md rule 15): the signal handler must reach
 * it. Slots are lock-free atomic ints: 0 free, -1 reserved by a start in
 * progress, > 0 the pgid of a live child. A child leaves the list only
 * once it is dead but not yet reaped (waitid with WNOWAIT), so its pid, and
 * with it the group id, cannot be reused by an unrelated process while the
 * list still names it. Signals are blocked in the parent from before
 * fork() until the new pgid is on the list and the group exists, so a
 * SIGINT can never leave a child behind.
 *
 * A worker is started in a session of its own (new_session), with a
 * private directory made here before fork (mkdtemp; removed by finish,
 * never following a symlink) and an environment built here from names
 * (minimal_env): nothing of the orchestrator's environment or directory
 * reaches it unless asked for. What a child leaves behind when it dies
 * comes to a subreaper orchestrator; nodus_exec_reap_strays() kills it.
 * ------------------------------------------------------------------------ */
#include "exec/exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* At most this many children alive at once; a start beyond it fails
 * before fork() with NODUS_ECHILD. */
/* fds a child may be given: 0-2, the result pipe (3), a shared fd (4) */
#define CHILD_FDS 6
#define LIVE_MAX 1024
#define LIVE_FREE 0
#define LIVE_RESERVED (-1)

static atomic_int live_pgids[LIVE_MAX];

/* ---- live list (every function here is async-signal-safe) ---- */

static int live_reserve(void)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		int expect = LIVE_FREE;
		if (atomic_compare_exchange_strong(&live_pgids[i], &expect, LIVE_RESERVED))
			return i;
	}
	return -1;
}

static void live_remove(pid_t pgid)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		int expect = (int)pgid;
		if (atomic_compare_exchange_strong(&live_pgids[i], &expect, LIVE_FREE))
			return;
	}
}

void nodus_exec_kill_all(void)
{
	int saved = errno;
	for (int i = 0; i < LIVE_MAX; i++) {
		int pgid = atomic_load(&live_pgids[i]);
		if (pgid > 0 && kill(-pgid, SIGKILL) != 0)
			kill(pgid, SIGKILL); /* a new session not made yet */
	}
	errno = saved;
}

static void on_fatal_signal(int sig)
{
	struct sigaction sa;

	nodus_exec_kill_all();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	/* The signal is blocked while its handler runs: it stays pending and
	 * ends the process with its default action when the handler returns,
	 * so the exit status still says which signal it was. */
	raise(sig);
}

static void at_exit_kill_all(void)
{
	nodus_exec_kill_all();
}

void nodus_exec_install_signal_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

	for (size_t i = 0; i < NODUS_ARRAY_SIZE(sigs); i++) {
		struct sigaction old, sa;
		/* A signal ignored at start (nohup, a background job) stays
		 * ignored, as POSIX shells do. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(at_exit_kill_all);
}

/* ---- preparation in the parent ---- */

/* What went wrong in the child between fork and exec; written to the
 * close-on-exec report pipe. */
enum child_stage {
	STAGE_SETPGID = 1,
	STAGE_FDS,
	STAGE_RLIMIT,
	STAGE_CHDIR,
	STAGE_EXEC,
};

struct child_report {
	int stage;  /* an enum child_stage */
	int errnum; /* errno of the failing call */
	int detail; /* stage-specific: the rlimit resource for STAGE_RLIMIT */
};

struct rlim_req {
	int resource;    /* RLIMIT_* */
	struct rlimit r; /* soft and hard value to set */
};

/* Everything the child uses, built before fork(). */
struct prep {
	char *path;                /* resolved program path, heap */
	char **argv;               /* copy of opts->argv (pointer array), heap */
	char **envp;               /* opts->env copy, or environ (not owned) */
	int own_envp;              /* 1 when envp is a heap copy */
	int src[CHILD_FDS];        /* fd to place at 0..5; -1 = leave alone */
	int close_in_parent[CHILD_FDS]; /* child's pipe ends the parent closes after fork */
	int devnull;               /* /dev/null, O_CLOEXEC, or -1 */
	int report[2];             /* exec report pipe, O_CLOEXEC */
	struct rlim_req rl[6];     /* limits to apply */
	int n_rl;                  /* entries used in rl */
	int max_fd;                /* close loop bound when close_range is missing */
	int die_with_parent;       /* PR_SET_PDEATHSIG SIGKILL in the child */
	int new_session;           /* setsid() instead of setpgid() */
	char **env_own;            /* strings of a built environment (minimal_env), heap */
	int n_env_own;
	pid_t parent;              /* the parent's pid, to catch a parent already gone */
};

static const char *rlimit_name(int resource)
{
	switch (resource) {
	case RLIMIT_AS: return "RLIMIT_AS";
	case RLIMIT_CPU: return "RLIMIT_CPU";
	case RLIMIT_NOFILE: return "RLIMIT_NOFILE";
	case RLIMIT_NPROC: return "RLIMIT_NPROC";
	case RLIMIT_FSIZE: return "RLIMIT_FSIZE";
	case RLIMIT_CORE: return "RLIMIT_CORE";
	}
	return "RLIMIT_?";
}

static int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Looks argv[0] up in PATH as execvp() would, but here, before fork(),
 * where malloc is allowed. A name with a slash is used as it is. */
static int resolve_path(const char *prog, char **out)
{
	if (strchr(prog, '/')) {
		*out = strdup(prog);
		return *out ? 0 : NODUS_ENOMEM;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	nodus_buf b = NODUS_BUF_INIT;
	while (*path) {
		const char *end = strchrnul(path, ':');
		nodus_buf_reset(&b);
		int rc = 0;
		if (end == path)
			rc = nodus_buf_adds(&b, ".");
		else
			rc = nodus_buf_add(&b, path, (size_t)(end - path));
		if (rc || nodus_buf_addf(&b, "/%s", prog)) {
			nodus_buf_release(&b);
			return NODUS_ENOMEM;
		}
		if (is_executable(b.data)) {
			*out = nodus_buf_detach(&b);
			return *out ? 0 : NODUS_ENOMEM;
		}
		path = *end ? end + 1 : end;
	}
	nodus_buf_release(&b);
	*out = NULL;
	return NODUS_ENOTFOUND;
}

static char **copy_vector(const char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	char **copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		return NULL;
	for (size_t i = 0; i < n; i++)
		copy[i] = (char *)v[i];
	return copy;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void prep_release(struct prep *p)
{
	free(p->path);
	free(p->argv);
	if (p->own_envp)
		free(p->envp);
	for (int i = 0; i < p->n_env_own; i++)
		free(p->env_own[i]);
	free(p->env_own);
	for (int i = 0; i < CHILD_FDS; i++)
		close_fd(&p->close_in_parent[i]);
	close_fd(&p->devnull);
	close_fd(&p->report[0]);
	close_fd(&p->report[1]);
}

static int add_limit(struct prep *p, int resource, int64_t value, nodus_error *err)
{
	if (value == 0)
		return 0;
	if (value < 0 && !(resource == RLIMIT_CORE && value == -1))
		return NODUS_ERR(err, NODUS_EINVAL, "%s: expected a value >= 0, got %lld",
				 rlimit_name(resource), (long long)value);
	rlim_t v = value < 0 ? 0 : (rlim_t)value;
	struct rlimit cur;
	if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && v > cur.rlim_max)
		return NODUS_ERR(err, NODUS_EINVAL,
				 "%s: requested %llu is above the hard limit %llu",
				 rlimit_name(resource), (unsigned long long)v,
				 (unsigned long long)cur.rlim_max);
	p->rl[p->n_rl].resource = resource;
	p->rl[p->n_rl].r.rlim_cur = v;
	p->rl[p->n_rl].r.rlim_max = v;
	p->n_rl++;
	return 0;
}

static int prep_limits(struct prep *p, const nodus_child_opts *o, nodus_error *err)
{
	int rc;
	if ((rc = add_limit(p, RLIMIT_AS, o->rlimit_as_bytes, err)) ||
	    (rc = add_limit(p, RLIMIT_CPU, o->rlimit_cpu_s, err)) ||
	    (rc = add_limit(p, RLIMIT_NOFILE, o->rlimit_nofile, err)) ||
	    (rc = add_limit(p, RLIMIT_NPROC, o->rlimit_nproc, err)) ||
	    (rc = add_limit(p, RLIMIT_FSIZE, o->rlimit_fsize_bytes, err)) ||
	    (rc = add_limit(p, RLIMIT_CORE, o->rlimit_core, err)))
		return rc;
	struct rlimit nofile;
	p->max_fd = 65536;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY &&
	    nofile.rlim_cur < (rlim_t)p->max_fd)
		p->max_fd = (int)nofile.rlim_cur;
	return 0;
}

/* Sets up child fd `target` (0..2) from the opts convention; pipes give
 * the parent's end to *parent_end. */
static int prep_std_fd(struct prep *p, int target, int conv, int *parent_end, nodus_error *err)
{
	int fds[2];

	*parent_end = -1;
	if (conv == 0) {
		p->src[target] = -1;
	} else if (conv == -1) {
		if (pipe2(fds, O_CLOEXEC))
			return NODUS_ERR(err, NODUS_EIO, "cannot create a pipe: %s", strerror(errno));
		/* stdin: the child reads fds[0]; stdout/stderr: it writes fds[1]. */
		int child_end = target == 0 ? fds[0] : fds[1];
		*parent_end = target == 0 ? fds[1] : fds[0];
		p->src[target] = child_end;
		p->close_in_parent[target] = child_end;
	} else if (conv == -2) {
		if (p->devnull < 0) {
			p->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (p->devnull < 0)
				return NODUS_ERR(err, NODUS_EIO, "cannot open '/dev/null': %s",
						 strerror(errno));
		}
		p->src[target] = p->devnull;
	} else if (conv > 0) {
		p->src[target] = conv;
	} else {
		return NODUS_ERR(err, NODUS_EINVAL, "fd %d: expected 0, -1, -2 or an open fd, got %d",
				 target, conv);
	}
	return 0;
}

/* Adds "NAME=value" (heap) to the built environment. */
static int env_push(struct prep *p, const char *name, const char *value)
{
	char *e = NULL;
	if (asprintf(&e, "%s=%s", name, value) < 0)
		return NODUS_ENOMEM;
	for (int i = 0; i < p->n_env_own; i++) /* a later entry wins */
		if (strncmp(p->env_own[i], e, strlen(name) + 1) == 0) {
			free(p->env_own[i]);
			p->env_own[i] = e;
			return 0;
		}
	p->env_own[p->n_env_own++] = e;
	return 0;
}

/* The minimal environment (exec.h, minimal_env). Names come from
 * env_pass and $NODUS_WORKER_ENV; values from o->env when it sets them
 * (the MPS condition's pipe directory), else from ours. */
static int build_minimal_env(struct prep *p, const nodus_child_opts *o, const char *dir)
{
	size_t cap = 8;
	for (int i = 0; o->env && o->env[i]; i++)
		cap++;
	for (int i = 0; o->env_pass && o->env_pass[i]; i++)
		cap++;
	const char *extra = getenv("NODUS_WORKER_ENV");
	for (const char *c = extra; c && *c; c++)
		cap += *c == ',';
	cap += extra ? 1 : 0;
	p->env_own = calloc(cap + 1, sizeof(char *));
	if (!p->env_own)
		return NODUS_ENOMEM;
	if (env_push(p, "PATH", "/usr/local/bin:/usr/bin:/bin") || env_push(p, "LANG", "C"))
		return NODUS_ENOMEM;
	if (dir[0] && (env_push(p, "HOME", dir) || env_push(p, "TMPDIR", dir)))
		return NODUS_ENOMEM;
	char name[128];
	for (int pass = 0; pass < 2; pass++) {
		const char *list = pass == 1 ? extra : NULL;
		for (int i = 0; pass == 0 ? o->env_pass && o->env_pass[i] : list && *list; i++) {
			if (pass == 0) {
				snprintf(name, sizeof(name), "%s", o->env_pass[i]);
			} else {
				size_t len = strcspn(list, ",");
				snprintf(name, sizeof(name), "%.*s", (int)(len < 127 ? len : 127), list);
				list += len + (list[len] == ',');
			}
			if (!name[0] || strchr(name, '='))
				continue;
			const char *value = getenv(name);
			for (int k = 0; o->env && o->env[k]; k++)
				if (strncmp(o->env[k], name, strlen(name)) == 0 &&
				    o->env[k][strlen(name)] == '=')
					value = o->env[k] + strlen(name) + 1;
			if (value && env_push(p, name, value))
				return NODUS_ENOMEM;
		}
	}
	p->envp = p->env_own;
	return 0;
}

static int prep_init(struct prep *p, nodus_child *c, const nodus_child_opts *o, nodus_error *err)
{
	int rc;

	if ((rc = prep_limits(p, o, err)))
		return rc;
	p->die_with_parent = o->die_with_parent;
	p->parent = getpid();
	rc = resolve_path(o->argv[0], &p->path);
	if (rc == NODUS_ENOTFOUND)
		return NODUS_ERR(err, NODUS_ECHILD, "cannot run '%s': %s", o->argv[0],
				 strerror(ENOENT));
	if (rc || !(p->argv = copy_vector(o->argv)))
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot run '%s': out of memory", o->argv[0]);
	p->new_session = o->new_session;
	if (o->private_dir) {
		const char *base = getenv("TMPDIR");
		if (!base || base[0] != '/' || strlen(base) > 64)
			base = "/tmp";
		snprintf(c->dir, sizeof(c->dir), "%s/nodus-worker.XXXXXX", base);
		if (!mkdtemp(c->dir)) {
			int saved = errno;
			c->dir[0] = '\0';
			return NODUS_ERR(err, NODUS_ECHILD,
					 "cannot run '%s': cannot make its directory in %s: %s "
					 "(set TMPDIR to a writable directory)",
					 o->argv[0], base, strerror(saved));
		}
	}
	if (o->minimal_env) {
		if (build_minimal_env(p, o, c->dir))
			return NODUS_ERR(err, NODUS_ENOMEM, "cannot run '%s': out of memory",
					 o->argv[0]);
	} else if (o->env) {
		if (!(p->envp = copy_vector(o->env)))
			return NODUS_ERR(err, NODUS_ENOMEM, "cannot run '%s': out of memory",
					 o->argv[0]);
		p->own_envp = 1;
	} else {
		p->envp = environ;
	}
	if ((rc = prep_std_fd(p, 0, o->stdin_fd, &c->in_fd, err)) ||
	    (rc = prep_std_fd(p, 1, o->stdout_fd, &c->out_fd, err)) ||
	    (rc = prep_std_fd(p, 2, o->stderr_fd, &c->err_fd, err)))
		return rc;
	if (o->want_result_pipe) {
		int fds[2];
		if (pipe2(fds, O_CLOEXEC))
			return NODUS_ERR(err, NODUS_EIO, "cannot create a pipe: %s", strerror(errno));
		c->result_fd = fds[0];
		p->src[3] = fds[1];
		p->close_in_parent[3] = fds[1];
		/* outputs of hundreds of MB come this way: a 1 MiB pipe takes
		 * far fewer wake-ups than the default 64 KiB (best effort: the
		 * system may cap it, and the default still works) */
		(void)fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
	}
	if (o->share_fd > 2) {
		if (!o->want_result_pipe)
			return NODUS_ERR(err, NODUS_EINVAL,
					 "cannot run '%s': share_fd needs the result pipe",
					 o->argv[0]);
		p->src[4] = o->share_fd;
	}
	if (o->want_clock_socket) {
		int sv[2], on = 1;
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
			return NODUS_ERR(err, NODUS_EIO, "cannot create a socket pair: %s",
					 strerror(errno));
		c->clock_fd = sv[0];
		p->src[5] = sv[1];
		p->close_in_parent[5] = sv[1];
		if (setsockopt(sv[0], SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)))
			return NODUS_ERR(err, NODUS_EIO, "cannot ask for kernel timestamps: %s",
					 strerror(errno));
	}
	if (pipe2(p->report, O_CLOEXEC))
		return NODUS_ERR(err, NODUS_EIO, "cannot create a pipe: %s", strerror(errno));
	return 0;
}

/* ---- the child, between fork and exec: async-signal-safe calls only ---- */

static _Noreturn void child_fail(int report_fd, int stage, int detail)
{
	struct child_report r = {stage, errno, detail};
	ssize_t n;
	do
		n = write(report_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* Closes every fd >= first except keep. */
static void close_from(int first, int keep, int max_fd)
{
#ifdef SYS_close_range
	int ok = 1;
	if (first < keep && syscall(SYS_close_range, first, keep - 1, 0) != 0)
		ok = 0;
	if (ok && syscall(SYS_close_range, keep + 1, ~0U, 0) == 0)
		return;
#endif
	for (int fd = first; fd < max_fd || fd <= keep; fd++)
		if (fd != keep)
			close(fd);
}

/* Puts p->src[t] at fd t for t = 0..4. A source below 5 that is not its
 * own target is first copied above 4 (F_DUPFD gives the lowest free fd,
 * never one in use), so no dup2() clobbers a source still needed. */
static int child_place_fds(struct prep *p, int *report_fd)
{
	if (*report_fd < CHILD_FDS && (*report_fd = fcntl(*report_fd, F_DUPFD_CLOEXEC, CHILD_FDS)) < 0)
		_exit(127);
	for (int t = 0; t < CHILD_FDS; t++) {
		int old = p->src[t];
		if (old < 0 || old >= CHILD_FDS || old == t)
			continue;
		int moved = fcntl(old, F_DUPFD_CLOEXEC, CHILD_FDS);
		if (moved < 0)
			return -1;
		for (int u = t; u < CHILD_FDS; u++)
			if (p->src[u] == old && old != u)
				p->src[u] = moved;
	}
	for (int t = 0; t < CHILD_FDS; t++) {
		if (p->src[t] < 0)
			continue;
		if (p->src[t] == t) {
			if (fcntl(t, F_SETFD, 0) < 0)
				return -1;
		} else if (dup2(p->src[t], t) < 0) {
			return -1;
		}
	}
	return 0;
}

static _Noreturn void child_run(struct prep *p, const char *cwd)
{
	int rep = p->report[1];
	struct sigaction dfl;
	sigset_t none;

	if (p->new_session ? setsid() < 0 : setpgid(0, 0) != 0)
		child_fail(rep, STAGE_SETPGID, 0);
	/* A worker or stressor must not outlive an orchestrator killed with
	 * SIGKILL (no handler runs then): the kernel kills it instead. */
	if (p->die_with_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != p->parent))
		_exit(127);
	if (child_place_fds(p, &rep))
		child_fail(rep, STAGE_FDS, 0);
	/* fds 3 to 5 are closed too when not asked for: a worker must not
	 * find some other fd of the orchestrator there. */
	int first = 3;
	for (int t = 3; t < CHILD_FDS; t++)
		if (p->src[t] >= 0)
			first = t + 1;
	for (int t = 3; t < first; t++)
		if (p->src[t] < 0 && t != rep)
			close(t);
	close_from(first, rep, p->max_fd);
	for (int i = 0; i < p->n_rl; i++)
		if (setrlimit(p->rl[i].resource, &p->rl[i].r))
			child_fail(rep, STAGE_RLIMIT, p->rl[i].resource);
	if (cwd && chdir(cwd))
		child_fail(rep, STAGE_CHDIR, 0);
	/* Ignored signals stay ignored across exec (SIGPIPE in the
	 * orchestrator, for one); the child starts from the defaults and an
	 * empty mask. The parent blocked everything before fork(), so none of
	 * its handlers could run in here. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(p->path, p->argv, p->envp);
	child_fail(rep, STAGE_EXEC, 0);
}

/* ---- the parent ---- */

static int report_error(const struct child_report *r, const nodus_child_opts *o, nodus_error *err)
{
	const char *prog = o->argv[0];
	const char *why = strerror(r->errnum);

	switch (r->stage) {
	case STAGE_EXEC:
		return NODUS_ERR(err, NODUS_ECHILD, "cannot run '%s': %s", prog, why);
	case STAGE_CHDIR:
		return NODUS_ERR(err, NODUS_ECHILD, "cannot run '%s': cannot change to '%s': %s",
				 prog, o->cwd, why);
	case STAGE_RLIMIT:
		return NODUS_ERR(err, NODUS_ECHILD, "cannot run '%s': cannot set %s: %s", prog,
				 rlimit_name(r->detail), why);
	case STAGE_FDS:
		return NODUS_ERR(err, NODUS_ECHILD,
				 "cannot run '%s': cannot set up its file descriptors: %s", prog, why);
	default:
		return NODUS_ERR(err, NODUS_ECHILD,
				 "cannot run '%s': cannot make its process group: %s", prog, why);
	}
}

static void reset_child(nodus_child *c)
{
	c->pid = -1;
	c->dir[0] = '\0';
	c->in_fd = c->out_fd = c->err_fd = c->result_fd = c->clock_fd = -1;
	c->started_ns = 0;
	c->peak_rss_bytes = 0;
}

static void close_parent_ends(nodus_child *c)
{
	close_fd(&c->in_fd);
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
	close_fd(&c->result_fd);
	close_fd(&c->clock_fd);
}

/* Waits until pid has ended without reaping it (the zombie keeps pid and
 * pgid from being reused). Returns 0, or -1 when it is not our child. */
static int wait_dead(pid_t pid)
{
	siginfo_t si;
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* Reaps pid and converts its status: exit code, or 128+signal. When
 * peak_rss is not NULL it gets the child's peak resident memory [bytes]. */
static int reap_usage(pid_t pid, int64_t *peak_rss)
{
	int st;
	pid_t r;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	do
		r = wait4(pid, &st, 0, &ru);
	while (r < 0 && errno == EINTR);
	if (peak_rss)
		*peak_rss = r > 0 ? (int64_t)ru.ru_maxrss * 1024 : 0;
	if (r < 0)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

static int reap(pid_t pid)
{
	return reap_usage(pid, NULL);
}

/* fork() with every signal blocked; the new pid goes into the reserved
 * live slot and gets its own group before signals come back. */
static pid_t fork_registered(struct prep *p, int slot, const char *cwd)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t pid = fork();
	if (pid == 0)
		child_run(p, cwd);
	int saved = errno;
	if (pid > 0) {
		/* Also done here: the group must exist before a signal
		 * handler can look for it. EACCES means the child has
		 * already exec'd, so it made the group itself. */
		if (!p->new_session) /* setsid() fails in a group leader */
			setpgid(pid, pid);
		atomic_store(&live_pgids[slot], (int)pid);
	} else {
		atomic_store(&live_pgids[slot], LIVE_FREE);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return pid;
}

int nodus_child_start(nodus_child *c, const nodus_child_opts *opts, nodus_error *err)
{
	struct prep p;
	struct child_report r;
	ssize_t n;
	int rc = 0;

	reset_child(c);
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < CHILD_FDS; i++)
		p.src[i] = p.close_in_parent[i] = -1;
	p.devnull = p.report[0] = p.report[1] = -1;
	if (!opts || !opts->argv || !opts->argv[0])
		return NODUS_ERR(err, NODUS_EINVAL, "cannot run a child: argv is empty");
	if ((rc = prep_init(&p, c, opts, err)))
		goto out;
	int slot = live_reserve();
	if (slot < 0) {
		rc = NODUS_ERR(err, NODUS_ECHILD, "cannot run '%s': %d children already running",
			       opts->argv[0], LIVE_MAX);
		goto out;
	}
	uint64_t started_ns = nodus_now_ns();
	pid_t pid = fork_registered(&p, slot, c->dir[0] ? c->dir : opts->cwd);
	if (pid < 0) {
		rc = NODUS_ERR(err, NODUS_ECHILD, "cannot run '%s': fork: %s", opts->argv[0],
			       strerror(errno));
		goto out;
	}
	for (int i = 0; i < CHILD_FDS; i++)
		close_fd(&p.close_in_parent[i]);
	close_fd(&p.devnull);
	close_fd(&p.report[1]);
	do
		n = read(p.report[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n != 0) {
		/* The child failed before exec and has _exit()ed (or will). */
		if (n != (ssize_t)sizeof(r))
			r = (struct child_report){STAGE_EXEC, n < 0 ? errno : EPIPE, 0};
		wait_dead(pid);
		live_remove(pid);
		reap(pid);
		rc = report_error(&r, opts, err);
		goto out;
	}
	c->pid = pid;
	c->started_ns = started_ns;
out:
	if (rc) {
		close_parent_ends(c);
		if (c->dir[0])
			nodus_remove_tree(c->dir);
		c->dir[0] = '\0';
	}
	prep_release(&p);
	return rc;
}

void nodus_child_kill(nodus_child *c)
{
	if (!c || c->pid <= 0)
		return;
	/* The group exists from start (both sides call setpgid); the pid
	 * alone is the fallback should the leader have left it. */
	if (kill(-c->pid, SIGKILL) != 0)
		kill(c->pid, SIGKILL);
	/* Off the list once dead; if waiting fails the child was not ours to
	 * wait for (SIGCHLD ignored: already reaped), and its pid may be
	 * reused, so it leaves the list all the same. */
	wait_dead(c->pid);
	live_remove(c->pid);
}

int nodus_child_finish(nodus_child *c)
{
	if (!c)
		return -1;
	close_parent_ends(c);
	if (c->pid <= 0)
		return -1;
	pid_t pid = c->pid;
	wait_dead(pid);
	/* The leader is a zombie, so its group id cannot be reused yet:
	 * whatever is still in its group dies with it. */
	kill(-pid, SIGKILL);
	live_remove(pid);
	int code = reap_usage(pid, &c->peak_rss_bytes);
	c->pid = -1;
	if (c->dir[0])
		nodus_remove_tree(c->dir);
	c->dir[0] = '\0';
	return code;
}

/* ---- what a child leaves behind ---- */

void nodus_exec_become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static int on_live_list(pid_t pid)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (atomic_load(&live_pgids[i]) == (int)pid)
			return 1;
	return 0;
}

/* Children of ours by /proc/PID/stat's ppid (field 4). */
static int list_children(pid_t self, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	int n = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < max) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (end == e->d_name || *end || pid <= 0)
			continue;
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		char *rp = strrchr(buf, ')'); /* the name may hold spaces and ')' */
		int ppid = 0;
		if (rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == (int)self)
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

/* The MPS control daemon (ours, on the live list) starts its server,
 * which may come to us as an orphan and is not a stray. Told by the
 * program it runs, which a worker cannot change: it can exec nothing,
 * and replacing /proc/PID/exe needs a capability it has dropped. */
static int is_mps_process(pid_t pid)
{
	char path[64], exe[512];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	const char *base = strrchr(exe, '/');
	return strncmp(base ? base + 1 : exe, "nvidia-cuda-mps-", 16) == 0;
}

int nodus_exec_reap_strays(void)
{
	pid_t self = getpid(), kids[256];
	int killed = 0;
	for (int round = 0; round < 64; round++) {
		int n = list_children(self, kids, (int)NODUS_ARRAY_SIZE(kids)), strays = 0;
		for (int i = 0; i < n; i++) {
			if (on_live_list(kids[i]) || is_mps_process(kids[i]))
				continue;
			/* its group too: it may have made one of its own */
			kill(-kids[i], SIGKILL);
			kill(kids[i], SIGKILL);
			reap(kids[i]);
			strays++;
		}
		killed += strays;
		if (strays == 0)
			break;
	}
	return killed;
}

/* Removes what is inside dirfd (which it closes), never following a
 * symlink: each subdirectory is opened with O_NOFOLLOW | O_DIRECTORY
 * relative to its parent. depth bounds a hostile tree. */
static int remove_inside(int dirfd, int depth)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd, e->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || depth <= 0) {
			if (sub >= 0)
				close(sub);
			rc = -1;
			continue;
		}
		if (remove_inside(sub, depth - 1) || unlinkat(dirfd, e->d_name, AT_REMOVEDIR))
			rc = -1;
	}
	closedir(d);
	return rc;
}

int nodus_remove_tree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	int rc = remove_inside(fd, 64);
	if (rmdir(path) && errno != ENOENT)
		rc = -1;
	return rc;
}

/* Waits up to timeout_ms for pid to end (without reaping). Returns 1 if it
 * ended, 0 on timeout. */
static int wait_dead_for(pid_t pid, int timeout_ms)
{
	uint64_t deadline = nodus_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	int pfd = -1;
#ifdef SYS_pidfd_open
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		int r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG);
		if (r == 0 && si.si_pid == pid)
			break;
		if (r < 0 && errno != EINTR)
			break; /* not our child (ECHILD): nothing to wait for */
		uint64_t now = nodus_now_ns();
		if (now >= deadline) {
			if (pfd >= 0)
				close(pfd);
			return 0;
		}
		int left_ms = (int)((deadline - now + 999999u) / 1000000u);
		if (pfd >= 0) {
			struct pollfd pf = {.fd = pfd, .events = POLLIN};
			poll(&pf, 1, left_ms);
		} else {
			struct timespec ts = {0, (left_ms < 10 ? left_ms : 10) * 1000000L};
			nanosleep(&ts, NULL);
		}
	}
	if (pfd >= 0)
		close(pfd);
	return 1;
}

int nodus_child_finish_timeout(nodus_child *c, int timeout_ms)
{
	if (!c)
		return -1;
	if (c->pid > 0 && !wait_dead_for(c->pid, timeout_ms))
		nodus_child_kill(c);
	return nodus_child_finish(c);
}
