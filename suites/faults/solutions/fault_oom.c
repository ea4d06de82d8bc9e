/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fault_oom.c: fault candidate for the vector_poly task (suites/faults).
 *
 * Allocates 64 MiB blocks and touches every page of each, keeping them
 * all, until malloc fails (the worker's address-space limit), then writes
 * through the null pointer malloc returned, as careless code does. The
 * worker dies from SIGSEGV after exhausting its memory limit; nodus must
 * attribute that to memory, not report a plain crash.
 * Expected status: OUT_OF_MEMORY.
 * ------------------------------------------------------------------------ */
#include <stdlib.h>
#include <string.h>

#include "nodus/solution.h"

#define BLOCK_BYTES ((size_t)64 << 20)

int fault_oom(const nodus_call *call)
{
	volatile char *volatile last = NULL;

	(void)call;
	for (;;) {
		char *block = malloc(BLOCK_BYTES);

		last = block;
		if (!block)
			break;
		memset(block, 1, BLOCK_BYTES);
	}
	last[0] = 1;
	return 0;
}
