/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_infinite_loop.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Spins forever on a volatile counter (so the loop cannot be optimised
 * away) without writing anything or making a system call. Only the
 * wall-clock watchdog can end it. Expected status: TIMEOUT.
 * ------------------------------------------------------------------------ */
#include <stdint.h>

#include "nodus/solution.h"

int fault_infinite_loop(const nodus_call *call)
{
	volatile uint64_t spins = 0;

	(void)call;
	for (;;)
		spins++;
}
