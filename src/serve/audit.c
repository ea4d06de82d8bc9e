/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit.c: the judge audit for `nodus serve`, the one `nodus plan` runs
 * (src/audit, cli/cmd-plan.c): a judge whose inputs cannot tell a right
 * kernel from a wrong one (constant or one-sign inputs, a degenerate
 * reference, a loose tolerance) is refused before anything is measured,
 * whether the pairs came by the command line or over HTTP.
 *
 * A batch of candidates changes no task, workload or reference of its base
 * campaign, so a base is audited once, when the server starts; a whole
 * campaign sent as a submission brings its own and is audited when its
 * batch is sealed.
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "run/build.h"
#include "serve/serve-internal.h"

int nodus__serve_audit(const nodus__serve *sv, const nodus_campaign *c, char *why, size_t size,
		       nodus_error *err)
{
	char inc[1024], cache[1100];
	why[0] = '\0';
	if (sv->o.cache_dir)
		snprintf(cache, sizeof(cache), "%s", sv->o.cache_dir);
	else { /* nodus run's default, beside the store: the compiles are shared */
		snprintf(cache, sizeof(cache), "%s", sv->db_abs);
		char *slash = strrchr(cache, '/');
		snprintf(slash ? slash + 1 : cache,
			 sizeof(cache) - (size_t)(slash ? slash + 1 - cache : 0), "nodus-cache");
	}
	nodus_audit_opts o = {cache, nodus_build_include_dir(sv->o.self_path, inc, sizeof(inc)), 1,
			      sv->o.self_path};
	json_t *report = NULL;
	int failed = 0;
	int rc = nodus_audit_campaign(c, &o, &report, &failed, err);
	if (rc)
		return rc;
	if (failed) {
		/* the audit's own lines, as nodus plan prints them */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (f) {
			nodus_audit_print(report, f);
			fclose(f);
		}
		snprintf(why, size,
			 "the judge audit failed for %d task-workload(s) of campaign \"%s\": fix the "
			 "task or workload, or waive the named check in the campaign's audit.waive "
			 "(docs/audit.md):\n%s",
			 failed, c->name, text ? text : "");
		free(text);
	}
	json_decref(report);
	return failed ? 1 : 0;
}
