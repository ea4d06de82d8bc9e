/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * outputs.c: the outputs and input checksums workers send.
 *
 * Every OUTPUT, OUTPUT_AT and CHECKSUM frame of an attempt comes through
 * on_trial_frame, from the oracle (kept: its outputs are the reference,
 * its checksums those of the inputs as drawn) or from the measure worker
 * (judged at once against them: tolerance, determinism, input mutation,
 * outputs that do not follow their inputs). An output travels in its frame
 * or, from the oracle, in its output arena (protocol.h), mapped here only
 * once its size has been checked.
 * ------------------------------------------------------------------------ */
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run/run-internal.h"

static const nodus_tolerance *tolerance_of(const struct attempt *a)
{
	return a->wl->has_tolerance ? &a->wl->tolerance : &a->task->tolerance;
}

int64_t output_numel(const struct attempt *a, int instance, int o)
{
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(a->task, a->wl, a->inst[instance].probe, axes);
	return nodus__tensor_numel(&a->task->outputs[o], axes);
}

static void note_errors(struct attempt *a, const nodus_check *chk)
{
	if (isnan(a->max_abs_err) || chk->max_abs_err > a->max_abs_err)
		a->max_abs_err = chk->max_abs_err;
	if (isnan(a->max_rel_err) || chk->max_rel_err > a->max_rel_err)
		a->max_rel_err = chk->max_rel_err;
	if (isnan(a->matched_ratio) || chk->matched_ratio < a->matched_ratio)
		a->matched_ratio = chk->matched_ratio;
}

/* A reference output through the pipe is kept as the oracle's whole frame,
 * its header in front: the frame's buffer is taken over rather than copied
 * (for a tensor of 128 MB a copy into fresh pages is tens of milliseconds
 * of the orchestrator's time, and the oracle waits on its pipe meanwhile).
 * One through the arena is kept as its mapping. */
static const char *ref_bytes(const struct kept_output *ref)
{
	return ref->view.bytes;
}

static size_t ref_nbytes(const struct kept_output *ref)
{
	return ref->present ? ref->view.nbytes : 0;
}

static void view_release(struct output_view *v)
{
	if (v->map)
		munmap(v->map, v->map_len);
	memset(v, 0, sizeof(*v));
}

void kept_release(struct kept_output *k)
{
	view_release(&k->view);
	nodus_buf_release(&k->frame);
	k->present = 0;
}

/* The header of an OUTPUT or OUTPUT_AT frame, and where its bytes are: in
 * the frame (*offset = -1) or at *offset in the sender's arena. Returns 0,
 * or -1 with why. */
static int output_frame_parse(uint32_t type, const nodus_buf *payload, nodus_msg_output *h,
			      int64_t *offset, const char **why)
{
	*offset = -1;
	if (payload->len < sizeof(*h)) {
		*why = "short output frame";
		return -1;
	}
	memcpy(h, payload->data, sizeof(*h));
	size_t extra = type == NODUS_MSG_OUTPUT ? (size_t)h->nbytes : sizeof(*offset);
	if (h->nbytes < 0 || payload->len - sizeof(*h) != extra) {
		*why = "malformed output frame";
		return -1;
	}
	if (type == NODUS_MSG_OUTPUT_AT) {
		int64_t page = (int64_t)sysconf(_SC_PAGESIZE);
		memcpy(offset, payload->data + sizeof(*h), sizeof(*offset));
		if (*offset < 0 || *offset % page != 0 || h->nbytes == 0 ||
		    h->nbytes > NODUS_ARENA_BYTES - *offset) {
			*why = "output frame outside the output arena";
			return -1;
		}
	}
	return 0;
}

/* The frame's bytes, once their size is known to be right: the frame's
 * own, or mapped from the sender's arena (arena_fd, -1 for none). */
static int output_view_of(const nodus_buf *payload, const nodus_msg_output *h, int64_t offset,
			  int arena_fd, struct output_view *v, const char **why)
{
	memset(v, 0, sizeof(*v));
	v->nbytes = (size_t)h->nbytes;
	if (offset < 0) {
		v->bytes = payload->data + sizeof(*h);
		return 0;
	}
	if (arena_fd < 0) {
		*why = "output frame for an output arena the worker does not have";
		return -1;
	}
	void *map = mmap(NULL, v->nbytes, PROT_READ, MAP_SHARED | MAP_POPULATE, arena_fd,
			 (off_t)offset);
	if (map == MAP_FAILED) {
		*why = "cannot map the output arena";
		return -1;
	}
	v->bytes = map;
	v->map = map;
	v->map_len = v->nbytes;
	return 0;
}

/* An output judged and not kept: its pages in the arena are given back. */
static void arena_view_done(struct output_view *v, int arena_fd, int64_t offset)
{
	if (v->map && arena_fd >= 0)
		(void)fallocate(arena_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)offset, (off_t)v->map_len);
	view_release(v);
}

/* Validates one OUTPUT or OUTPUT_AT frame from the oracle (store it: a
 * pass-0 pipe frame's payload is taken, and payload gets an empty buffer)
 * or the candidate (compare it). */
static void on_output(struct attempt *a, uint32_t type, nodus_buf *payload, int from_oracle,
		      int arena_fd)
{
	nodus_msg_output h;
	struct output_view v;
	int64_t offset;
	const char *why = NULL;
	int bad_status = from_oracle ? NODUS_STATUS_INVALID_REFERENCE : NODUS_STATUS_CRASH;
	if (output_frame_parse(type, payload, &h, &offset, &why)) {
		set_status(a, bad_status, "protocol", "%s", why);
		return;
	}
	if (h.instance < 0 || h.instance >= a->n_inst || h.output < 0 ||
	    h.output >= a->task->n_outputs) {
		set_status(a, NODUS_STATUS_CRASH, "protocol", "malformed output frame");
		return;
	}
	const nodus_tensor_spec *ts = &a->task->outputs[h.output];
	int64_t numel = output_numel(a, h.instance, h.output);
	if ((size_t)h.nbytes != (size_t)numel * nodus_dtype_size(ts->dtype)) {
		set_status(a, NODUS_STATUS_CRASH, "protocol", "output of the wrong size");
		return;
	}
	/* mapped only now: a lying size cannot make us touch the whole arena */
	if (output_view_of(payload, &h, offset, arena_fd, &v, &why)) {
		set_status(a, bad_status, "protocol", "%s", why);
		return;
	}
	const char *bytes = v.bytes;
	struct kept_output *ref = &a->oracle[h.instance][h.output];
	if (from_oracle) {
		if (h.pass == 0) {
			int64_t first;
			int64_t n = nodus_judge_reference_unwritten(bytes, ts->dtype, numel, &first);
			if (n > 0)
				set_status(a, NODUS_STATUS_INVALID_REFERENCE, "reference_unwritten",
					   "reference left %lld elements of %s unwritten (first: %s[%lld])",
					   (long long)n, ts->name, ts->name, (long long)first);
			kept_release(ref);
			ref->present = 1;
			ref->view = v;
			if (!v.map) { /* the frame is the bytes' home: take it */
				ref->frame = *payload;
				nodus_buf_init(payload);
			}
			return;
		} else if (!ref->present || ref_nbytes(ref) != (size_t)h.nbytes ||
			   memcmp(ref_bytes(ref), bytes, (size_t)h.nbytes)) {
			set_status(a, NODUS_STATUS_INVALID_REFERENCE, "determinism",
				   "reference gave different bits for the same inputs (%s)", ts->name);
		}
		arena_view_done(&v, arena_fd, offset);
		return;
	}
	if (h.pass == 1) {
		nodus_buf *first = &a->cand_first[h.output];
		if (first->len != (size_t)h.nbytes || memcmp(first->data, bytes, first->len))
			set_status(a, NODUS_STATUS_INCORRECT_NUMERICAL, "determinism",
				   "candidate gave different bits for the same inputs (%s): it "
				   "depends on uninitialised memory or a race",
				   ts->name);
		goto done;
	}
	if (h.instance == a->det_id) {
		nodus_buf_reset(&a->cand_first[h.output]);
		nodus_buf_add(&a->cand_first[h.output], bytes, (size_t)h.nbytes);
	}
	if (!ref->present || ref_nbytes(ref) != (size_t)h.nbytes) {
		set_status(a, NODUS_STATUS_INVALID_REFERENCE, "oracle", "no reference output");
		goto done;
	}
	nodus_check chk;
	int st = nodus_judge_compare(ts->name, bytes, ref_bytes(ref), ts->dtype, numel,
				     tolerance_of(a), &chk);
	note_errors(a, &chk);
	if (st != NODUS_STATUS_OK) {
		const nodus_instance *in = &a->inst[h.instance];
		const char *when = in->timed_check ? "check of a timed call"
				   : h.instance == a->final_id ? "final trial after timing"
				   : in->probe		       ? "shape probe"
							       : "trial";
		set_status(a, st, chk.guard, "%s (instance %d, variant %u): %s", when, h.instance,
			   in->variant, chk.detail);
	} else if (!a->inst[h.instance].probe) {
		/* input_independent_output: does it move with the reference from
		 * the first instance of this shape that passed to this one? */
		nodus_follow *f = &a->follow[h.output];
		if (!f->n)
			nodus_judge_follow_keep(f, bytes, ref_bytes(ref), ts->dtype, numel,
						nodus_judge_trial_seed(a->judge->seed, a->stream, 204),
						h.instance);
		else if (nodus_judge_follow_check(f, ts->name, bytes, ref_bytes(ref), ts->dtype,
						  numel, tolerance_of(a), &chk) == NODUS_STATUS_REWARD_HACK)
			set_status(a, chk.status, chk.guard, "instance %d (variant %u): %s",
				   h.instance, a->inst[h.instance].variant, chk.detail);
	}
done:
	arena_view_done(&v, arena_fd, offset);
}

/* Input checksums: the oracle's are of the inputs as drawn (before its
 * call); the candidate's, taken after its call, must equal them. */
static void on_checksum(struct attempt *a, const nodus_buf *payload, int from_oracle)
{
	nodus_msg_checksum h;
	if (payload->len < sizeof(h))
		return;
	memcpy(&h, payload->data, sizeof(h));
	if (h.instance < 0 || h.instance >= a->n_inst || h.n != a->task->n_inputs ||
	    payload->len != sizeof(h) + (size_t)h.n * 8) {
		set_status(a, from_oracle ? NODUS_STATUS_INVALID_REFERENCE : NODUS_STATUS_CRASH,
			   "protocol", "malformed checksum frame");
		return;
	}
	for (int i = 0; i < h.n; i++) {
		uint64_t got;
		memcpy(&got, payload->data + sizeof(h) + (size_t)i * 8, 8);
		if (from_oracle) {
			a->input_sum[h.instance][i] = got;
			a->has_input_sum[h.instance] = 1;
		} else if (!a->has_input_sum[h.instance]) {
			set_status(a, NODUS_STATUS_INVALID_REFERENCE, "oracle",
				   "no input checksum from the oracle for instance %d", h.instance);
			return;
		} else if (got != a->input_sum[h.instance][i]) {
			set_status(a, NODUS_STATUS_INPUT_MUTATED, "input_checksum",
				   "input '%s' changed during the call (instance %d)",
				   a->task->inputs[i].name, h.instance);
			return;
		}
	}
}

/* An OUTPUT or CHECKSUM frame of a trial, from either worker. */
void on_trial_frame(struct attempt *a, uint32_t type, nodus_buf *payload,
		    int from_oracle, const struct worker_proc *sender)
{
	if (type == NODUS_MSG_CHECKSUM) {
		on_checksum(a, payload, from_oracle);
	} else {
		uint64_t t0 = nodus_now_ns();
		on_output(a, type, payload, from_oracle, sender->has_arena ? sender->arena_fd : -1);
		a->compare_s += (double)(nodus_now_ns() - t0) * 1e-9;
	}
	if (!from_oracle)
		a->trial_frames++;
}

int is_trial_frame(uint32_t type)
{
	return type == NODUS_MSG_OUTPUT || type == NODUS_MSG_OUTPUT_AT ||
	       type == NODUS_MSG_CHECKSUM;
}

/* The instance a trial frame is about, or -1. */
int frame_instance(uint32_t type, const nodus_buf *payload)
{
	int32_t inst;
	if (!is_trial_frame(type) || payload->len < sizeof(nodus_msg_checksum))
		return -1;
	memcpy(&inst, payload->data, sizeof(inst)); /* first field of both headers */
	return inst;
}
