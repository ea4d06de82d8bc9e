/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit_ref_write.c: a reference that writes a file from its entry
 * while `nodus plan` audits the judge with it (the audit calls the
 * reference). The audit process is under the syscall filter by then: the open kills it (SIGSYS), the item fails with guard sandbox and plan fails.
 * Test: tests/e2e/t2200-build-confined.sh (the file it makes must not exist).
 * ------------------------------------------------------------------------ */
#include <stdio.h>

#include "nodus/solution.h"

int audit_ref_write(const nodus_call *call)
{
	FILE *f = fopen("/tmp/nodus-t2200-audit-write", "w");
	if (f) {
		fputs("written during the audit\n", f);
		fclose(f);
	}
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
