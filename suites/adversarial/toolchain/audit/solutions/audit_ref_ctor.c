/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit_ref_ctor.c: a reference that writes a file and runs a shell from an ELF constructor,
 * while `nodus plan` audits the judge with it (the audit calls the
 * reference). Constructors run at dlopen, before the syscall filter, but under the audit process's Landlock ruleset: no file may be written, no program executed; the entry is an honest relu, so the audit itself passes.
 * Test: tests/e2e/t2200-build-confined.sh (the file it makes must not exist).
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <stdlib.h>

#include "nodus/solution.h"

__attribute__((constructor)) static void at_load(void)
{
	FILE *f = fopen("/tmp/nodus-t2200-audit-ctor", "w");
	if (f) {
		fputs("written at dlopen during the audit\n", f);
		fclose(f);
	}
	if (system("touch /tmp/nodus-t2200-audit-ctor-exec") != 0)
		return;
}

int audit_ref_ctor(const nodus_call *call)
{
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	for (int64_t i = 0; i < call->inputs[0].numel; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
