/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * target.c: the target a record names.
 *
 * A worker's READY frame carries its fingerprint of the device; the
 * orchestrator completes it with what it knows itself (nodus version,
 * compilers, build target, OS kernel, the Python interpreter), stores it
 * under the hash of its profile, and keeps the fields naming one physical
 * unit in the record's detail instead (docs/DESIGN.md, "The target hash
 * covers the profile, not the unit").
 * ------------------------------------------------------------------------ */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "run/python.h"
#include "run/run-internal.h"

/* Fields that name one physical device rather than its profile: kept in
 * the record's detail, left out of the target hash, so that an isolated
 * recheck on another unit of the same profile (another H200, same driver,
 * same toolchain) is comparable while a MIG slice or another driver is not. */
static const char *const unit_fields[] = {"uuid", "cuda_uuid", "pci_bus_id"};

void nodus__target_split_unit(json_t *fp, json_t *unit)
{
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(unit_fields); i++) {
		json_t *v = json_object_get(fp, unit_fields[i]);
		if (v) {
			json_object_set(unit, unit_fields[i], v);
			json_object_del(fp, unit_fields[i]);
		}
	}
}

/* A campaign with python solutions runs on its interpreter: its path,
 * Python's and torch's versions are part of the target (another torch is
 * another target). The probe was made by the build, so it is cached. */
static void python_fingerprint(struct run_ctx *x, json_t *fp)
{
	const nodus_python_info *py = NULL;
	nodus_error err;
	if (!x->c->target.python[0] || nodus__python_probe(x->c->target.python, &py, &err))
		return;
	json_object_set_new(fp, "python", json_pack("{s:s,s:s,s:s}", "interpreter",
						    py->interpreter, "version", py->version,
						    "torch", py->torch));
}

/* Completes the worker's fingerprint with what the orchestrator knows
 * (nodus version, compilers, build target, OS kernel), stores the target
 * under the hash of its profile and keeps the unit's identity per record. */
static void record_target(struct run_ctx *x, struct attempt *a, json_t *fp)
{
	struct utsname u;
	uname(&u);
	int cuda = x->c->target.backend == NODUS_BACKEND_CUDA;
	json_object_set_new(fp, "nodus_version", json_string(NODUS_VERSION));
	json_object_set_new(fp, "compiler", json_string(nodus_build_compiler_version(
						    x->c->target.backend)));
	json_object_set_new(fp, "host_compiler",
			    json_string(nodus_build_compiler_version(NODUS_BACKEND_CPU)));
	json_object_set_new(fp, "build_target",
			    json_string(cuda ? (x->bopts.cuda_arch ? x->bopts.cuda_arch : "sm_90")
					     : "host"));
	json_object_set_new(fp, "os_kernel", json_string(u.release));
	python_fingerprint(x, fp);
	json_t *unit = json_object();
	nodus__target_split_unit(fp, unit);
	json_object_set_new(a->detail, "device_unit", unit);
	char *canon = json_dumps(fp, JSON_COMPACT | JSON_SORT_KEYS);
	if (canon) {
		nodus_sha256_hex(canon, strlen(canon), a->target_hash);
		nodus_store_put_target(x->store, a->target_hash, canon, NULL);
	}
	free(canon);
}

/* A READY frame: the worker's target fingerprint names the record's target. */
void on_ready(struct run_ctx *x, struct attempt *a, const nodus_buf *payload)
{
	json_t *o = json_loadb(payload->data, payload->len, 0, NULL);
	json_t *fp = json_object_get(o, "fingerprint");
	if (fp)
		record_target(x, a, fp);
	json_t *sandbox = json_object_get(o, "sandbox"); /* what held (docs/sandbox.md) */
	if (sandbox && a->detail)
		json_object_set(a->detail, "sandbox", sandbox);
	json_decref(o);
}
