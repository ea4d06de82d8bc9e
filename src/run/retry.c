/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * retry.c: the wait before a pair whose isolation check failed is tried
 * again (retry.h).
 * ------------------------------------------------------------------------ */
#include "run/retry.h"

#include <math.h>
#include <time.h>

double nodus__not_isolated_backoff_s(int attempt)
{
	if (attempt < 1)
		attempt = 1;
	double s = ldexp(1.0, attempt > 30 ? 30 : attempt - 1);
	return s < NODUS_NOT_ISOLATED_BACKOFF_MAX_S ? s : NODUS_NOT_ISOLATED_BACKOFF_MAX_S;
}

void nodus__not_isolated_pause(int attempt)
{
	double s = nodus__not_isolated_backoff_s(attempt);
	struct timespec pause = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	nanosleep(&pause, NULL); /* a signal cuts it short, as it should stop the run */
}
