/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * landlock.h: a file-system allow-list a process puts on itself (Linux
 * Landlock), and the jail that runs a tool chain program under one.
 *
 * Life cycle:
 *   1. nodus_landlock ll; nodus_landlock_open(&ll, &err): a ruleset that
 *      handles every access right this kernel knows (files, TCP, signals
 *      and abstract sockets outside the process's domain), so whatever no
 *      rule allows is refused;
 *   2. nodus_landlock_allow(&ll, path, NODUS_LL_READ | ...) per path; a
 *      directory allows everything beneath it, a file only itself;
 *   3. nodus_landlock_enforce(&ll, &err): sets no_new_privs and restricts
 *      the calling thread and every process it starts from then on
 *      (irrevocably); closes the ruleset;
 *   nodus_landlock_close() releases an unused ruleset (safe twice).
 * When the kernel has no Landlock, open returns NODUS_EUNAVAILABLE with a
 * message saying so: the caller decides whether to go on without it and
 * must say so where the user will read it.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_LANDLOCK_H
#define NODUS_LANDLOCK_H

#include "common/common.h"

#define NODUS_LL_READ 0x1  /* read files, list directories */
#define NODUS_LL_EXEC 0x2  /* execute files */
#define NODUS_LL_WRITE 0x4 /* write, create, remove, truncate files and directories;
			    * ioctl on device files */

typedef struct nodus_landlock {
	int fd;  /* the ruleset, -1 when closed */
	int abi; /* the kernel's Landlock ABI version (>= 1) */
} nodus_landlock;

/* The kernel's Landlock ABI version, 0 when it has none (not built in,
 * disabled at boot, or seccomp refusing the call). */
int nodus_landlock_abi(void);
/* Creates the ruleset. 0, NODUS_EUNAVAILABLE (no Landlock: the message
 * says why), NODUS_EIO. */
int nodus_landlock_open(nodus_landlock *ll, nodus_error *err);
/* The same, with abstract unix sockets outside the process's domain
 * refused only when scope_abstract_unix is 1 (a cuda worker keeps them:
 * what the driver uses for itself is not documented). */
int nodus_landlock_open_scoped(nodus_landlock *ll, int scope_abstract_unix, nodus_error *err);
/* Allows `rights` (NODUS_LL_*) at and beneath path. A path that does not
 * exist is skipped (returns 0): a tool chain directory missing here is not
 * a reason to fail. On a file only the file rights apply. */
int nodus_landlock_allow(nodus_landlock *ll, const char *path, int rights, nodus_error *err);
/* Restricts the calling thread (and its future children) to the rules. */
int nodus_landlock_enforce(nodus_landlock *ll, nodus_error *err);
/* The same for every thread of the process at once where the kernel can
 * (LANDLOCK_RESTRICT_SELF_TSYNC, Landlock ABI 8): *all is 1 then, 0 when
 * only the calling thread and its future children are restricted (an
 * older kernel). */
int nodus_landlock_enforce_all_threads(nodus_landlock *ll, int *all, nodus_error *err);
void nodus_landlock_close(nodus_landlock *ll);

/* `nodus __jail [--read P]... [--exec P]... [--write P]... [--as BYTES]
 * -- PROG ARG...`: puts this process under a ruleset allowing what the
 * options name (--exec implies read), sets RLIMIT_AS to BYTES when given
 * (here, not by the parent: a sanitizer build of nodus needs far more),
 * then executes PROG (PATH is searched). Without
 * Landlock (or with --no-landlock first, which build.c passes only when
 * $NODUS_TEST_NO_LANDLOCK is set, to test the layers behind it) it writes
 * one line starting "nodus: landlock unavailable" to stderr and runs PROG
 * unconfined. Returns only on failure: 126 (bad
 * arguments, the ruleset could not be made) or 127 (exec failed). */
int nodus_jail_main(int argc, char **argv);

#endif
