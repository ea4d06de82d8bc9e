/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * sandbox.c: the syscall filter a CPU worker installs on itself once the
 * solution is loaded and every buffer is allocated (libseccomp).
 *
 * The filter allows by default and kills the whole process (SIGSYS, which
 * no handler can catch) on the calls listed in blocked_syscalls[] below:
 * making processes or threads, running programs, the network, opening or
 * changing files, reading other processes' memory, leaving the process
 * group. Signals are allowed only towards the worker itself, checked on
 * the target argument: kill(getpid()) and kill(0) (its own group, which
 * exec.c made for it alone), tgkill/rt_tgsigqueueinfo/rt_sigqueueinfo
 * with tgid getpid(), tkill with the locking thread's tid. That keeps
 * abort() working (raise() is tgkill on itself).
 *
 * libseccomp refuses two comparisons on one argument in one rule, so "kill
 * unless arg0 is 0 or pid" is written as several rules that all kill: one
 * "arg0 > pid" and, for the gap [1, pid-1], one masked-equality rule per
 * aligned power-of-two block covering it (at most 2 per bit). Arguments
 * are compared as the full 64-bit register: a value whose upper half is
 * not the sign extension of its lower half never equals pid or 0, so such
 * odd calls are killed, never let through.
 *
 * Syscall names are resolved at run time; a name this architecture lacks
 * (open on arm64) is skipped. Calls from another ABI (32-bit int 0x80 on
 * x86-64, x32) hit libseccomp's bad-architecture action, which kills.
 * docs/sandbox.md says what this does not protect against.
 * ------------------------------------------------------------------------ */
#include "exec/exec.h"

#include <errno.h>
#include <seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Killed whatever their arguments. The first block is the contract of
 * exec.h; the second closes side doors to the same effects (io_uring can
 * open files without an openat syscall, pidfd_send_signal is kill,
 * unshare/setns/mount change what the process can reach). */
static const char *const blocked_syscalls[] = {
	/* processes, threads, programs */
	"fork", "vfork", "clone", "clone3", "execve", "execveat",
	/* network and local sockets */
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
	/* opening and changing files */
	"open", "openat", "openat2", "creat", "mkdir", "mkdirat", "unlink", "unlinkat",
	"rmdir", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
	"symlinkat", "truncate", "chmod", "fchmod", "fchmodat", "chown", "fchown",
	"lchown", "fchownat", "mknod", "mknodat", "open_by_handle_at", "name_to_handle_at",
	/* other processes */
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open",
	"pidfd_send_signal", "pidfd_getfd", "process_madvise",
	/* leaving the process group or session */
	"setsid", "setpgid",
	/* side doors */
	"io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns",
	"mount", "umount2", "pivot_root", "chroot", "bpf", "perf_event_open",
	"userfaultfd",
};

static int resolve(const char *name)
{
	return seccomp_syscall_resolve_name(name);
}

/* Adds "kill the process if arg `arg` is in [lo, hi]" as masked-equality
 * rules over aligned power-of-two blocks. */
static int kill_range(scmp_filter_ctx ctx, int nr, unsigned arg, uint64_t lo, uint64_t hi)
{
	while (lo <= hi) {
		unsigned k = 0;
		/* Grow the block while lo stays aligned to it and it fits. */
		while (k < 63 && (lo & ((2ull << k) - 1)) == 0 && hi - lo >= (2ull << k) - 1)
			k++;
		uint64_t size = 1ull << k;
		struct scmp_arg_cmp cmp = {arg, SCMP_CMP_MASKED_EQ, ~(size - 1), lo};
		int rc = seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, nr, 1, &cmp);
		if (rc)
			return rc;
		if (hi - lo == size - 1)
			break;
		lo += size;
	}
	return 0;
}

/* Kills the process on syscall `name` unless arg0 is one of allowed[]
 * (sorted ascending, distinct). */
static int kill_unless_arg0(scmp_filter_ctx ctx, const char *name, const uint64_t *allowed,
			    int n_allowed)
{
	int nr = resolve(name);
	if (nr < 0)
		return 0;
	uint64_t lo = 0;
	for (int i = 0; i < n_allowed; i++) {
		if (allowed[i] > lo) {
			int rc = kill_range(ctx, nr, 0, lo, allowed[i] - 1);
			if (rc)
				return rc;
		}
		lo = allowed[i] + 1;
	}
	struct scmp_arg_cmp gt = {0, SCMP_CMP_GT, allowed[n_allowed - 1], 0};
	return seccomp_rule_add_array(ctx, SCMP_ACT_KILL_PROCESS, nr, 1, &gt);
}

static int add_rules(scmp_filter_ctx ctx, const char **failed)
{
	const uint64_t pid = (uint64_t)getpid();
	const uint64_t tid = (uint64_t)gettid();
	const uint64_t self_or_group[] = {0, pid};
	const uint64_t self[] = {pid};
	const uint64_t self_thread[] = {tid};
	int rc;

	for (size_t i = 0; i < NODUS_ARRAY_SIZE(blocked_syscalls); i++) {
		int nr = resolve(blocked_syscalls[i]);
		if (nr < 0)
			continue;
		rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
		if (rc) {
			*failed = blocked_syscalls[i];
			return rc;
		}
	}
	if ((rc = kill_unless_arg0(ctx, "kill", self_or_group, 2))) {
		*failed = "kill";
		return rc;
	}
	if ((rc = kill_unless_arg0(ctx, "tgkill", self, 1)) ||
	    (rc = kill_unless_arg0(ctx, "rt_tgsigqueueinfo", self, 1)) ||
	    (rc = kill_unless_arg0(ctx, "rt_sigqueueinfo", self, 1))) {
		*failed = "tgkill/rt_*sigqueueinfo";
		return rc;
	}
	if ((rc = kill_unless_arg0(ctx, "tkill", self_thread, 1))) {
		*failed = "tkill";
		return rc;
	}
	return 0;
}

int nodus_sandbox_lock_down(nodus_error *err)
{
	scmp_filter_ctx ctx = NULL;
	const char *failed = "?";
	int rc = 0;

	/* Required for an unprivileged filter, and it means no setuid program
	 * could lift it even if exec were reachable. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		rc = NODUS_ERR(err, NODUS_EUNAVAILABLE, "cannot set no_new_privs: %s",
			       strerror(errno));
		goto out;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		rc = NODUS_ERR(err, NODUS_ENOMEM, "cannot create the syscall filter");
		goto out;
	}
	/* Every thread of the worker gets the filter, not just this one. */
	int arc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!arc)
		arc = add_rules(ctx, &failed);
	if (arc) {
		rc = NODUS_ERR(err, NODUS_EINTERNAL, "cannot build the syscall filter: %s: %s",
			       failed, strerror(-arc));
		goto out;
	}
	arc = seccomp_load(ctx);
	if (arc)
		rc = NODUS_ERR(err, NODUS_EUNAVAILABLE, "cannot load the syscall filter: %s",
			       strerror(-arc));
out:
	seccomp_release(ctx);
	return rc;
}
