/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * exec.h: the one place nodus starts processes (git's run-command), the
 * framed pipe protocol between orchestrator and workers, and the sandbox a
 * worker puts itself in.
 *
 * Child life cycle:
 *   1. nodus_child_opts opts = {0}; fill argv (and the rest; zero = default)
 *   2. nodus_child_start(&child, &opts, &err): forks, execs; the child gets
 *      its own process group, its rlimits, its working directory, and (when
 *      asked) a result pipe as its fd 3. Exec failure comes back as an error
 *      from start, over a close-on-exec pipe.
 *   3. talk: write to child.in_fd, read frames from child.result_fd with a
 *      deadline (nodus_ipc_read), which is the watchdog.
 *   4. nodus_child_kill() (SIGKILL to the group) when a deadline passes;
 *   5. nodus_child_finish(): waits; returns the exit code, or 128+signal.
 *
 * fd convention for stdin/stdout/stderr in opts: 0 inherit, -1 make a pipe
 * (the parent's end lands in child.in_fd/out_fd/err_fd), -2 /dev/null,
 * > 0 use that fd. Every other fd is closed in the child: it sees 0, 1, 2
 * and, with want_result_pipe, 3 (and 4 with share_fd; 5 with want_clock_socket). Parent ends are
 * close-on-exec. Only
 * async-signal-safe calls run between fork and exec.
 *
 * Every started child is on a live list; nodus_exec_kill_all() (called from
 * the orchestrator's SIGINT/SIGTERM handler and at exit) kills every group,
 * so no worker or stressor outlives the run.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_EXEC_H
#define NODUS_EXEC_H

#include <stdint.h>
#include <sys/types.h>

#include "common/common.h"

typedef struct nodus_child_opts {
	const char *const *argv;   /* argv[0] is the program (PATH is searched); NULL-terminated */
	const char *const *env;    /* full environment, NULL-terminated; NULL = inherit */
	const char *cwd;           /* working directory, NULL = inherit */
	int stdin_fd;              /* see fd convention */
	int stdout_fd;             /* see fd convention */
	int stderr_fd;             /* see fd convention */
	int want_result_pipe;      /* 1: child's fd 3 is the write end of a pipe */
	int share_fd;              /* > 2: this fd of ours is also the child's fd 4
				    * (with the result pipe only); 0 = none */
	int want_clock_socket;     /* 1: child's fd 5 is one end of an AF_UNIX
				    * SOCK_SEQPACKET pair whose other end (clock_fd)
				    * has SO_TIMESTAMPNS: the kernel stamps each
				    * message when the child sends it */
	int64_t rlimit_as_bytes;   /* RLIMIT_AS, 0 = unchanged */
	int64_t rlimit_cpu_s;      /* RLIMIT_CPU, 0 = unchanged */
	int64_t rlimit_nofile;     /* RLIMIT_NOFILE, 0 = unchanged */
	int64_t rlimit_nproc;      /* RLIMIT_NPROC, 0 = unchanged */
	int64_t rlimit_fsize_bytes;/* RLIMIT_FSIZE, 0 = unchanged */
	int64_t rlimit_core;       /* RLIMIT_CORE: 0 keeps it; -1 sets it to 0 */
	int die_with_parent;       /* 1: the kernel kills the child when this process dies
				    * (PR_SET_PDEATHSIG), even by SIGKILL */
	int new_session;           /* 1: setsid() in the child (its own session and group) */
	int private_dir;           /* 1: a fresh empty directory (mkdtemp under $TMPDIR or
				    * /tmp) is its cwd, HOME and TMPDIR; finish removes it
				    * (recursively, never following a symlink). cwd is ignored */
	int minimal_env;           /* 1: the child's environment is PATH, LANG=C, HOME and
				    * TMPDIR (its private_dir), plus each name in env_pass
				    * and in $NODUS_WORKER_ENV (comma-separated) that has a
				    * value: from env when env sets it, else from ours. Any
				    * other entry of env or of ours is not passed */
	const char *const *env_pass; /* with minimal_env: the names passed, NULL-terminated */
} nodus_child_opts;

typedef struct nodus_child {
	pid_t pid;                 /* also the process group id; -1 when not running */
	int in_fd;                 /* parent's write end of the child's stdin, or -1 */
	int out_fd;                /* parent's read end of stdout, or -1 */
	int err_fd;                /* parent's read end of stderr, or -1 */
	int result_fd;             /* parent's read end of the child's fd 3, or -1 */
	int clock_fd;              /* parent's end of the child's fd 5, or -1 */
	uint64_t started_ns;       /* nodus_now_ns() at start */
	int64_t peak_rss_bytes;    /* after finish: the child's peak resident memory, 0 if unknown */
	char dir[128];             /* its private directory, "" = none */
} nodus_child;

/* Starts the child. Returns 0, or NODUS_ECHILD with "cannot run 'PROG':
 * REASON" when it could not be run (not found, not executable, chdir or
 * setrlimit failed: nothing is left running then), NODUS_EINVAL for bad
 * opts (empty argv, negative limit, limit above the hard limit),
 * NODUS_EIO / NODUS_ENOMEM for pipes and memory. c is fully overwritten;
 * on failure c->pid is -1 and every fd in c is -1. Thread-safe. */
int nodus_child_start(nodus_child *c, const nodus_child_opts *opts, nodus_error *err);
/* SIGKILL to the child's process group, then waits until the child itself
 * has died (it stays a zombie, so its status is still there for
 * nodus_child_finish, which must follow); safe to call twice. */
void nodus_child_kill(nodus_child *c);
/* Closes the parent's fds, waits for the child; returns its exit code or
 * 128+signal; -1 if it was not running. */
int nodus_child_finish(nodus_child *c);
/* Like finish but gives up after timeout_ms, killing the group first:
 * returns exit code / 128+signal. */
int nodus_child_finish_timeout(nodus_child *c, int timeout_ms);

/* Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): what a
 * child leaves behind when it dies (a grandchild that left its group)
 * becomes our child, so nodus_exec_reap_strays() can find it. */
void nodus_exec_become_subreaper(void);
/* Kills (SIGKILL) and reaps every child of this process that is not on
 * the live list, repeating while new ones appear (their own children
 * come to us as they die); an MPS server (its program is
 * nvidia-cuda-mps-*) is left alone. Call from the thread that starts
 * children, when no start is in progress. Returns how many it killed. */
int nodus_exec_reap_strays(void);
/* Removes a directory tree without following symlinks (unlinkat on each
 * entry, the tree walked through O_NOFOLLOW dirfds). 0 or -1. */
int nodus_remove_tree(const char *path);

/* Kills every live child's process group (async-signal-safe). */
void nodus_exec_kill_all(void);
/* Installs SIGINT/SIGTERM/SIGHUP handlers that kill all children, then
 * re-raise the signal with its default action (a signal already ignored at
 * start, as under nohup, is left ignored), and registers
 * nodus_exec_kill_all with atexit(). Call once in main. */
void nodus_exec_install_signal_handlers(void);

/* ---- framed messages over a pipe ----
 * A frame is: u32 magic 'NDS1', u32 type, u64 length, payload. */
#define NODUS_IPC_MAX_FRAME (1ull << 31)
/* Writes one frame, looping over partial writes and EINTR; never raises
 * SIGPIPE. Returns 0, NODUS_EIO (reader gone, bad fd), or NODUS_EINVAL
 * (len above NODUS_IPC_MAX_FRAME, or NULL payload with len > 0). */
int nodus_ipc_write(int fd, uint32_t type, const void *payload, uint64_t len);
/* The same for a payload in two parts (a header and a large body), one
 * frame of len + more_len bytes, without copying them together. */
int nodus_ipc_write2(int fd, uint32_t type, const void *payload, uint64_t len,
		     const void *more, uint64_t more_len);
/* Reads one frame into payload (reset first), waiting until deadline_ns
 * (nodus_now_ns() clock; 0 = forever). Returns 0; NODUS_ETIMEOUT;
 * NODUS_EIO on EOF or a short/bad frame (wrong magic, length above
 * NODUS_IPC_MAX_FRAME) (EOF before any byte: NODUS_ENOTFOUND);
 * NODUS_ENOMEM. After any failure the stream is out of step: kill the
 * worker rather than read on. */
int nodus_ipc_read(int fd, uint32_t *type, nodus_buf *payload, uint64_t deadline_ns);

/* ---- sandbox (worker side) ----
 * Order in a worker (docs/sandbox.md has the full lists and what each
 * layer stops):
 *   1. nodus_sandbox_prepare() before any solution is loaded: takes the
 *      census of threads and fds, a fresh IPC namespace (cpu, where
 *      allowed), non-dumpable, no_new_privs, drops capabilities, Landlock
 *      (reads: the solutions' shared objects and the system libraries;
 *      writes: write_dir only), then the load filter (cpu: what the
 *      dynamic loader needs and nothing that reaches another process or
 *      outlives this one) or the cuda filter (its only one);
 *   2. dlopen; nodus_sandbox_check_loaded() after each: nonzero when
 *      loading left a thread or an fd that was not there before (the
 *      caller refuses the solution);
 *   3. cpu, once everything is allocated: nodus_sandbox_lock_down():
 *      seals the code (mseal where the kernel has it), then the full
 *      filter on top: no open at all, no new executable mapping.
 * Every filter kills the process (SIGSYS) and applies to every thread.
 * Leave with _exit() (exit-time hooks such as a sanitizer's leak check
 * may need forbidden calls). */
#define NODUS_SANDBOX_MAX_IDS 256

typedef struct nodus_sandbox_opts {
	int cuda;                        /* the cuda profile (permissive filter) */
	const char *const *read_files;   /* readable files (the shared objects), NULL-terminated */
	const char *write_dir;           /* the one writable tree (the worker's directory) */
	const char *const *cuda_dirs;    /* cuda: extra read-write trees (MPS pipe dir) */
	int driver_confined;             /* 1: nodus_sandbox_before_driver put a ruleset on
					  * while the process had one thread (recorded) */
} nodus_sandbox_opts;

typedef struct nodus_sandbox_state {
	int cuda;
	int landlock_abi;                /* Landlock ABI in force, 0 = the kernel has none */
	int ipc_namespace;               /* 1: a fresh IPC namespace */
	int caps_dropped;                /* 1: capabilities dropped */
	int landlock_tsync;              /* 1: the job's ruleset holds on every thread
					  * (LANDLOCK_RESTRICT_SELF_TSYNC, ABI 8); 0: on the
					  * calling thread and those it makes later */
	int driver_confined;             /* 1: every thread was already in the pre-driver
					  * domain (nodus_sandbox_before_driver) */
	int sealed;                      /* code mappings sealed at lockdown, -1 = no mseal */
	int task_dir, fd_dir, maps_fd;   /* /proc/self/{task,fd,maps}, open from prepare */
	int tids[NODUS_SANDBOX_MAX_IDS]; /* threads before loading */
	int n_tids;
	int fds[NODUS_SANDBOX_MAX_IDS];  /* fds before loading (the census's own included) */
	int n_fds;
} nodus_sandbox_state;

/* The cuda profile's options, the same for every cuda process that loads
 * solution code (a cuda worker, the audit of a cuda reference): the
 * solutions' objects read_files and the writable write_dir (both
 * borrowed), and the MPS pipe directory, read-write, from
 * $CUDA_MPS_PIPE_DIRECTORY when set (dirs: the caller's storage for that
 * list, kept alive as long as o). */
void nodus_sandbox_opts_cuda(nodus_sandbox_opts *o, const char *const *read_files,
			     const char *write_dir, const char *dirs[2]);
/* Step 0, cuda: Landlock put on before the CUDA driver exists, while the
 * process has one thread, so that the driver's threads (made at context
 * creation, before any job) are in a Landlock domain too: a ruleset
 * applies to the thread that enforces it and to the threads it makes
 * later, never to those already there (before Landlock ABI 8). The rules
 * are o's profile (nodus_sandbox_opts_cuda) plus extra_reads (borrowed,
 * NULL-terminated: the compile cache's directory for a worker started
 * ahead of its job, whose objects are not known yet; the cuda backend's
 * library) and each $LD_LIBRARY_PATH directory, read-only. Call it before
 * nodus_backend_cuda_load; nodus_sandbox_prepare then narrows the calling
 * thread (every thread where TSYNC exists) to the job's own objects; pass
 * o->driver_confined = 1 to it when *abi > 0. *abi: the Landlock ABI in
 * force, 0 when the kernel has none (not an error). Returns 0,
 * NODUS_EINTERNAL (the process already has other threads: nothing was
 * put on), or the ruleset's error. */
int nodus_sandbox_before_driver(const nodus_sandbox_opts *o, const char *const *extra_reads,
				int *abi, nodus_error *err);
/* 1 when NODUS_CUDA_SANDBOX=0 turns the cuda profile off (docs/sandbox.md:
 * should an H200 driver need something it refuses). */
int nodus_sandbox_cuda_off(void);

void nodus_sandbox_state_init(nodus_sandbox_state *s);
/* Closes the census's fds (lock_down does it too). */
void nodus_sandbox_state_release(nodus_sandbox_state *s);
/* Step 1. Returns 0, NODUS_EUNAVAILABLE (the kernel refuses a layer that
 * must hold: no_new_privs, the filter, a Landlock ABI it announced),
 * NODUS_EINTERNAL or NODUS_ENOMEM. A kernel without Landlock is not an
 * error: s->landlock_abi is 0 then. */
int nodus_sandbox_prepare(nodus_sandbox_state *s, const nodus_sandbox_opts *o, nodus_error *err);
/* Step 2. 0 when threads and fds are those of the census; otherwise 1
 * and `what` says which one is new. */
int nodus_sandbox_check_loaded(nodus_sandbox_state *s, char *what, size_t what_size);
/* Step 3 (cpu). s may be NULL (no prepare: the filter alone, as the unit
 * tests use it). Returns 0, NODUS_EUNAVAILABLE (kernel refuses the
 * filter) or NODUS_EINTERNAL / NODUS_ENOMEM. */
int nodus_sandbox_lock_down(nodus_sandbox_state *s, nodus_error *err);

#endif
