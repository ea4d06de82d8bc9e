/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit_ref_exec.c: a reference that runs a shell from its entry
 * while `nodus plan` audits the judge with it (the audit calls the
 * reference). execve is refused by the syscall filter (SIGSYS): the item fails with guard sandbox.
 * Test: tests/e2e/t2200-build-confined.sh (the file it makes must not exist).
 * ------------------------------------------------------------------------ */
#include <unistd.h>

#include "nodus/solution.h"

int audit_ref_exec(const nodus_call *call)
{
	execl("/bin/sh", "sh", "-c", "touch /tmp/nodus-t2200-audit-exec", (char *)NULL);
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
