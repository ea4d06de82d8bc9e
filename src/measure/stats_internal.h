/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats_internal.h: helpers shared by the stats*.c files (not public).
 *
 * The bootstraps sort their replicate statistics once and read two
 * quantiles from the sorted array; these helpers let them do that without
 * the copy that nodus_stats_quantile() makes.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_STATS_INTERNAL_H
#define NODUS_STATS_INTERNAL_H

/* Sorts x[0..n) ascending in place. NaN must not occur (callers check). */
void nodus__stats_sort(double *x, int n);

/* Quantile q in [0, 1] of an ascending array of n > 0 finite values, by
 * linear interpolation between order statistics (numpy's default method,
 * Hyndman & Fan type 7), computed the way numpy computes it. */
double nodus__stats_sorted_quantile(const double *sorted, int n, double q);

#endif
