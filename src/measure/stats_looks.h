/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats_looks.h: the schedule of sequential looks (not public).
 *
 * A timing run looks at its data after min_rounds rounds and then every
 * look_every rounds; the last look is at max_rounds, whether or not it
 * falls on that grid. At each look the interval is computed at
 * nodus_stats_look_confidence(conf, K), K = nodus_stats_look_count(), and
 * the run stops at the first look whose label is not AMBIGUOUS (or at the
 * last look). docs/statistics.md explains what this guarantees.
 *
 * Example: min 10, max 40, every 5 gives looks at 10, 15, ..., 40 (K = 7);
 * min 10, max 42, every 5 gives 10, ..., 40, 42 (K = 8).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_STATS_LOOKS_H
#define NODUS_STATS_LOOKS_H

/* Number of looks K of the schedule, or -1 unless 2 <= min_rounds <=
 * max_rounds and look_every >= 1 (a bootstrap needs two rounds). */
int nodus_stats_look_count(int min_rounds, int max_rounds, int look_every);

/* 1 if the schedule looks after rounds_done rounds, else 0 (also 0 for an
 * invalid schedule). */
int nodus_stats_is_look(int rounds_done, int min_rounds, int max_rounds, int look_every);

#endif
