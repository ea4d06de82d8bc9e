/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-guard.c: unit tests of the buffer guards: the cpu backend's
 * guarded buffers (src/backend/cpu/cpu_guard.c) and the worker's SIGSEGV
 * handler and canary check (src/run/guard.c).
 *
 *   1.x  layout: alignment, untouched canaries are intact, a byte past
 *        the end or before the start breaks one and is located;
 *   2.x  guard_fault classifies guard pages, read-only data and foreign
 *        addresses;
 *   3.x  read-only inputs: the backend's own upload, copy and patch still
 *        reach them;
 *   4.x  in a forked child with the handler installed, a write into a
 *        guard page or a read-only input sends one FAIL frame naming the
 *        guard and the tensor; a null-pointer write still dies by SIGSEGV.
 * ------------------------------------------------------------------------ */
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "common/common.h"
#include "exec/exec.h"
#include "run/guard.h"
#include "run/protocol.h"

struct env {
	const nodus_backend_ops *ops;
	void *dev;
};

static int setup(void **state)
{
	static struct env e;
	nodus_error err;
	e.ops = nodus_backend_cpu();
	assert_int_equal(e.ops->open(&e.dev, &err), 0);
	*state = &e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	e->ops->close(e->dev);
	return 0;
}

/* 1.1 - 1.3 */
static void test_canaries(void **state)
{
	struct env *e = *state;
	static const size_t sizes[] = {1, 4000, 4096, 1 << 20, 100003};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		unsigned char *p;
		nodus_error err;
		int intact;
		nodus_guard_hit hit;
		assert_int_equal(e->ops->alloc(e->dev, n, (void **)&p, &err), 0);
		e->ops->name_buffer(e->dev, p, "output", "y");
		assert_int_equal((uintptr_t)p % 64, 0); /* 1.1 aligned as promised */
		memset(p, 0xab, n);                       /* every byte of it is usable */
		assert_int_equal(e->ops->guards_intact(e->dev, &intact, &hit, &err), 0);
		assert_int_equal(intact, 1);
		{ /* 1.2 a byte past the end lands in the pad canary */
			unsigned char keep = p[n], tail = p[n + 63];
			(void)tail; /* 1.2 and the 64 bytes after the end are readable */
			p[n] ^= 0x5a;
			assert_int_equal(e->ops->guards_intact(e->dev, &intact, &hit, &err), 0);
			assert_int_equal(intact, 0);
			assert_int_equal(hit.kind, NODUS_GUARD_PAST_END);
			assert_int_equal(hit.offset, (int64_t)n);
			assert_int_equal(hit.bytes, (int64_t)n);
			assert_ptr_equal(hit.buffer, p);
			assert_string_equal(hit.name, "y");
			p[n] = keep;
		}
		if ((uintptr_t)p % 4096) { /* 1.3 the 64 bytes before it are a canary */
			unsigned char keep = p[-1];
			p[-1] ^= 0x5a;
			assert_int_equal(e->ops->guards_intact(e->dev, &intact, &hit, &err), 0);
			assert_int_equal(intact, 0);
			assert_int_equal(hit.kind, NODUS_GUARD_BEFORE_START);
			assert_int_equal(hit.offset, -1);
			p[-1] = keep;
		}
		assert_int_equal(e->ops->guards_intact(e->dev, &intact, &hit, &err), 0);
		assert_int_equal(intact, 1);
		e->ops->free(e->dev, p);
	}
}

/* 2.1 - 2.4 */
static void test_fault_lookup(void **state)
{
	struct env *e = *state;
	unsigned char *p;
	nodus_error err;
	nodus_guard_hit hit;
	size_t n = 4000, end = 4096; /* 4000 rounded up to 64, plus the 64-byte pad */
	assert_int_equal(e->ops->alloc(e->dev, n, (void **)&p, &err), 0);
	assert_int_equal(e->ops->guard_fault(e->dev, p + end, &hit), 1); /* 2.1 trail guard */
	assert_int_equal(hit.kind, NODUS_GUARD_PAST_END);
	assert_int_equal(hit.offset, (int64_t)end);
	assert_int_equal(e->ops->guard_fault(e->dev, p + end + (60 << 10), &hit), 1);
	assert_int_equal(e->ops->guard_fault(e->dev, p - 4096, &hit), 1); /* 2.2 lead guard */
	assert_int_equal(hit.kind, NODUS_GUARD_BEFORE_START);
	assert_int_equal(hit.offset, -4096);
	assert_int_equal(e->ops->guard_fault(e->dev, p + 10, &hit), 0); /* 2.3 writable data */
	assert_int_equal(e->ops->protect(e->dev, p, n, 1, &err), 0);
	assert_int_equal(e->ops->guard_fault(e->dev, p + 10, &hit), 1); /* read-only data */
	assert_int_equal(hit.kind, NODUS_GUARD_READ_ONLY);
	assert_int_equal(hit.offset, 10);
	assert_int_equal(e->ops->guard_fault(e->dev, p + n, &hit), 1); /* its pad */
	assert_int_equal(hit.kind, NODUS_GUARD_PAST_END);
	int local;
	assert_int_equal(e->ops->guard_fault(e->dev, &local, &hit), 0); /* 2.4 not ours */
	assert_int_equal(e->ops->guard_fault(e->dev, NULL, &hit), 0);
	e->ops->free(e->dev, p);
	assert_int_equal(e->ops->guard_fault(e->dev, p + end, &hit), 0); /* freed: unmapped */
}

/* 3.1 - 3.3 */
static void test_read_only_harness_writes(void **state)
{
	struct env *e = *state;
	float *p, *q, src[1000];
	nodus_error err;
	for (int i = 0; i < 1000; i++)
		src[i] = (float)i;
	assert_int_equal(e->ops->alloc(e->dev, sizeof(src), (void **)&p, &err), 0);
	assert_int_equal(e->ops->alloc(e->dev, sizeof(src), (void **)&q, &err), 0);
	assert_int_equal(e->ops->protect(e->dev, p, sizeof(src), 1, &err), 0);
	assert_int_equal(e->ops->protect(e->dev, q, sizeof(src), 1, &err), 0);
	assert_int_equal(e->ops->upload(e->dev, p, src, sizeof(src), &err), 0); /* 3.1 */
	assert_int_equal(e->ops->copy(e->dev, q, p, sizeof(src), &err), 0);    /* 3.2 */
	assert_true(memcmp(q, src, sizeof(src)) == 0);
	nodus_patch patches[3] = {{p + 1, 4, {0}}, {p + 7, 4, {0}}, {q + 999, 4, {0}}};
	float v = -1.0f;
	for (int i = 0; i < 3; i++)
		memcpy(patches[i].value, &v, 4);
	assert_int_equal(e->ops->patch(e->dev, patches, 3, &err), 0); /* 3.3 */
	assert_true(p[1] == -1.0f && p[7] == -1.0f && q[999] == -1.0f && p[2] == 2.0f);
	nodus_guard_hit hit;
	assert_int_equal(e->ops->guard_fault(e->dev, p, &hit), 1); /* still read-only after */
	assert_int_equal(hit.kind, NODUS_GUARD_READ_ONLY);
	e->ops->free(e->dev, p);
	e->ops->free(e->dev, q);
}

/* ---- 4.x: the handler, in a child ---- */

static float *victim;    /* the child's buffer */
static int64_t victim_at; /* the element its entry writes */

static int write_victim(const nodus_call *call)
{
	(void)call;
	((volatile float *)victim)[victim_at] = 1.0f;
	return 0;
}

static int write_null(const nodus_call *call)
{
	(void)call;
	volatile float *volatile null = NULL; /* GCC drops a plain store through NULL */
	*null = 1.0f;
	return 0;
}

/* Forks a child that installs the handler, allocates a 4096-byte output
 * (read-only when read_only) and calls fn on it through call_sync (or
 * time_batch when timed). Returns the wait status; the frame the child
 * sent, if any, is in *json. */
static int run_child(struct env *e, nodus_entry_fn fn, int64_t at, int read_only, int timed,
		     nodus_buf *json)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit none = {0, 0};
		nodus_error err;
		setrlimit(RLIMIT_CORE, &none);
		close(fds[0]);
		if (nodus__guard_install(e->ops, e->dev, fds[1], &err) ||
		    e->ops->alloc(e->dev, 4096, (void **)&victim, &err))
			_exit(100);
		e->ops->name_buffer(e->dev, victim, read_only ? "input" : "output", "v");
		if (read_only && e->ops->protect(e->dev, victim, 4096, 1, &err))
			_exit(101);
		nodus__guard_solutions(fn, NULL);
		victim_at = at;
		nodus_call call;
		memset(&call, 0, sizeof(call));
		int status;
		nodus_timing t;
		if (timed)
			e->ops->time_batch(e->dev, fn, &call, 1, 1, &t, &err);
		else
			e->ops->call_sync(e->dev, fn, &call, &status, &err);
		_exit(0);
	}
	close(fds[1]);
	uint32_t type = 0;
	nodus_buf_reset(json);
	if (nodus_ipc_read(fds[0], &type, json, nodus_now_ns() + 10000000000ull) == 0)
		assert_int_equal(type, NODUS_MSG_FAIL);
	close(fds[0]);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return ws;
}

/* 4.1 - 4.4 */
static void test_handler(void **state)
{
	struct env *e = *state;
	nodus_buf json = NODUS_BUF_INIT;
	/* 4.1 past a 4096-byte buffer and its 64-byte pad: the guard page */
	int ws = run_child(e, write_victim, 1040, 0, 0, &json);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 1);
	assert_non_null(strstr(json.data, "\"status\":\"CRASH\""));
	assert_non_null(strstr(json.data, "\"guard\":\"out_of_bounds_write\""));
	assert_non_null(strstr(json.data, "past the end of output 'v' (4096 bytes) at byte 4160, 64 bytes beyond its end"));
	assert_non_null(strstr(json.data, "\"stage\":\"checked call\""));
	/* 4.2 before the start, inside a timed batch */
	ws = run_child(e, write_victim, -2048, 0, 1, &json);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 1);
	assert_non_null(strstr(json.data, "before the start of output 'v'"));
	assert_non_null(strstr(json.data, "\"stage\":\"timed call\""));
	/* 4.3 a read-only input */
	ws = run_child(e, write_victim, 3, 1, 0, &json);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 1);
	assert_non_null(strstr(json.data, "\"status\":\"INPUT_MUTATED\""));
	assert_non_null(strstr(json.data, "\"guard\":\"input_read_only\""));
	assert_non_null(strstr(json.data, "read-only input 'v' (4096 bytes) at byte 12"));
	/* 4.4 a fault that is not a guard's stays a plain SIGSEGV: no frame */
	ws = run_child(e, write_null, 0, 0, 0, &json);
	assert_int_equal(json.len, 0);
#if defined(__SANITIZE_ADDRESS__)
	/* AddressSanitizer's own handler takes over and exits non-zero */
	assert_false(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
#else
	assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSEGV);
#endif
	nodus_buf_release(&json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canaries),
		cmocka_unit_test(test_fault_lookup),
		cmocka_unit_test(test_read_only_harness_writes),
		cmocka_unit_test(test_handler),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
