/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * devices.c: `nodus run --devices LIST`, a plan spread over the GPUs of one
 * host (docs/DESIGN.md, "Several GPUs of one host").
 *
 * One orchestrator per entry of LIST, each `nodus run --shard I/N` of the
 * plan with CUDA_VISIBLE_DEVICES naming its GPU, all writing into the one
 * store (shards of one plan share it: docs/store.md), so there is nothing
 * to merge afterwards and no record can be left behind in a file of its
 * own. Conditions apply per GPU: each orchestrator runs every condition on
 * its shard, with its own co-tenants and isolation checks on its GPU.
 *
 * Records are comparable across GPUs only when the GPUs are one profile,
 * so before anything is stored every distinct GPU of LIST is asked for its
 * fingerprint (`nodus __target cuda` on that GPU alone) and the run is
 * refused unless the profiles, the fingerprints less the fields that name
 * one physical unit, are equal. An entry may repeat (LIST "0,0": two
 * orchestrators on one GPU, the merge path on a one-GPU machine).
 *
 * Each orchestrator gets CPUs of its own (cpu_groups.c): whole physical
 * cores, contiguous, so that no two time their pairs on one core.
 *
 * NODUS_TEST_DEVICES_ON_CPU=1 lets a cpu plan through, each entry an
 * orchestrator on the cpu with the cpu's fingerprint, so that a machine
 * without a GPU tests everything but the GPU's own part (t3920); with
 * NODUS_TEST_DEVICES_DIFFER=1 too, each entry's profile names its entry, so
 * that the refusal of GPUs of two profiles is tested as well.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/nvml.h"
#include "exec/exec.h"
#include "run/cpu_groups.h"
#include "run/run.h"
#include "store/store.h"

#define MAX_DEVICES 64

/* CUDA_VISIBLE_DEVICES for ordinal dev: the ordinal itself, or, when the
 * user's environment already restricts the GPUs, its dev-th entry (so
 * that --devices counts within what the user made visible). */
static int visible_for(const char *user, int dev, char *out, size_t size, nodus_error *err)
{
	if (!user || !*user) {
		snprintf(out, size, "%d", dev);
		return 0;
	}
	const char *p = user;
	for (int i = 0; i < dev && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	size_t len = p ? strcspn(p, ",") : 0;
	if (!p || len == 0 || len >= size)
		return NODUS_ERR(err, NODUS_EUSAGE,
				 "--devices: GPU %d is not among CUDA_VISIBLE_DEVICES=%s (ordinals "
				 "count within it)",
				 dev, user);
	memcpy(out, p, len);
	out[len] = '\0';
	return 0;
}

/* Parses LIST into dev[]: "all" (every GPU NVML lists) or ordinals. */
static int parse_devices(const char *list, const char *user, int *dev, int *n,
			 nodus_error *err)
{
	*n = 0;
	if (strcmp(list, "all") == 0 && user && *user) { /* what the user made visible */
		for (const char *p = user; p && *n < MAX_DEVICES; p = strchr(p, ','), p = p ? p + 1 : p)
			dev[*n] = *n, ++*n;
		return 0;
	}
	if (strcmp(list, "all") == 0) {
		nodus_nvml *nvml = NULL;
		nodus_error nerr;
		if (nodus_nvml_open(&nvml, NULL, NULL, &nerr))
			return NODUS_ERR(err, NODUS_EUSAGE,
					 "--devices all: cannot count the GPUs: %s", nerr.message);
		int count = nodus_nvml_device_count(nvml);
		nodus_nvml_close(nvml);
		for (int i = 0; i < count && i < MAX_DEVICES; i++)
			dev[(*n)++] = i;
		return 0;
	}
	const char *p = list;
	while (*p) {
		char *end = NULL;
		errno = 0;
		long d = strtol(p, &end, 10);
		if (end == p || errno || d < 0 || d >= MAX_DEVICES || (*end && *end != ','))
			return NODUS_ERR(err, NODUS_EUSAGE,
					 "--devices: expected 'all' or GPU ordinals 0..%d separated by "
					 "commas (e.g. 0,1,2,3; a repeat runs two orchestrators on one "
					 "GPU), got '%s'",
					 MAX_DEVICES - 1, list);
		if (*n == MAX_DEVICES)
			return NODUS_ERR(err, NODUS_EUSAGE, "--devices: at most %d entries",
					 MAX_DEVICES);
		dev[(*n)++] = (int)d;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			return NODUS_ERR(err, NODUS_EUSAGE, "--devices: '%s' ends with a comma", list);
	}
	if (*n == 0)
		return NODUS_ERR(err, NODUS_EUSAGE, "--devices: no GPU named");
	return 0;
}

static int on_cpu_for_tests(void)
{
	const char *v = getenv("NODUS_TEST_DEVICES_ON_CPU");
	return v && strcmp(v, "1") == 0;
}

/* What the plan allows: a cuda target, and no replay condition among those
 * run (a replay condition starts its own orchestrators on one GPU). */
static int check_plan(const nodus_run_opts *o, char *digest, size_t size, nodus_error *err)
{
	json_error_t jerr;
	json_t *plan = json_load_file(o->plan_path, 0, &jerr);
	if (!plan)
		return NODUS_ERR(err, NODUS_EPARSE, "%s: %s (line %d)", o->plan_path, jerr.text,
				 jerr.line);
	int rc = 0;
	const char *backend =
		json_string_value(json_object_get(json_object_get(plan, "target"), "backend"));
	const char *d = json_string_value(json_object_get(plan, "digest"));
	snprintf(digest, size, "%s", d ? d : "");
	if (!backend || (strcmp(backend, "cuda") != 0 && !on_cpu_for_tests()))
		rc = NODUS_ERR(err, NODUS_EUSAGE,
			       "--devices: %s targets %s, not cuda: a cpu plan has no GPUs to spread "
			       "over (nodus run --shard I/N splits it by hand)",
			       o->plan_path, backend ? backend : "nothing");
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(plan, "conditions"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *kind = json_string_value(json_object_get(c, "kind"));
		if (rc || !name || !kind || strcmp(kind, "replay") != 0)
			continue;
		if (!o->condition || strcmp(o->condition, name) == 0)
			rc = NODUS_ERR(err, NODUS_EUSAGE,
				       "--devices: condition '%s' is a replay condition, which starts "
				       "its own orchestrators on one GPU; run it without --devices (or "
				       "name the others with --condition)",
				       name);
	}
	json_decref(plan);
	return rc;
}

static void restore_visible(const char *user)
{
	if (user)
		setenv("CUDA_VISIBLE_DEVICES", user, 1);
	else
		unsetenv("CUDA_VISIBLE_DEVICES");
}

/* Reads all of fd into a heap string (NULL on failure). */
static char *read_all(int fd)
{
	nodus_buf b = NODUS_BUF_INIT;
	char chunk[4096];
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (nodus_buf_add(&b, chunk, (size_t)got)) {
			nodus_buf_release(&b);
			return NULL;
		}
	}
	return nodus_buf_detach(&b);
}

/* GPU dev's fingerprint, split into its profile and its unit (heap JSON
 * objects), from `nodus __target cuda` run on that GPU alone. */
static int device_profile(const nodus_run_opts *o, const char *user, int dev, json_t **profile,
			  json_t **unit, nodus_error *err)
{
	char visible[64];
	int rc = visible_for(user, dev, visible, sizeof(visible), err);
	if (rc)
		return rc;
	setenv("CUDA_VISIBLE_DEVICES", visible, 1);
	const char *argv[] = {o->self_path, "__target", on_cpu_for_tests() ? "cpu" : "cuda", NULL};
	nodus_child_opts co;
	memset(&co, 0, sizeof(co));
	co.argv = argv;
	co.stdin_fd = -2;
	co.stdout_fd = -1;
	co.die_with_parent = 1;
	nodus_child kid;
	rc = nodus_child_start(&kid, &co, err);
	restore_visible(user);
	if (rc)
		return rc;
	char *text = read_all(kid.out_fd);
	int code = nodus_child_finish(&kid);
	json_t *o_json = text ? json_loads(text, 0, NULL) : NULL;
	*profile = json_incref(json_object_get(o_json, "profile"));
	*unit = json_incref(json_object_get(o_json, "unit"));
	/* the test hook's second profile: GPUs that differ, on a machine with none */
	const char *differ = getenv("NODUS_TEST_DEVICES_DIFFER");
	if (on_cpu_for_tests() && differ && strcmp(differ, "1") == 0 && json_is_object(*profile))
		json_object_set_new(*profile, "test_visible_device", json_string(visible));
	if (code != 0 || !json_is_object(*profile)) {
		const char *why = json_string_value(json_object_get(o_json, "error"));
		rc = NODUS_ERR(err, NODUS_EUNAVAILABLE,
			       "--devices: GPU %d gives no fingerprint (exit %d): %s", dev, code,
			       why ? why : "no answer");
		json_decref(*profile);
		json_decref(*unit);
		*profile = *unit = NULL;
	}
	json_decref(o_json);
	free(text);
	return rc;
}

/* Every distinct GPU of dev[] has the first one's profile, or err names
 * the first that differs and the fields in which it does. */
static int same_profiles(const nodus_run_opts *o, const char *user, const int *dev, int n,
			 nodus_error *err)
{
	json_t *first = NULL, *unit = NULL;
	int rc = 0, first_dev = -1;
	for (int i = 0; !rc && i < n; i++) {
		int seen = 0;
		for (int k = 0; k < i; k++)
			seen |= dev[k] == dev[i];
		if (seen)
			continue;
		json_t *p = NULL;
		if ((rc = device_profile(o, user, dev[i], &p, &unit, err)))
			break;
		const char *uuid = json_string_value(json_object_get(unit, "uuid"));
		if (o->progress)
			fprintf(o->progress, "device %d: %s%s%s\n", dev[i],
				json_string_value(json_object_get(p, "gpu_name"))
					? json_string_value(json_object_get(p, "gpu_name"))
					: "?",
				uuid ? ", " : "", uuid ? uuid : "");
		json_decref(unit);
		if (!first) {
			first = p;
			first_dev = dev[i];
			continue;
		}
		if (!json_equal(first, p)) {
			char fields[512] = "";
			size_t len = 0;
			const char *key;
			json_t *v;
			json_object_foreach(first, key, v) {
				if (json_equal(v, json_object_get(p, key)) || len >= sizeof(fields))
					continue;
				len += (size_t)snprintf(fields + len, sizeof(fields) - len, "%s%s",
							len ? ", " : "", key);
			}
			json_object_foreach(p, key, v) {
				if (json_object_get(first, key) || len >= sizeof(fields))
					continue;
				len += (size_t)snprintf(fields + len, sizeof(fields) - len, "%s%s",
							len ? ", " : "", key);
			}
			rc = NODUS_ERR(err, NODUS_EUSAGE,
				       "--devices: GPU %d is another profile than GPU %d (they differ "
				       "in %s), so their records would not be comparable; name GPUs "
				       "of one profile",
				       dev[i], first_dev, fields[0] ? fields : "?");
		}
		json_decref(p);
	}
	json_decref(first);
	return rc;
}

static int count_one(const nodus_record *r, void *ctx)
{
	(void)r;
	++*(int *)ctx;
	return 0;
}

/* The store is created (or migrated) here, once, and must not already
 * hold records of the plan unless --resume: the orchestrators all resume,
 * since each one finds the others' records. */
static int check_store(const nodus_run_opts *o, const char *digest, nodus_error *err)
{
	nodus_store *s = NULL;
	int rc = nodus_store_open(o->db_path, &s, err);
	if (rc)
		return rc;
	int records = 0;
	if (!o->resume && digest[0])
		rc = nodus_store_foreach_record(s, digest, 0, 0, count_one, &records, err);
	nodus_store_close(s);
	if (!rc && records > 0)
		rc = NODUS_ERR(err, NODUS_EUSAGE,
			       "'%s' already holds records of this plan; use --resume to continue "
			       "it, or another database",
			       o->db_path);
	return rc;
}

int nodus_run_devices(const nodus_run_opts *o, const char *list, nodus_error *err)
{
	int dev[MAX_DEVICES], n = 0;
	char digest[NODUS_SHA256_HEX + 1];
	/* the user's own restriction, kept (a copy: setenv replaces it) */
	char user_buf[1024];
	const char *user_env = getenv("CUDA_VISIBLE_DEVICES");
	const char *user = NULL;
	if (user_env) {
		snprintf(user_buf, sizeof(user_buf), "%s", user_env);
		user = user_buf;
	}
	/* CUDA's ordinals in the PCI order NVML and nvidia-smi use, for the
	 * fingerprints asked below as for the orchestrators */
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	int rc = parse_devices(list, user, dev, &n, err);
	if (!rc)
		rc = check_plan(o, digest, sizeof(digest), err);
	if (!rc && n == 0)
		rc = NODUS_ERR(err, NODUS_EUNAVAILABLE, "--devices all: the driver lists no GPU");
	if (!rc)
		rc = same_profiles(o, user, dev, n, err);
	if (!rc)
		rc = check_store(o, digest, err);
	if (rc)
		return rc;
	nodus_child kids[MAX_DEVICES];
	char shard[MAX_DEVICES][32];
	int started = 0;
	/* each orchestrator on CPUs of its own, inherited by its workers */
	static cpu_set_t groups[MAX_DEVICES];
	cpu_set_t own;
	int split = sched_getaffinity(0, sizeof(own), &own) ? -1
							    : nodus_cpu_groups(n, groups, "/sys/devices/system/cpu");
	if (o->progress && split == NODUS_SPLIT_CPUS)
		fprintf(o->progress, "fewer physical cores than orchestrators: SMT siblings are "
				     "shared between them\n");
	if (o->progress && split == NODUS_SPLIT_NONE)
		fprintf(o->progress, "fewer CPUs than orchestrators: they share every CPU, and "
				     "their timing workers one core\n");
	const char *progress = !o->progress ? "-q" : o->progress_json ? "--progress=json" : NULL;
	for (int i = 0; i < n; i++) {
		char visible[64];
		if ((rc = visible_for(user, dev[i], visible, sizeof(visible), err)))
			break;
		snprintf(shard[i], sizeof(shard[i]), "%d/%d", i, n);
		const char *argv[16];
		int a = 0;
		argv[a++] = o->self_path;
		argv[a++] = "run";
		argv[a++] = o->plan_path;
		argv[a++] = "--db";
		argv[a++] = o->db_path;
		argv[a++] = "--shard";
		argv[a++] = shard[i];
		argv[a++] = "--resume";
		if (o->cache_dir) {
			argv[a++] = "--cache";
			argv[a++] = o->cache_dir;
		}
		if (o->condition) {
			argv[a++] = "--condition";
			argv[a++] = o->condition;
		}
		if (progress)
			argv[a++] = progress;
		argv[a] = NULL;
		nodus_child_opts co;
		memset(&co, 0, sizeof(co));
		co.argv = argv;
		co.stdin_fd = -2;
		co.die_with_parent = 1;
		if (split >= 0) {
			char cpus[256];
			nodus_cpu_set_format(&groups[i], cpus, sizeof(cpus));
			if (o->progress)
				fprintf(o->progress, "shard %s on GPU %d: CPUs %s\n", shard[i], dev[i],
					cpus);
			(void)sched_setaffinity(0, sizeof(groups[i]), &groups[i]);
		}
		setenv("CUDA_VISIBLE_DEVICES", visible, 1); /* inherited by this child only */
		rc = nodus_child_start(&kids[i], &co, err);
		restore_visible(user);
		if (split >= 0)
			(void)sched_setaffinity(0, sizeof(own), &own);
		if (rc)
			break;
		started++;
	}
	int failed = -1, code = 0;
	for (int i = 0; i < started; i++) {
		int c = nodus_child_finish(&kids[i]);
		if (c != 0 && failed < 0) {
			failed = i;
			code = c;
		}
	}
	if (!rc && failed >= 0)
		rc = NODUS_ERR(err, NODUS_ECHILD,
			       "the orchestrator of GPU %d (shard %s) exited %d; what the others "
			       "stored is kept: nodus run --devices %s --resume goes on",
			       dev[failed], shard[failed], code, list);
	return rc;
}
