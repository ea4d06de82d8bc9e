/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * audit.c: the judge audit (audit.h, docs/audit.md).
 *
 * A wrong candidate f' of the kinds the audit knows computes the reference
 * f on transformed inputs: dropping the weight is f(x, 1, b), x*(1+w) is
 * f(x, 1 + w, b), the bias before the scale is f(x, w, b*w). So the judge
 * rejects f' exactly when f on the transformed inputs falls outside the
 * tolerance of f on the judge's own inputs, and the audit can decide that
 * by calling the reference alone, with no wrong kernel written.
 *
 * The reference is untrusted code like any solution, so the calls happen in
 * a sandboxed process, never in the caller: the parent builds the
 * reference (confined, src/run/build.c), then starts `nodus __audit`
 * through src/exec (own process group, rlimits, a fresh empty temporary
 * directory as cwd, an explicit environment, killed with its parent). That
 * process loads the campaign again, opens the backend, puts itself under a
 * Landlock ruleset that allows reading the reference's object and the
 * system libraries only (no writing, no executing, no TCP, no signals out:
 * this covers the reference's ELF constructors, which run at dlopen), loads
 * the reference, allocates everything, and locks down with the worker's
 * syscall filter (nodus_sandbox_lock_down) before the first call of
 * reference code. A cuda reference gets what a cuda oracle worker gets
 * instead (the CUDA driver needs calls the cpu filters forbid): the cuda
 * profile (nodus_sandbox_before_driver before the backend opens, so the
 * driver's threads are confined too; then nodus_sandbox_opts_cuda,
 * nodus_sandbox_prepare: census, capabilities, Landlock, the cuda filter)
 * before its dlopen, and the census check after it; NODUS_CUDA_SANDBOX=0
 * turns it off, as for workers. It answers
 * with one JSON text in one frame on its result pipe; the parent only
 * parses it, with a deadline, then kills the process group and removes the
 * directory.
 * ------------------------------------------------------------------------ */
#define _POSIX_C_SOURCE 200809L
#include "audit/audit.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "exec/exec.h"
#include "exec/landlock.h"
#include "judge/judge.h"
#include "run/build.h"
#include "run/protocol.h"
#include "run/python.h"
#include "spec/jsonpos.h"

#define AUDIT_SEED 0x61756469ULL /* "audi": any fixed seed; the audit is deterministic */
#define AUDIT_WORKSPACE_BYTES ((size_t)4 << 20)
#define AUDIT_DEADLINE_S 300

/* ---- the child: calling the reference ---- */

struct ref_run {
	const nodus_backend_ops *ops;
	void *dev;
	const nodus_task *t;
	const nodus_workload *w;
	nodus_tolerance tol;
	int64_t axes[NODUS_MAX_AXES];
	const char *axis_names[NODUS_MAX_AXES];
	nodus_entry_fn entry;
	nodus_error_fn error;              /* ENTRY_error, or NULL (solution.h) */
	void *d_in[NODUS_MAX_INPUTS], *d_out[NODUS_MAX_OUTPUTS], *d_ws;
	nodus_tensor tin[NODUS_MAX_INPUTS], tout[NODUS_MAX_OUTPUTS];
	nodus_call call;
	void *base_in[NODUS_MAX_INPUTS];   /* the judge's inputs */
	void *base_out[NODUS_MAX_OUTPUTS]; /* the reference's outputs on them */
	void *in[NODUS_MAX_INPUTS];        /* scratch inputs for a variation */
	void *out[NODUS_MAX_OUTPUTS];      /* outputs of the variation */
	json_t *findings;
	int negate_trial;                  /* the judge runs a negate trial (judge.trials >= 2) */
	int fill_threads;                  /* 1 under the syscall filter, which forbids threads */
};

static size_t tensor_bytes(const nodus_tensor_spec *ts, const int64_t *axes)
{
	return (size_t)nodus__tensor_numel(ts, axes) * nodus_dtype_size(ts->dtype);
}

static const nodus_dist *input_dist(const nodus_task *t, const nodus_workload *w, int i)
{
	return w->has_init[i] ? &w->init_override[i] : &t->inputs[i].init;
}

static void finding(json_t *list, const char *check, int passed, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finding(json_t *list, const char *check, int passed, const char *fmt, ...)
{
	char detail[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	json_array_append_new(list, json_pack("{s:s, s:b, s:b, s:s}", "check", check, "passed",
					      passed, "waived", 0, "detail", detail));
}

/* Calls the reference on host inputs `in`, leaving its outputs in `out`. */
static int call_reference(struct ref_run *r, void *const *in, void *const *out, char *why,
			  size_t why_size)
{
	nodus_error err = {0};
	int rc = 0, status = 0;
	for (int i = 0; !rc && i < r->t->n_inputs; i++)
		rc = r->ops->upload(r->dev, r->d_in[i], in[i], tensor_bytes(&r->t->inputs[i], r->axes),
				    &err);
	for (int o = 0; !rc && o < r->t->n_outputs; o++) {
		const nodus_tensor_spec *ts = &r->t->outputs[o];
		nodus_judge_poison(out[o], ts->dtype, nodus__tensor_numel(ts, r->axes));
		rc = r->ops->upload(r->dev, r->d_out[o], out[o], tensor_bytes(ts, r->axes), &err);
	}
	if (!rc)
		rc = r->ops->call_sync(r->dev, r->entry, &r->call, &status, &err);
	for (int o = 0; !rc && o < r->t->n_outputs; o++)
		rc = r->ops->download(r->dev, out[o], r->d_out[o],
				      tensor_bytes(&r->t->outputs[o], r->axes), &err);
	if (rc) {
		nodus_error_format(&err, why, why_size);
		return rc;
	}
	if (status) {
		/* its own reason where it gives one (the torch adapter: the
		 * Python exception), as a worker's record has it */
		const char *reason = r->error ? r->error() : NULL;
		snprintf(why, why_size, "the reference returned %d%s%.700s", status,
			 reason && *reason ? ": " : "", reason ? reason : "");
		return 1;
	}
	return 0;
}

/* 1 when every output of the variation is within tolerance of the base
 * outputs, i.e. the judge cannot tell the two apart. */
static int judge_accepts(struct ref_run *r, char *detail, size_t size)
{
	for (int o = 0; o < r->t->n_outputs; o++) {
		const nodus_tensor_spec *ts = &r->t->outputs[o];
		nodus_check chk;
		nodus_judge_compare(ts->name, r->out[o], r->base_out[o], ts->dtype,
				    nodus__tensor_numel(ts, r->axes), &r->tol, &chk);
		if (chk.status != NODUS_STATUS_OK) {
			snprintf(detail, size, "rejected: %s", chk.detail[0] ? chk.detail : chk.guard);
			return 0;
		}
	}
	snprintf(detail, size, "every output within tolerance of the reference's");
	return 1;
}

static void copy_base_inputs(struct ref_run *r)
{
	for (int i = 0; i < r->t->n_inputs; i++)
		memcpy(r->in[i], r->base_in[i], tensor_bytes(&r->t->inputs[i], r->axes));
}

/* Runs the reference on r->in and records check `name`: it passes when
 * the judge rejects the result (want_reject) or accepts it (!want_reject). */
static void variation(struct ref_run *r, const char *name, int want_reject, const char *what)
{
	char why[512], detail[600];
	if (call_reference(r, r->in, r->out, why, sizeof(why))) {
		finding(r->findings, name, 0, "%s: the reference failed: %s", what, why);
		return;
	}
	int accepted = judge_accepts(r, why, sizeof(why));
	snprintf(detail, sizeof(detail), "%s: %s", what, why);
	finding(r->findings, name, want_reject ? !accepted : accepted, "%s", detail);
}

static int64_t numel_of(struct ref_run *r, int i)
{
	return nodus__tensor_numel(&r->t->inputs[i], r->axes);
}

static void checks_outputs(struct ref_run *r)
{
	const nodus_task *t = r->t;
	/* another seed: an output that does not follow its inputs */
	nodus_instance other = {0, 0, 0, -1, AUDIT_SEED ^ 0x5eed, -1, 0, 0, 0};
	int drawn = 0;
	for (int i = 0; i < t->n_inputs; i++) {
		const nodus_dist *d = input_dist(t, r->w, i);
		drawn += d->kind != NODUS_DIST_FILE && d->kind != NODUS_DIST_CONSTANT &&
			 !(d->kind == NODUS_DIST_INT_RANGE && d->a == d->b);
	}
	if (drawn) {
		nodus__instance_fill(t, r->w, &other, 0, r->fill_threads, r->in);
		variation(r, "constant_output", 1, "inputs drawn with another seed");
	} else {
		/* every input a file's or a constant: another seed draws the
		 * same inputs, so the same outputs say nothing; said, not failed */
		finding(r->findings, "constant_output", 1,
			"not tested: every input is fixed (a file's values or a constant), so no "
			"other draw exists and the judge checks this workload on its one set of "
			"inputs");
	}
	/* magnitude against atol */
	double peak = 0;
	for (int o = 0; o < t->n_outputs; o++) {
		int64_t n = nodus__tensor_numel(&t->outputs[o], r->axes);
		for (int64_t e = 0; e < n; e++) {
			double v = fabs(nodus_judge_load(r->base_out[o], t->outputs[o].dtype, e));
			if (isfinite(v) && v > peak)
				peak = v;
		}
	}
	finding(r->findings, "output_below_atol", peak > r->tol.atol,
		"largest |output| %.3g against atol %.3g", peak, r->tol.atol);
	/* a bfloat16 implementation: the outputs rounded to 8 significant bits */
	int rounded = 0;
	for (int o = 0; o < t->n_outputs; o++) {
		int dt = t->outputs[o].dtype;
		int64_t n = nodus__tensor_numel(&t->outputs[o], r->axes);
		size_t bytes = tensor_bytes(&t->outputs[o], r->axes);
		memcpy(r->out[o], r->base_out[o], bytes);
		if (dt != NODUS_DTYPE_FLOAT32 && dt != NODUS_DTYPE_FLOAT64)
			continue;
		rounded = 1;
		for (int64_t e = 0; e < n; e++) {
			double v = nodus_judge_load(r->out[o], dt, e);
			int ex;
			double m = frexp(v, &ex);
			nodus_judge_store(r->out[o], dt, e, isfinite(v) ? ldexp(nearbyint(m * 256.0) / 256.0, ex) : v);
		}
	}
	if (rounded) {
		char why[512];
		int accepted = judge_accepts(r, why, sizeof(why));
		finding(r->findings, "loose_tolerance", !accepted,
			"outputs rounded to bfloat16 precision: %s", why);
	}
}

static void checks_inputs(struct ref_run *r)
{
	const nodus_task *t = r->t;
	char name[160], what[256];
	nodus_instance other = {0, 0, 0, -1, AUDIT_SEED ^ 0xd1ff, -1, 0, 0, 0};
	for (int i = 0; i < t->n_inputs; i++) {
		const nodus_tensor_spec *ts = &t->inputs[i];
		const nodus_dist *d = input_dist(t, r->w, i);
		if (d->kind == NODUS_DIST_FILE) {
			/* nothing to redraw: a file input is the file's, and what
			 * the judge varies elsewhere it cannot vary here */
			snprintf(name, sizeof(name), "file_input:%s", ts->name);
			finding(r->findings, name, 1,
				"%s is the file's tensor, as it is: never redrawn, scaled, negated, "
				"perturbed or rotated between timed copies, and the workload has no "
				"shape probe; so dead_input, the variant trials and the timed "
				"rechecks test it with these values only",
				ts->name);
			continue;
		}
		/* a dead input: redrawing it alone leaves the output in tolerance */
		copy_base_inputs(r);
		void *fresh[NODUS_MAX_INPUTS];
		for (int k = 0; k < t->n_inputs; k++)
			fresh[k] = k == i ? r->in[k] : NULL;
		for (int k = 0; k < t->n_inputs; k++)
			if (k != i)
				fresh[k] = malloc(tensor_bytes(&t->inputs[k], r->axes) + 8);
		nodus__instance_fill(t, r->w, &other, 0, r->fill_threads, fresh);
		for (int k = 0; k < t->n_inputs; k++)
			if (k != i)
				free(fresh[k]);
		snprintf(name, sizeof(name), "dead_input:%s", ts->name);
		snprintf(what, sizeof(what), "%s redrawn alone", ts->name);
		variation(r, name, 1, what);
		/* a draw of one sign where the reference takes the other */
		int signed_float = ts->dtype != NODUS_DTYPE_INT32 && ts->dtype != NODUS_DTYPE_INT64 &&
				   ts->dtype != NODUS_DTYPE_UINT8;
		/* a declared negate variant draws the other sign in the trials */
		int nonneg = (d->kind == NODUS_DIST_POSITIVE ||
			      (d->kind == NODUS_DIST_UNIFORM && d->a >= 0)) &&
			     !(nodus_judge_input_variants(ts->variants, d) & NODUS_VARIANT_NEGATE);
		if (signed_float && nonneg) {
			copy_base_inputs(r);
			for (int64_t e = 0; e < numel_of(r, i); e++)
				nodus_judge_store(r->in[i], ts->dtype, e,
						  -nodus_judge_load(r->in[i], ts->dtype, e));
			char why[512];
			snprintf(name, sizeof(name), "sign_restricted:%s", ts->name);
			if (call_reference(r, r->in, r->out, why, sizeof(why))) {
				finding(r->findings, name, 1, "%s negated: the reference fails (%s)",
					ts->name, why);
				continue;
			}
			int finite = 1;
			for (int o = 0; o < t->n_outputs && finite; o++)
				for (int64_t e = 0; e < nodus__tensor_numel(&t->outputs[o], r->axes); e++)
					if (!isfinite(nodus_judge_load(r->out[o], t->outputs[o].dtype, e))) {
						finite = 0;
						break;
					}
			finding(r->findings, name, !finite,
				finite ? "%s is drawn >= 0, but the reference takes its negation: "
					 "negative values are never tested"
				       : "%s negated gives non-finite outputs: the sign is the task's",
				ts->name);
		}
	}
}

/* |IN| for an affine_scale IN (or max(IN, -IN), IN*IN/|IN|): the judge
 * tells it from IN only on a trial that draws IN < 0, its negate trial. So
 * the reference is called on that trial's inputs (every input drawn with
 * the negate variant where the judge applies it) and on the same inputs
 * with |IN|; the check passes when the judge rejects the second. */
static void check_abs_scale(struct ref_run *r, int i)
{
	const nodus_task *t = r->t;
	const nodus_tensor_spec *ts = &t->inputs[i];
	char name[160], what[256], why[512];
	nodus_instance trial = {0, 0, r->negate_trial ? NODUS_VARIANT_NEGATE : 0u, -1,
				AUDIT_SEED ^ 0xab5, -1, 0, 0, 0};
	void *trial_out[NODUS_MAX_OUTPUTS] = {0}, *base_out[NODUS_MAX_OUTPUTS];
	int ok = 1;
	for (int o = 0; o < t->n_outputs; o++)
		ok &= (trial_out[o] = malloc(tensor_bytes(&t->outputs[o], r->axes) + 8)) != NULL;
	snprintf(name, sizeof(name), "mutation:abs:%s", ts->name);
	if (!ok || nodus__instance_fill(t, r->w, &trial, 0, r->fill_threads, r->in)) {
		finding(r->findings, name, 0, "cannot draw the negate trial's inputs");
	} else if (call_reference(r, r->in, trial_out, why, sizeof(why))) {
		finding(r->findings, name, 0, "%s on the negate trial: the reference failed: %s",
			ts->name, why);
	} else {
		int negative = 0;
		for (int64_t e = 0; e < numel_of(r, i); e++) {
			double v = nodus_judge_load(r->in[i], ts->dtype, e);
			negative |= v < 0;
			nodus_judge_store(r->in[i], ts->dtype, e, fabs(v));
		}
		/* judged against the trial's own reference outputs */
		memcpy(base_out, r->base_out, sizeof(base_out));
		memcpy(r->base_out, trial_out, sizeof(base_out));
		snprintf(what, sizeof(what), "|%s| used for %s (%s)", ts->name, ts->name,
			 negative ? "negative on the negate trial"
			 : r->negate_trial ? "never negative: no negate variant reaches it"
					   : "never negative: judge.trials < 2 runs no negate trial");
		variation(r, name, 1, what);
		memcpy(r->base_out, base_out, sizeof(base_out));
	}
	for (int o = 0; o < t->n_outputs; o++)
		free(trial_out[o]);
}

/* The wrong formulas the task's affine inputs make possible. */
static void checks_mutations(struct ref_run *r)
{
	const nodus_task *t = r->t;
	char name[160], what[256];
	for (int i = 0; i < t->n_inputs; i++) {
		int kind = t->inputs[i].init.kind, dt = t->inputs[i].dtype;
		if (kind != NODUS_DIST_AFFINE_SCALE && kind != NODUS_DIST_AFFINE_SHIFT)
			continue;
		const char *in = t->inputs[i].name;
		double identity = kind == NODUS_DIST_AFFINE_SCALE ? 1.0 : 0.0;
		copy_base_inputs(r);
		for (int64_t e = 0; e < numel_of(r, i); e++)
			nodus_judge_store(r->in[i], dt, e, identity);
		snprintf(name, sizeof(name), "mutation:drop:%s", in);
		snprintf(what, sizeof(what), "%s left out (%s = %g)", in, in, identity);
		variation(r, name, 1, what);
		/* only where the workload draws it so: a constant is constant_input's */
		if (input_dist(t, r->w, i)->kind == NODUS_DIST_AFFINE_SCALE)
			check_abs_scale(r, i);
		if (kind == NODUS_DIST_AFFINE_SCALE) {
			copy_base_inputs(r);
			for (int64_t e = 0; e < numel_of(r, i); e++)
				nodus_judge_store(r->in[i], dt, e, 1.0 + nodus_judge_load(r->in[i], dt, e));
			snprintf(name, sizeof(name), "mutation:one_plus:%s", in);
			snprintf(what, sizeof(what), "1 + %s used for %s", in, in);
			variation(r, name, 1, what);
		}
		for (int j = 0; kind == NODUS_DIST_AFFINE_SCALE && j < t->n_inputs; j++) {
			if (t->inputs[j].init.kind != NODUS_DIST_AFFINE_SHIFT ||
			    numel_of(r, j) != numel_of(r, i) || t->inputs[j].dtype != dt)
				continue;
			const char *sh = t->inputs[j].name;
			copy_base_inputs(r);
			memcpy(r->in[i], r->base_in[j], tensor_bytes(&t->inputs[i], r->axes));
			memcpy(r->in[j], r->base_in[i], tensor_bytes(&t->inputs[j], r->axes));
			snprintf(name, sizeof(name), "mutation:swap:%s", sh);
			snprintf(what, sizeof(what), "%s and %s exchanged", in, sh);
			variation(r, name, 1, what);
			copy_base_inputs(r);
			for (int64_t e = 0; e < numel_of(r, j); e++)
				nodus_judge_store(r->in[j], dt, e,
						  nodus_judge_load(r->in[j], dt, e) *
							  nodus_judge_load(r->in[i], dt, e));
			snprintf(name, sizeof(name), "mutation:bias_first:%s", sh);
			snprintf(what, sizeof(what), "%s added before the scale by %s", sh, in);
			variation(r, name, 1, what);
		}
	}
}

/* "params": a python module reference that declares its parameters
 * (python.params) has, once built, exactly the declared floating
 * parameters and buffers, with their names, shapes and dtypes, in torch's
 * order (the adapter's ENTRY_params, read before any call). The finding's
 * "path" is the declared entry involved, which the parent locates in the
 * solution's file. Without a declaration nothing is checked: the adapter
 * redraws by position. */
static void check_params(struct ref_run *r, const nodus_solution *s, void *dl)
{
	if (s->language != NODUS_LANG_PYTHON || s->py_style != NODUS_PY_MODULE || !s->py_params[0])
		return;
	char name[NODUS_NAME_MAX + 8], detail[480], path[64] = "$.python.params";
	const char *(*own)(void) = NULL;
	snprintf(name, sizeof(name), "%s_params", s->entry);
	*(void **)&own = dlsym(dl, name);
	const char *text = own ? own() : NULL;
	int index = -1, n = 0;
	if (!text)
		snprintf(detail, sizeof(detail), "the adapter does not say what the module has "
			 "(%s_params)", s->entry);
	else
		n = nodus__py_params_module_diff(s->py_params, text, detail, sizeof(detail),
						 &index);
	if (index >= 0)
		snprintf(path, sizeof(path), "$.python.params[%d]", index);
	if (text && !n)
		finding(r->findings, "params", 1, "the module has the declared tensors");
	else
		finding(r->findings, "params", 0, "%d difference(s) from the declaration: %s%s",
			n ? n : 1, detail, n > 3 ? "; ..." : "");
	json_t *f = json_array_get(r->findings, json_array_size(r->findings) - 1);
	json_object_set_new(f, "path", json_string(path));
}

/* Restricts this process, before the reference is loaded, to reading its
 * object and the system's libraries: what its constructors may do. */
static int confine_loading(const char *so_path, char *why, size_t size)
{
	/* /proc/self is resolved here, to this process's own directory: a
	 * sanitizer build reads its maps when a library is loaded */
	/* /dev/urandom: torch seeds its generator from it when imported (a
	 * python reference's adapter, include/nodus/torch_adapter.c) */
	static const char *const libs[] = {"/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache",
					   "/proc/self", "/dev/urandom"};
	nodus_landlock ll;
	nodus_error err;
	if (nodus_landlock_open(&ll, &err))
		return 0; /* no Landlock: the syscall filter still comes before any call */
	int rc = nodus_landlock_allow(&ll, so_path, NODUS_LL_READ, &err);
	for (size_t k = 0; !rc && k < NODUS_ARRAY_SIZE(libs); k++)
		rc = nodus_landlock_allow(&ll, libs[k], NODUS_LL_READ, &err);
	/* a python reference's interpreter trees outside /usr (a virtual
	 * environment's packages: src/run/python.h) */
	const char *trees[NODUS_PY_MAX_TREES];
	char buf[4200];
	int n = nodus__python_trees(so_path, trees, NODUS_PY_MAX_TREES, buf, sizeof(buf));
	for (int k = 0; !rc && k < n; k++)
		rc = nodus_landlock_allow(&ll, trees[k], NODUS_LL_READ, &err);
	if (!rc)
		rc = nodus_landlock_enforce(&ll, &err);
	nodus_landlock_close(&ll);
	if (rc)
		snprintf(why, size, "cannot confine the audit process: %s", err.message);
	return rc;
}

/* A cuda reference gets the cuda workers' profile (nodus_sandbox_opts_cuda:
 * the census, non-dumpable, no capabilities, Landlock reading its object,
 * the system and CUDA libraries and the driver's files, writing only this
 * process's directory and /dev, then the cuda filter), after the context
 * exists and before its dlopen, as a cuda oracle worker has it. */
static int confine_cuda(nodus_sandbox_state *sb, const char *so_path, int driver_confined,
			char *why, size_t size)
{
	const char *files[NODUS_PY_MAX_TREES + 2] = {so_path}, *dirs[2];
	char cwd[PATH_MAX], buf[4200];
	nodus__python_trees(so_path, files + 1, NODUS_PY_MAX_TREES, buf, sizeof(buf));
	nodus_sandbox_opts o;
	nodus_error err = {0};
	nodus_sandbox_opts_cuda(&o, files, getcwd(cwd, sizeof(cwd)), dirs);
	o.driver_confined = driver_confined;
	if (!o.write_dir) {
		snprintf(why, size, "cannot confine the audit process: no working directory");
		return -1;
	}
	if (nodus_sandbox_prepare(sb, &o, &err) == 0)
		return 0;
	snprintf(why, size, "cannot confine the audit process: %s", err.message);
	return -1;
}

int nodus__audit_before_driver(const char *so_path, int *confined, char *why, size_t size)
{
	*confined = 0;
	if (nodus_sandbox_cuda_off())
		return 0;
	char cwd[PATH_MAX], lib[PATH_MAX];
	const char *dirs[2], *extra[NODUS_PY_MAX_TREES + 3] = {NULL};
	char buf[4200];
	int n = 0;
	if (strcmp(so_path, "-") != 0)
		extra[n++] = so_path;
	nodus_error err = {0};
	if (nodus_backend_cuda_path(lib, sizeof(lib), &err) == 0)
		extra[n++] = lib;
	if (strcmp(so_path, "-") != 0)
		nodus__python_trees(so_path, extra + n, NODUS_PY_MAX_TREES, buf, sizeof(buf));
	nodus_sandbox_opts o;
	nodus_sandbox_opts_cuda(&o, NULL, getcwd(cwd, sizeof(cwd)), dirs);
	int abi = 0;
	if (!o.write_dir || nodus_sandbox_before_driver(&o, extra, &abi, &err)) {
		snprintf(why, size, "cannot confine the audit process before the CUDA driver: %s",
			 o.write_dir ? err.message : "no working directory");
		return -1;
	}
	*confined = abi > 0;
	return 0;
}

int nodus__audit_confine(nodus_sandbox_state *sb, int backend, const char *so_path,
			 int driver_confined, char *why, size_t size)
{
	nodus_sandbox_state_init(sb);
	if (backend == NODUS_BACKEND_CPU)
		return confine_loading(so_path, why, size);
	return nodus_sandbox_cuda_off() ? 0 : confine_cuda(sb, so_path, driver_confined, why, size);
}

/* Opens the reference's backend into r: 0, or -1 with res's "run" set. A
 * cuda reference's process confines itself first, before the driver
 * starts (nodus__audit_before_driver); the probe ("-") loads no reference
 * code and does not, so that "no GPU" (skipped) stays apart from "the
 * driver does not start under the sandbox" (failed: the probe opened it). */
static int open_backend(struct ref_run *r, const nodus_solution *s, const char *so_path,
			int *driver_confined, json_t *res)
{
	nodus_error err = {0};
	char why[1024];
	int cuda = s->backend == NODUS_BACKEND_CUDA, probe = strcmp(so_path, "-") == 0;
	*driver_confined = 0;
	if (cuda && !probe && nodus__audit_before_driver(so_path, driver_confined, why, sizeof(why))) {
		json_object_set_new(res, "run", json_sprintf("failed: %s", why));
		return -1;
	}
	int rc = cuda ? nodus_backend_cuda_load(&r->ops, &err) : (r->ops = nodus_backend_cpu(), 0);
	if (!rc)
		rc = r->ops->open(&r->dev, &err);
	if (!rc)
		return 0;
	nodus_error_format(&err, why, sizeof(why));
	if (cuda && !probe)
		json_object_set_new(res, "run",
				    json_sprintf("failed: the cuda backend does not start under the "
						 "audit's sandbox, although it did without (%s)", why));
	else
		json_object_set_new(res, "run", json_sprintf("skipped: no %s (%s)",
							     r->ops ? "GPU" : "cuda backend", why));
	return -1;
}

/* Everything the child does; returns its findings or a reason to skip. */
static json_t *child_audit(const nodus_campaign *c, const nodus_workload *w,
			   const nodus_solution *s, const char *so_path)
{
	json_t *res = json_object();
	nodus_error err = {0};
	char why[1024];
	struct ref_run r;
	memset(&r, 0, sizeof(r));
	r.t = &c->tasks[w->task];
	r.w = w;
	r.tol = w->has_tolerance ? w->tolerance : r.t->tolerance;
	r.findings = json_array();
	r.negate_trial = c->judge.trials >= 2;
	r.fill_threads = s->backend == NODUS_BACKEND_CPU ? 1 : 8;
	if (s->backend == NODUS_BACKEND_CPU)
		nodus_judge_single_threaded(); /* large outputs: no scan threads either */
	int driver_confined = 0;
	if (open_backend(&r, s, so_path, &driver_confined, res))
		return res;
	if (strcmp(so_path, "-") == 0) {
		/* the probe: the backend opens here, the reference is worth building */
		json_object_set_new(res, "run", json_string("available"));
		return res;
	}
	nodus_sandbox_state sb;
	int cuda_sandboxed = s->backend == NODUS_BACKEND_CUDA && !nodus_sandbox_cuda_off();
	if (nodus__audit_confine(&sb, s->backend, so_path, driver_confined, why, sizeof(why))) {
		json_object_set_new(res, "run", json_sprintf("failed: %s", why));
		return res;
	}
	void *dl = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
	void *sym = dl ? dlsym(dl, s->entry) : NULL;
	if (!sym) {
		json_object_set_new(res, "run", json_sprintf("failed: cannot load the reference: %s",
							     dlerror()));
		return res;
	}
	/* ENTRY_load (solution.h), as the worker calls it: confined as the
	 * constructors were, before the census */
	char load_name[NODUS_NAME_MAX + 8], msg[1024] = "";
	nodus_load_fn load;
	snprintf(load_name, sizeof(load_name), "%s_load", s->entry);
	*(void **)&load = dlsym(dl, load_name);
	if (load && load(msg, sizeof(msg))) {
		json_object_set_new(res, "run", json_sprintf("failed: cannot load the reference: "
							     "%s_load: %s", s->entry, msg));
		return res;
	}
	if (cuda_sandboxed && nodus_sandbox_check_loaded(&sb, why, sizeof(why))) {
		json_object_set_new(res, "run",
				    json_sprintf("failed: loading the reference left %s (guard "
						 "load_census)", why));
		return res;
	}
	nodus_sandbox_state_release(&sb);
	check_params(&r, s, dl);
	memcpy(&r.entry, &sym, sizeof(sym));
	snprintf(load_name, sizeof(load_name), "%s_error", s->entry);
	*(void **)&r.error = dlsym(dl, load_name);
	nodus__instance_axes(r.t, w, 0, r.axes);
	for (int a = 0; a < r.t->n_axes; a++)
		r.axis_names[a] = r.t->axes[a].name;
	int rc = r.ops->alloc(r.dev, AUDIT_WORKSPACE_BYTES, &r.d_ws, &err);
	for (int i = 0; !rc && i < r.t->n_inputs; i++) {
		const nodus_tensor_spec *ts = &r.t->inputs[i];
		size_t n = tensor_bytes(ts, r.axes);
		r.base_in[i] = malloc(n + 8);
		r.in[i] = malloc(n + 8);
		rc = !r.base_in[i] || !r.in[i] || r.ops->alloc(r.dev, n, &r.d_in[i], &err);
		r.tin[i] = (nodus_tensor){r.d_in[i], ts->dtype, ts->ndim, {0},
					  nodus__tensor_numel(ts, r.axes), (int64_t)n, ts->name};
		for (int d = 0; d < ts->ndim; d++)
			r.tin[i].shape[d] = r.axes[ts->axis[d]];
	}
	for (int k = 0; !rc && k < r.t->n_outputs; k++) {
		const nodus_tensor_spec *ts = &r.t->outputs[k];
		size_t n = tensor_bytes(ts, r.axes);
		r.base_out[k] = malloc(n + 8);
		r.out[k] = malloc(n + 8);
		rc = !r.base_out[k] || !r.out[k] || r.ops->alloc(r.dev, n, &r.d_out[k], &err);
		r.tout[k] = (nodus_tensor){r.d_out[k], ts->dtype, ts->ndim, {0},
					   nodus__tensor_numel(ts, r.axes), (int64_t)n, ts->name};
		for (int d = 0; d < ts->ndim; d++)
			r.tout[k].shape[d] = r.axes[ts->axis[d]];
	}
	if (rc) {
		json_object_set_new(res, "run", json_string("failed: out of memory for the audit"));
		return res;
	}
	r.call = (nodus_call){NODUS_ABI_VERSION, sizeof(nodus_call), r.t->n_inputs, r.t->n_outputs,
			      r.tin, r.tout, r.t->n_axes, 0, r.axis_names, r.axes,
			      r.ops->stream(r.dev), r.d_ws, (int64_t)AUDIT_WORKSPACE_BYTES};
	char setup_name[NODUS_NAME_MAX + 8];
	snprintf(setup_name, sizeof(setup_name), "%s_setup", s->entry);
	void *setup = dlsym(dl, setup_name);
	int status = 0;
	/* everything is loaded and allocated: no reference code runs unfiltered */
	if (s->backend == NODUS_BACKEND_CPU && nodus_sandbox_lock_down(NULL, &err)) {
		json_object_set_new(res, "run", json_sprintf("failed: cannot lock the audit process "
							     "down: %s", err.message));
		return res;
	}
	if (setup) {
		nodus_entry_fn fn;
		memcpy(&fn, &setup, sizeof(setup));
		if (r.ops->call_sync(r.dev, fn, &r.call, &status, &err) || status) {
			json_object_set_new(res, "run", json_string("failed: the reference's setup failed"));
			return res;
		}
	}
	nodus_instance base = {0, 0, 0, -1, AUDIT_SEED, -1, 0, 0, 0};
	if (nodus__instance_fill(r.t, w, &base, 0, r.fill_threads, r.base_in) ||
	    call_reference(&r, r.base_in, r.base_out, why, sizeof(why))) {
		json_object_set_new(res, "run", json_sprintf("failed: the reference does not run: %s", why));
		return res;
	}
	checks_outputs(&r);
	checks_inputs(&r);
	checks_mutations(&r);
	json_object_set_new(res, "run", json_string("ran"));
	json_object_set_new(res, "findings", r.findings);
	return res; /* the child exits: the OS takes back the rest */
}

/* `nodus __audit CAMPAIGN WORKLOAD SOLUTION HASH OBJECT`: see the file
 * comment; OBJECT "-" only opens the backend and answers "available".
 * Answers one AUDIT_FRAME on fd 3 and leaves with _exit(). */
#define AUDIT_FRAME 0x41554454u /* "AUDT" */
int nodus_audit_worker_main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: nodus __audit CAMPAIGN WORKLOAD SOLUTION HASH OBJECT\n");
		return 2;
	}
	nodus_diags diags = NODUS_DIAGS_INIT;
	nodus_campaign *c = NULL;
	json_t *res = NULL;
	int wi = atoi(argv[2]), si = atoi(argv[3]);
	if (nodus_campaign_load(argv[1], &c, &diags) || wi < 0 || wi >= c->n_workloads || si < 0 ||
	    si >= c->n_solutions || strcmp(c->solutions[si].hash, argv[4]) != 0)
		res = json_pack("{s:s}", "run", "failed: the campaign changed while it was audited");
	else
		res = child_audit(c, &c->workloads[wi], &c->solutions[si], argv[5]);
	nodus_diags_release(&diags);
	char *text = json_dumps(res, JSON_COMPACT);
	int rc = nodus_ipc_write(3, AUDIT_FRAME, text, text ? strlen(text) : 0);
	_exit(rc ? 3 : 0); /* no exit-time hooks under the filter */
}

/* The audit process's environment: nothing of the caller's but what the
 * backends need to be found, named one by one. */
static void audit_env(const char *dir, char store[][1100], const char **env)
{
	static const char *const passed[] = {"NODUS_CUDA_BACKEND", "CUDA_VISIBLE_DEVICES",
					     "LD_LIBRARY_PATH", "NODUS_CUDA_SANDBOX"};
	int n = 0;
	snprintf(store[n], 1100, "PATH=/usr/local/bin:/usr/bin:/bin");
	env[n] = store[n];
	n++;
	snprintf(store[n], 1100, "HOME=%s", dir);
	env[n] = store[n];
	n++;
	snprintf(store[n], 1100, "TMPDIR=%s", dir);
	env[n] = store[n];
	n++;
	snprintf(store[n], 1100, "LANG=C");
	env[n] = store[n];
	n++;
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(passed); k++) {
		const char *v = getenv(passed[k]);
		if (!v)
			continue;
		snprintf(store[n], 1100, "%s=%s", passed[k], v);
		env[n] = store[n];
		n++;
	}
	env[n] = NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Starts the audit process for reference s (built at so_path) on
 * workload w and reads its JSON back. */
static json_t *call_in_sandbox(const nodus_campaign *c, const nodus_workload *w,
			       const nodus_solution *s, const char *so_path,
			       const nodus_audit_opts *o)
{
	char dir[] = "/tmp/nodus-audit-XXXXXX", campaign[PATH_MAX], so[PATH_MAX] = "-";
	char wi[16], si[16], env_store[10][1100];
	const char *env[10];
	if (!realpath(c->file, campaign) || (strcmp(so_path, "-") && !realpath(so_path, so)) ||
	    !mkdtemp(dir))
		return json_pack("{s:s}", "run", "failed: cannot prepare the audit process");
	snprintf(wi, sizeof(wi), "%d", (int)(w - c->workloads));
	snprintf(si, sizeof(si), "%d", (int)(s - c->solutions));
	audit_env(dir, env_store, env);
	const char *self = o->self_path ? o->self_path : "/proc/self/exe";
	const char *argv[] = {self, "__audit", campaign, wi, si, s->hash, so, NULL};
	nodus_child_opts co;
	memset(&co, 0, sizeof(co));
	co.argv = argv;
	co.env = env;
	co.cwd = dir;
	co.stdin_fd = -2;
	co.stdout_fd = -2;
	co.want_result_pipe = 1;
	co.die_with_parent = 1;
	co.rlimit_core = -1;
	co.rlimit_cpu_s = AUDIT_DEADLINE_S;
	co.rlimit_fsize_bytes = 1; /* no file it could write grows past a byte */
	co.rlimit_nofile = c->judge.open_files > 0 ? c->judge.open_files : 64;
	co.rlimit_nproc = c->judge.processes > 0 ? c->judge.processes : 0;
#if !defined(__SANITIZE_ADDRESS__)
	/* as for workers: AddressSanitizer reserves terabytes at start */
	if (s->backend == NODUS_BACKEND_CPU && c->judge.address_space_mb > 0)
		co.rlimit_as_bytes = c->judge.address_space_mb << 20;
#endif
	nodus_child child;
	nodus_error err = {0};
	json_t *res = NULL;
	char why[1024];
	if (nodus_child_start(&child, &co, &err)) {
		snprintf(why, sizeof(why), "failed: cannot start the audit process: %s", err.message);
		res = json_pack("{s:s}", "run", why);
		goto out;
	}
	nodus_buf b = NODUS_BUF_INIT;
	uint32_t type = 0;
	int rc = nodus_ipc_read(child.result_fd, &type, &b,
				nodus_now_ns() + (uint64_t)AUDIT_DEADLINE_S * 1000000000ull);
	nodus_child_kill(&child); /* whatever it started goes with it */
	int st = nodus_child_finish(&child);
	if (!rc && type == AUDIT_FRAME)
		res = json_loadb(b.data, b.len, 0, NULL);
	nodus_buf_release(&b);
	if (res)
		goto out;
	if (rc == NODUS_ETIMEOUT)
		snprintf(why, sizeof(why), "failed: the reference did not finish within the deadline");
	else if (st == 128 + SIGSYS)
		snprintf(why, sizeof(why), "failed: the reference made a forbidden system call (the "
			 "audit process died of SIGSYS; guard sandbox)");
	else
		snprintf(why, sizeof(why), "failed: the audit process ended (%s %d) without a result",
			 st >= 128 ? "signal" : "status", st >= 128 ? st - 128 : st);
	res = json_pack("{s:s}", "run", why);
out:
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return res;
}

/* Builds the reference here, confined, and calls it in the sandbox. A
 * cuda reference is built only once a probe (the audit process with
 * object "-") has opened the backend: without a GPU or nvcc the run
 * checks are skipped, as they always were, not failed. A Triton reference
 * is not called at all, and the line says why. */
static json_t *run_child(const nodus_campaign *c, const nodus_workload *w, const nodus_solution *s,
			 const nodus_audit_opts *o)
{
	/* a Triton module's kernels come from the run's warm step, per
	 * workload shape, and are loaded by calls before lockdown (the
	 * worker's prelock): the audit process has neither, and its first
	 * call would fail for nodus's reason, not the reference's */
	if (nodus_build_uses_triton(s))
		return json_pack("{s:s}", "run",
				 "skipped: a Triton reference (its module names triton) is not "
				 "called by the audit, which does not run the warm step that compiles "
				 "its kernels for the workload's shapes (docs/audit.md)");
	if (s->backend == NODUS_BACKEND_CUDA) {
		json_t *probe = call_in_sandbox(c, w, s, "-", o);
		const char *how = json_string_value(json_object_get(probe, "run"));
		if (!how || strcmp(how, "available") != 0)
			return probe;
		json_decref(probe);
	}
	nodus_build_opts bo = {o->cache_dir, o->include_dir, NULL, 0, o->self_path,
			       c->target.python};
	nodus_build_result br;
	nodus_error err = {0};
	if (nodus_build_solution(s, &bo, &br, &err) || !br.ok)
		return json_pack("{s:o}", "run",
				 json_sprintf("failed: the reference does not build: %s",
					      br.ok ? err.message : br.log));
	return call_in_sandbox(c, w, s, br.so_path, o);
}

/* ---- the parent: items, waivers, verdicts ---- */

/* A finding with a "path" (the params check's: the first declared entry
 * involved) gets that place in the solution's file in front of its
 * detail, "s.json:5:9: ", as a fault of `nodus check` has it (the audit
 * process cannot read the file: Landlock); without the file or the path
 * in it, the file's name alone. */
static void locate_finding(json_t *f, const nodus_solution *s)
{
	const char *path = json_string_value(json_object_get(f, "path"));
	const char *detail = json_string_value(json_object_get(f, "detail"));
	if (!path || !detail)
		return;
	nodus_buf text = NODUS_BUF_INIT;
	nodus__jsonpos *pos = NULL;
	int line = 0, column = 0;
	if (s->file[0] && nodus_buf_read_file(&text, s->file) == 0 &&
	    nodus__jsonpos_build(text.data, text.len, &pos) == 0)
		nodus__jsonpos_find(pos, path, 0, &line, &column);
	nodus__jsonpos_free(pos);
	nodus_buf_release(&text);
	json_t *located = line ? json_sprintf("%s:%d:%d: %s", s->file, line, column, detail)
			       : json_sprintf("%s: %s", s->file[0] ? s->file : s->name, detail);
	if (located)
		json_object_set_new(f, "detail", located);
}

static const nodus_waiver *waiver_for(const nodus_campaign *c, const char *task,
				      const char *workload, const char *check)
{
	for (int k = 0; k < c->n_waivers; k++) {
		const nodus_waiver *x = &c->waivers[k];
		if (strcmp(x->task, task) == 0 && strcmp(x->check, check) == 0 &&
		    (!x->workload[0] || strcmp(x->workload, workload) == 0))
			return x;
	}
	return NULL;
}

int nodus_audit_campaign(const nodus_campaign *c, const nodus_audit_opts *o, json_t **report,
			 int *failed, nodus_error *err)
{
	json_t *items = json_array();
	*failed = 0;
	if (!items)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory for the audit");
	for (int wi = 0; wi < c->n_workloads; wi++) {
		const nodus_workload *w = &c->workloads[wi];
		int ref = -1;
		for (int p = 0; p < c->n_pairs && ref < 0; p++)
			if (c->pairs[p].workload == wi)
				ref = c->pairs[p].reference;
		if (ref < 0 || w->task < 0)
			continue; /* a workload no pair measures is never judged */
		const nodus_task *t = &c->tasks[w->task];
		const nodus_solution *s = &c->solutions[ref];
		json_t *findings = json_array();
		for (int i = 0; i < t->n_inputs; i++) {
			const nodus_dist *d = input_dist(t, w, i);
			int constant = d->kind == NODUS_DIST_CONSTANT ||
				       (d->kind == NODUS_DIST_INT_RANGE && d->a == d->b);
			char name[160];
			snprintf(name, sizeof(name), "constant_input:%s", t->inputs[i].name);
			finding(findings, name, !constant,
				constant ? "%s is drawn as the one value %g: a formula that ignores "
					   "it, or uses its identity, passes"
					 : "%s is drawn from a distribution",
				t->inputs[i].name, d->a);
		}
		json_t *run = o->run_references ? run_child(c, w, s, o)
						: json_pack("{s:s}", "run", "skipped: not asked");
		json_t *more = json_object_get(run, "findings");
		size_t k;
		json_t *f;
		json_array_foreach(more, k, f)
		{
			if (!json_is_true(json_object_get(f, "passed")))
				locate_finding(f, s);
			json_array_append(findings, f);
		}
		const char *how = json_string_value(json_object_get(run, "run"));
		int bad = how && strncmp(how, "failed", 6) == 0;
		json_array_foreach(findings, k, f)
		{
			if (json_is_true(json_object_get(f, "passed")))
				continue;
			const nodus_waiver *x = waiver_for(
				c, t->name, w->name, json_string_value(json_object_get(f, "check")));
			if (x) {
				json_object_set_new(f, "waived", json_true());
				json_object_set_new(f, "waiver_reason", json_string(x->reason));
			} else {
				bad = 1;
			}
		}
		*failed += bad;
		json_array_append_new(items, json_pack("{s:s, s:s, s:s, s:s, s:s?, s:o}", "task",
						       t->name, "workload", w->name, "reference",
						       s->name, "verdict", bad ? "FAIL" : "PASS",
						       "run", how, "findings", findings));
		json_decref(run);
	}
	*report = json_pack("{s:s, s:s, s:o}", "campaign", c->name, "verdict",
			    *failed ? "FAIL" : "PASS", "items", items);
	return *report ? 0 : NODUS_ERR(err, NODUS_ENOMEM, "out of memory for the audit");
}

void nodus_audit_print(const json_t *report, FILE *f)
{
	size_t i, k;
	json_t *it, *x;
	int n = 0, bad = 0;
	json_array_foreach(json_object_get(report, "items"), i, it)
	{
		n++;
		const char *verdict = json_string_value(json_object_get(it, "verdict"));
		bad += strcmp(verdict, "PASS") != 0;
		fprintf(f, "%s %s/%s (reference %s; calls: %s)\n", verdict,
			json_string_value(json_object_get(it, "task")),
			json_string_value(json_object_get(it, "workload")),
			json_string_value(json_object_get(it, "reference")),
			json_string_value(json_object_get(it, "run")));
		json_array_foreach(json_object_get(it, "findings"), k, x)
		{
			if (json_is_true(json_object_get(x, "passed")))
				continue;
			int waived = json_is_true(json_object_get(x, "waived"));
			fprintf(f, "  %s %s: %s%s%s\n", waived ? "waived" : "FAIL",
				json_string_value(json_object_get(x, "check")),
				json_string_value(json_object_get(x, "detail")),
				waived ? "; waived: " : "",
				waived ? json_string_value(json_object_get(x, "waiver_reason")) : "");
		}
	}
	fprintf(f, "audit of %s: %d task-workload(s), %d failing -> %s\n",
		json_string_value(json_object_get(report, "campaign")), n, bad, bad ? "FAIL" : "PASS");
}
