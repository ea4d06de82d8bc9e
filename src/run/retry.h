/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * retry.h: when a pair whose isolation check failed is tried again.
 *
 * NOT_ISOLATED means load beside the pair, not a fault of the pair, so it
 * is never final for good: within a run the judge's retry_on decides
 * (default: retried up to max_attempts, each retry waiting longer for the
 * other load to go away), and a final NOT_ISOLATED record is tried again
 * by `nodus run --resume` (the store does not count it as deciding: see
 * nodus_store_progress()).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_RUN_RETRY_H
#define NODUS_RUN_RETRY_H

/* Seconds to wait before the next try of a pair whose attempt number
 * `attempt` (1-based) ended NOT_ISOLATED: 1 s, doubling with each attempt,
 * at most NODUS_NOT_ISOLATED_BACKOFF_MAX_S. */
#define NODUS_NOT_ISOLATED_BACKOFF_MAX_S 16.0
double nodus__not_isolated_backoff_s(int attempt);

/* Sleeps nodus__not_isolated_backoff_s(attempt) seconds. */
void nodus__not_isolated_pause(int attempt);

#endif
