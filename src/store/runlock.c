/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * runlock.c: one `nodus run` per store and plan at a time.
 *
 * Two orchestrators measuring the same pairs into one store would time
 * them side by side (neither measurement is isolated) and the second would
 * die at its first insert on the records' unique key. So `nodus run` takes
 * a lock before it opens the store, and keeps it until it has closed it.
 *
 * The lock is a flock() on DB.run-DIGEST16.lock beside the store (the
 * kernel drops it when its holder dies, so a killed run never leaves a
 * stale lock). A run of the whole plan takes it exclusive; a run of one
 * shard (--shard I/N) takes it shared and also takes DB.run-DIGEST16-IofN.lock
 * exclusive, so shards of one plan run together while the same shard twice,
 * or a whole-plan run beside a shard, are refused. A replay condition's
 * orchestrators are shards started by the whole-plan run that holds the
 * lock: a shard whose parent process holds the plan's lock is covered by
 * it. The holder's pid is read from /proc/locks (and, failing that, from
 * the pid the holder wrote into the file).
 *
 * A file is removed by its last holder: nodus_runlock_close() unlinks it
 * when it can take it exclusive, and nodus_runlock_open() checks, once it
 * holds a lock, that the path still names the file it locked (else it
 * locked a file just removed, and tries again).
 *
 * Call order: nodus_runlock_open() before nodus_store_open(); then
 * nodus_runlock_close() after nodus_store_close().
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "store/store.h"

struct nodus_runlock {
	int plan_fd;             /* DB.run-DIGEST16.lock, held; -1 when the parent's covers us */
	int shard_fd;            /* DB.run-DIGEST16-IofN.lock, held; -1 for a whole-plan run */
	char plan_path[4096];    /* path of the plan's lock file */
	char shard_path[4096];   /* path of the shard's lock file, or "" */
};

/* Up to max pids holding a flock on (dev, ino), from /proc/locks; returns
 * how many were found. */
static int lock_holders(dev_t dev, ino_t ino, long *pids, int max)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[512];
	int n = 0;
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		char kind[16];
		long pid;
		unsigned maj, min;
		unsigned long long inode;
		/* "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF"; waiters have "->" */
		if (strstr(line, "->"))
			continue;
		if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &pid, &maj, &min,
			   &inode) != 5 || strcmp(kind, "FLOCK") != 0)
			continue;
		if (makedev(maj, min) == dev && (ino_t)inode == ino)
			pids[n++] = pid;
	}
	fclose(f);
	return n;
}

/* Writes "pid N" (or "pids N, M") of the holders of fd's file into out. */
static void describe_holders(int fd, char *out, size_t size)
{
	struct stat sb;
	long pids[4];
	int n = fstat(fd, &sb) == 0 ? lock_holders(sb.st_dev, sb.st_ino, pids, 4) : 0;
	if (n == 0) { /* no /proc/locks: the pid the holder wrote */
		char buf[32] = "";
		ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[k > 0 ? k : 0] = '\0';
		long pid = strtol(buf, NULL, 10);
		if (pid > 0)
			snprintf(out, size, "pid %ld", pid);
		else
			snprintf(out, size, "another process");
		return;
	}
	size_t len = (size_t)snprintf(out, size, "pid%s", n > 1 ? "s" : "");
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s %ld", i ? "," : "", pids[i]);
}

/* 1 if the process that started us holds a flock on fd's file. */
static int parent_holds(int fd)
{
	struct stat sb;
	long pids[16];
	if (fstat(fd, &sb) != 0)
		return 0;
	int n = lock_holders(sb.st_dev, sb.st_ino, pids, 16);
	for (int i = 0; i < n; i++)
		if (pids[i] == (long)getppid())
			return 1;
	return 0;
}

/* Opens path and takes flock how (LOCK_SH or LOCK_EX) without waiting.
 * Returns the fd; -1 with *held_by set (the fd of the held file, to be
 * closed by the caller) when another process holds it; -2 with errno on a
 * system error. */
static int take(const char *path, int how, int *held_by)
{
	*held_by = -1;
	for (int tries = 0; tries < 100; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		struct stat a, b;
		if (fd < 0)
			return -2;
		if (flock(fd, how | LOCK_NB) != 0) {
			if (errno != EWOULDBLOCK) {
				int e = errno;
				close(fd);
				errno = e;
				return -2;
			}
			*held_by = fd;
			return -1;
		}
		/* the last holder may have removed the file between our open and lock */
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			if (how == LOCK_EX && ftruncate(fd, 0) == 0)
				dprintf(fd, "%ld\n", (long)getpid());
			return fd;
		}
		close(fd);
	}
	errno = EAGAIN;
	return -2;
}

/* Unlinks path if no one else holds it, then closes fd. */
static void give_back(int fd, const char *path)
{
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		unlink(path);
	close(fd);
}

static int refuse(const char *db_path, const char *digest, const char *what, int held_fd,
		  const char *lock_path, nodus_error *err)
{
	char who[128];
	describe_holders(held_fd, who, sizeof(who));
	close(held_fd);
	return NODUS_ERR(err, NODUS_EUSAGE,
			 "%s: %splan %.16s is already being run by %s (lock %s); wait for "
			 "it to finish, or stop it and continue with 'nodus run --resume'",
			 db_path, what, digest, who, lock_path);
}

int nodus_runlock_open(const char *db_path, const char *digest, int shard_index,
		       int shard_count, nodus_runlock **out, nodus_error *err)
{
	int held = -1;
	*out = NULL;
	nodus_runlock *l = calloc(1, sizeof(*l));
	if (!l)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	l->plan_fd = l->shard_fd = -1;
	snprintf(l->plan_path, sizeof(l->plan_path), "%s.run-%.16s.lock", db_path, digest);
	l->plan_fd = take(l->plan_path, shard_count > 0 ? LOCK_SH : LOCK_EX, &held);
	if (l->plan_fd == -1 && shard_count > 0 && parent_holds(held)) {
		close(held); /* a replay condition's shard of the run that started us */
		held = -1;
	} else if (l->plan_fd == -1) {
		int rc = refuse(db_path, digest, "", held, l->plan_path, err);
		free(l);
		return rc;
	}
	if (l->plan_fd == -2) {
		int rc = NODUS_ERR(err, NODUS_EUSAGE, "%s: cannot create the run lock: %s",
				   l->plan_path, strerror(errno));
		free(l);
		return rc;
	}
	if (shard_count > 0) {
		char what[64];
		snprintf(l->shard_path, sizeof(l->shard_path), "%s.run-%.16s-%dof%d.lock", db_path,
			 digest, shard_index, shard_count);
		snprintf(what, sizeof(what), "shard %d/%d of ", shard_index, shard_count);
		l->shard_fd = take(l->shard_path, LOCK_EX, &held);
		if (l->shard_fd < 0) {
			int rc = l->shard_fd == -1
					 ? refuse(db_path, digest, what, held, l->shard_path, err)
					 : NODUS_ERR(err, NODUS_EUSAGE,
						     "%s: cannot create the run lock: %s",
						     l->shard_path, strerror(errno));
			l->shard_fd = -1;
			nodus_runlock_close(l);
			return rc;
		}
	}
	*out = l;
	return 0;
}

void nodus_runlock_close(nodus_runlock *l)
{
	if (!l)
		return;
	give_back(l->shard_fd, l->shard_path);
	give_back(l->plan_fd, l->plan_path);
	free(l);
}
