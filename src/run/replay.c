/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * replay.c: the replay condition.
 *
 * A replay condition is not run by this orchestrator's loop: it starts
 * tenants + 1 copies of `nodus run --shard I/N` on the same device, each
 * writing its records into the shared store (docs/DESIGN.md, "replay").
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <string.h>

#include "run/run-internal.h"

/* A replay condition is a packed evaluation farm: tenants + 1 orchestrators
 * run disjoint shards of the pairs at the same time on the same device,
 * each writing its own records into the shared store (SQLite serialises
 * the writers). */
int run_replay(struct run_ctx *x, const nodus_condition *cond, nodus_error *err)
{
	int m = cond->tenants + 1;
	nodus_child kids[NODUS_MAX_STRESSORS + 1];
	char shard[NODUS_MAX_STRESSORS + 1][32];
	int started = 0, rc = 0;
	if (m > NODUS_MAX_STRESSORS + 1)
		return NODUS_ERR(err, NODUS_EINVAL, "replay: at most %d tenants", NODUS_MAX_STRESSORS);
	progress_replay(x, cond, m);
	/* the shards say what they decide as this run would */
	const char *progress = !x->o->progress ? "-q" : x->o->progress_json ? "--progress=json" : NULL;
	for (int i = 0; i < m; i++) {
		snprintf(shard[i], sizeof(shard[i]), "%d/%d", i, m);
		const char *argv[] = {x->o->self_path, "run", x->o->plan_path, "--db", x->o->db_path,
				      "--condition", cond->name, "--resume", "--cache", x->cache_dir,
				      "--shard", shard[i], progress, NULL};
		nodus_child_opts o;
		memset(&o, 0, sizeof(o));
		o.argv = argv;
		o.stdin_fd = -2;
		if ((rc = nodus_child_start(&kids[i], &o, err)))
			break;
		started++;
	}
	int failed = 0;
	for (int i = 0; i < started; i++)
		failed |= nodus_child_finish(&kids[i]) != 0;
	if (!rc && failed)
		rc = NODUS_ERR(err, NODUS_ECHILD, "a replay shard of condition '%s' failed",
			       cond->name);
	return rc;
}
