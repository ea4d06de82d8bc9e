/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * oracle_group.c: oracle groups.
 *
 * attempt.c forms a group before the oracle's job is written
 * (oracle_group_form), hands each follower its reference outputs once the
 * oracle succeeded (oracle_group_hand_over; run.c then runs it from
 * x->prepared) and dissolves the group when it failed, so that the pair
 * runs again with an oracle of its own (regroup).
 * ------------------------------------------------------------------------ */
#include <stdlib.h>
#include <string.h>

#include "run/run-internal.h"

/* ---- oracle groups ----
 *
 * A pair's reference outputs depend only on the reference, the workload
 * and the pair's own instances. So the oracle of the pair being run also
 * computes them for up to oracle_group - 1 later pairs of the condition's
 * queue with the same reference and workload, each with its own instances
 * and seeds, and exits before any timing as always. Those pairs then start
 * only a measure worker: one CUDA context per pair instead of two, which
 * is most of a small pair's fixed cost. Only pairs too small to hide a
 * start-up behind their own work are grouped (see spares_fill). The candidate's measure job never
 * holds another pair's instances. If the group's oracle fails in any way,
 * nothing is decided from it: the pair runs again with an oracle of its
 * own (same seeds), and the others keep theirs. */
#define ORACLE_GROUP_BYTES ((size_t)4 << 30) /* reference outputs held for later pairs */

static size_t instance_output_bytes(const struct attempt *a, int i)
{
	size_t n = 0;
	for (int o = 0; o < a->task->n_outputs; o++)
		n += (size_t)output_numel(a, i, o) * nodus_dtype_size(a->task->outputs[o].dtype);
	return n;
}

void oracle_group_dissolve(struct attempt *a)
{
	for (int k = 0; k < a->n_followers; k++) {
		attempt_release(a->follower[k]);
		free(a->follower[k]);
	}
	a->n_followers = 0;
	a->n_inst = a->n_own;
}

/* Appends the instances of later pairs with the same reference and
 * workload to a's (its oracle job's) list; a's own come first, so that its
 * candidate's frames are judged as early as before. */
int oracle_group_form(struct run_ctx *x, struct attempt *a, nodus_error *err)
{
	a->n_own = a->n_inst;
	if (x->judge->oracle_group <= 1 || x->group_off || !x->prepared ||
	    (x->no_group && x->no_group[a->pair->reference]))
		return 0;
	/* a pair whose own untimed work hides a worker's start-up gains
	 * nothing, and its timing would wait for the others' reference work */
	if (attempt_bytes(a, 2) * 1e-9 * HIDDEN_S_PER_GB >= SPARE_FIRST_S)
		return 0;
	size_t bytes = 0;
	for (int i = 0; i < a->n_inst; i++)
		bytes += instance_output_bytes(a, i);
	for (int k = x->queue_head;
	     k < x->queue_tail && a->n_followers + 1 < x->judge->oracle_group &&
	     a->n_followers < (int)NODUS_ARRAY_SIZE(a->follower);
	     k++) {
		int q = x->queue[k];
		const nodus_pair_spec *ps = &x->c->pairs[q];
		if (ps == a->pair || x->prepared[q] || ps->reference != a->pair->reference ||
		    ps->workload != a->pair->workload)
			continue;
		struct attempt *f = malloc(sizeof(*f));
		if (!f)
			return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		attempt_init(x, f, ps, x->next_attempt[q]);
		uint64_t t0 = nodus_now_ns();
		int rc = build_both(x, f, f->ref_so, f->cand_so, err);
		phase_since(f, "build_s", t0);
		if (rc || f->status != NODUS_STATUS_OK) {
			/* its own turn builds it again (cached) and records why */
			attempt_release(f);
			free(f);
			if (rc)
				return rc;
			continue;
		}
		choose_instances(x, f);
		size_t more = 0;
		for (int i = 0; i < f->n_inst; i++)
			more += instance_output_bytes(f, i);
		if (a->n_inst + f->n_inst > MAX_INSTANCES || bytes + more > ORACLE_GROUP_BYTES) {
			attempt_release(f);
			free(f);
			break;
		}
		bytes += more;
		a->follower_first[a->n_followers] = a->n_inst;
		a->follower[a->n_followers++] = f;
		for (int i = 0; i < f->n_inst; i++) {
			a->inst[a->n_inst] = f->inst[i];
			a->inst[a->n_inst].id = a->n_inst;
			a->n_inst++;
		}
	}
	return 0;
}

/* The group's oracle succeeded: each follower takes its reference outputs
 * and input checksums and waits in x->prepared for its turn. */
void oracle_group_hand_over(struct run_ctx *x, struct attempt *a, double oracle_s)
{
	if (a->n_followers == 0) {
		a->n_inst = a->n_own;
		return;
	}
	json_t *pairs = json_array();
	json_array_append_new(pairs, json_string(a->pair->id));
	for (int k = 0; k < a->n_followers; k++)
		json_array_append_new(pairs, json_string(a->follower[k]->pair->id));
	/* the leader's attempt names its record: a leader retried (say
	 * NOT_ISOLATED) ends in a later record that need not lead this group */
	json_t *group = json_pack("{s:s,s:i,s:o,s:i,s:f}", "leader", a->pair->id,
				  "leader_attempt", a->attempt, "pairs", pairs, "instances",
				  a->n_inst, "oracle_s", oracle_s);
	for (int k = 0; k < a->n_followers; k++) {
		struct attempt *f = a->follower[k];
		int off = a->follower_first[k];
		for (int i = 0; i < f->n_inst; i++) {
			for (int o = 0; o < f->task->n_outputs; o++) {
				struct kept_output t = f->oracle[i][o];
				f->oracle[i][o] = a->oracle[off + i][o];
				a->oracle[off + i][o] = t;
			}
			memcpy(f->input_sum[i], a->input_sum[off + i], sizeof(f->input_sum[i]));
			f->has_input_sum[i] = a->has_input_sum[off + i];
		}
		f->oracle_ready = 1;
		f->oracle_progress = f->n_inst;
		f->oracle_prepared = 1;
		json_object_set(f->detail, "oracle_group", group);
		x->prepared[f->pair - x->c->pairs] = f;
	}
	json_object_set_new(a->detail, "oracle_group", group);
	a->n_followers = 0;
	a->n_inst = a->n_own;
}
