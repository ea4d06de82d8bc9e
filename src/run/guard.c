/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * guard.c: the worker's side of the buffer guards (see guard.h).
 *
 * A solution that writes into a guard page or a read-only input gets a
 * SIGSEGV inside its own call. The handler asks the backend (guard_fault,
 * async-signal-safe) whether the address is one of its guards and which
 * entry it was calling; if so it formats the FAIL frame into a buffer of
 * its own stack with the hand-written, allocation-free formatter below,
 * writes it with write(2) and ends the process with _exit. Any other fault
 * (a null pointer, a write that skipped every guard, a fault outside a
 * solution call) restores the default action and returns, so the faulting
 * instruction runs again and the worker dies by SIGSEGV as before: the
 * orchestrator records a plain CRASH (guard `signal`).
 *
 * The handler's state is file-scope: a signal handler has no other way to
 * reach it (STYLE.md §15 has the same exception for src/exec's child list).
 * It is written before the handler can run, and only read from it.
 * ------------------------------------------------------------------------ */
#include "run/guard.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/exec.h"
#include "run/protocol.h"

#define ALT_STACK_BYTES ((size_t)64 << 10)
#define FRAME_BYTES 1024
#define FRAME_HEADER_BYTES 16 /* src/exec/ipc.c's: magic, type, length */
#define FRAME_MAGIC 0x3153444eu

static struct {
	const nodus_backend_ops *ops; /* the worker's backend */
	void *dev;                    /* and its context */
	int result_fd;                /* where FAIL frames go */
	nodus_entry_fn candidate;     /* NULL in an oracle */
	nodus_entry_fn reference;
} state;

/* ---- an allocation-free text builder (async-signal-safe) ---- */

struct text {
	char *p;
	size_t len, cap; /* cap excludes the final NUL */
};

static void put_s(struct text *t, const char *s)
{
	for (; s && *s && t->len < t->cap; s++)
		t->p[t->len++] = *s;
	t->p[t->len] = '\0';
}

static void put_i64(struct text *t, int64_t v)
{
	char digits[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10) && n < (int)sizeof(digits));
	if (v < 0 && t->len < t->cap)
		t->p[t->len++] = '-';
	while (n > 0 && t->len < t->cap)
		t->p[t->len++] = digits[--n];
	t->p[t->len] = '\0';
}

/* s as the inside of a JSON string: quotes, backslashes and control
 * characters escaped (tensor names are identifiers; this is belt and braces) */
static void put_json(struct text *t, const char *s)
{
	for (; s && *s && t->len + 6 < t->cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			t->p[t->len++] = '\\';
			t->p[t->len++] = (char)c;
		} else if (c < 0x20) {
			static const char hex[] = "0123456789abcdef";
			put_s(t, "\\u00");
			t->p[t->len++] = hex[c >> 4];
			t->p[t->len++] = hex[c & 15];
		} else {
			t->p[t->len++] = (char)c;
		}
	}
	t->p[t->len] = '\0';
}

/* ---- the failure ---- */

/* The FAIL frame's JSON for hit (access: 1 a write, 0 a read, -1 not
 * known), found by a guard page (page) or a canary. */
static void format_failure(struct text *t, const nodus_guard_hit *hit, int access, int page)
{
	int reference = hit->running && hit->running == state.reference;
	const char *who = reference ? "reference" : "candidate";
	int read_only = hit->kind == NODUS_GUARD_READ_ONLY;
	const char *status = reference ? "INVALID_REFERENCE" : read_only ? "INPUT_MUTATED" : "CRASH";
	const char *guard = read_only     ? "input_read_only"
			    : access == 0 ? "out_of_bounds_read"
					  : "out_of_bounds_write";
	put_s(t, "{\"status\":\"");
	put_s(t, status);
	put_s(t, "\",\"guard\":\"");
	put_s(t, guard);
	put_s(t, hit->timed ? "\",\"stage\":\"timed call\",\"message\":\""
			    : "\",\"stage\":\"checked call\",\"message\":\"");
	put_s(t, who);
	put_s(t, read_only	   ? " wrote into its read-only "
		 : access == 0 ? " read "
		 : access == 1 ? " wrote "
			       : " wrote or read ");
	if (!read_only)
		put_s(t, hit->kind == NODUS_GUARD_BEFORE_START ? "before the start of " : "past the end of ");
	put_json(t, hit->what ? hit->what : "buffer");
	put_s(t, " '");
	put_json(t, hit->name ? hit->name : "?");
	put_s(t, "' (");
	put_i64(t, hit->bytes);
	put_s(t, " bytes) at byte ");
	put_i64(t, hit->offset);
	if (hit->kind == NODUS_GUARD_PAST_END) {
		int64_t beyond = hit->offset - hit->bytes;
		put_s(t, beyond ? ", " : ", the first byte after it");
		if (beyond) {
			put_i64(t, beyond);
			put_s(t, " bytes beyond its end");
		}
	} else if (hit->kind == NODUS_GUARD_BEFORE_START) {
		put_s(t, ", ");
		put_i64(t, -hit->offset);
		put_s(t, " bytes before its start");
	}
	if (read_only)
		put_s(t, " (inputs are read-only while solutions run: write only outputs and the workspace)");
	else
		put_s(t, page ? " (in a guard page: fix the index or the size of the write)"
			      : " (a canary changed during the call: fix the index or the size of the write)");
	put_s(t, "\"}");
}

/* Writes a FAIL frame (json, len bytes) with write(2) only. */
static void write_frame(int fd, const char *json, size_t len)
{
	unsigned char frame[FRAME_HEADER_BYTES + FRAME_BYTES];
	uint64_t fields[2] = {FRAME_MAGIC | ((uint64_t)NODUS_MSG_FAIL << 32), len};
	for (int i = 0; i < 16; i++) /* little-endian, as src/exec/ipc.c writes it */
		frame[i] = (unsigned char)(fields[i / 8] >> (8 * (i % 8)));
	memcpy(frame + FRAME_HEADER_BYTES, json, len);
	size_t off = 0, total = FRAME_HEADER_BYTES + len;
	while (off < total) {
		ssize_t n = write(fd, frame + off, total - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

/* 1 when the fault was a write, 0 a read, -1 when this cpu does not say. */
static int fault_access(const void *ucontext)
{
#if defined(__x86_64__) && defined(REG_ERR)
	const ucontext_t *uc = ucontext;
	return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0; /* page-fault error code, W bit */
#else
	(void)ucontext;
	return -1;
#endif
}

static void on_segv(int sig, siginfo_t *info, void *ucontext)
{
	int saved = errno;
	nodus_guard_hit hit;
	if (state.ops && state.ops->guard_fault &&
	    state.ops->guard_fault(state.dev, info->si_addr, &hit) && hit.running &&
	    (hit.running == state.candidate || hit.running == state.reference)) {
		char json[FRAME_BYTES];
		struct text t = {json, 0, sizeof(json) - 1};
		format_failure(&t, &hit, hit.kind == NODUS_GUARD_READ_ONLY ? 1 : fault_access(ucontext), 1);
		write_frame(state.result_fd, json, t.len);
		_exit(1);
	}
	/* not ours: die of it as without a handler */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	errno = saved;
}

int nodus__guard_install(const nodus_backend_ops *ops, void *dev, int result_fd,
			 nodus_error *err)
{
	state.ops = ops;
	state.dev = dev;
	state.result_fd = result_fd;
	if (!ops->guard_fault)
		return 0;
	/* a fault from a solution that ran out of stack must still be named */
	stack_t ss;
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = mmap(NULL, ALT_STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (ss.ss_sp == MAP_FAILED)
		return NODUS_ERR(err, NODUS_ENOMEM, "cannot map the guard handler's stack: %s",
				 strerror(errno));
	ss.ss_size = ALT_STACK_BYTES;
	if (sigaltstack(&ss, NULL))
		return NODUS_ERR(err, NODUS_EINTERNAL, "sigaltstack: %s", strerror(errno));
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return NODUS_ERR(err, NODUS_EINTERNAL, "sigaction(SIGSEGV): %s", strerror(errno));
	return 0;
}

void nodus__guard_solutions(nodus_entry_fn candidate, nodus_entry_fn reference)
{
	state.candidate = candidate;
	state.reference = reference;
}

int nodus__guard_check(const nodus_backend_ops *ops, void *dev, nodus_entry_fn fn, int timed,
		       nodus_error *err)
{
	if (!ops->guards_intact)
		return 0;
	int intact = 1;
	nodus_guard_hit hit;
	memset(&hit, 0, sizeof(hit));
	int rc = ops->guards_intact(dev, &intact, &hit, err);
	if (rc || intact)
		return rc;
	hit.running = fn;
	hit.timed = timed;
	char json[FRAME_BYTES];
	struct text t = {json, 0, sizeof(json) - 1};
	format_failure(&t, &hit, 1, 0);
	if (nodus_ipc_write(state.result_fd, NODUS_MSG_FAIL, json, t.len))
		return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	return 1;
}
