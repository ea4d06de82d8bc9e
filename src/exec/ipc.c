/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * ipc.c: framed messages between the orchestrator and its workers.
 *
 * A frame is a 16-byte header and a payload, every integer little-endian
 * whatever the host:
 *
 *   offset 0  u32 magic  0x3153444e ("NDS1" as bytes)
 *   offset 4  u32 type   message type, chosen by the caller
 *   offset 8  u64 length payload bytes, at most NODUS_IPC_MAX_FRAME
 *   offset 16 payload
 *
 * The reader is the watchdog: nodus_ipc_read() never blocks past its
 * deadline, whatever the worker does (sends nothing, half a header, half a
 * payload). After NODUS_ETIMEOUT or NODUS_EIO the stream is out of step and
 * the caller is expected to kill the worker, not to read on. A reader
 * never trusts the length: frames above the cap are refused before any
 * allocation, and the payload buffer grows only as bytes really arrive.
 *
 * Writes never raise SIGPIPE: a reader that went away is NODUS_EIO. The
 * signal is blocked in the calling thread for the duration of the write and
 * a SIGPIPE this write caused is consumed before it is unblocked, so no
 * process-wide disposition changes.
 * ------------------------------------------------------------------------ */
#include "exec/exec.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IPC_MAGIC 0x3153444eu
#define IPC_HEADER_BYTES 16
#define IPC_CHUNK_BYTES 65536

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int write_all(int fd, const void *data, uint64_t len)
{
	const char *p = data;
	while (len > 0) {
		size_t n = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return NODUS_EIO;
		}
		p += w;
		len -= (uint64_t)w;
	}
	return 0;
}

int nodus_ipc_write(int fd, uint32_t type, const void *payload, uint64_t len)
{
	return nodus_ipc_write2(fd, type, payload, len, NULL, 0);
}

int nodus_ipc_write2(int fd, uint32_t type, const void *payload, uint64_t len,
		     const void *more, uint64_t more_len)
{
	unsigned char head[IPC_HEADER_BYTES];
	sigset_t pipe_set, old, pending;
	int rc;

	if (len > NODUS_IPC_MAX_FRAME || more_len > NODUS_IPC_MAX_FRAME - len ||
	    (len && !payload) || (more_len && !more))
		return NODUS_EINVAL;
	put_u32(head, IPC_MAGIC);
	put_u32(head + 4, type);
	put_u64(head + 8, len + more_len);

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigemptyset(&pending);
	sigpending(&pending);
	int was_pending = sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	errno = 0;
	rc = write_all(fd, head, sizeof(head));
	if (!rc && len)
		rc = write_all(fd, payload, len);
	if (!rc && more_len)
		rc = write_all(fd, more, more_len);
	if (rc && errno == EPIPE && !was_pending) {
		/* Consume the SIGPIPE this write queued, so that unblocking
		 * does not deliver it. */
		struct timespec zero = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Waits until fd is readable or the deadline passes. Returns 0,
 * NODUS_ETIMEOUT or NODUS_EIO. */
static int wait_readable(int fd, uint64_t deadline_ns)
{
	for (;;) {
		int timeout_ms = -1;
		if (deadline_ns) {
			uint64_t now = nodus_now_ns();
			if (now >= deadline_ns)
				return NODUS_ETIMEOUT;
			uint64_t left_ms = (deadline_ns - now + 999999u) / 1000000u;
			timeout_ms = left_ms > 86400000u ? 86400000 : (int)left_ms;
		}
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int r = poll(&pf, 1, timeout_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return NODUS_EIO;
		}
		if (r == 0)
			continue; /* the clock decides at the top of the loop */
		if (pf.revents & POLLNVAL)
			return NODUS_EIO;
		return 0; /* POLLIN, POLLHUP or POLLERR: read() tells which */
	}
}

/* Reads up to want bytes (at least one) once fd is readable. Returns the
 * count, 0 at EOF, or a negative NODUS_E* code. */
static int64_t read_some(int fd, void *dst, size_t want, uint64_t deadline_ns)
{
	for (;;) {
		int rc = wait_readable(fd, deadline_ns);
		if (rc)
			return rc;
		ssize_t n = read(fd, dst, want);
		if (n >= 0)
			return n;
		if (errno != EINTR && errno != EAGAIN)
			return NODUS_EIO;
	}
}

int nodus_ipc_read(int fd, uint32_t *type, nodus_buf *payload, uint64_t deadline_ns)
{
	unsigned char head[IPC_HEADER_BYTES];
	unsigned char chunk[IPC_CHUNK_BYTES];
	size_t got = 0;

	nodus_buf_reset(payload);
	while (got < sizeof(head)) {
		int64_t n = read_some(fd, head + got, sizeof(head) - got, deadline_ns);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return got == 0 ? NODUS_ENOTFOUND : NODUS_EIO;
		got += (size_t)n;
	}
	if (get_u32(head) != IPC_MAGIC)
		return NODUS_EIO;
	uint64_t len = get_u64(head + 8);
	if (len > NODUS_IPC_MAX_FRAME)
		return NODUS_EIO;
	uint64_t left = len;
	while (left > 0) {
		/* Read straight into the payload once it has proved to be more
		 * than a chunk; the room added is at most what already arrived,
		 * so a lying length still costs at most twice the real bytes. */
		size_t room = payload->alloc > payload->len + 1 ? payload->alloc - payload->len - 1 : 0;
		if (room == 0 && payload->len >= sizeof(chunk)) {
			size_t grow = payload->len < left ? payload->len : (size_t)left;
			if (nodus_buf_reserve(payload, grow))
				return NODUS_ENOMEM;
			room = payload->alloc - payload->len - 1;
		}
		int direct = room > 0 && payload->len >= sizeof(chunk);
		size_t cap = direct ? room : sizeof(chunk);
		size_t want = left > cap ? cap : (size_t)left;
		int64_t n = read_some(fd, direct ? (void *)(payload->data + payload->len) : chunk,
				      want, deadline_ns);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return NODUS_EIO;
		if (direct) {
			payload->len += (size_t)n;
			payload->data[payload->len] = '\0';
		} else if (nodus_buf_add(payload, chunk, (size_t)n)) {
			return NODUS_ENOMEM;
		}
		left -= (uint64_t)n;
	}
	*type = get_u32(head + 4);
	return 0;
}
