/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * early.c: early judging: the candidate's trials beside the oracle's.
 *
 * While the oracle's conversation runs (attempt.c, converse), oracle_read
 * also reads the measure worker's frames into an early_queue and judges
 * each as soon as the oracle has sent the instance it is about; the
 * measure worker's conversation then starts with what is left in the
 * queue (early_pop). A failure found early is held back until the oracle
 * is done, so that the reference's own faults decide first.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run-internal.h"

/* ---- the measure worker's frames while the oracle works ----
 *
 * Both workers of a pair get their jobs at once: their trials are host work
 * (drawing inputs, moving outputs) and nothing is timed before the gate, so
 * the candidate's trials overlap the oracle's. A candidate frame is judged
 * as soon as the oracle has finished its instance (the oracle sends its
 * instances in order, so a frame for a later instance says so); until then
 * it waits here, in order, up to EARLY_QUEUE_BYTES, after which the measure
 * worker waits on its full pipe. */
#define EARLY_QUEUE_BYTES ((size_t)1 << 30)

void early_release(struct early_queue *q)
{
	for (int i = 0; i < q->n; i++)
		nodus_buf_release(&q->f[q->head + i].payload);
	nodus_buf_release(&q->recycled);
	free(q->f);
	memset(q, 0, sizeof(*q));
}

/* Takes the payload (payload is left empty). */
static int early_push(struct early_queue *q, uint32_t type, int rc, nodus_buf *payload)
{
	if (q->head > 0 && q->head + q->n == q->cap) {
		memmove(q->f, q->f + q->head, (size_t)q->n * sizeof(*q->f));
		q->head = 0;
	}
	if (q->head + q->n == q->cap) {
		int cap = q->cap ? q->cap * 2 : 32;
		struct early_frame *f = realloc(q->f, (size_t)cap * sizeof(*f));
		if (!f)
			return NODUS_ENOMEM;
		q->f = f;
		q->cap = cap;
	}
	struct early_frame *e = &q->f[q->head + q->n++];
	e->type = type;
	e->rc = rc;
	e->payload = *payload;
	nodus_buf_init(payload);
	q->bytes += e->payload.len;
	return 0;
}

/* Hands the oldest frame over (payload is replaced); returns its read status. */
int early_pop(struct early_queue *q, uint32_t *type, nodus_buf *payload)
{
	struct early_frame *e = &q->f[q->head++];
	q->n--;
	q->bytes -= e->payload.len;
	nodus_buf_release(payload);
	*payload = e->payload;
	*type = e->type;
	return e->rc;
}

/* Judges the queued candidate frames, in order, whose instance the oracle
 * has finished; stops at the first that must wait. */
void early_judge(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
		 struct early_queue *q)
{
	while (q->n > 0 && a->status == NODUS_STATUS_OK && !q->failed_status) {
		struct early_frame *e = &q->f[q->head];
		if (e->rc)
			return;
		if (e->type == NODUS_MSG_WARM) {
			if (!wm->startup[0])
				keep_startup(wm, &e->payload);
		} else if (e->type == NODUS_MSG_READY) {
			if (!a->oracle_ready)
				return; /* the record names the measure worker's target */
			on_ready(x, a, &e->payload);
		} else {
			int inst = frame_instance(e->type, &e->payload);
			if (inst < 0 || inst >= a->n_inst || inst >= a->oracle_progress)
				return;
			on_trial_frame(a, e->type, &e->payload, 0, wm);
			a->early_judged++;
			if (a->status != NODUS_STATUS_OK) {
				q->failed_status = a->status;
				snprintf(q->failed_guard, sizeof(q->failed_guard), "%s", a->guard);
				snprintf(q->failed_message, sizeof(q->failed_message), "%s",
					 a->message);
				a->status = NODUS_STATUS_OK;
				a->guard[0] = a->message[0] = '\0';
			}
		}
		uint32_t type;
		nodus_buf done = NODUS_BUF_INIT;
		early_pop(q, &type, &done);
		if (done.alloc > q->recycled.alloc) {
			nodus_buf_release(&q->recycled);
			q->recycled = done;
		} else {
			nodus_buf_release(&done);
		}
	}
}

/* The oracle's next frame; meanwhile the measure worker's frames are read
 * into q (its read time is given back to the oracle's watchdog). */
int oracle_read(struct run_ctx *x, struct attempt *a, struct worker_proc *w,
		struct worker_proc *side, struct early_queue *q, uint32_t *type,
		nodus_buf *payload)
{
	for (;;) {
		if (!side || q->closed || q->bytes >= EARLY_QUEUE_BYTES)
			return nodus_ipc_read(w->child.result_fd, type, payload, w->deadline_ns);
		uint64_t now = nodus_now_ns();
		if (now >= w->deadline_ns)
			return NODUS_ETIMEOUT;
		uint64_t left_ms = (w->deadline_ns - now) / 1000000 + 1;
		struct pollfd p[2] = {{w->child.result_fd, POLLIN, 0},
				      {side->child.result_fd, POLLIN, 0}};
		int n = poll(p, 2, left_ms > 1000 ? 1000 : (int)left_ms);
		if (n < 0 && errno != EINTR)
			return nodus_ipc_read(w->child.result_fd, type, payload, w->deadline_ns);
		if (n <= 0)
			continue;
		if (p[0].revents)
			return nodus_ipc_read(w->child.result_fd, type, payload, w->deadline_ns);
		uint64_t t0 = nodus_now_ns();
		uint32_t t = 0;
		nodus_buf b = q->recycled;
		nodus_buf_init(&q->recycled);
		int rc = nodus_ipc_read(side->child.result_fd, &t, &b, side->deadline_ns);
		w->deadline_ns += nodus_now_ns() - t0;
		if (early_push(q, t, rc, &b)) {
			/* out of memory: leave the rest in the worker's pipe */
			nodus_buf_release(&b);
			q->closed = 1;
			continue;
		}
		if (rc)
			q->closed = 1;
		early_judge(x, a, side, q);
	}
}
