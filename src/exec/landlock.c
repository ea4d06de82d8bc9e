/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * landlock.c: Landlock rulesets through raw system calls (landlock.h),
 * and `nodus __jail`, which runs one tool chain program under one.
 *
 * The kernel headers this is built against may be older than the kernel
 * it runs on, so the access bits of later ABI versions are defined here
 * when the header lacks them, and the ruleset attribute is our own struct
 * of the ABI-6 layout (the kernel takes any size it knows the prefix of).
 * Handled rights are those of the running kernel's ABI, so an older kernel
 * gets the strongest ruleset it can enforce, never an EINVAL.
 * ------------------------------------------------------------------------ */
#include "exec/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* landlock_restrict_self() flag of ABI 8: every thread of the process */
#define LL_RESTRICT_SELF_TSYNC (1U << 3)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC LANDLOCK_ACCESS_FS_EXECUTE
#define FS_WRITE                                                                             \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                     \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |                      \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SYM |                         \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |                       \
	 LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* the only rights a rule on a file (not a directory) may carry */
#define FS_FILE_RIGHTS                                                                       \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                        \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* struct landlock_ruleset_attr as of ABI 6 */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;  /* file-system rights the ruleset decides */
	uint64_t handled_access_net; /* TCP rights (ABI >= 4) */
	uint64_t scoped;             /* IPC scopes (ABI >= 6) */
};

/* Every file-system right ABI version abi knows. */
static uint64_t fs_rights_of(int abi)
{
	uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0..12 */
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

int nodus_landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return v > 0 ? (int)v : 0;
}

int nodus_landlock_open_scoped(nodus_landlock *ll, int scope_abstract_unix, nodus_error *err)
{
	ll->fd = -1;
	ll->abi = nodus_landlock_abi();
	if (ll->abi < 1)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "landlock unavailable (the kernel has no Landlock ABI: %s)",
				 strerror(errno));
	struct ll_ruleset_attr attr = {fs_rights_of(ll->abi), 0, 0};
	size_t size = sizeof(attr.handled_access_fs);
	if (ll->abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (ll->abi >= 6) {
		attr.scoped = LL_SCOPE_SIGNAL | (scope_abstract_unix ? LL_SCOPE_ABSTRACT_UNIX_SOCKET : 0);
		size = sizeof(attr);
	}
	long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot create a Landlock ruleset (ABI %d): %s",
				 ll->abi, strerror(errno));
	ll->fd = (int)fd;
	return 0;
}

int nodus_landlock_open(nodus_landlock *ll, nodus_error *err)
{
	return nodus_landlock_open_scoped(ll, 1, err);
}

int nodus_landlock_allow(nodus_landlock *ll, const char *path, int rights, nodus_error *err)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) /* a path that is not there, or that we cannot reach, grants nothing */
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES
			       ? 0
			       : NODUS_ERR(err, NODUS_EIO, "cannot open '%s' for a Landlock rule: %s",
					   path, strerror(errno));
	struct stat st;
	uint64_t want = 0;
	if (rights & NODUS_LL_READ)
		want |= FS_READ;
	if (rights & NODUS_LL_EXEC)
		want |= FS_READ | FS_EXEC;
	if (rights & NODUS_LL_WRITE)
		want |= FS_WRITE;
	want &= fs_rights_of(ll->abi);
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		want &= FS_FILE_RIGHTS;
	struct landlock_path_beneath_attr pb = {.allowed_access = want, .parent_fd = fd};
	long rc = syscall(SYS_landlock_add_rule, ll->fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	int saved = errno;
	close(fd);
	if (rc)
		return NODUS_ERR(err, NODUS_EIO, "cannot add the Landlock rule for '%s': %s", path,
				 strerror(saved));
	return 0;
}

/* Enforces with flags (0 or LL_RESTRICT_SELF_TSYNC); closes the ruleset. */
static int enforce(nodus_landlock *ll, unsigned flags, nodus_error *err)
{
	int rc = 0;
	/* required to restrict oneself without CAP_SYS_ADMIN, and it keeps a
	 * setuid program from shedding the rules */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		rc = NODUS_ERR(err, NODUS_EUNAVAILABLE, "cannot set no_new_privs: %s",
			       strerror(errno));
	else if (syscall(SYS_landlock_restrict_self, ll->fd, flags))
		rc = NODUS_ERR(err, NODUS_EIO, "cannot enforce the Landlock ruleset%s: %s",
			       flags ? " on every thread" : "", strerror(errno));
	nodus_landlock_close(ll);
	return rc;
}

int nodus_landlock_enforce(nodus_landlock *ll, nodus_error *err)
{
	return enforce(ll, 0, err);
}

int nodus_landlock_enforce_all_threads(nodus_landlock *ll, int *all, nodus_error *err)
{
	*all = 0;
	if (ll->abi >= 8 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    syscall(SYS_landlock_restrict_self, ll->fd, LL_RESTRICT_SELF_TSYNC) == 0) {
		*all = 1;
		nodus_landlock_close(ll);
		return 0;
	}
	/* no TSYNC (an older kernel, or one that refuses it): this thread and
	 * the threads it makes, as the caller then records */
	return enforce(ll, 0, err);
}

void nodus_landlock_close(nodus_landlock *ll)
{
	if (ll->fd >= 0)
		close(ll->fd);
	ll->fd = -1;
}

/* ---- nodus __jail ---- */

int nodus_jail_main(int argc, char **argv)
{
	nodus_landlock ll;
	nodus_error err;
	int k = 1, have;
	if (argc > 1 && strcmp(argv[1], "--no-landlock") == 0) {
		/* only the tests of what holds without Landlock ask for this */
		snprintf(err.message, sizeof(err.message), "landlock unavailable (turned off for a test)");
		have = 0;
		k = 2;
	} else {
		have = nodus_landlock_open(&ll, &err) == 0;
	}
	if (!have)
		fprintf(stderr, "nodus: %s: the tool chain runs without a file-system filter\n",
			err.message);
	long long as_bytes = 0;
	for (; k + 1 < argc && strcmp(argv[k], "--") != 0; k += 2) {
		if (strcmp(argv[k], "--as") == 0) {
			as_bytes = atoll(argv[k + 1]);
			continue;
		}
		int rights = strcmp(argv[k], "--read") == 0    ? NODUS_LL_READ
			     : strcmp(argv[k], "--exec") == 0  ? NODUS_LL_EXEC
			     : strcmp(argv[k], "--write") == 0 ? NODUS_LL_WRITE | NODUS_LL_READ
							       : 0;
		if (!rights) {
			fprintf(stderr, "nodus __jail: unknown option '%s'\n", argv[k]);
			return 126;
		}
		if (have && nodus_landlock_allow(&ll, argv[k + 1], rights, &err)) {
			fprintf(stderr, "nodus __jail: %s\n", err.message);
			return 126;
		}
	}
	if (k >= argc || strcmp(argv[k], "--") != 0 || k + 1 >= argc) {
		fprintf(stderr, "usage: nodus __jail [--read P|--exec P|--write P|--as BYTES]... -- PROG ARG...\n");
		return 126;
	}
	if (have && nodus_landlock_enforce(&ll, &err)) {
		fprintf(stderr, "nodus __jail: %s\n", err.message);
		return 126;
	}
	/* the program's address space, set here rather than by our parent:
	 * this process is nodus, which a sanitizer build needs far more of */
	struct rlimit rl = {(rlim_t)as_bytes, (rlim_t)as_bytes};
	if (as_bytes > 0 && setrlimit(RLIMIT_AS, &rl)) {
		fprintf(stderr, "nodus __jail: cannot set RLIMIT_AS: %s\n", strerror(errno));
		return 126;
	}
	fflush(stderr);
	execvp(argv[k + 1], argv + k + 1);
	fprintf(stderr, "nodus __jail: cannot run '%s': %s\n", argv[k + 1], strerror(errno));
	return 127;
}
