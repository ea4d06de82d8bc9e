/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats_looks.c: Bonferroni confidence per look (declared in stats.h) and
 * the look schedule (stats_looks.h).
 *
 * Spending alpha = 1 - conf evenly over the K looks a run may take keeps
 * the probability that any look gives a wrong decisive label within alpha
 * (union bound), whatever the dependence between looks. It is
 * conservative: the looks share most of their data, so the true error rate
 * is lower, and intervals are wider than a single look would need.
 * ------------------------------------------------------------------------ */
#include "measure/stats.h"
#include "measure/stats_looks.h"

#include <math.h>

/* NAN unless conf is in (0, 1) and max_looks >= 1. */
double nodus_stats_look_confidence(double conf, int max_looks)
{
	if (!(conf > 0.0 && conf < 1.0) || max_looks < 1)
		return NAN;
	return 1.0 - (1.0 - conf) / max_looks;
}

static int schedule_valid(int min_rounds, int max_rounds, int look_every)
{
	return min_rounds >= 2 && max_rounds >= min_rounds && look_every >= 1;
}

int nodus_stats_look_count(int min_rounds, int max_rounds, int look_every)
{
	int span;

	if (!schedule_valid(min_rounds, max_rounds, look_every))
		return -1;
	span = max_rounds - min_rounds;
	return span / look_every + 1 + (span % look_every != 0);
}

int nodus_stats_is_look(int rounds_done, int min_rounds, int max_rounds, int look_every)
{
	if (!schedule_valid(min_rounds, max_rounds, look_every) || rounds_done < min_rounds ||
	    rounds_done > max_rounds)
		return 0;
	return rounds_done == max_rounds || (rounds_done - min_rounds) % look_every == 0;
}
