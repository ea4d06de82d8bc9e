/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * sandbox.c: the confinement a worker puts itself in (exec.h, "sandbox"):
 * before any solution code is loaded (nodus_sandbox_prepare), a check
 * right after loading (nodus_sandbox_check_loaded), and the full filter
 * once everything is allocated (nodus_sandbox_lock_down, cpu).
 *
 * Why in two stages on cpu: a solution's ELF constructors run inside
 * dlopen(), so whatever confines the solution must be in place before
 * dlopen, yet the dynamic loader still needs to open and map the shared
 * object and its libraries. The load filter lets the loader do that (a
 * read-only openat, mmap/mprotect with PROT_EXEC) and kills everything
 * else the full filter kills; the full filter then stacks on top (seccomp
 * filters stack, the strictest action wins) and also forbids opening
 * files and new executable mappings. The cuda profile is one permissive
 * filter installed when the job arrives (after the driver has set up its
 * context, its threads and its device files): see docs/sandbox.md for
 * what it leaves a cuda worker.
 *
 * Each filter allows by default and kills the whole process (SIGSYS,
 * which no handler can catch) on what it lists. Calls that take another
 * process's pid are killed unless the target is the worker itself (0 or
 * getpid()): libseccomp refuses two comparisons on one argument in one
 * rule, so "kill unless arg is 0 or pid" is several rules that all kill:
 * "arg > pid" and, for the gap [1, pid-1], one masked-equality rule per
 * aligned power-of-two block (at most 2 per bit). Arguments are compared
 * as the full 64-bit register: a value whose upper half is not the sign
 * extension of its lower half never equals pid or 0, so such calls are
 * killed, never let through.
 *
 * Landlock (raw syscalls, since no library wraps it here) limits which
 * files can be read at all: the solutions' shared objects, the system
 * library directories, and on cuda what the driver reads; writes only
 * in the worker's own directory; no TCP; no signals out of the domain.
 * A kernel without it degrades to the filters, and the worker says so in
 * nodus_sandbox_state.landlock_abi (recorded in the attempt's detail).
 * A ruleset covers the thread that enforces it and the threads it makes
 * later, so a cuda process puts one on before the CUDA driver starts any
 * thread (nodus_sandbox_before_driver: the profile plus the compile
 * cache, when the job's objects are not known yet), and the job's ruleset
 * later narrows it: on every thread where the kernel has TSYNC (Landlock
 * ABI 8), else on the calling thread, the driver's threads keeping the
 * first.
 *
 * Syscall names are resolved at run time; a name this architecture lacks
 * (open on arm64) is skipped. Calls from another ABI (32-bit int 0x80 on
 * x86-64, x32) hit libseccomp's bad-architecture action, which kills.
 * ------------------------------------------------------------------------ */
#include "exec/exec.h"
#include "exec/landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- what each profile kills ---- */

/* Killed in every profile and stage, whatever their arguments: new
 * processes and programs, other processes' memory, leaving the process
 * group or session, state that outlives the process (SysV IPC, POSIX
 * message queues, keyrings), and side doors to the same effects
 * (io_uring opens files without openat, pidfd_send_signal is kill,
 * namespaces and mounts change what the process can reach). */
static const char *const always_killed[] = {
	"fork", "vfork", "execve", "execveat",
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_send_signal",
	"pidfd_getfd", "process_madvise", "process_mrelease", "kcmp",
	"setsid", "setpgid",
	"shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
	"msgget", "msgsnd", "msgrcv", "msgctl", "ipc",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
	"keyctl", "add_key", "request_key",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "mount",
	"umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
	"fsmount", "fspick", "mount_setattr", "bpf", "perf_event_open", "userfaultfd",
	"open_by_handle_at", "name_to_handle_at", "fanotify_init", "fanotify_mark",
	"reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "acct", "swapon", "swapoff", "settimeofday", "clock_settime",
	"clock_adjtime", "adjtimex", "sethostname", "setdomainname", "iopl", "ioperm",
	"quotactl", "syslog",
};

/* Killed on cpu in both stages: threads, sockets, changing files. */
static const char *const cpu_killed[] = {
	"clone", "clone3",
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
	"creat", "openat2", "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename",
	"renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate",
	"ftruncate", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown",
	"fchownat", "mknod", "mknodat", "inotify_init", "inotify_init1", "inotify_add_watch",
};

/* Killed by the full cpu filter only: the loader needs them before. */
static const char *const cpu_locked_killed[] = {"open", "openat"};

/* Calls that act on a process named by arg0 (or arg1 for the priority
 * calls): allowed only on the worker itself. */
static const char *const self_only_arg0[] = {
	"prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam",
	"sched_setattr", "migrate_pages", "move_pages", "get_robust_list",
};

/* ---- seccomp rules ---- */

/* Adds "action if arg `arg` is in [lo, hi]" as masked-equality rules over
 * aligned power-of-two blocks. */
static int act_range(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg, uint64_t lo,
		     uint64_t hi)
{
	while (lo <= hi) {
		unsigned k = 0;
		/* Grow the block while lo stays aligned to it and it fits. */
		while (k < 63 && (lo & ((2ull << k) - 1)) == 0 && hi - lo >= (2ull << k) - 1)
			k++;
		uint64_t size = 1ull << k;
		struct scmp_arg_cmp cmp = {arg, SCMP_CMP_MASKED_EQ, ~(size - 1), lo};
		int rc = seccomp_rule_add_array(ctx, action, nr, 1, &cmp);
		if (rc)
			return rc;
		if (hi - lo == size - 1)
			break;
		lo += size;
	}
	return 0;
}

/* `action` on syscall `name` unless argument `arg` is one of allowed[]
 * (sorted ascending, distinct). */
static int act_unless_arg(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned arg,
			  const uint64_t *allowed, int n_allowed)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr < 0)
		return 0;
	uint64_t lo = 0;
	for (int i = 0; i < n_allowed; i++) {
		if (allowed[i] > lo) {
			int rc = act_range(ctx, action, nr, arg, lo, allowed[i] - 1);
			if (rc)
				return rc;
		}
		lo = allowed[i] + 1;
	}
	struct scmp_arg_cmp gt = {arg, SCMP_CMP_GT, allowed[n_allowed - 1], 0};
	return seccomp_rule_add_array(ctx, action, nr, 1, &gt);
}

static int kill_all(scmp_filter_ctx ctx, const char *const *names, size_t n, const char **failed)
{
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		if (nr < 0)
			continue;
		int rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
		if (rc) {
			*failed = names[i];
			return rc;
		}
	}
	return 0;
}

/* `action` on `name` when (arg & mask) == value. */
static int act_masked(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned arg,
		      uint64_t mask, uint64_t value)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr < 0)
		return 0;
	struct scmp_arg_cmp cmp = {arg, SCMP_CMP_MASKED_EQ, mask, value};
	return seccomp_rule_add_array(ctx, action, nr, 1, &cmp);
}

/* Signals and pid-taking calls: only the worker itself. `other` is the
 * action for the scheduling and priority calls on another process (the
 * cuda profile answers EPERM there: a driver thread setting its own
 * affinity by tid must not kill the worker). */
static int add_self_only(scmp_filter_ctx ctx, uint32_t other, const char **failed)
{
	const uint64_t pid = (uint64_t)getpid();
	const uint64_t tid = (uint64_t)gettid();
	const uint64_t self_or_group[] = {0, pid};
	const uint64_t self[] = {pid};
	const uint64_t self_thread[] = {tid};
	const uint32_t kill = SCMP_ACT_KILL_PROCESS;
	int rc;

	if ((rc = act_unless_arg(ctx, kill, "kill", 0, self_or_group, 2))) {
		*failed = "kill";
		return rc;
	}
	if ((rc = act_unless_arg(ctx, kill, "tgkill", 0, self, 1)) ||
	    (rc = act_unless_arg(ctx, kill, "rt_tgsigqueueinfo", 0, self, 1)) ||
	    (rc = act_unless_arg(ctx, kill, "rt_sigqueueinfo", 0, self, 1))) {
		*failed = "tgkill/rt_*sigqueueinfo";
		return rc;
	}
	if ((rc = act_unless_arg(ctx, kill, "tkill", 0, self_thread, 1))) {
		*failed = "tkill";
		return rc;
	}
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(self_only_arg0); i++) {
		const char *name = self_only_arg0[i];
		uint32_t action = strncmp(name, "sched_", 6) == 0 ? other : kill;
		if ((rc = act_unless_arg(ctx, action, name, 0, self_or_group, 2))) {
			*failed = name;
			return rc;
		}
	}
	/* setpriority/getpriority(which, who): only PRIO_PROCESS (0) on 0 or
	 * itself; a process group or a user reaches other processes */
	static const char *const prio[] = {"setpriority", "getpriority"};
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(prio); i++) {
		int nr = seccomp_syscall_resolve_name(prio[i]);
		struct scmp_arg_cmp not_process = {0, SCMP_CMP_GT, 0, 0};
		if (nr >= 0 && ((rc = seccomp_rule_add_array(ctx, other, nr, 1, &not_process)) ||
				(rc = act_unless_arg(ctx, other, prio[i], 1, self_or_group, 2)))) {
			*failed = prio[i];
			return rc;
		}
	}
	return 0;
}

/* The loader may open files read-only; anything that could write or
 * create one kills (flags are arg1 of open, arg2 of openat). */
static int add_read_only_open(scmp_filter_ctx ctx, const char **failed)
{
	static const struct {
		const char *name;
		unsigned arg;
	} calls[] = {{"open", 1}, {"openat", 2}};
	static const struct {
		uint64_t mask, value;
	} writes[] = {
		{O_ACCMODE, O_WRONLY}, {O_ACCMODE, O_RDWR}, {O_ACCMODE, O_ACCMODE},
		{O_CREAT, O_CREAT}, {O_TRUNC, O_TRUNC}, {O_APPEND, O_APPEND},
		{__O_TMPFILE, __O_TMPFILE},
	};
	for (size_t c = 0; c < NODUS_ARRAY_SIZE(calls); c++)
		for (size_t w = 0; w < NODUS_ARRAY_SIZE(writes); w++) {
			int rc = act_masked(ctx, SCMP_ACT_KILL_PROCESS, calls[c].name, calls[c].arg,
					    writes[w].mask, writes[w].value);
			if (rc) {
				*failed = calls[c].name;
				return rc;
			}
		}
	return 0;
}

/* W^X after lockdown: no new executable mapping, no code made writable
 * and executable again. */
static int add_no_exec_maps(scmp_filter_ctx ctx, const char **failed)
{
	static const char *const calls[] = {"mmap", "mprotect", "pkey_mprotect"};
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(calls); i++) {
		int rc = act_masked(ctx, SCMP_ACT_KILL_PROCESS, calls[i], 2, PROT_EXEC, PROT_EXEC);
		if (rc) {
			*failed = calls[i];
			return rc;
		}
	}
	return 0;
}

/* The harness's own descriptors stay the harness's: closing or replacing
 * fd 0 (commands), 3 (results) or 5 (the clock socket) kills, so solution
 * code cannot take over a channel and then speak for the worker (forge a
 * batch's marks after swallowing the real ones); a frame it merely adds is
 * one more than the protocol expects, a protocol fault. */
static int add_harness_fds(scmp_filter_ctx ctx, const char **failed)
{
	static const uint64_t fds[] = {0, 3, 5};
	static const struct {
		const char *name;
		unsigned arg;
	} calls[] = {{"close", 0}, {"dup2", 1}, {"dup3", 1}};
	for (size_t c = 0; c < NODUS_ARRAY_SIZE(calls); c++) {
		int nr = seccomp_syscall_resolve_name(calls[c].name);
		for (size_t f = 0; nr >= 0 && f < NODUS_ARRAY_SIZE(fds); f++) {
			struct scmp_arg_cmp eq = {calls[c].arg, SCMP_CMP_EQ, fds[f], 0};
			int rc = seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, nr, 1, &eq);
			if (rc) {
				*failed = calls[c].name;
				return rc;
			}
		}
	}
	int nr = seccomp_syscall_resolve_name("close_range");
	struct scmp_arg_cmp low = {0, SCMP_CMP_LE, 5, 0};
	if (nr >= 0) {
		int rc = seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, nr, 1, &low);
		if (rc) {
			*failed = "close_range";
			return rc;
		}
	}
	return 0;
}

/* The cuda profile: the driver's threads may be made (clone with
 * CLONE_THREAD; clone3 answers ENOSYS, so glibc falls back to clone,
 * whose flags a filter can read), sockets other than AF_UNIX kill (the
 * MPS client socket is opened at context creation, before this). */
static int add_cuda_rules(scmp_filter_ctx ctx, const char **failed)
{
	int rc;
	if ((rc = act_masked(ctx, SCMP_ACT_KILL_PROCESS, "clone", 0, CLONE_THREAD, 0))) {
		*failed = "clone";
		return rc;
	}
	int nr = seccomp_syscall_resolve_name("clone3");
	if (nr >= 0 && (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0))) {
		*failed = "clone3";
		return rc;
	}
	nr = seccomp_syscall_resolve_name("socket");
	struct scmp_arg_cmp not_unix = {0, SCMP_CMP_NE, AF_UNIX, 0};
	if (nr >= 0 && (rc = seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, nr, 1, &not_unix))) {
		*failed = "socket";
		return rc;
	}
	static const char *const net[] = {"bind", "listen", "accept", "accept4"};
	return kill_all(ctx, net, NODUS_ARRAY_SIZE(net), failed);
}

enum filter_kind { FILTER_CPU_LOAD, FILTER_CPU_LOCKED, FILTER_CUDA };

static int load_filter(enum filter_kind kind, nodus_error *err)
{
	const char *failed = "?";
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot create the syscall filter");
	/* Every thread of the worker gets the filter, not just this one. */
	int arc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!arc)
		arc = kill_all(ctx, always_killed, NODUS_ARRAY_SIZE(always_killed), &failed);
	if (!arc)
		arc = add_self_only(ctx, kind == FILTER_CUDA ? SCMP_ACT_ERRNO(EPERM)
							     : SCMP_ACT_KILL_PROCESS,
				    &failed);
	if (!arc)
		arc = add_harness_fds(ctx, &failed);
	if (!arc && kind != FILTER_CUDA)
		arc = kill_all(ctx, cpu_killed, NODUS_ARRAY_SIZE(cpu_killed), &failed);
	if (!arc && kind == FILTER_CPU_LOAD)
		arc = add_read_only_open(ctx, &failed);
	if (!arc && kind == FILTER_CPU_LOCKED)
		arc = kill_all(ctx, cpu_locked_killed, NODUS_ARRAY_SIZE(cpu_locked_killed),
			       &failed);
	if (!arc && kind == FILTER_CPU_LOCKED)
		arc = add_no_exec_maps(ctx, &failed);
	if (!arc && kind == FILTER_CUDA)
		arc = add_cuda_rules(ctx, &failed);
	int rc = 0;
	if (arc)
		rc = NODUS_ERR(err, NODUS_EINTERNAL, "cannot build the syscall filter: %s: %s",
			       failed, strerror(-arc));
	else if ((arc = seccomp_load(ctx)))
		rc = NODUS_ERR(err, NODUS_EUNAVAILABLE, "cannot load the syscall filter: %s",
			       strerror(-arc));
	seccomp_release(ctx);
	return rc;
}

/* ---- Landlock (exec/landlock.c) ---- */

/* Readable trees every worker needs for dlopen. */
static const char *const system_libs[] = {
	"/lib", "/lib32", "/lib64", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/local/lib",
	"/etc/ld.so.cache",
};
/* What the CUDA driver and libraries may still open after context
 * creation (lazily loaded cuBLAS kernels, /dev/nvidia-uvm, /proc/self/maps,
 * /sys/bus/pci, /dev/shm for CUDA IPC). */
static const char *const cuda_read[] = {
	"/usr/local", "/opt", "/proc", "/sys", "/dev", "/etc/nvidia", "/usr/share/nvidia",
};
/* /proc/self/task: the driver names each thread it makes (writes
 * /proc/self/task/TID/comm, a file that does not exist when the ruleset is
 * made) and gives up on cuInit when it cannot (cudaErrorOperatingSystem
 * on the H200, seen with strace: bench/gpu-check.sh landlock-trace). The
 * worker's own tasks only: nothing there reaches another process. */
static const char *const cuda_write[] = {"/dev", "/proc/self/task"};

/* Adds the rules of profile o to ll: the system libraries, o's files, its
 * writable directory and, on cuda, the driver's trees and the MPS dirs. */
static int landlock_rules(nodus_landlock *ll, const nodus_sandbox_opts *o, nodus_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < NODUS_ARRAY_SIZE(system_libs); i++)
		rc = nodus_landlock_allow(ll, system_libs[i], NODUS_LL_READ, err);
	for (int i = 0; !rc && o->read_files && o->read_files[i]; i++)
		rc = nodus_landlock_allow(ll, o->read_files[i], NODUS_LL_READ, err);
	if (!rc && o->write_dir)
		rc = nodus_landlock_allow(ll, o->write_dir, NODUS_LL_READ | NODUS_LL_WRITE, err);
	for (size_t i = 0; !rc && o->cuda && i < NODUS_ARRAY_SIZE(cuda_read); i++)
		rc = nodus_landlock_allow(ll, cuda_read[i], NODUS_LL_READ, err);
	for (size_t i = 0; !rc && o->cuda && i < NODUS_ARRAY_SIZE(cuda_write); i++)
		rc = nodus_landlock_allow(ll, cuda_write[i], NODUS_LL_READ | NODUS_LL_WRITE, err);
	for (int i = 0; !rc && o->cuda && o->cuda_dirs && o->cuda_dirs[i]; i++)
		rc = nodus_landlock_allow(ll, o->cuda_dirs[i], NODUS_LL_READ | NODUS_LL_WRITE, err);
	return rc;
}

/* Returns the ABI in force, 0 when the kernel has no Landlock (not an
 * error: the filters still hold), or -1 with err set. *all: 1 when the
 * ruleset holds on every thread (TSYNC), not only this one and later. */
static int landlock_apply(const nodus_sandbox_opts *o, int *all, nodus_error *err)
{
	nodus_landlock ll;
	nodus_error none;
	*all = 0;
	if (nodus_landlock_open_scoped(&ll, !o->cuda, &none))
		return nodus_landlock_abi() > 0 ? (*err = none, -1) : 0;
	int abi = ll.abi, rc = landlock_rules(&ll, o, err);
	if (!rc)
		rc = nodus_landlock_enforce_all_threads(&ll, all, err);
	nodus_landlock_close(&ll);
	return rc ? -1 : abi;
}

/* ---- census of threads and descriptors ---- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Lists the numeric entries of an open /proc directory (read afresh from
 * its start: procfs builds them at each read). Returns the count, or -1. */
static int list_numbers(int dirfd, int *out, int max)
{
	char buf[4096];
	int n = 0;
	if (lseek(dirfd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		long got = syscall(SYS_getdents64, dirfd, buf, sizeof(buf));
		if (got < 0)
			return -1;
		if (got == 0)
			return n;
		for (long off = 0; off < got;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			char *end;
			long v = strtol(d->d_name, &end, 10);
			if (end == d->d_name || *end)
				continue;
			if (n >= max)
				return -1;
			out[n++] = (int)v;
		}
	}
}

static int contains(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int census_take(nodus_sandbox_state *s, int *tids, int *n_tids, int *fds, int *n_fds)
{
	*n_tids = list_numbers(s->task_dir, tids, NODUS_SANDBOX_MAX_IDS);
	*n_fds = list_numbers(s->fd_dir, fds, NODUS_SANDBOX_MAX_IDS);
	return *n_tids < 0 || *n_fds < 0 ? -1 : 0;
}

/* Entries of /proc/self/task now, -1 when it cannot be read. */
static int thread_count(void)
{
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int tids[NODUS_SANDBOX_MAX_IDS];
	int n = dir < 0 ? -1 : list_numbers(dir, tids, NODUS_SANDBOX_MAX_IDS);
	if (dir >= 0)
		close(dir);
	return n;
}

/* Adds each directory of $LD_LIBRARY_PATH, readable (a carried bundle
 * loads the backend's libraries from there). */
static int allow_library_path(nodus_landlock *ll, nodus_error *err)
{
	const char *lp = getenv("LD_LIBRARY_PATH");
	char one[PATH_MAX];
	int rc = 0;
	for (const char *s = lp ? lp : ""; !rc && *s;) {
		size_t n = strcspn(s, ":");
		if (n > 0 && n < sizeof(one)) {
			snprintf(one, sizeof(one), "%.*s", (int)n, s);
			rc = nodus_landlock_allow(ll, one, NODUS_LL_READ, err);
		}
		s += n + (s[n] == ':');
	}
	return rc;
}

int nodus_sandbox_before_driver(const nodus_sandbox_opts *o, const char *const *extra_reads,
				int *abi, nodus_error *err)
{
	*abi = 0;
	/* On unless NODUS_CUDA_PREDRIVER_LANDLOCK=0. It was opt-in until the
	 * driver's write to /proc/self/task/TID/comm was allowed; on the H200
	 * (driver 580.159.04) test-gpu-landlock, the retest, the audits and the
	 * torch and Triton solutions then ran with it (bench/results/h200/
	 * retest-48, torch-48; docs/sandbox.md) */
	const char *on = getenv("NODUS_CUDA_PREDRIVER_LANDLOCK");
	if (on && strcmp(on, "0") == 0)
		return 0;
	/* Landlock restricts the calling thread and the threads it makes
	 * afterwards: with one thread now, that is every thread there will be */
	int n = thread_count();
	if (n != 1)
		return NODUS_ERR(err, NODUS_EINTERNAL,
				 "cannot confine the process before the CUDA driver starts: it has "
				 "%d threads already (a ruleset put on now would leave the others out)",
				 n);
	nodus_landlock ll;
	nodus_error none;
	if (nodus_landlock_open_scoped(&ll, !o->cuda, &none))
		return nodus_landlock_abi() > 0 ? (*err = none, err->code) : 0;
	int rc = landlock_rules(&ll, o, err);
	for (int i = 0; !rc && extra_reads && extra_reads[i]; i++)
		rc = nodus_landlock_allow(&ll, extra_reads[i], NODUS_LL_READ, err);
	if (!rc)
		rc = allow_library_path(&ll, err);
	int version = ll.abi;
	if (!rc)
		rc = nodus_landlock_enforce(&ll, err);
	nodus_landlock_close(&ll);
	if (!rc)
		*abi = version;
	return rc;
}

/* ---- the stages ---- */

/* Drops every capability (a worker started as root keeps uid 0, but may
 * no longer raise its own limits, override file permissions or reach
 * the kernel's administrative calls). */
static int drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	return (int)syscall(SYS_capset, &hdr, data);
}

void nodus_sandbox_opts_cuda(nodus_sandbox_opts *o, const char *const *read_files,
			     const char *write_dir, const char *dirs[2])
{
	const char *mps = getenv("CUDA_MPS_PIPE_DIRECTORY");
	dirs[0] = mps && *mps ? mps : NULL;
	dirs[1] = NULL;
	memset(o, 0, sizeof(*o));
	o->cuda = 1;
	o->read_files = read_files;
	o->write_dir = write_dir;
	o->cuda_dirs = dirs[0] ? dirs : NULL;
}

int nodus_sandbox_cuda_off(void)
{
	const char *v = getenv("NODUS_CUDA_SANDBOX");
	return v && strcmp(v, "0") == 0;
}

void nodus_sandbox_state_init(nodus_sandbox_state *s)
{
	memset(s, 0, sizeof(*s));
	s->task_dir = s->fd_dir = s->maps_fd = -1;
}

void nodus_sandbox_state_release(nodus_sandbox_state *s)
{
	if (s->task_dir >= 0)
		close(s->task_dir);
	if (s->fd_dir >= 0)
		close(s->fd_dir);
	if (s->maps_fd >= 0)
		close(s->maps_fd);
	s->task_dir = s->fd_dir = s->maps_fd = -1;
}

int nodus_sandbox_prepare(nodus_sandbox_state *s, const nodus_sandbox_opts *o, nodus_error *err)
{
	nodus_sandbox_state_init(s);
	s->cuda = o->cuda;
	/* Opened now, read after loading: past this point no /proc path
	 * needs to be readable. */
	s->task_dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->fd_dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!o->cuda)
		s->maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (s->task_dir < 0 || s->fd_dir < 0 ||
	    census_take(s, s->tids, &s->n_tids, s->fds, &s->n_fds))
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "cannot list the worker's threads and descriptors in /proc/self: %s",
				 strerror(errno));
	/* A fresh IPC namespace: a SysV segment made by an earlier worker is
	 * not there, and nothing made here outlives this process (the filter
	 * forbids SysV IPC anyway). Needs privilege: best effort. */
	if (!o->cuda && unshare(CLONE_NEWIPC) == 0)
		s->ipc_namespace = 1;
	/* No core dump, no ptrace by a co-tenant of the same user, and
	 * /proc/PID of this worker is closed to other workers. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Required for an unprivileged filter and for Landlock, and it means
	 * no setuid program could lift either even if exec were reachable. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "cannot set no_new_privs: %s",
				 strerror(errno));
	s->caps_dropped = drop_capabilities() == 0;
	int abi = landlock_apply(o, &s->landlock_tsync, err);
	if (abi < 0)
		return err->code;
	s->landlock_abi = abi;
	s->driver_confined = o->driver_confined;
	return load_filter(o->cuda ? FILTER_CUDA : FILTER_CPU_LOAD, err);
}

/* readlink of one of our fds, for the message */
static void fd_target(int fd, char *out, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(path, out, n - 1);
	out[len > 0 ? len : 0] = '\0';
}

int nodus_sandbox_check_loaded(nodus_sandbox_state *s, char *what, size_t what_size)
{
	int tids[NODUS_SANDBOX_MAX_IDS], fds[NODUS_SANDBOX_MAX_IDS], n_tids, n_fds;
	what[0] = '\0';
	if (census_take(s, tids, &n_tids, fds, &n_fds)) {
		snprintf(what, what_size, "cannot list threads and descriptors after loading");
		return 1;
	}
	for (int i = 0; i < n_tids; i++)
		if (!contains(s->tids, s->n_tids, tids[i])) {
			/* its name, where /proc is readable (cuda): a driver thread
			 * started late would say so here */
			char comm[64] = "", path[48];
			snprintf(path, sizeof(path), "%d/comm", tids[i]);
			int fd = openat(s->task_dir, path, O_RDONLY | O_CLOEXEC);
			ssize_t n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
			if (fd >= 0)
				close(fd);
			comm[n > 0 ? strcspn(comm, "\n") : 0] = '\0';
			snprintf(what, what_size, "loading started thread %d (%s)", tids[i],
				 comm[0] ? comm : "?");
			return 1;
		}
	size_t used = 0;
	int left = 0;
	for (int i = 0; i < n_fds; i++) {
		if (contains(s->fds, s->n_fds, fds[i]))
			continue;
		char target[256];
		fd_target(fds[i], target, sizeof(target));
		/* the CUDA driver opens its device files lazily, and its eventfds
		 * when a library first makes streams and events on the context
		 * (torch's import on the H200): a counter inside this process,
		 * which no thread made after lockdown and no other process can
		 * reach (no fd passing: unix sockets are refused) */
		if (s->cuda && (strncmp(target, "/dev/nvidia", 11) == 0 ||
				strcmp(target, "anon_inode:[eventfd]") == 0))
			continue;
		/* all of them, so that one run names everything to look at */
		if (used + 1 < what_size)
			used += (size_t)snprintf(what + used, what_size - used, "%s%d (%s)",
						 left ? ", " : "loading left file descriptor(s) open: ",
						 fds[i], target[0] ? target : "?");
		left++;
	}
	if (left)
		return 1;
	for (int i = 0; i < s->n_tids; i++)
		if (!contains(tids, n_tids, s->tids[i])) {
			/* a thread nodus or the driver made is gone: harmless, but
			 * a later census would miss it */
			s->tids[i] = -1;
		}
	return 0;
}

/* Seals every executable mapping (mseal, Linux 6.10): no munmap, mremap,
 * mprotect or madvise(DONTNEED) can touch the code afterwards. Returns
 * how many were sealed, or -1 when the kernel has no mseal. */
static int seal_code(int maps_fd)
{
#ifndef SYS_mseal
#define SYS_mseal 462
#endif
	static char buf[1 << 16];
	ssize_t len = 0, got;
	if (maps_fd < 0 || lseek(maps_fd, 0, SEEK_SET) < 0)
		return 0;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (got = read(maps_fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += got;
	buf[len] = '\0';
	int sealed = 0;
	for (char *line = buf; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		unsigned long lo, hi;
		char perms[8] = "";
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x' &&
		    !strstr(line, "[vsyscall]") && !strstr(line, "[vdso]") &&
		    !strstr(line, "[uprobes]")) {
			if (syscall(SYS_mseal, lo, hi - lo, 0) == 0)
				sealed++;
			else if (errno == ENOSYS)
				return -1;
		}
		line = next;
	}
	return sealed;
}

int nodus_sandbox_lock_down(nodus_sandbox_state *s, nodus_error *err)
{
	nodus_sandbox_state local;
	if (!s) {
		/* called without a prepare (tests of the filter alone) */
		nodus_sandbox_state_init(&local);
		local.maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		s = &local;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
			nodus_sandbox_state_release(s);
			return NODUS_ERR(err, NODUS_EUNAVAILABLE, "cannot set no_new_privs: %s",
					 strerror(errno));
		}
	}
	s->sealed = seal_code(s->maps_fd);
	nodus_sandbox_state_release(s);
	return load_filter(FILTER_CPU_LOCKED, err);
}
