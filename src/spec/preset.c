/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * preset.c: other harnesses' timing protocols, as a condition's judge
 * (docs/protocol.md, "Presets").
 *
 * A preset changes how a pair is timed and decided, nothing else: the same
 * workers, sandbox, correctness trials against the oracle, checks of timed
 * calls, poison, canaries and isolation checks run as under nodus's own
 * judge. What changes is the schedule (a fixed number of single calls per
 * side, one side after the other, as those harnesses time), the statistic
 * (KernelBench's mean rounded to 3 significant digits, FlashInfer-Bench's
 * mean of per-trial medians) and the decision: a binary verdict, "faster"
 * iff the ratio of the statistics exceeds a threshold, with no interval.
 * The figures are those of the harnesses' own defaults as their code sets
 * them (../shared/prior-art: KernelBench's run_and_check.py and
 * timing.py, FlashInfer-Bench's ResolvedEvalConfig).
 * ------------------------------------------------------------------------ */
#include <string.h>

#include "spec/spec.h"

int nodus_judge_preset_protocol(int preset, nodus_preset_protocol *p)
{
	memset(p, 0, sizeof(*p));
	switch (preset) {
	case NODUS_PRESET_KERNELBENCH:
	case NODUS_PRESET_KERNELBENCH_P:
		/* eval_kernel_against_ref as run_and_check.py calls it: 5
		 * correctness trials, 3 warm-up calls, 100 timed calls each
		 * after an L2 clear, the mean; fast_p counts ratio > p */
		p->correctness_trials = 5;
		p->timing_trials = 1;
		p->warmup_calls = 3;
		p->timed_calls = 100;
		p->statistic = NODUS_PRESET_MEAN_3SIG;
		p->faster_above = preset == NODUS_PRESET_KERNELBENCH_P ? 1.1 : 1.0;
		return 0;
	case NODUS_PRESET_FLASHINFER:
		/* ResolvedEvalConfig: num_trials 3 of warmup_runs 10 and
		 * iterations 50 with a cold L2, the median per trial, the mean
		 * over trials; speedup_factor = reference / solution */
		p->correctness_trials = 3;
		p->timing_trials = 3;
		p->warmup_calls = 10;
		p->timed_calls = 50;
		p->statistic = NODUS_PRESET_MEAN_OF_MEDIANS;
		p->faster_above = 1.0;
		return 0;
	default:
		return -1; /* nodus's own judge has no fixed schedule */
	}
}

void nodus_judge_for_preset(const nodus_judge *base, int preset, nodus_judge *out)
{
	*out = *base;
	nodus_preset_protocol p;
	if (nodus_judge_preset_protocol(preset, &p))
		return;
	out->trials = p.correctness_trials;
	out->warmup_calls = p.warmup_calls;
	out->warmup_ms = 0;
	out->flush_cache = 1;  /* both clear the L2 before each timed call */
	out->min_sample_ns = 0; /* a sample is one call */
	out->process_sd = 0;   /* no interval to widen */
	for (int k = 0; k < out->n_task_judges; k++)
		out->task_judge[k].process_sd = -1; /* the judge's 0 */
	out->min_timed_s = 0;
}
