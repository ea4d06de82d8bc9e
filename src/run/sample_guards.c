/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * sample_guards.c: the guards an attempt's samples answer once timing is over.
 *
 * Run by attempt.c after the measure worker's conversation, only when the
 * attempt is still OK: work outside the timed stream (host_gap: event time
 * far below the host-synchronised time, candidate only) and a candidate
 * faster than the roofline floor the target's declared ceilings give
 * (speed_of_light). Either is REWARD_HACK.
 * ------------------------------------------------------------------------ */
#include <math.h>

#include "run/run-internal.h"

#define HOST_GAP_SHARE 0.25

void check_host_gap(struct attempt *a)
{
	int cand = 0, cand_gap = 0, ref = 0, ref_gap = 0;
	for (int i = 0; i < a->n_samples; i++) {
		int gap = (a->samples[i].flags & NODUS_SAMPLE_HOST_GAP) != 0;
		if (a->samples[i].role == NODUS_ROLE_CANDIDATE) {
			cand++;
			cand_gap += gap;
		} else {
			ref++;
			ref_gap += gap;
		}
	}
	if (cand && cand_gap > HOST_GAP_SHARE * cand && ref_gap <= HOST_GAP_SHARE * ref)
		set_status(a, NODUS_STATUS_REWARD_HACK, "host_gap",
			   "%d of %d candidate samples: event time far below the host-synchronised "
			   "time (work outside the timed stream)",
			   cand_gap, cand);
}

/* Share of the roofline floor a measured time may undercut before it is
 * called impossible (declared ceilings are measurements, not limits). */
#define SPEED_OF_LIGHT_SLACK 0.9

/* The speed-of-light guard: where the task declares a roofline and the
 * target its measured ceilings, a candidate faster than the physical floor
 * (bytes over bandwidth, flops over arithmetic rate) has not been measured
 * doing the work, whatever its outputs say. */
void check_speed_of_light(struct run_ctx *x, struct attempt *a)
{
	const nodus_target *t = &x->c->target;
	if (t->ceiling_bytes_per_s <= 0 && t->ceiling_flops_per_s <= 0)
		return;
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(a->task, a->wl, 0, axes);
	double bytes = 0, flops = 0, floor_ns = 0;
	if (t->ceiling_bytes_per_s > 0 &&
	    !nodus_roofline_eval(a->task->roofline_bytes, a->task, axes, &bytes))
		floor_ns = fmax(floor_ns, bytes / t->ceiling_bytes_per_s * 1e9);
	if (t->ceiling_flops_per_s > 0 &&
	    !nodus_roofline_eval(a->task->roofline_flops, a->task, axes, &flops))
		floor_ns = fmax(floor_ns, flops / t->ceiling_flops_per_s * 1e9);
	if (floor_ns <= 0)
		return;
	double cand_ns = median_of_role(a, NODUS_ROLE_CANDIDATE);
	json_object_set_new(a->detail, "speed_of_light",
			    json_pack("{s:f,s:f,s:f,s:f}", "floor_ns", floor_ns, "bytes", bytes,
				      "flops", flops, "candidate_median_ns", cand_ns));
	if (cand_ns < floor_ns * SPEED_OF_LIGHT_SLACK)
		set_status(a, NODUS_STATUS_REWARD_HACK, "speed_of_light",
			   "candidate median %.0f ns per call is below the physical floor %.0f ns "
			   "(%.3g bytes at %.3g B/s, %.3g flops at %.3g flop/s)",
			   cand_ns, floor_ns, bytes, t->ceiling_bytes_per_s, flops,
			   t->ceiling_flops_per_s);
}
