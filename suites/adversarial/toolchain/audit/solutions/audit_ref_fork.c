/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit_ref_fork.c: a reference that forks a child that writes a file
 * while `nodus plan` audits the judge with it (the audit calls the
 * reference). fork (clone) is refused by the syscall filter (SIGSYS): the item fails with guard sandbox.
 * Test: tests/e2e/t2200-build-confined.sh (the file it makes must not exist).
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <unistd.h>

#include "nodus/solution.h"

int audit_ref_fork(const nodus_call *call)
{
	if (fork() == 0) {
		FILE *f = fopen("/tmp/nodus-t2200-audit-fork", "w");
		if (f)
			fclose(f);
		_exit(0);
	}
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
