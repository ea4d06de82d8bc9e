/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * worker.c: a worker process (see worker.h for the roles and protocol.h for
 * the frames).
 *
 * A worker loads one solution: the oracle and the timer the reference,
 * the measure worker the candidate. So no candidate code shares a process
 * with the reference's timing, its clock or its outputs.
 *
 * Order of a measure worker (a timer does the same with the reference and
 * no trials), and why:
 *   1. parse the job, open the backend, confine the process before any
 *      solution code runs (nodus_sandbox_prepare: constructors run inside
 *      dlopen), dlopen the solution, check that loading left no thread or
 *      fd, and that it exports no name that would interpose on the
 *      harness;
 *   2. allocate everything the run needs that does not depend on timing;
 *   3. lock down (cpu): from here on a fork, exec, socket or open kills the
 *      process with SIGSYS, which the orchestrator reports as REWARD_HACK;
 *   4. setup function, correctness trials, the determinism repeat;
 *   5. once the gate opens: time one call and tell the orchestrator
 *      (SIZED), which picks one batch for both sides; fill the timing
 *      copies (each with inputs and outputs of its own, so no call inside
 *      a batch sees inputs or outputs another call saw);
 *   6. commands, one at a time (protocol.h): warm-up batches, then timed
 *      batches, each with the window of copies and the perturbation the
 *      orchestrator named, every output of the window poisoned and the
 *      cache flushed before its START frame; after a batch the
 *      orchestrator may ask for the outputs of one of its calls (the
 *      check: a timed call, named only once it has run);
 *   7. input checksums of the timing copies, final fresh trials, DONE.
 * ------------------------------------------------------------------------ */
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "common/common.h"
#include "exec/exec.h"
#include "judge/judge.h"
#include "measure/stats.h"
#include "run/guard.h"
#include "run/protocol.h"
#include "run/python.h"
#include "run/worker.h"

#define RESULT_FD 3
#define WORKSPACE_BYTES ((size_t)4 << 20)
const char *const nodus_forbidden_exports[] = {
	"clock_gettime", "gettimeofday", "time", "clock", "memcmp", "bcmp", "strcmp",
	"fork", "dlopen", "dlsym", "cudaEventElapsedTime", "cudaEventRecord",
	"cudaEventSynchronize", "cudaDeviceSynchronize", "cudaStreamSynchronize",
	"cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync",
	"cudaCtxResetPersistingL2Cache", "cudaDeviceSetLimit", "cuEventElapsedTime",
	NULL,
};

struct solution_handle {
	void *dl;                 /* dlopen handle */
	nodus_entry_fn entry;     /* the entry function */
	nodus_entry_fn setup;     /* ENTRY_setup, or NULL */
	int (*prelock)(void);     /* ENTRY_prelock, or NULL: nonzero asks for calls before lockdown */
	nodus_defer_fn defer;     /* ENTRY_defer and ENTRY_deferred, or NULL: outputs */
	nodus_deferred_fn deferred; /* returned by value, copied by the worker after timing */
	nodus_error_fn error;     /* ENTRY_error, or NULL */
	const char *adapter_hook; /* a native solution's export of one of the hooks
				     below (the name), else NULL */
	char path[1024];          /* shared object path */
};

/* The hooks only nodus's own Python adapter (torch_adapter.c) may use:
 * ENTRY_defer and ENTRY_deferred leave work for after the timed region,
 * ENTRY_prelock calls the entry before lockdown. A native solution writes
 * its outputs inside its call: one that exports them would run its own
 * code where nothing times or watches it (a C candidate doing all its work
 * in ENTRY_defer(0) was labelled 24,000 times faster), so they are never
 * looked up for it, and a candidate exporting one is a REWARD_HACK. */
static const char *const adapter_hooks[] = {"defer", "deferred", "prelock"};

/* One set of device buffers for a call. */
struct call_buffers {
	void *in[NODUS_MAX_INPUTS];    /* device inputs */
	void *out[NODUS_MAX_OUTPUTS];  /* device outputs */
	nodus_tensor tin[NODUS_MAX_INPUTS];
	nodus_tensor tout[NODUS_MAX_OUTPUTS];
	nodus_call call;
};

struct host_set {
	void *in[NODUS_MAX_INPUTS];   /* host inputs */
	void *scratch;                /* largest output or input, host */
	size_t scratch_bytes;
	int scratch_pinned;           /* page-locked by the backend (host_pin) */
};

struct worker {
	const nodus_backend_ops *ops;
	void *dev;                        /* backend context */
	json_t *job;                      /* the job, owned */
	int is_measure;                   /* role: the candidate's trials and timing */
	int is_oracle;                    /* role: the reference's outputs */
	nodus_task task;
	nodus_workload workload;
	struct solution_handle ref, cand;
	nodus_instance *instances;        /* job's instances */
	int n_instances;
	uint64_t perturb_seed;
	const char *axis_names[NODUS_MAX_AXES];
	int64_t axes[NODUS_MAX_AXES];     /* workload axes */
	void *workspace;                  /* device workspace */
	unsigned char *host_ws;           /* host pattern for the workspace */
	uint64_t ws_counter;              /* varies the workspace pattern per call */
	nodus_rng rng;                    /* order randomisation */
	double device_s;                  /* time spent in solution calls + flushes */
	struct {                          /* where the worker's time went, for bench/ */
		double draw_s, upload_s, checksum_s, call_s, send_s;
		double device_draw_s; /* inputs drawn by the backend (fill) */
		double size_s, copies_s, rounds_s, perturb_s, fresh_s, recheck_s, intact_s, poison_s;
		double load_s, fingerprint_s, setup_s;
		double alloc_s; /* device and host buffers of the trials: taken and given back */
		double settle_s, settled; /* outputs left by value: copied after timing, how many */
		uint64_t job_ns; /* when the job arrived */
		double bytes;             /* input bytes drawn + output bytes sent */
	} phase;
	int fill_threads;                 /* threads drawing large inputs (1 when sandboxed) */
	char *fingerprint;                /* target fingerprint JSON, taken at open */
	int64_t arena_bytes;              /* the output arena's size (fd 4), 0 = none */
	int64_t arena_next;               /* where the next output goes in it */
	struct host_set host_kept;        /* host buffers kept for the next instance */
	int64_t host_kept_axes[NODUS_MAX_AXES]; /* their shape (instance axes) */
	int host_kept_valid;
	const char *objects_dir;          /* cuda: the compile cache, readable before the job;
					   * NULL: no Landlock before the driver */
	int driver_confined;              /* 1: Landlock held before the driver's threads */
};

/* Seconds since t0 (from nodus_now_ns), added to a phase total. */
static void phase_add(double *total, uint64_t t0)
{
	*total += (double)(nodus_now_ns() - t0) * 1e-9;
}

/* ---- frames ---- */

static void send_json(uint32_t type, json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	if (text)
		nodus_ipc_write(RESULT_FD, type, text, strlen(text));
	free(text);
	json_decref(obj);
}

/* Reports a failure and returns the worker's exit status. */
static int fail(const char *status, const char *guard, const char *stage, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(const char *status, const char *guard, const char *stage, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	send_json(NODUS_MSG_FAIL, json_pack("{s:s,s:s,s:s,s:s}", "status", status, "guard",
					      guard ? guard : "", "stage", stage, "message", msg));
	return 0;
}

static int fail_err(const char *status, const char *stage, const nodus_error *err)
{
	char line[1024];
	nodus_error_format(err, line, sizeof(line));
	return fail(status, "", stage, "%s", line);
}

/* ---- job parsing ---- */

static uint64_t json_u64(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (json_is_string(v))
		return strtoull(json_string_value(v), NULL, 10);
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	return 0;
}

static int json_int(json_t *obj, const char *key, int dflt)
{
	json_t *v = json_object_get(obj, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static int load_solution(json_t *spec, struct solution_handle *h, nodus_error *err)
{
	const char *so = json_string_value(json_object_get(spec, "so"));
	const char *entry = json_string_value(json_object_get(spec, "entry"));
	if (!so || !entry)
		return NODUS_ERR(err, NODUS_EINVAL, "job names no shared object or entry");
	snprintf(h->path, sizeof(h->path), "%s", so);
	h->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h->dl)
		return NODUS_ERR(err, NODUS_ENOTFOUND, "cannot load '%s': %s", so, dlerror());
	*(void **)&h->entry = dlsym(h->dl, entry);
	if (!h->entry)
		return NODUS_ERR(err, NODUS_ENOTFOUND, "'%s' does not export entry '%s'", so, entry);
	char setup_name[NODUS_NAME_MAX + 8];
	snprintf(setup_name, sizeof(setup_name), "%s_setup", entry);
	*(void **)&h->setup = dlsym(h->dl, setup_name);
	/* ENTRY_load (solution.h): still under the load filter, before the
	 * census; the torch adapter starts its interpreter here */
	nodus_load_fn load;
	snprintf(setup_name, sizeof(setup_name), "%s_load", entry);
	*(void **)&load = dlsym(h->dl, setup_name);
	snprintf(setup_name, sizeof(setup_name), "%s_error", entry);
	*(void **)&h->error = dlsym(h->dl, setup_name);
	/* the job says which solution is nodus's adapter (jobs.c) */
	if (json_is_true(json_object_get(spec, "adapter"))) {
		snprintf(setup_name, sizeof(setup_name), "%s_prelock", entry);
		*(void **)&h->prelock = dlsym(h->dl, setup_name);
		snprintf(setup_name, sizeof(setup_name), "%s_defer", entry);
		*(void **)&h->defer = dlsym(h->dl, setup_name);
		snprintf(setup_name, sizeof(setup_name), "%s_deferred", entry);
		*(void **)&h->deferred = dlsym(h->dl, setup_name);
		if (!h->defer || !h->deferred)
			h->defer = NULL, h->deferred = NULL; /* both or neither */
	} else {
		for (size_t k = 0; k < NODUS_ARRAY_SIZE(adapter_hooks) && !h->adapter_hook; k++) {
			snprintf(setup_name, sizeof(setup_name), "%s_%s", entry, adapter_hooks[k]);
			if (dlsym(h->dl, setup_name))
				h->adapter_hook = adapter_hooks[k];
		}
	}
	char msg[1024] = "";
	if (load && load(msg, sizeof(msg)))
		return NODUS_ERR(err, NODUS_EINVAL, "'%s': %s_load failed: %s", so, entry,
				 msg[0] ? msg : "(no message)");
	return 0;
}

/* Name of a forbidden symbol the shared object defines itself, or NULL. */
static const char *interposed_symbol(const struct solution_handle *h)
{
	for (int i = 0; nodus_forbidden_exports[i]; i++) {
		void *sym = dlsym(h->dl, nodus_forbidden_exports[i]);
		Dl_info info;
		if (sym && dladdr(sym, &info) && info.dli_fname &&
		    strcmp(info.dli_fname, h->path) == 0)
			return nodus_forbidden_exports[i];
	}
	return NULL;
}

static int parse_instances(struct worker *w)
{
	json_t *arr = json_object_get(w->job, "instances");
	w->n_instances = (int)json_array_size(arr);
	w->instances = calloc((size_t)w->n_instances + 1, sizeof(*w->instances));
	if (!w->instances)
		return NODUS_ENOMEM;
	for (int i = 0; i < w->n_instances; i++) {
		json_t *o = json_array_get(arr, (size_t)i);
		nodus_instance *in = &w->instances[i];
		in->id = i;
		in->probe = json_int(o, "probe", 0);
		in->variant = (uint32_t)json_int(o, "variant", 0);
		in->copy = json_int(o, "copy", -1);
		in->seed = json_u64(o, "seed");
		json_t *s = json_object_get(o, "sample");
		in->sample = json_is_integer(s) ? json_integer_value(s) : -1;
		in->perturb_seed = json_object_get(o, "perturb_seed")
					   ? json_u64(o, "perturb_seed")
					   : json_u64(w->job, "perturb_seed");
		in->copy_base = json_u64(o, "copy_base");
	}
	return 0;
}

/* The file inputs' values from the job (jobs.c: hex of their bytes). */
static int file_inputs(struct worker *w, nodus_error *err)
{
	json_t *files = json_object_get(w->job, "files");
	for (int i = 0; i < w->task.n_inputs; i++) {
		if (!nodus_workload_file_input(&w->workload, i))
			continue;
		json_t *h = json_object_get(files, w->task.inputs[i].name);
		const char *hex = json_string_value(h);
		size_t len = json_string_length(h), n = len / 2;
		unsigned char *bytes = hex && len % 2 == 0 ? malloc(n + 1) : NULL;
		int ok = bytes != NULL;
		for (size_t k = 0; ok && k < n; k++) {
			int v = 0;
			for (int half = 0; ok && half < 2; half++) {
				char c = hex[2 * k + (size_t)half];
				int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
				ok = x >= 0;
				v = v << 4 | (x & 15);
			}
			if (ok)
				bytes[k] = (unsigned char)v;
		}
		int rc = ok ? nodus_workload_set_file(&w->workload, &w->task, i, bytes, n)
			    : NODUS_EINVAL;
		free(bytes);
		if (rc)
			return NODUS_ERR(err, rc, "job holds no valid values for file input \"%s\"",
					 w->task.inputs[i].name);
	}
	return 0;
}

static int parse_specs(struct worker *w, nodus_error *err)
{
	nodus_diags d = NODUS_DIAGS_INIT;
	int rc = nodus_task_from_json(json_object_get(w->job, "task"), "<job>", NULL, &w->task, &d);
	if (!rc)
		rc = nodus_workload_from_json(json_object_get(w->job, "workload"), "<job>", NULL,
					      &w->task, 1, &w->workload, &d);
	if (rc) {
		if (d.count)
			*err = d.items[0];
		else
			NODUS_ERR(err, rc, "job holds an invalid task or workload");
		nodus_diags_release(&d);
		return rc ? rc : NODUS_EINVAL;
	}
	nodus_diags_release(&d);
	w->workload.task = 0;
	if ((rc = file_inputs(w, err)))
		return rc;
	nodus__instance_axes(&w->task, &w->workload, 0, w->axes);
	for (int a = 0; a < w->task.n_axes; a++)
		w->axis_names[a] = w->task.axes[a].name;
	return 0;
}

/* ---- buffers ---- */

static void buffers_release(struct worker *w, struct call_buffers *b)
{
	for (int i = 0; i < NODUS_MAX_INPUTS; i++)
		if (b->in[i])
			w->ops->free(w->dev, b->in[i]);
	for (int o = 0; o < NODUS_MAX_OUTPUTS; o++)
		if (b->out[o])
			w->ops->free(w->dev, b->out[o]);
	memset(b, 0, sizeof(*b));
}

static void fill_tensor(nodus_tensor *t, const nodus_tensor_spec *ts, const int64_t *axes,
			void *data)
{
	memset(t, 0, sizeof(*t));
	t->data = data;
	t->dtype = ts->dtype;
	t->ndim = ts->ndim;
	for (int d = 0; d < ts->ndim; d++)
		t->shape[d] = axes[ts->axis[d]];
	t->numel = nodus__tensor_numel(ts, axes);
	t->nbytes = t->numel * (int64_t)nodus_dtype_size(ts->dtype);
	t->name = ts->name;
}

/* Names a buffer for the guards' messages and, for an input, makes it
 * read-only to solutions where the backend can (cpu); the backend's own
 * writes (upload, copy, patch) still reach it. */
static int guard_buffer(struct worker *w, void *ptr, size_t bytes, const char *what,
			const char *name, int read_only, nodus_error *err)
{
	if (w->ops->name_buffer)
		w->ops->name_buffer(w->dev, ptr, what, name);
	return read_only && w->ops->protect ? w->ops->protect(w->dev, ptr, bytes, 1, err) : 0;
}

/* Allocates inputs (unless share_inputs) and outputs for the given axes. */
static int buffers_alloc(struct worker *w, struct call_buffers *b, const int64_t *axes,
			 int alloc_inputs, int64_t *axes_store, nodus_error *err)
{
	memset(b, 0, sizeof(*b));
	const nodus_task *t = &w->task;
	for (int i = 0; alloc_inputs && i < t->n_inputs; i++) {
		size_t n = (size_t)nodus__tensor_numel(&t->inputs[i], axes) *
			   nodus_dtype_size(t->inputs[i].dtype);
		int rc = w->ops->alloc(w->dev, n, &b->in[i], err);
		if (!rc)
			rc = guard_buffer(w, b->in[i], n, "input", t->inputs[i].name, 1, err);
		if (rc)
			return rc;
		fill_tensor(&b->tin[i], &t->inputs[i], axes, b->in[i]);
	}
	for (int o = 0; o < t->n_outputs; o++) {
		size_t n = (size_t)nodus__tensor_numel(&t->outputs[o], axes) *
			   nodus_dtype_size(t->outputs[o].dtype);
		int rc = w->ops->alloc(w->dev, n, &b->out[o], err);
		if (!rc)
			rc = guard_buffer(w, b->out[o], n, "output", t->outputs[o].name, 0, err);
		if (rc)
			return rc;
		fill_tensor(&b->tout[o], &t->outputs[o], axes, b->out[o]);
	}
	nodus_call *c = &b->call;
	c->abi_version = NODUS_ABI_VERSION;
	c->struct_size = sizeof(*c);
	c->n_inputs = t->n_inputs;
	c->n_outputs = t->n_outputs;
	c->inputs = b->tin;
	c->outputs = b->tout;
	c->n_axes = t->n_axes;
	c->axis_names = w->axis_names;
	c->axis_values = axes_store;
	c->stream = w->ops->stream(w->dev);
	c->workspace = w->workspace;
	c->workspace_bytes = w->workspace ? (int64_t)WORKSPACE_BYTES : 0;
	return 0;
}

/* Writes a fresh pseudo-random pattern into the workspace so that a
 * solution relying on leftover scratch contents becomes non-deterministic. */
static int scramble_workspace(struct worker *w, nodus_error *err)
{
	if (!w->workspace)
		return 0;
	nodus_rng r;
	nodus_rng_seed(&r, 0x5eed0000u + ++w->ws_counter);
	uint64_t *p = (uint64_t *)w->host_ws;
	for (size_t i = 0; i < WORKSPACE_BYTES / 8; i++)
		p[i] = nodus_rng_next(&r);
	return w->ops->upload(w->dev, w->workspace, w->host_ws, WORKSPACE_BYTES, err);
}

static int poison_outputs(struct worker *w, struct call_buffers *b, void *host, nodus_error *err)
{
	for (int o = 0; o < w->task.n_outputs; o++) {
		nodus_judge_poison(host, b->tout[o].dtype, b->tout[o].numel);
		int rc = w->ops->upload(w->dev, b->out[o], host, (size_t)b->tout[o].nbytes, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- one checked call ---- */

/* A complete host set (scratch is allocated last) is kept for the next
 * instance of the same shape instead of being freed: every instance but
 * the shape probe has the workload's shape, and fresh pages cost a page
 * fault each, which for large tensors is as much as drawing them on many
 * threads. Every byte of a set is written before it is read (inputs are
 * drawn whole, outputs downloaded whole). */
/* Every output and input checksum goes through scratch to the host. The
 * backend page-locks it where it can (cuda: a download from pageable
 * memory is staged through the driver's own buffers); where it cannot,
 * the copies are only slower. */
static void scratch_alloc(struct worker *w, struct host_set *h, size_t bytes)
{
	nodus_error err = {0};
	h->scratch = malloc(bytes);
	h->scratch_bytes = bytes;
	h->scratch_pinned = h->scratch && w->ops->host_pin &&
			    w->ops->host_pin(w->dev, h->scratch, bytes, &err) == 0;
}

static void scratch_free(struct worker *w, struct host_set *h)
{
	if (h->scratch_pinned)
		w->ops->host_unpin(w->dev, h->scratch);
	free(h->scratch);
	h->scratch = NULL;
	h->scratch_pinned = 0;
}

static void host_release(struct worker *w, struct host_set *h, const int64_t *axes)
{
	if (!w->host_kept_valid && h->scratch) {
		w->host_kept = *h;
		memcpy(w->host_kept_axes, axes, sizeof(w->host_kept_axes));
		w->host_kept_valid = 1;
		memset(h, 0, sizeof(*h));
		return;
	}
	for (int i = 0; i < NODUS_MAX_INPUTS; i++)
		free(h->in[i]);
	scratch_free(w, h);
	memset(h, 0, sizeof(*h));
}

static int host_alloc(struct worker *w, struct host_set *h, const int64_t *axes)
{
	if (w->host_kept_valid &&
	    memcmp(axes, w->host_kept_axes, sizeof(w->host_kept_axes)) == 0) {
		*h = w->host_kept;
		memset(&w->host_kept, 0, sizeof(w->host_kept));
		w->host_kept_valid = 0;
		return 0;
	}
	if (w->host_kept_valid) { /* another shape: never hold both */
		for (int i = 0; i < NODUS_MAX_INPUTS; i++)
			free(w->host_kept.in[i]);
		scratch_free(w, &w->host_kept);
		memset(&w->host_kept, 0, sizeof(w->host_kept));
		w->host_kept_valid = 0;
	}
	memset(h, 0, sizeof(*h));
	size_t biggest = 64;
	for (int i = 0; i < w->task.n_inputs; i++) {
		size_t n = (size_t)nodus__tensor_numel(&w->task.inputs[i], axes) *
			   nodus_dtype_size(w->task.inputs[i].dtype);
		h->in[i] = malloc(n ? n : 8);
		if (!h->in[i])
			return NODUS_ENOMEM;
		if (n > biggest)
			biggest = n;
	}
	for (int o = 0; o < w->task.n_outputs; o++) {
		size_t n = (size_t)nodus__tensor_numel(&w->task.outputs[o], axes) *
			   nodus_dtype_size(w->task.outputs[o].dtype);
		if (n > biggest)
			biggest = n;
	}
	scratch_alloc(w, h, biggest);
	return h->scratch ? 0 : NODUS_ENOMEM;
}

/* Writes an output of n bytes at dev_src into the output arena and sets
 * *offset, or leaves *offset at -1 when it goes through the pipe (small,
 * no arena, arena full, or no room to map it). On cuda the bytes come
 * through host, the pinned scratch: a pageable download into the arena
 * would be staged by the driver anyway. */
static int arena_write(struct worker *w, const void *dev_src, size_t n, void *host,
		       int64_t *offset, nodus_error *err)
{
	*offset = -1;
	if (w->arena_bytes <= 0 || (int64_t)n < NODUS_ARENA_MIN_BYTES ||
	    (int64_t)n > w->arena_bytes - w->arena_next)
		return 0;
	void *map = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 NODUS_ARENA_FD, (off_t)w->arena_next);
	if (map == MAP_FAILED) {
		w->arena_bytes = 0; /* out of address space or memory: the pipe still works */
		return 0;
	}
	int rc;
	if (w->ops->host_pin) {
		rc = w->ops->download(w->dev, host, dev_src, n, err);
		if (!rc)
			memcpy(map, host, n);
	} else {
		rc = w->ops->download(w->dev, map, dev_src, n, err);
	}
	munmap(map, n);
	if (rc)
		return rc;
	int64_t page = (int64_t)sysconf(_SC_PAGESIZE);
	*offset = w->arena_next;
	w->arena_next += ((int64_t)n + page - 1) / page * page;
	return 0;
}

static int send_outputs(struct worker *w, struct call_buffers *b, void *host, int instance,
			int role, int pass, nodus_error *err)
{
	for (int o = 0; o < w->task.n_outputs; o++) {
		size_t n = (size_t)b->tout[o].nbytes;
		nodus_msg_output hdr = {instance, o, role, pass, (int64_t)n};
		int64_t offset;
		int rc = arena_write(w, b->out[o], n, host, &offset, err);
		if (rc)
			return rc;
		w->phase.bytes += (double)n;
		if (offset >= 0) {
			rc = nodus_ipc_write2(RESULT_FD, NODUS_MSG_OUTPUT_AT, &hdr, sizeof(hdr),
					      &offset, sizeof(offset));
		} else {
			rc = w->ops->download(w->dev, host, b->out[o], n, err);
			if (rc)
				return rc;
			rc = nodus_ipc_write2(RESULT_FD, NODUS_MSG_OUTPUT, &hdr, sizeof(hdr), host,
					      n);
		}
		if (rc)
			return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	}
	return 0;
}

/* Checksums of the inputs as the device holds them: downloaded into
 * scratch first, or, when drawn_on_host holds what was just uploaded,
 * taken from those host copies (the oracle's, before its call). */
static int send_input_checksums(struct worker *w, struct call_buffers *b, void *scratch,
				void *const *drawn_on_host, int instance, nodus_error *err)
{
	struct {
		nodus_msg_checksum hdr;
		uint64_t sum[NODUS_MAX_INPUTS];
	} msg;
	memset(&msg, 0, sizeof(msg));
	msg.hdr.instance = instance;
	msg.hdr.n = w->task.n_inputs;
	for (int i = 0; i < w->task.n_inputs; i++) {
		const void *bytes = drawn_on_host ? drawn_on_host[i] : scratch;
		if (!drawn_on_host) {
			int rc = w->ops->download(w->dev, scratch, b->in[i], (size_t)b->tin[i].nbytes,
						  err);
			if (rc)
				return rc;
		}
		msg.sum[i] = nodus_judge_checksum(bytes, (size_t)b->tin[i].nbytes);
	}
	size_t len = sizeof(msg.hdr) + (size_t)w->task.n_inputs * sizeof(uint64_t);
	return nodus_ipc_write(RESULT_FD, NODUS_MSG_CHECKSUM, &msg, len) ? NODUS_EIO : 0;
}

/* Runs one solution on one instance with fresh buffers and reports its
 * outputs (and, for the candidate, its post-call input checksums).
 * Returns 0, a negative error, or 1 when the solution returned non-zero
 * (reported as FAIL already). */
static int run_instance(struct worker *w, struct solution_handle *s, int role,
			const nodus_instance *in, int passes, nodus_error *err)
{
	int64_t axes[NODUS_MAX_AXES] = {0}; /* compared whole by host_alloc */
	nodus__instance_axes(&w->task, &w->workload, in->probe, axes);
	struct call_buffers b;
	struct host_set h;
	uint64_t t0 = nodus_now_ns();
	int rc = host_alloc(w, &h, axes);
	if (rc) {
		host_release(w, &h, axes);
		return NODUS_ERR(err, rc, "out of memory for host inputs");
	}
	rc = buffers_alloc(w, &b, axes, 1, axes, err);
	phase_add(&w->phase.alloc_s, t0);
	if (rc)
		goto out;
	/* inputs the backend can draw itself are drawn on the device (bit for
	 * bit the host's; no host draw, no upload), the others on the host */
	int on_device[NODUS_MAX_INPUTS] = {0}, any_on_device = 0;
	t0 = nodus_now_ns();
	for (int i = 0; i < w->task.n_inputs; i++) {
		rc = nodus__instance_fill_device(&w->task, &w->workload, in, i, w->ops, w->dev,
						 b.in[i], &on_device[i], err);
		if (rc)
			goto out;
		any_on_device |= on_device[i];
	}
	phase_add(&w->phase.device_draw_s, t0);
	t0 = nodus_now_ns();
	if (!any_on_device) {
		rc = nodus__instance_fill(&w->task, &w->workload, in, in->perturb_seed,
					  w->fill_threads, h.in);
	} else {
		for (int i = 0; !rc && i < w->task.n_inputs; i++)
			if (!on_device[i])
				rc = nodus__instance_fill_one(&w->task, &w->workload, in, i,
							      w->fill_threads, h.in[i]);
	}
	phase_add(&w->phase.draw_s, t0);
	for (int i = 0; i < w->task.n_inputs; i++)
		w->phase.bytes += (double)b.tin[i].nbytes;
	if (rc) {
		NODUS_ERR(err, rc, "cannot draw inputs for instance %d", in->id);
		goto out;
	}
	t0 = nodus_now_ns();
	for (int i = 0; i < w->task.n_inputs; i++) {
		if (on_device[i])
			continue;
		rc = w->ops->upload(w->dev, b.in[i], h.in[i], (size_t)b.tin[i].nbytes, err);
		if (rc)
			goto out;
	}
	phase_add(&w->phase.upload_s, t0);
	/* the oracle reports the checksums of the inputs as drawn; the
	 * candidate's inputs must still have them after its call */
	t0 = nodus_now_ns();
	if (role == NODUS_ROLE_REFERENCE &&
	    (rc = send_input_checksums(w, &b, h.scratch, any_on_device ? NULL : h.in, in->id,
				       err)))
		goto out;
	phase_add(&w->phase.checksum_s, t0);
	for (int pass = 0; pass < passes; pass++) {
		if ((rc = poison_outputs(w, &b, h.scratch, err)) || (rc = scramble_workspace(w, err)))
			goto out;
		int status = 0;
		t0 = nodus_now_ns();
		rc = w->ops->call_sync(w->dev, s->entry, &b.call, &status, err);
		w->device_s += (double)(nodus_now_ns() - t0) * 1e-9;
		phase_add(&w->phase.call_s, t0);
		if (rc || (rc = nodus__guard_check(w->ops, w->dev, s->entry, 0, err)))
			goto out;
		if (status) {
			const char *why = s->error ? s->error() : NULL;
			fail("RUNTIME_ERROR", "", role ? "candidate correctness" : "reference",
			     "entry returned %d on instance %d%s%.700s", status, in->id,
			     why && *why ? ": " : "", why && *why ? why : "");
			rc = 1;
			goto out;
		}
		t0 = nodus_now_ns();
		rc = send_outputs(w, &b, h.scratch, in->id, role, pass, err);
		phase_add(&w->phase.send_s, t0);
		if (rc)
			goto out;
		if (role == NODUS_ROLE_CANDIDATE && pass == 0) {
			t0 = nodus_now_ns();
			rc = send_input_checksums(w, &b, h.scratch, NULL, in->id, err);
			phase_add(&w->phase.checksum_s, t0);
			if (rc)
				goto out;
		}
	}
out:
	t0 = nodus_now_ns();
	buffers_release(w, &b);
	host_release(w, &h, axes);
	phase_add(&w->phase.alloc_s, t0);
	return rc;
}

/* ---- timing ---- */

struct timing_set {
	int n_calls;                            /* copies; a batch uses each at most once */
	struct call_buffers *bufs;              /* n_calls sets, each with its own outputs */
	nodus_call *calls;                      /* n_calls calls, call j on set j */
	nodus_call *window;                     /* the calls of the sample being timed */
	nodus_perturbation *applied;            /* per copy: what is applied now */
	int *perturbed;                         /* per copy: applied holds a perturbation */
	int *fresh;                             /* per copy: holds a fresh draw, of fresh_q */
	uint64_t *fresh_q;
	uint64_t copy_base;
	void **pristine;                        /* per input: copy 0 as drawn (host) */
	void **pristine_dev;                    /* per input: copy 0 as drawn (device), made
						 * at the first fresh sample */
	int64_t *shift;                         /* per copy per input: its rotation */
	void **poison_ptrs;                     /* scratch of the poison op */
	int64_t *poison_bytes;
	nodus_copy *rotations;                  /* scratch: 2 per copy per input */
	int n_rotations;
	nodus_instance *draw_in;                /* scratch of a fresh window's draws: */
	int *draw_input;                        /* one per copy per input */
	void **draw_dev;
	int *draw_done;
};

static void timing_release(struct worker *w, struct timing_set *ts)
{
	for (int j = 0; ts->bufs && j < ts->n_calls; j++)
		buffers_release(w, &ts->bufs[j]);
	for (int i = 0; ts->pristine && i < NODUS_MAX_INPUTS; i++)
		free(ts->pristine[i]);
	free(ts->pristine);
	for (int i = 0; ts->pristine_dev && i < NODUS_MAX_INPUTS; i++)
		if (ts->pristine_dev[i])
			w->ops->free(w->dev, ts->pristine_dev[i]);
	free(ts->pristine_dev);
	free(ts->shift);
	free(ts->bufs);
	free(ts->calls);
	free(ts->window);
	free(ts->applied);
	free(ts->perturbed);
	free(ts->fresh);
	free(ts->fresh_q);
	free(ts->poison_ptrs);
	free(ts->poison_bytes);
	free(ts->rotations);
	free(ts->draw_in);
	free(ts->draw_input);
	free(ts->draw_dev);
	free(ts->draw_done);
	memset(ts, 0, sizeof(*ts));
}

static nodus_instance copy_instance(uint64_t copy_seed_base, int j, int64_t sample)
{
	nodus_instance in = {0};
	in.id = -1;
	in.copy = j;
	in.seed = nodus_judge_trial_seed(copy_seed_base, 0xc0b1e5, (uint64_t)j);
	in.sample = sample;
	return in;
}

/* Copy j's inputs in a fresh sample of perturbation q: drawn from their
 * own seed, as copy 0 is (the oracle draws a checked one the same way). */
static nodus_instance fresh_instance(uint64_t copy_seed_base, int j, uint64_t q)
{
	nodus_instance in = {0};
	in.id = -1;
	in.copy = 0;
	in.seed = nodus__fresh_seed(copy_seed_base, j, q);
	in.sample = -1;
	return in;
}

/* Copy j > 0 of input i is copy 0 rotated left by shift elements
 * (nodus__copy_shift), made on the device: element k of copy j is element
 * (k + shift) mod numel of copy 0. Every input element is drawn
 * independently of the others from its tensor's distribution, so a
 * rotation is as valid a draw as a new one; it costs a device copy instead
 * of a draw, a host copy and an upload, and puts different values at every
 * position and address. The oracle rebuilds a checked call's copy the
 * same way (instance.c). */
static void rotation(nodus_copy *list, int *n, void *dst, const void *src, int64_t numel,
		     size_t es, int64_t shift)
{
	size_t total = (size_t)numel * es, cut = (size_t)shift * es;
	if (total - cut)
		list[(*n)++] = (nodus_copy){dst, (const char *)src + cut, total - cut};
	if (cut)
		list[(*n)++] = (nodus_copy){(char *)dst + (total - cut), src, cut};
}

/* The copies of list, with one synchronisation where the backend can. */
static int copies_run(struct worker *w, const nodus_copy *list, int n, nodus_error *err)
{
	if (w->ops->copy_many)
		return n > 0 ? w->ops->copy_many(w->dev, list, n, err) : 0;
	for (int k = 0; k < n; k++) {
		int rc = w->ops->copy(w->dev, list[k].dst, list[k].src, list[k].bytes, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The bytes element idx of copy j of input i must hold. */
static const unsigned char *pristine_at(struct worker *w, const struct timing_set *ts, int j,
					int i, int64_t idx)
{
	int64_t numel = ts->bufs[0].tin[i].numel;
	size_t es = nodus_dtype_size(w->task.inputs[i].dtype);
	int64_t k = numel > 0 ? (idx + ts->shift[j * NODUS_MAX_INPUTS + i]) % numel : 0;
	return (const unsigned char *)ts->pristine[i] + (size_t)k * es;
}

static int timing_alloc(struct worker *w, struct timing_set *ts, int n_calls, uint64_t copy_base,
			nodus_error *err)
{
	memset(ts, 0, sizeof(*ts));
	ts->n_calls = n_calls;
	ts->bufs = calloc((size_t)n_calls, sizeof(*ts->bufs));
	ts->calls = calloc((size_t)n_calls, sizeof(*ts->calls));
	ts->window = calloc((size_t)n_calls, sizeof(*ts->window));
	ts->applied = calloc((size_t)n_calls, sizeof(*ts->applied));
	ts->perturbed = calloc((size_t)n_calls, sizeof(*ts->perturbed));
	ts->fresh = calloc((size_t)n_calls, sizeof(*ts->fresh));
	ts->fresh_q = calloc((size_t)n_calls, sizeof(*ts->fresh_q));
	ts->copy_base = copy_base;
	ts->pristine = calloc(NODUS_MAX_INPUTS, sizeof(void *));
	ts->pristine_dev = calloc(NODUS_MAX_INPUTS, sizeof(void *));
	ts->shift = calloc((size_t)n_calls * NODUS_MAX_INPUTS, sizeof(int64_t));
	ts->poison_ptrs = calloc((size_t)n_calls, sizeof(void *));
	ts->poison_bytes = calloc((size_t)n_calls, sizeof(int64_t));
	size_t per_input = (size_t)n_calls * NODUS_MAX_INPUTS;
	ts->rotations = calloc(2 * per_input, sizeof(*ts->rotations));
	ts->draw_in = calloc(per_input, sizeof(*ts->draw_in));
	ts->draw_input = calloc(per_input, sizeof(*ts->draw_input));
	ts->draw_dev = calloc(per_input, sizeof(*ts->draw_dev));
	ts->draw_done = calloc(per_input, sizeof(*ts->draw_done));
	if (!ts->bufs || !ts->calls || !ts->window || !ts->applied || !ts->perturbed ||
	    !ts->fresh || !ts->fresh_q || !ts->pristine || !ts->pristine_dev || !ts->shift ||
	    !ts->poison_ptrs || !ts->poison_bytes || !ts->rotations || !ts->draw_in ||
	    !ts->draw_input || !ts->draw_dev || !ts->draw_done)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory for timing copies");
	for (int j = 0; j < n_calls; j++) {
		struct call_buffers *b = &ts->bufs[j];
		/* every call of a batch has outputs of its own: each is poisoned
		 * before the batch, as a checked call's are, and any of them can
		 * be the one checked */
		int rc = buffers_alloc(w, b, w->axes, 1, w->axes, err);
		if (rc)
			return rc;
		if (j == 0) {
			for (int i = 0; i < w->task.n_inputs; i++) {
				ts->pristine[i] = malloc((size_t)b->tin[i].nbytes + 8);
				if (!ts->pristine[i])
					return NODUS_ERR(err, NODUS_ENOMEM,
							 "out of memory for timing copies");
			}
			/* copy 0: drawn on the device where the backend can, and
			 * kept on the host for the check after the rounds */
			nodus_instance in = copy_instance(copy_base, 0, -1);
			for (int i = 0; !rc && i < w->task.n_inputs; i++) {
				int done = 0;
				w->phase.bytes += (double)b->tin[i].nbytes;
				rc = nodus__instance_fill_device(&w->task, &w->workload, &in, i,
								 w->ops, w->dev, b->in[i], &done,
								 err);
				if (rc)
					return rc;
				if (done) {
					rc = w->ops->download(w->dev, ts->pristine[i], b->in[i],
							      (size_t)b->tin[i].nbytes, err);
					continue;
				}
				rc = nodus__instance_fill_one(&w->task, &w->workload, &in, i,
							      w->fill_threads, ts->pristine[i]);
				if (rc)
					return NODUS_ERR(err, rc, "cannot draw timing inputs");
				rc = w->ops->upload(w->dev, b->in[i], ts->pristine[i],
						    (size_t)b->tin[i].nbytes, err);
			}
		} else {
			for (int i = 0; i < w->task.n_inputs; i++) {
				int64_t numel = b->tin[i].numel;
				int64_t shift = nodus__input_shift(&w->workload, copy_base, i, j, numel);
				ts->shift[j * NODUS_MAX_INPUTS + i] = shift;
				rotation(ts->rotations, &ts->n_rotations, b->in[i], ts->bufs[0].in[i],
					 numel, nodus_dtype_size(w->task.inputs[i].dtype), shift);
			}
		}
		if (rc)
			return rc;
		ts->calls[j] = b->call;
	}
	/* copies 1.. at once, rotated from copy 0 (drawn above) */
	int rc = copies_run(w, ts->rotations, ts->n_rotations, err);
	ts->n_rotations = 0;
	return rc;
}

/* Appends to ts->rotations what puts copy j back as the rotation of copy 0
 * it was made as, after a fresh sample drew it anew: rotated on the device
 * from pristine_dev (copy 0 itself may hold a fresh draw now). Uploading it
 * from the host's copy 0 instead cost 5.4 s of one side's 29 s of rounds
 * over the CUDA suite (retest-61), and two synchronous copies per copy and
 * input 30 ms of a small pair's 0.26 s of rounds (ab-61): perturb_window
 * runs a window's at once. */
static void restore_copy(struct worker *w, struct timing_set *ts, int j)
{
	struct call_buffers *b = &ts->bufs[j];
	for (int i = 0; i < w->task.n_inputs; i++)
		rotation(ts->rotations, &ts->n_rotations, b->in[i], ts->pristine_dev[i],
			 b->tin[i].numel, nodus_dtype_size(w->task.inputs[i].dtype),
			 ts->shift[j * NODUS_MAX_INPUTS + i]);
	ts->fresh[j] = 0;
	ts->perturbed[j] = 0;
}

/* Appends to list what takes copy j from its current perturbation to
 * perturbation q's: the new elements, and the pristine bytes back where
 * the old ones were and no new one lands. Patches never overlap with
 * different bytes, as the backend's patch requires; where two new elements
 * share an index the later wins, as if written one after the other. */
static int copy_patches(struct worker *w, struct timing_set *ts, uint64_t copy_base, int j,
			int64_t q, nodus_patch *list, int *n, nodus_error *err)
{
	struct call_buffers *b = &ts->bufs[j];
	nodus_perturbation old = ts->applied[j];
	int had = ts->perturbed[j];
	nodus_instance in = copy_instance(copy_base, j, q);
	int rc = nodus__perturbation(&w->task, &w->workload, &in, w->perturb_seed, &ts->applied[j]);
	if (rc)
		return NODUS_ERR(err, rc, "cannot draw a perturbation");
	ts->perturbed[j] = 1;
	const nodus_perturbation *now = &ts->applied[j];
	for (int i = 0; i < w->task.n_inputs; i++) {
		size_t es = nodus_dtype_size(w->task.inputs[i].dtype);
		for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++) {
			int later = 0;
			for (int f = e + 1; f < NODUS_PERTURB_ELEMENTS; f++)
				later |= now->index[i][f] == now->index[i][e];
			if (later)
				continue;
			nodus_patch *p = &list[(*n)++];
			p->dst = (char *)b->in[i] + (size_t)now->index[i][e] * es;
			p->bytes = (uint32_t)es;
			memcpy(p->value, now->value[i][e], es);
		}
		for (int e = 0; had && e < NODUS_PERTURB_ELEMENTS; e++) {
			int covered = 0;
			for (int f = 0; f < NODUS_PERTURB_ELEMENTS; f++)
				covered |= now->index[i][f] == old.index[i][e] ||
					   (f < e && old.index[i][f] == old.index[i][e]);
			if (covered)
				continue;
			nodus_patch *p = &list[(*n)++];
			p->dst = (char *)b->in[i] + (size_t)old.index[i][e] * es;
			p->bytes = (uint32_t)es;
			memcpy(p->value, pristine_at(w, ts, j, i, old.index[i][e]), es);
		}
	}
	return 0;
}

/* Gives the copies of a sample's window perturbation q, in one patch call. */
static int perturb_window(struct worker *w, struct timing_set *ts, uint64_t copy_base, int64_t q,
			  int first, int batch, nodus_error *err)
{
	size_t per_copy = 2 * NODUS_MAX_INPUTS * NODUS_PERTURB_ELEMENTS;
	nodus_patch *list = malloc((size_t)batch * per_copy * sizeof(*list));
	if (!list)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory for perturbations");
	/* the copies a fresh sample drew anew put back first, at once */
	ts->n_rotations = 0;
	for (int i = 0; i < batch; i++)
		if (ts->fresh[(first + i) % ts->n_calls])
			restore_copy(w, ts, (first + i) % ts->n_calls);
	int rc = copies_run(w, ts->rotations, ts->n_rotations, err);
	ts->n_rotations = 0;
	int n = 0;
	for (int i = 0; !rc && i < batch; i++)
		rc = copy_patches(w, ts, copy_base, (first + i) % ts->n_calls, q, list, &n, err);
	if (!rc)
		rc = w->ops->patch(w->dev, list, n, err);
	free(list);
	return rc;
}

/* A fresh sample (the 'b' command's fresh): every copy of the window
 * drawn anew from its own seed, on the device where the backend can. The
 * copy is put back as it was made before its next perturbed sample
 * (restore_copy). */
static int fresh_window(struct worker *w, struct timing_set *ts, uint64_t q, int first, int batch,
			void *host, nodus_error *err)
{
	/* copy 0 as drawn, kept on the device before any copy is drawn anew:
	 * what restore_copy rotates from */
	for (int i = 0; i < w->task.n_inputs && !ts->pristine_dev[i]; i++) {
		size_t n = (size_t)ts->bufs[0].tin[i].nbytes;
		int rc = w->ops->alloc(w->dev, n ? n : 8, &ts->pristine_dev[i], err);
		if (!rc)
			rc = w->ops->upload(w->dev, ts->pristine_dev[i], ts->pristine[i], n, err);
		if (rc)
			return rc;
	}
	/* every copy's inputs drawn on the device at once, where it can */
	int n = 0;
	for (int k = 0; k < batch; k++) {
		int j = (first + k) % ts->n_calls;
		for (int i = 0; i < w->task.n_inputs; i++, n++) {
			ts->draw_in[n] = fresh_instance(ts->copy_base, j, q);
			ts->draw_input[n] = i;
			ts->draw_dev[n] = ts->bufs[j].in[i];
		}
	}
	int rc = nodus__instance_fill_device_many(&w->task, &w->workload, ts->draw_in,
						  ts->draw_input, ts->draw_dev, n, w->ops, w->dev,
						  ts->draw_done, err);
	if (rc)
		return rc;
	/* and the rest on the host */
	n = 0;
	for (int k = 0; k < batch; k++) {
		int j = (first + k) % ts->n_calls;
		struct call_buffers *b = &ts->bufs[j];
		for (int i = 0; i < w->task.n_inputs; i++, n++) {
			if (ts->draw_done[n])
				continue;
			rc = nodus__instance_fill_one(&w->task, &w->workload, &ts->draw_in[n], i,
						      w->fill_threads, host);
			if (rc)
				return NODUS_ERR(err, rc, "cannot draw fresh timing inputs");
			rc = w->ops->upload(w->dev, b->in[i], host, (size_t)b->tin[i].nbytes, err);
			if (rc)
				return rc;
		}
		ts->fresh[j] = 1;
		ts->fresh_q[j] = q;
		ts->perturbed[j] = 0;
	}
	return 0;
}

/* Input i of copy j's last fresh draw, drawn again into expect: on the
 * device into dev_scratch (when there is one) and downloaded, else on the
 * host. Drawing a 4M-element normal input 16 times on the host took 2.8 s
 * of an H200 pair (retest-61); the device draws it at memory speed. */
static int fresh_again(struct worker *w, struct timing_set *ts, int j, int i, void *dev_scratch,
		       void *expect, nodus_error *err)
{
	nodus_instance in = fresh_instance(ts->copy_base, j, ts->fresh_q[j]);
	size_t n = (size_t)ts->bufs[j].tin[i].nbytes;
	int done = 0, rc = 0;
	if (dev_scratch &&
	    (rc = nodus__instance_fill_device(&w->task, &w->workload, &in, i, w->ops, w->dev,
					      dev_scratch, &done, err)))
		return rc;
	if (done)
		return w->ops->download(w->dev, expect, dev_scratch, n, err);
	if ((rc = nodus__instance_fill_one(&w->task, &w->workload, &in, i, w->fill_threads,
					   expect)))
		return NODUS_ERR(err, rc, "cannot draw fresh timing inputs");
	return 0;
}

/* Whether copy j holds exactly what the harness put there: copy 0 rotated
 * and perturbed, or its last fresh draw (drawn again into expect, a host
 * buffer per input). */
static int copy_intact(struct worker *w, struct timing_set *ts, int j, void *host,
		       size_t host_bytes, void *const *expect, void *dev_scratch, int *intact,
		       nodus_error *err)
{
	for (int i = 0; i < w->task.n_inputs; i++) {
		size_t n = (size_t)ts->bufs[j].tin[i].nbytes;
		size_t es = nodus_dtype_size(w->task.inputs[i].dtype);
		if (n > host_bytes)
			return NODUS_ERR(err, NODUS_EINTERNAL, "scratch too small");
		int rc = w->ops->download(w->dev, host, ts->bufs[j].in[i], n, err);
		if (rc)
			return rc;
		if (ts->fresh[j]) {
			if ((rc = fresh_again(w, ts, j, i, dev_scratch, expect[i], err)))
				return rc;
			if (memcmp(host, expect[i], n) != 0)
				*intact = 0;
			continue;
		}
		for (int e = 0; ts->perturbed[j] && e < NODUS_PERTURB_ELEMENTS; e++)
			memcpy((unsigned char *)host + (size_t)ts->applied[j].index[i][e] * es,
			       pristine_at(w, ts, j, i, ts->applied[j].index[i][e]), es);
		/* copy j is copy 0 as drawn, rotated left by its shift */
		size_t cut = (size_t)ts->shift[j * NODUS_MAX_INPUTS + i] * es;
		const unsigned char *copy0 = ts->pristine[i];
		if (memcmp(host, copy0 + cut, n - cut) != 0 ||
		    memcmp((unsigned char *)host + (n - cut), copy0, cut) != 0)
			*intact = 0;
	}
	return 0;
}

/* The copies checked after the rounds: all of them up to this many, else
 * copy 0 and this many less one drawn now from the system's randomness
 * (not the worker's generator, whose state candidate code can read, so it
 * cannot spare the copies that will be looked at). A candidate that uses
 * its inputs as scratch changes every copy it runs on; downloading a few
 * hundred copies of a large set cost 0.3 s a pair on the H200. */
#define INTACT_CHECKED 16

/* Checks that the timing copies hold exactly what the harness put there. */
static int copies_intact_with(struct worker *w, struct timing_set *ts, void *host,
			      size_t host_bytes, void *const *expect, void *dev_scratch, int *intact,
			      nodus_error *err)
{
	*intact = 1;
	if (ts->n_calls <= INTACT_CHECKED) {
		for (int j = 0; j < ts->n_calls; j++) {
			int rc = copy_intact(w, ts, j, host, host_bytes, expect, dev_scratch, intact,
					     err);
			if (rc)
				return rc;
		}
		return 0;
	}
	int rc = copy_intact(w, ts, 0, host, host_bytes, expect, dev_scratch, intact, err);
	for (int k = 1; !rc && k < INTACT_CHECKED; k++) {
		uint32_t r = 0;
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			r = (uint32_t)nodus_now_ns();
		rc = copy_intact(w, ts, 1 + (int)(r % (uint32_t)(ts->n_calls - 1)), host, host_bytes,
				 expect, dev_scratch, intact, err);
	}
	return rc;
}

/* copies_intact_with a device buffer for the fresh copies' draws, where the
 * backend draws on the device and a copy whose last sample was fresh is
 * among those checked. */
static int copies_intact(struct worker *w, struct timing_set *ts, void *host, size_t host_bytes,
			 void *const *expect, int *intact, nodus_error *err)
{
	void *dev_scratch = NULL;
	int any_fresh = 0;
	for (int j = 0; j < ts->n_calls; j++)
		any_fresh |= ts->fresh[j];
	if (any_fresh && w->ops->fill && w->ops->alloc && w->ops->free) {
		size_t biggest = 8;
		for (int i = 0; i < w->task.n_inputs; i++)
			if ((size_t)ts->bufs[0].tin[i].nbytes > biggest)
				biggest = (size_t)ts->bufs[0].tin[i].nbytes;
		nodus_error ignored;
		if (w->ops->alloc(w->dev, biggest, &dev_scratch, &ignored))
			dev_scratch = NULL; /* no room: the host draws them */
	}
	int rc = copies_intact_with(w, ts, host, host_bytes, expect, dev_scratch, intact, err);
	if (dev_scratch)
		w->ops->free(w->dev, dev_scratch);
	return rc;
}

/* Poisons the outputs of the calls of a window: one launch per output
 * where the backend has the op, else the host's poison uploaded to each. */
static int poison_window(struct worker *w, struct timing_set *ts, int first, int batch,
			 void *host, nodus_error *err)
{
	for (int o = 0; o < w->task.n_outputs; o++) {
		const nodus_tensor *t = &ts->bufs[0].tout[o];
		int rc = 0;
		if (w->ops->poison) {
			unsigned char pattern[8];
			nodus_judge_poison(pattern, t->dtype, (int64_t)(8 / nodus_dtype_size(t->dtype)));
			for (int i = 0; i < batch; i++) {
				ts->poison_ptrs[i] = ts->bufs[(first + i) % ts->n_calls].out[o];
				ts->poison_bytes[i] = t->nbytes;
			}
			rc = w->ops->poison(w->dev, ts->poison_ptrs, ts->poison_bytes, batch, pattern,
					    err);
		} else {
			nodus_judge_poison(host, t->dtype, t->numel);
			for (int i = 0; !rc && i < batch; i++)
				rc = w->ops->upload(w->dev, ts->bufs[(first + i) % ts->n_calls].out[o],
						    host, (size_t)t->nbytes, err);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* time_batch with a solution's by-value outputs left for afterwards
 * (ENTRY_defer, solution.h): *n_copies of them in copies. */
static int time_deferred(struct worker *w, struct solution_handle *s, const nodus_call *calls,
			 int n_calls, int batch, nodus_timing *out, nodus_deferred_copy *copies,
			 int *n_copies, nodus_error *err)
{
	*n_copies = 0;
	if (s->defer)
		s->defer(1);
	int rc = w->ops->time_batch(w->dev, s->entry, calls, n_calls, batch, out, err);
	if (s->defer) {
		s->defer(0);
		*n_copies = s->deferred(copies, NODUS_DEFER_MAX);
	}
	return rc;
}

/* The copies a timed batch left: the harness's own copy (no solution code
 * runs), into the calls' outputs. */
static int settle(struct worker *w, const nodus_deferred_copy *copies, int n, nodus_error *err)
{
	uint64_t t0 = nodus_now_ns();
	for (int i = 0; i < n; i++) {
		int rc = w->ops->copy(w->dev, copies[i].dst, copies[i].src, (size_t)copies[i].bytes,
				      err);
		if (rc)
			return rc;
	}
	w->phase.settled += n;
	if (n)
		phase_add(&w->phase.settle_s, t0);
	return 0;
}

static nodus_deferred_copy deferred_copies[NODUS_DEFER_MAX];

/* A timed batch outside the rounds (sizing, warm-up): the calls of the
 * window at first, no poison, no frames. */
static int timed_sample(struct worker *w, struct timing_set *ts, struct solution_handle *s,
			int first, int batch, int flush, nodus_timing *out, nodus_error *err)
{
	uint64_t t0 = nodus_now_ns();
	for (int i = 0; i < batch; i++)
		ts->window[i] = ts->calls[(first + i) % ts->n_calls];
	int n = 0, rc = flush ? w->ops->flush(w->dev, err) : 0;
	if (!rc)
		rc = time_deferred(w, s, ts->window, batch, batch, out, deferred_copies, &n, err);
	if (!rc)
		rc = settle(w, deferred_copies, n, err);
	w->device_s += (double)(nodus_now_ns() - t0) * 1e-9;
	return rc ? rc : nodus__guard_check(w->ops, w->dev, s->entry, 1, err);
}

/* Reads a CMD frame. Anything unreadable is a stop. */
static int wait_command(nodus_msg_cmd *cmd)
{
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type = 0;
	int rc = nodus_ipc_read(0, &type, &b, 0);
	memset(cmd, 0, sizeof(*cmd));
	cmd->op = 's';
	if (!rc && type == NODUS_MSG_CMD && b.len >= sizeof(*cmd))
		memcpy(cmd, b.data, sizeof(*cmd));
	else if (!rc && type == NODUS_MSG_CMD && b.len)
		cmd->op = b.data[0];
	nodus_buf_release(&b);
	return rc;
}

/* The streams condition: loads on other streams of this very process,
 * from a thread of the cuda backend. They run only while this worker's
 * own batch does: the other side's worker is another process, whose
 * context would otherwise share the GPU with them by time slicing, a
 * condition the pair did not declare. */
struct streams {
	void *handle;
	int (*pause)(void *, int);
};

static int streams_start(json_t *sj, struct streams *st, nodus_error *err)
{
	void *sym, *psym;
	int rc = nodus_backend_cuda_symbol("nodus_cuda_streams_start", &sym, err);
	if (!rc)
		rc = nodus_backend_cuda_symbol("nodus_cuda_streams_pause", &psym, err);
	if (rc)
		return rc;
	void *(*start)(const char *, int, double);
	memcpy(&start, &sym, sizeof(start));
	memcpy(&st->pause, &psym, sizeof(st->pause));
	const char *load = json_string_value(json_object_get(sj, "load"));
	st->handle = start(load ? load : "membw", json_int(sj, "n", 1),
			   json_real_value(json_object_get(sj, "duty")));
	if (!st->handle)
		return NODUS_ERR(err, NODUS_ECUDA, "cannot start the stream loads");
	st->pause(st->handle, 1);
	return 0;
}

/* Pauses (1) or resumes (0) the loads; a pause returns once their work
 * in flight has drained. */
static void streams_pause(struct streams *st, int paused)
{
	if (st->handle)
		st->pause(st->handle, paused);
}

static void streams_stop(struct streams *st, json_t *timing)
{
	void *sym;
	nodus_error err;
	if (!st->handle || nodus_backend_cuda_symbol("nodus_cuda_streams_stop", &sym, &err))
		return;
	int (*stop)(void *, double *);
	memcpy(&stop, &sym, sizeof(stop));
	double rate = 0;
	int rc = stop(st->handle, &rate);
	st->handle = NULL;
	json_object_set_new(timing, "streams_achieved_rate", json_real(rate));
	json_object_set_new(timing, "streams_ok", json_boolean(rc == 0));
}

static int clock_fd = -1; /* NODUS_CLOCK_FD when the orchestrator gave one */

/* A START or BATCH mark, on the clock socket (protocol.h). */
static int send_mark(uint32_t type, const nodus_msg_batch *msg)
{
	if (clock_fd < 0)
		return nodus_ipc_write(RESULT_FD, type, msg, sizeof(*msg));
	nodus_clock_mark m;
	memset(&m, 0, sizeof(m));
	m.magic = NODUS_CLOCK_MAGIC;
	m.type = type;
	m.batch = *msg;
	ssize_t n;
	do
		n = send(clock_fd, &m, sizeof(m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(m) ? 0 : NODUS_EIO;
}

/* One timed batch (a 'b' command): the sample's perturbation applied to
 * its window, every output of the window poisoned, the cache flushed,
 * START, the calls back to back, BATCH with what was measured. Whether a
 * call of it is checked is said only by the next command. */
static int timed_batch(struct worker *w, struct timing_set *ts, struct solution_handle *sol,
		       int role, const nodus_msg_cmd *cmd, int batch, int flush, uint64_t copy_base,
		       void *host, struct streams *st, nodus_error *err)
{
	if (cmd->window < 0 || cmd->window >= ts->n_calls)
		return NODUS_ERR(err, NODUS_EINVAL, "the orchestrator named window %d of %d copies",
				 cmd->window, ts->n_calls);
	int first = cmd->window;
	uint64_t t0 = nodus_now_ns();
	int rc = cmd->fresh ? fresh_window(w, ts, cmd->perturbation & INT64_MAX, first, batch, host,
					   err)
			    : perturb_window(w, ts, copy_base,
					     (int64_t)(cmd->perturbation & INT64_MAX), first, batch,
					     err);
	phase_add(cmd->fresh ? &w->phase.fresh_s : &w->phase.perturb_s, t0);
	t0 = nodus_now_ns();
	if (!rc)
		rc = poison_window(w, ts, first, batch, host, err);
	phase_add(&w->phase.poison_s, t0);
	if (rc)
		return rc;
	for (int i = 0; i < batch; i++)
		ts->window[i] = ts->calls[(first + i) % ts->n_calls];
	streams_pause(st, 0);
	t0 = nodus_now_ns();
	if (flush && (rc = w->ops->flush(w->dev, err)))
		return rc;
	nodus_msg_batch msg;
	memset(&msg, 0, sizeof(msg));
	msg.sample = cmd->sample;
	msg.role = role;
	/* the clock read before the send: sending wakes the orchestrator,
	 * which may take this CPU before the send returns; read after it, that
	 * wait was in the kernel's view of the batch and not in the worker's,
	 * 20-50 us of an honest batch's gap on the 2-core machine, more for one
	 * side than the other under load (single-call batches were called
	 * bent). Now both views hold it. */
	uint64_t marked = nodus_now_ns();
	if (send_mark(NODUS_MSG_START, &msg))
		return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	nodus_timing t;
	int n_copies = 0;
	rc = time_deferred(w, sol, ts->window, batch, batch, &t, deferred_copies, &n_copies, err);
	w->device_s += (double)(nodus_now_ns() - t0) * 1e-9;
	streams_pause(st, 1);
	if (rc || (rc = nodus__guard_check(w->ops, w->dev, sol->entry, 1, err)))
		return rc;
	msg.status = t.call_status;
	msg.event_ns = t.event_ns;
	msg.host_ns = t.host_ns;
	msg.sm_clock_mhz = t.sm_clock_mhz;
	msg.wall_ns = (int64_t)(nodus_now_ns() - marked);
	msg.settles = n_copies > 0;
	if (send_mark(NODUS_MSG_BATCH, &msg))
		return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	if (!n_copies)
		return 0;
	/* after BATCH (the clock check's window is START to BATCH, as for a
	 * solution that writes its outputs itself), before SETTLED, which the
	 * orchestrator waits for before it lets the other side time */
	if ((rc = settle(w, deferred_copies, n_copies, err)) ||
	    (rc = nodus__guard_check(w->ops, w->dev, sol->entry, 1, err)))
		return rc;
	if (send_mark(NODUS_MSG_SETTLED, &msg))
		return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	return 0;
}

/* A warm-up batch (a 'w' command): the calls of the window at first (the
 * orchestrator walks the warm-ups over every copy, so that a copy is not
 * met for the first time in a timed sample), no poison, no flush;
 * answered by a BATCH with sample -1. */
static int warm_batch(struct worker *w, struct timing_set *ts, struct solution_handle *sol,
		      int role, int first, int batch, struct streams *st, nodus_error *err)
{
	nodus_timing t;
	streams_pause(st, 0);
	int rc = timed_sample(w, ts, sol, first, batch, 0, &t, err);
	streams_pause(st, 1);
	if (rc)
		return rc;
	nodus_msg_batch msg;
	memset(&msg, 0, sizeof(msg));
	msg.sample = -1;
	msg.role = role;
	msg.status = t.call_status;
	msg.event_ns = t.event_ns;
	msg.host_ns = t.host_ns;
	msg.sm_clock_mhz = t.sm_clock_mhz;
	if (send_mark(NODUS_MSG_BATCH, &msg))
		return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	return 0;
}

/* The timing of this worker's one solution, one command at a time (the
 * orchestrator alternates this worker with the other side's). Returns 0
 * once the orchestrator says 'e' (the copies are checked) or 's', 1 after
 * a FAIL frame. */
static int measure_timing(struct worker *w, struct solution_handle *sol, int role,
			  nodus_error *err)
{
	json_t *timing = json_object_get(w->job, "timing");
	uint64_t copy_base = json_u64(timing, "copy_seed");
	int n_calls = json_int(timing, "copies", 4);
	int flush = json_int(timing, "flush", 1);
	const char *who = role == NODUS_ROLE_CANDIDATE ? "candidate" : "reference";
	if (n_calls < 1 || n_calls > NODUS_MAX_TIMING_CALLS)
		return NODUS_ERR(err, NODUS_EINVAL, "job asks for %d timing copies", n_calls);

	/* sizing: the orchestrator chooses one batch for both sides, so one
	 * sample of the faster lasts min_sample_ns */
	struct timing_set probe_set;
	nodus_timing t;
	memset(&t, 0, sizeof(t));
	uint64_t t0 = nodus_now_ns();
	int rc = timing_alloc(w, &probe_set, 1, copy_base, err);
	for (int i = 0; !rc && i < 2; i++) /* first calls pay page faults and lazy binding */
		rc = timed_sample(w, &probe_set, sol, 0, 1, 0, &t, err);
	timing_release(w, &probe_set);
	phase_add(&w->phase.size_s, t0);
	if (rc)
		return rc;
	if (t.call_status)
		return fail("RUNTIME_ERROR", "", "timing", "the %s returned %d while sized", who,
			    t.call_status),
		       1;
	nodus_msg_sized sized = {t.event_ns, n_calls, 0};
	nodus_msg_cmd cmd;
	if (nodus_ipc_write(RESULT_FD, NODUS_MSG_SIZED, &sized, sizeof(sized)) ||
	    wait_command(&cmd))
		return NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
	if (cmd.op != 'z')
		return 0;
	int batch = cmd.batch;
	if (batch < 1 || batch > n_calls)
		return NODUS_ERR(err, NODUS_EINVAL, "the orchestrator chose a batch of %d on %d copies",
				 batch, n_calls);

	struct timing_set ts;
	struct host_set h;
	struct streams st = {NULL, NULL};
	memset(&ts, 0, sizeof(ts)); /* timing_release runs whatever failed */
	t0 = nodus_now_ns();
	rc = host_alloc(w, &h, w->axes);
	if (!rc)
		rc = timing_alloc(w, &ts, n_calls, copy_base, err);
	else
		NODUS_ERR(err, rc, "out of memory for timing");
	phase_add(&w->phase.copies_s, t0);
	json_t *sj = json_object_get(w->job, "streams");
	if (!rc && sj)
		rc = streams_start(sj, &st, err);
	int last_first = -1, batches = 0, stopped = 0;
	uint64_t t_rounds = nodus_now_ns();
	while (!rc) {
		if (wait_command(&cmd)) {
			rc = NODUS_ERR(err, NODUS_EIO, "orchestrator pipe closed");
			break;
		}
		if (cmd.op == 'w') {
			/* a separator between rounds asks for fewer calls (drive.c) */
			int calls = cmd.batch > 0 && cmd.batch < batch ? cmd.batch : batch;
			int first = cmd.window >= 0 && cmd.window < ts.n_calls ? cmd.window : 0;
			rc = warm_batch(w, &ts, sol, role, first, calls, &st, err);
		} else if (cmd.op == 'b') {
			rc = timed_batch(w, &ts, sol, role, &cmd, batch, flush, copy_base, h.scratch,
					 &st, err);
			last_first = cmd.window;
			batches++;
		} else if (cmd.op == 'k') {
			int pos = (cmd.copy - last_first + ts.n_calls) % ts.n_calls;
			if (last_first < 0 || cmd.copy < 0 || cmd.copy >= ts.n_calls || pos >= batch) {
				rc = NODUS_ERR(err, NODUS_EINVAL, "check of copy %d outside the window",
					       cmd.copy);
				break;
			}
			t0 = nodus_now_ns();
			rc = send_outputs(w, &ts.bufs[cmd.copy], h.scratch, cmd.instance, role, 0,
					  err);
			phase_add(&w->phase.recheck_s, t0);
		} else if (cmd.op == 'e') {
			int intact;
			t0 = nodus_now_ns();
			rc = copies_intact(w, &ts, h.scratch, h.scratch_bytes, h.in, &intact, err);
			phase_add(&w->phase.intact_s, t0);
			if (!rc && !intact) {
				fail("INPUT_MUTATED", "timing_copy_checksum", "timing",
				     "the timing input copies changed while the %s ran", who);
				rc = 1;
			}
			break;
		} else {
			stopped = 1; /* 's': the orchestrator has seen enough */
			break;
		}
	}
	phase_add(&w->phase.rounds_s, t_rounds);
	streams_stop(&st, timing);
	timing_release(w, &ts);
	host_release(w, &h, w->axes);
	json_object_set_new(timing, "batch_used", json_integer(batch));
	json_object_set_new(timing, "calls_per_cycle", json_integer(n_calls));
	json_object_set_new(timing, "batches_run", json_integer(batches));
	return stopped ? 2 : rc;
}

/* ---- roles ---- */

static int run_list(struct worker *w, struct solution_handle *s, int role, const char *key,
		    int passes_for_det, nodus_error *err)
{
	json_t *ids = json_object_get(w->job, key);
	int det = json_int(w->job, "determinism", -1);
	size_t i;
	json_t *v;
	json_array_foreach(ids, i, v)
	{
		int id = (int)json_integer_value(v);
		if (id < 0 || id >= w->n_instances)
			return NODUS_ERR(err, NODUS_EINVAL, "job names instance %d of %d", id,
					 w->n_instances);
		int passes = (passes_for_det && id == det) ? 2 : 1;
		int rc = run_instance(w, s, role, &w->instances[id], passes, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Calls a solution that asks for it (ENTRY_prelock: the torch adapter,
 * for a module that uses Triton on cuda) once per shape it will see, the
 * workload's and the shape probe's, before lockdown: Triton reads its
 * kernels and loads their launchers (files, dlopen) at a kernel's first
 * call, which lockdown forbids; afterwards they are in memory. Still under
 * the load filter and Landlock, like the module's import. Its buffers
 * hold whatever the allocator left: these calls are neither checked nor
 * timed, and a failure is left for the trials to find. */
static int prelock_calls(struct worker *w, struct solution_handle *s, nodus_error *err)
{
	if (!s->prelock || !s->prelock())
		return 0;
	int64_t done[2][NODUS_MAX_AXES];
	for (int probe = 0; probe < 2; probe++) {
		int64_t axes[NODUS_MAX_AXES] = {0};
		nodus__instance_axes(&w->task, &w->workload, probe, axes);
		memcpy(done[probe], axes, sizeof(axes));
		if (probe && memcmp(done[0], done[1], sizeof(axes)) == 0)
			break; /* no variable axis */
		struct call_buffers b;
		uint64_t t0 = nodus_now_ns();
		int rc = buffers_alloc(w, &b, axes, 1, axes, err);
		phase_add(&w->phase.alloc_s, t0);
		int status = 0;
		if (!rc) {
			t0 = nodus_now_ns();
			rc = w->ops->call_sync(w->dev, s->entry, &b.call, &status, err);
			phase_add(&w->phase.call_s, t0);
		}
		buffers_release(w, &b);
		if (rc)
			return rc;
	}
	return 0;
}

static int setup_solution(struct solution_handle *s, const char *who)
{
	if (!s->setup)
		return 0;
	nodus_call empty = {0};
	empty.abi_version = NODUS_ABI_VERSION;
	empty.struct_size = sizeof(empty);
	int rc = s->setup(&empty);
	if (rc)
		return fail("RUNTIME_ERROR", "", "setup", "%s setup returned %d", who, rc), 1;
	return 0;
}

/* cuda, before the driver exists: Landlock on the one thread there is,
 * so that the threads the driver makes at context creation are confined
 * too (exec.h, nodus_sandbox_before_driver). The job's objects are not
 * known yet: the compile cache they come from is readable, and the job's
 * own ruleset narrows that later. Only when the orchestrator named the
 * cache (it does unless NODUS_CUDA_SANDBOX=0). */
static int sandbox_before_driver(struct worker *w, nodus_error *err)
{
	if (!w->objects_dir)
		return 0;
	char cwd[1024], lib[4096];
	const char *dirs[2], *extra[] = {w->objects_dir, NULL, NULL};
	if (nodus_backend_cuda_path(lib, sizeof(lib), err) == 0)
		extra[1] = lib;
	nodus_sandbox_opts o;
	nodus_sandbox_opts_cuda(&o, NULL, getcwd(cwd, sizeof(cwd)), dirs);
	int abi = 0, rc = nodus_sandbox_before_driver(&o, extra, &abi, err);
	w->driver_confined = rc == 0 && abi > 0;
	return rc;
}

/* Opens the backend named by the job (or by the command line, for a
 * worker started ahead of its job). */
static int open_backend(struct worker *w, const char *backend, nodus_error *err)
{
	int rc;
	if (backend && strcmp(backend, "cuda") == 0) {
		if ((rc = sandbox_before_driver(w, err)) ||
		    (rc = nodus_backend_cuda_load(&w->ops, err)))
			return rc;
	} else {
		w->ops = nodus_backend_cpu();
	}
	return w->ops->open(&w->dev, err);
}

/* Confines the worker before any solution code runs (exec.h, sandbox):
 * Landlock reads only the job's shared objects and the system libraries,
 * writes only the worker's directory (its cwd). */
static int sandbox_before_load(struct worker *w, nodus_sandbox_state *sb, nodus_error *err)
{
	/* /dev/urandom: torch seeds its default generator from it when it is
	 * imported (a python solution's ENTRY_load, under this ruleset); it
	 * gives nothing getrandom() does not */
	const char *files[NODUS_PY_MAX_TREES + 3] = {NULL, "/dev/urandom", NULL};
	files[0] = json_string_value(json_object_get(
		json_object_get(w->job, w->is_measure ? "candidate" : "reference"), "so"));
	/* a python solution's interpreter trees outside the system's (a
	 * virtual environment's packages: run/python.h), read-only */
	char trees[4200];
	nodus__python_trees(files[0], files + 2, NODUS_PY_MAX_TREES, trees, sizeof(trees));
	char cwd[1024];
	const char *dirs[2];
	const char *const *read = files[0] ? files : NULL;
	nodus_sandbox_opts o = {.read_files = read, .write_dir = getcwd(cwd, sizeof(cwd))};
	if (strcmp(w->ops->name, "cuda") == 0)
		nodus_sandbox_opts_cuda(&o, read, o.write_dir, dirs);
	o.driver_confined = w->driver_confined;
	return nodus_sandbox_prepare(sb, &o, err);
}

/* After a dlopen: a thread or fd its constructors left is refused. */
static int census_after_load(nodus_sandbox_state *sb, const char *status, const char *who)
{
	char what[320];
	if (!nodus_sandbox_check_loaded(sb, what, sizeof(what)))
		return 0;
	return fail(status, "load_census", "load", "%s: %s (nothing may run or stay open from "
		    "a shared object's constructors)", who, what), 1;
}

/* detail.sandbox; landlock_threads says which threads the job's ruleset
 * holds on: "all" (TSYNC), "all_before_driver" (every thread is in the
 * pre-driver domain, the job's on the loading thread and those it makes),
 * "loading_thread" (threads made before it have no Landlock), "none". */
static json_t *sandbox_json(const nodus_sandbox_state *sb)
{
	const char *threads = !sb->landlock_abi   ? "none"
			      : sb->landlock_tsync ? "all"
			      : sb->driver_confined ? "all_before_driver"
						    : "loading_thread";
	return json_pack("{s:s,s:i,s:s,s:b,s:b}", "profile", sb->cuda ? "cuda" : "cpu",
			 "landlock_abi", sb->landlock_abi, "landlock_threads", threads,
			 "ipc_namespace", sb->ipc_namespace, "caps_dropped", sb->caps_dropped);
}

static int worker_run(struct worker *w, nodus_error *err)
{
	const char *backend = json_string_value(json_object_get(w->job, "backend"));
	int rc;
	if (w->dev && strcmp(w->ops->name, backend ? backend : "cpu") != 0)
		return fail("CRASH", "", "job", "worker opened '%s', job wants '%s'", w->ops->name,
			    backend), 1;
	if (!w->dev && (rc = open_backend(w, backend, err)))
		return fail_err("LOAD_ERROR", "backend", err), 1;
	if ((rc = parse_specs(w, err)) || (rc = parse_instances(w)))
		return rc;
	w->perturb_seed = json_u64(w->job, "perturb_seed");
	/* the syscall filter of a cpu worker forbids threads */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	w->fill_threads = json_int(w->job, "lockdown", 0) ? 1 : (int)(cpus > 16 ? 16 : cpus);
	nodus_rng_seed(&w->rng, json_u64(w->job, "order_seed"));

	/* before any solution code exists in the process */
	if ((rc = nodus__guard_install(w->ops, w->dev, RESULT_FD, err)))
		return rc;
	/* the fingerprint opens files: before the sandbox */
	uint64_t t_fp = nodus_now_ns();
	if (!w->fingerprint && (rc = w->ops->fingerprint(w->dev, &w->fingerprint, err)))
		return rc;
	phase_add(&w->phase.fingerprint_s, t_fp);
	nodus_sandbox_state sb;
	nodus_sandbox_state_init(&sb);
	int sandboxed = json_int(w->job, "lockdown", 0) || json_int(w->job, "cuda_sandbox", 0);
	if (sandboxed && (rc = sandbox_before_load(w, &sb, err)))
		return fail_err("CRASH", "sandbox", err), 1;
	/* one solution per worker: the candidate's (measure) or the
	 * reference's (oracle, timer), never both in one process */
	uint64_t t_load = nodus_now_ns();
	struct solution_handle *mine = w->is_measure ? &w->cand : &w->ref;
	const char *who = w->is_measure ? "candidate" : "reference";
	if ((rc = load_solution(json_object_get(w->job, who), mine, err)))
		return fail_err("LOAD_ERROR", "load", err), 1;
	if (sandboxed && (rc = census_after_load(&sb, "REWARD_HACK", who)))
		return rc;
	phase_add(&w->phase.load_s, t_load);
	nodus__guard_solutions(w->cand.entry, w->ref.entry);
	const char *bad = w->is_measure ? interposed_symbol(&w->cand) : NULL;
	if (bad)
		return fail("REWARD_HACK", "symbol_interposition", "load",
			    "candidate exports '%s', which would interpose on the harness", bad),
		       1;
	if (w->is_measure && w->cand.adapter_hook)
		return fail("REWARD_HACK", "adapter_hook", "load",
			    "candidate exports %s_%s, a hook of nodus's own Python adapter (it "
			    "would run outside the timed region or before lockdown); a native "
			    "solution writes its outputs inside its call",
			    json_string_value(json_object_get(json_object_get(w->job, "candidate"),
							      "entry")),
			    w->cand.adapter_hook),
		       1;

	if ((rc = prelock_calls(w, mine, err)))
		return fail_err("RUNTIME_ERROR", "prelock", err), 1;
	if ((rc = w->ops->alloc(w->dev, WORKSPACE_BYTES, &w->workspace, err)) ||
	    (rc = guard_buffer(w, w->workspace, WORKSPACE_BYTES, "workspace", "workspace", 0, err)))
		return rc;
	w->host_ws = malloc(WORKSPACE_BYTES);
	if (!w->host_ws)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory for the workspace");

	uint64_t t0 = nodus_now_ns();
	json_t *fpj = json_loads(w->fingerprint, 0, NULL);
	phase_add(&w->phase.fingerprint_s, t0);
	send_json(NODUS_MSG_READY, json_pack("{s:o*,s:o*}", "fingerprint", fpj, "sandbox",
					     sandboxed ? sandbox_json(&sb) : NULL));

	if (json_int(w->job, "lockdown", 0) && (rc = nodus_sandbox_lock_down(&sb, err)))
		return rc;
	nodus_sandbox_state_release(&sb);

	t0 = nodus_now_ns();
	if ((rc = setup_solution(mine, who)))
		return rc;
	phase_add(&w->phase.setup_s, t0);
	if (w->is_oracle) {
		if ((rc = run_list(w, &w->ref, NODUS_ROLE_REFERENCE, "oracle", 1, err)))
			return rc;
	} else {
		int role = w->is_measure ? NODUS_ROLE_CANDIDATE : NODUS_ROLE_REFERENCE;
		if (w->is_measure &&
		    (rc = run_list(w, &w->cand, NODUS_ROLE_CANDIDATE, "trials", 1, err)))
			return rc;
		/* wait until the orchestrator has judged correctness */
		nodus_msg_cmd cmd;
		if (wait_command(&cmd) || cmd.op != 'c')
			return 0;
		if (cmd.batch >= 0 && cmd.batch < CPU_SETSIZE) {
			/* both sides on the CPU the orchestrator named (run.c, timing_cpu);
			 * best effort: a CPU this process may not use keeps it where it is */
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(cmd.batch, &one);
			(void)sched_setaffinity(0, sizeof(one), &one);
		}
		if ((rc = measure_timing(w, mine, role, err)))
			return rc;
		if (w->is_measure &&
		    (rc = run_list(w, &w->cand, NODUS_ROLE_CANDIDATE, "final", 0, err)))
			return rc;
	}
	json_t *timing = json_object_get(w->job, "timing");
	json_t *phases = json_pack(
		"{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "bytes",
		w->phase.bytes, "alloc_s", w->phase.alloc_s, "job_s",
		(double)(nodus_now_ns() - w->phase.job_ns) * 1e-9,
		"load_s", w->phase.load_s,
		"fingerprint_s", w->phase.fingerprint_s, "setup_s", w->phase.setup_s, "draw_s",
		w->phase.draw_s,
		"upload_s", w->phase.upload_s, "checksum_s", w->phase.checksum_s, "call_s",
		w->phase.call_s, "send_s", w->phase.send_s, "size_s", w->phase.size_s, "copies_s",
		w->phase.copies_s, "rounds_s", w->phase.rounds_s, "perturb_s", w->phase.perturb_s,
		"fresh_s", w->phase.fresh_s, "recheck_s", w->phase.recheck_s, "intact_s", w->phase.intact_s, "device_draw_s",
		w->phase.device_draw_s);
	if (phases) { /* outputs that came through the arena, not the pipe (page-rounded) */
		json_object_set_new(phases, "arena_bytes", json_real((double)w->arena_next));
		json_object_set_new(phases, "poison_s", json_real(w->phase.poison_s));
		json_object_set_new(phases, "settle_s", json_real(w->phase.settle_s));
		json_object_set_new(phases, "settled", json_real(w->phase.settled));
	}
	send_json(NODUS_MSG_DONE, json_pack("{s:f,s:O*,s:o*}", "device_s", w->device_s, "timing",
					    timing, "phases", phases));
	return 0;
}

/* Seconds from this process's creation (its fork, so the child's set-up
 * before exec counts too) to now, from the kernel's start time (clock
 * ticks since boot); NAN when /proc cannot say. */
static double seconds_since_exec(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return NAN;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')'); /* the command name may hold spaces */
	unsigned long long start_ticks = 0;
	/* after ") ": state, then fields 4..21; starttime is field 22 */
	if (!p || sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %*s %*s %llu", &start_ticks) != 1)
		return NAN;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec boot;
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot))
		return NAN;
	return (double)boot.tv_sec + (double)boot.tv_nsec * 1e-9 - (double)start_ticks / (double)hz;
}

/* Resident memory now (bytes), from /proc/self/statm; 0 when unknown. The
 * backend's own buffers are in it (the cpu cache-flush buffer is twice the
 * last-level cache: 960 MiB on a machine with a 480 MiB L3), and the
 * orchestrator subtracts it when it asks whether a dying worker had filled
 * its memory limit. */
static long long resident_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long long size = 0, resident = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%lld %lld", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (long long)sysconf(_SC_PAGESIZE);
}

int nodus_worker_main(const char *preopen_backend, const char *objects_dir)
{
	/* One heap behaviour in every worker: a solution that allocates in
	 * its calls (a torch module's temporaries) never gets memory by mmap
	 * nor gives it back to the kernel between calls. glibc's own
	 * thresholds move with each process's history, so two processes
	 * running the same code paid page faults on different calls: an A/A
	 * torch pair on the cpu was FASTER 1.72 (the timer had run fewer calls
	 * than the candidate's worker, which had run its trials). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	struct worker w;
	memset(&w, 0, sizeof(w));
	w.objects_dir = objects_dir;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	double exec_s = seconds_since_exec();
	/* Started ahead of its job: create the device context now, while the
	 * orchestrator is busy with the previous worker. Nothing untrusted is
	 * loaded until the job arrives. A failure is reported with the job. */
	uint64_t t0 = nodus_now_ns();
	int pre_rc = preopen_backend ? open_backend(&w, preopen_backend, &err) : 0;
	double open_s = (double)(nodus_now_ns() - t0) * 1e-9;
	/* the fingerprint too (NVML and device queries take tens of ms) */
	t0 = nodus_now_ns();
	if (!pre_rc && preopen_backend && w.ops->fingerprint(w.dev, &w.fingerprint, &err))
		w.fingerprint = NULL; /* asked again with the job, where a failure is reported */
	double fingerprint_s = (double)(nodus_now_ns() - t0) * 1e-9;
	/* tells the orchestrator this start-up is over (it times nothing while
	 * a worker of its own is starting), and what the start-up cost: the
	 * exec up to main (dynamic linking), opening the backend (on cuda the
	 * context) and the fingerprint */
	if (preopen_backend) {
		double context_s = -1, setup_s = -1; /* -1: the backend does not say */
		if (!pre_rc && w.ops->open_cost)
			w.ops->open_cost(w.dev, &context_s, &setup_s);
		char startup[160];
		int len = snprintf(startup, sizeof(startup),
				   "{\"exec_s\":%.4f,\"open_s\":%.4f,\"context_s\":%.4f,"
				   "\"setup_s\":%.4f,\"fingerprint_s\":%.4f,\"rss_bytes\":%lld}",
				   isnan(exec_s) ? -1.0 : exec_s, open_s, context_s, setup_s,
				   fingerprint_s, resident_bytes());
		if (len < 0 || len >= (int)sizeof(startup))
			len = 0; /* a WARM without figures still says WARM */
		nodus_ipc_write(RESULT_FD, NODUS_MSG_WARM, startup, (size_t)len);
	}
	nodus_buf frame = NODUS_BUF_INIT;
	uint32_t type = 0;
	if (nodus_ipc_read(0, &type, &frame, 0) || type != NODUS_MSG_JOB) {
		nodus_buf_release(&frame);
		return fail("CRASH", "", "job", "no job frame on stdin"), 2;
	}
	w.phase.job_ns = nodus_now_ns();
	json_error_t jerr;
	w.job = json_loadb(frame.data, frame.len, 0, &jerr);
	nodus_buf_release(&frame);
	if (!w.job)
		return fail("CRASH", "", "job", "unreadable job: %s", jerr.text), 2;
	const char *role = json_string_value(json_object_get(w.job, "role"));
	w.is_measure = role && strcmp(role, "measure") == 0;
	w.is_oracle = role && strcmp(role, "oracle") == 0;
	if (!w.is_measure && !w.is_oracle && !(role && strcmp(role, "timer") == 0))
		return fail("CRASH", "", "job", "unknown role '%s'", role ? role : "(none)"), 2;
	/* The output arena is the oracle's only. A measure worker loads
	 * candidate code, which could write there after the harness did (an
	 * output judged later than it was sent) or fill it outside its memory
	 * limit, so it is closed before any solution is loaded; its outputs
	 * come through the pipe, whose bytes are fixed once sent. Only a
	 * regular file of the arena's size is ours: without one, fd 4 may be
	 * a descriptor the CUDA driver opened. */
	struct stat cs;
	if (fstat(NODUS_CLOCK_FD, &cs) == 0 && S_ISSOCK(cs.st_mode))
		clock_fd = NODUS_CLOCK_FD;
	struct stat arena;
	if (fstat(NODUS_ARENA_FD, &arena) == 0 && S_ISREG(arena.st_mode) &&
	    (int64_t)arena.st_size == NODUS_ARENA_BYTES) {
		if (!w.is_oracle)
			close(NODUS_ARENA_FD);
		else
			w.arena_bytes = (int64_t)arena.st_size;
	}
	if (pre_rc) {
		fail_err("LOAD_ERROR", "backend", &err);
		json_decref(w.job);
		return 0;
	}

	int rc = worker_run(&w, &err);
	if (rc < 0)
		fail_err(rc == NODUS_ECUDA ? "RUNTIME_ERROR" : "CRASH", "worker", &err);
	/* Solutions stay loaded: unloading code a candidate may still run on
	 * another thread is worse than leaking at exit. */
	scratch_free(&w, &w.host_kept); /* unpinned while the context lives */
	if (w.dev)
		w.ops->close(w.dev);
	free(w.instances);
	free(w.host_ws);
	for (int i = 0; i < NODUS_MAX_INPUTS; i++)
		free(w.host_kept.in[i]);
	free(w.fingerprint);
	json_decref(w.job);
	return 0;
}
