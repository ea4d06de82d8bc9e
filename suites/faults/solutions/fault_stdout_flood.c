/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_stdout_flood.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Prints to stdout and stderr forever. Each write succeeds, so the call
 * never returns; a harness that collects the worker's output unbounded
 * would also run out of memory. nodus must bound what it keeps and end
 * the worker by its watchdog. Expected status: TIMEOUT.
 * ------------------------------------------------------------------------ */
#include <stdio.h>

#include "nodus/solution.h"

int fault_stdout_flood(const nodus_call *call)
{
	(void)call;
	for (unsigned long i = 0;; i++) {
		printf("fault_stdout_flood: line %lu of an endless stream of output\n", i);
		fprintf(stderr, "fault_stdout_flood: and its twin on stderr %lu\n", i);
	}
}
