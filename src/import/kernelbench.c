/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * kernelbench.c: KernelBench-format problems as nodus tasks, workloads and
 * reference solutions (see kernelbench.h; docs/import.md).
 *
 * The probe's answer (kernelbench_probe.py) lists the tensors get_inputs()
 * returned and the ones forward gave back, each with its dtype and shape,
 * and the problem's module-level integer constants. Every distinct size
 * becomes one `var` axis of the task, named after the first constant that
 * holds that value (KernelBench writes `batch_size = 16`), else `nVALUE`;
 * the workload sets them all. The task's draws are nodus's, declared:
 * floating inputs normal(0, 1) with the variants scale_3, scale_0.01 and
 * negate (so a kernel is judged on both signs and three scales), integer
 * inputs int_range over the values get_inputs() produced. The tolerance
 * is nodus's, not KernelBench's 1e-2, which passes outputs rounded to
 * bfloat16 (nodus audit's loose_tolerance). The reference's floating
 * parameters and buffers (name, shape, dtype, as Model(*init) built them)
 * go into the reference's python.params and every candidate's, so the
 * adapter gives a candidate's parameters the reference's values whatever
 * it names them (include/nodus/torch_adapter.c, redraw).
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "import/kernelbench.h"
#include "import/kernelbench-probe.h"

#define MAX_AXES 16

/* Runs the probe with its answer into the file result. */
static int run_probe(const char *python, const char *problem, const char *result,
		     const char *device, int timeout_ms, nodus_error *err)
{
	const char *argv[] = {python, "-I", "-c", nodus__kb_probe_py, problem, result, device, NULL};
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stdin_fd = -2;
	o.stdout_fd = 2; /* what the problem prints goes to our stderr, never into the answer */
	o.stderr_fd = 0;
	o.die_with_parent = 1;
	nodus_child c;
	uint64_t t0 = nodus_now_ns();
	int rc = nodus_child_start(&c, &o, err);
	if (rc)
		return rc;
	rc = nodus_child_finish_timeout(&c, timeout_ms);
	if (rc == 128 + SIGKILL && nodus_now_ns() - t0 >= (uint64_t)timeout_ms * 1000000u)
		return NODUS_ERR_AT(err, NODUS_ETIMEOUT, problem, 0, 0, "",
				    "the probe (the problem's module code, get_init_inputs(), "
				    "get_inputs() and one forward call on the %s) did not finish "
				    "within %d s (--timeout)", device, timeout_ms / 1000);
	if (rc)
		return NODUS_ERR_AT(err, NODUS_ECHILD, problem, 0, 0, "",
				    "'%s' running the probe exited with status %d", python, rc);
	return 0;
}

int nodus__kb_probe(const char *python, const char *problem, const char *device, int timeout_ms,
		    json_t **out,
		    nodus_error *err)
{
	char result[] = "/tmp/nodus-kb-probe-XXXXXX";
	*out = NULL;
	int fd = mkstemp(result);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot create a temporary file: %s", strerror(errno));
	close(fd);
	int rc = run_probe(python, problem, result, device, timeout_ms, err);
	json_error_t je;
	json_t *r = rc ? NULL : json_load_file(result, 0, &je);
	unlink(result);
	if (!rc && !json_is_object(r))
		rc = NODUS_ERR_AT(err, NODUS_ECHILD, problem, 0, 0, "",
				  "expected the probe's JSON answer, got none (%s)", je.text);
	const char *e = json_string_value(json_object_get(r, "error"));
	if (!rc && e) {
		const char *file = json_string_value(json_object_get(r, "file"));
		int line = (int)json_integer_value(json_object_get(r, "line"));
		rc = NODUS_ERR_AT(err, NODUS_EINVAL, file && *file ? file : problem, line, 0, "", "%s",
				  e);
	}
	if (rc)
		json_decref(r);
	else
		*out = r;
	return rc;
}

void nodus__kb_name(const char *path, char *out, size_t out_size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base), n = 0;
	if (len > 3 && strcmp(base + len - 3, ".py") == 0)
		len -= 3;
	size_t most = out_size - 1 < NODUS_KB_NAME_MAX ? out_size - 1 : NODUS_KB_NAME_MAX;
	if (len == 0 || (base[0] >= '0' && base[0] <= '9')) {
		snprintf(out, out_size, "kb_");
		n = 3;
	}
	for (size_t k = 0; k < len && n < most; k++) {
		char ch = base[k];
		int ok = ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') ||
			 (ch >= 'a' && ch <= 'z');
		out[n++] = ok ? ch : '_';
	}
	out[n] = 0;
}

/* The task's axes: one per distinct size, in the order met. */
struct axes {
	json_int_t value[MAX_AXES];  /* the size */
	int var[MAX_AXES];           /* 1: a var axis (the workload sets it), 0: const */
	char name[MAX_AXES][64];     /* its axis name */
	int n;                       /* axes used */
};

/* The axis name of size v (added when new), or NULL when there are too many. */
static const char *axis_for(struct axes *a, json_int_t v, const json_t *constants)
{
	for (int k = 0; k < a->n; k++)
		if (a->value[k] == v)
			return a->name[k];
	if (a->n == MAX_AXES)
		return NULL;
	char *name = a->name[a->n];
	size_t i;
	json_t *c;
	snprintf(name, 64, "n%lld", (long long)v);
	json_array_foreach(constants, i, c) {
		if (json_integer_value(json_array_get(c, 1)) == v) {
			snprintf(name, 64, "%s", json_string_value(json_array_get(c, 0)));
			break;
		}
	}
	for (int k = 0; k < a->n; k++)
		if (strcmp(a->name[k], name) == 0) /* a constant of another value named so */
			snprintf(name, 64, "n%lld_", (long long)v);
	a->var[a->n] = 0;
	a->value[a->n++] = v;
	return name;
}

/* The shape of tensor t as axis names (null for a scalar). */
static int shape_of(const json_t *t, struct axes *a, const json_t *constants, const char *problem,
		    const char *what, json_t **out, nodus_error *err)
{
	const json_t *dims = json_object_get(t, "shape");
	*out = json_array_size(dims) ? json_array() : json_null();
	size_t i;
	json_t *d;
	json_array_foreach(dims, i, d) {
		json_int_t v = json_integer_value(d);
		if (v < 1 || v > ((json_int_t)1 << 40))
			return NODUS_ERR_AT(err, NODUS_EINVAL, problem, 0, 0, "", "%s: dimension %zu "
					    "is %lld, nodus's axes are in [1, 2^40]", what, i,
					    (long long)v);
		const char *name = axis_for(a, v, constants);
		if (!name)
			return NODUS_ERR_AT(err, NODUS_EINVAL, problem, 0, 0, "", "more than %d "
					    "distinct sizes, nodus's tasks have at most %d axes",
					    MAX_AXES, MAX_AXES);
		json_array_append_new(*out, json_string(name));
	}
	return 0;
}

/* The declared draw of input t, and the note that says what it replaces. */
static json_t *draw_for(const json_t *t, const char *name, nodus_buf *notes)
{
	double lo = json_number_value(json_object_get(t, "min"));
	double hi = json_number_value(json_object_get(t, "max"));
	if (!json_is_true(json_object_get(t, "floating"))) {
		nodus_buf_addf(notes, "input %s: integers drawn by nodus from [%.0f, %.0f], the range "
			       "get_inputs() produced\n", name, lo, hi);
		return json_pack("{s:s, s:I, s:I}", "dist", "int_range", "low", (json_int_t)lo,
				 "high", (json_int_t)hi);
	}
	const char *seen = lo >= 0 && hi < 1 ? "values in [0, 1) (torch.rand's)"
			   : lo >= 0	      ? "non-negative values"
					      : "values of both signs";
	/* the values themselves (torch's generator's) stay out of the task, so
	 * that another torch imports the same files */
	nodus_buf_addf(notes, "input %s: get_inputs() drew %s; nodus draws normal(0, 1) and the "
		       "variants scale_3, scale_0.01, negate instead (edit the task's init if the "
		       "problem needs another range)\n", name, seen);
	return json_pack("{s:s, s:i, s:i}", "dist", "normal", "mean", 0, "std", 1);
}

/* The task's inputs. */
static int task_inputs(const json_t *probe, struct axes *a, const char *problem, json_t *list,
		       nodus_buf *notes, nodus_error *err)
{
	const json_t *constants = json_object_get(probe, "constants");
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(probe, "inputs"), i, t) {
		char what[64];
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *shape;
		snprintf(what, sizeof(what), "input %s", name);
		int rc = shape_of(t, a, constants, problem, what, &shape, err);
		if (rc) {
			json_decref(shape);
			return rc;
		}
		json_t *in = json_pack("{s:s, s:O, s:o, s:o}", "name", name, "dtype",
				       json_object_get(t, "dtype"), "shape", shape, "init",
				       draw_for(t, name, notes));
		if (json_is_true(json_object_get(t, "floating")))
			json_object_set_new(in, "variants", json_pack("[s, s, s]", "scale_3",
								      "scale_0.01", "negate"));
		json_array_append_new(list, in);
	}
	return 0;
}

/* 1 if name is one of the inputs' names. */
static int is_input(const json_t *probe, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(probe, "inputs"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return 1;
	return 0;
}

/* The task's outputs: y (one), or y0, y1, ...; out_ before a name an input has. */
static int task_outputs(const json_t *probe, struct axes *a, const char *problem, json_t *list,
			double *tol_default, nodus_error *err)
{
	const json_t *outs = json_object_get(probe, "outputs");
	size_t i;
	json_t *t;
	*tol_default = 1e-4;
	json_array_foreach(outs, i, t) {
		char name[32], what[48];
		snprintf(name, sizeof(name), json_array_size(outs) == 1 ? "y" : "y%zu", i);
		if (is_input(probe, name))
			snprintf(name, sizeof(name), json_array_size(outs) == 1 ? "out_y" : "out_y%zu", i);
		snprintf(what, sizeof(what), "output %s", name);
		json_t *shape;
		int rc = shape_of(t, a, json_object_get(probe, "constants"), problem, what, &shape, err);
		if (rc) {
			json_decref(shape);
			return rc;
		}
		const char *dtype = json_string_value(json_object_get(t, "dtype"));
		if (strcmp(dtype, "float16") == 0 && *tol_default < 1e-3)
			*tol_default = 1e-3;
		if (strcmp(dtype, "bfloat16") == 0)
			*tol_default = 1e-2;
		json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "name", name, "dtype", dtype,
						      "shape", shape));
	}
	return 0;
}

/* The task's description: where it came from and what was replaced. */
static json_t *describe(const char *problem, const nodus_buf *notes,
			double atol, double rtol)
{
	nodus_buf d = NODUS_BUF_INIT;
	const char *base = strrchr(problem, '/');
	nodus_buf_addf(&d, "KernelBench problem %s, imported by 'nodus import kernelbench': the "
		       "outputs of Model(*get_init_inputs())(*inputs). ", base ? base + 1 : problem);
	nodus_buf_addf(&d, "nodus draws the inputs, not get_inputs(): ");
	for (const char *p = notes->data; *p && d.len < 3600; p++)
		nodus_buf_add(&d, *p == '\n' ? "; " : p, 1 + (*p == '\n'));
	nodus_buf_addf(&d, "tolerance atol %g, rtol %g (nodus's; KernelBench's 1e-2 passes outputs "
		       "rounded to bfloat16)", atol, rtol);
	json_t *s = json_stringn(d.data, d.len > 4095 ? 4095 : d.len);
	nodus_buf_release(&d);
	return s;
}

/* Marks the axes the probe found may vary, and says which do not. */
static void mark_var(struct axes *a, const json_t *probe, nodus_buf *notes)
{
	size_t i;
	json_t *v;
	int n_var = 0;
	json_array_foreach(json_object_get(probe, "var"), i, v)
		for (int k = 0; k < a->n; k++)
			if (a->value[k] == json_integer_value(v)) {
				a->var[k] = 1;
				n_var++;
			}
	const char *why = json_string_value(json_object_get(probe, "fixed_why"));
	if (why && *why)
		nodus_buf_addf(notes, "axes: every size is const, so the judge's shape probe (each "
			       "var axis made smaller) cannot run: Model failed on the smaller "
			       "shape: %s\n", why);
	else if (n_var < a->n)
		nodus_buf_addf(notes, "axes: %d of %d const (an argument of get_init_inputs(), or "
			       "a size of an output only); the others vary in the judge's shape "
			       "probe\n", a->n - n_var, a->n);
}

/* The workload: every var axis at the value get_inputs() used. */
static json_t *workload_for(const char *name, const struct axes *a)
{
	json_t *axes = json_object();
	for (int k = 0; k < a->n; k++)
		if (a->var[k])
			json_object_set_new(axes, a->name[k], json_integer(a->value[k]));
	return json_pack("{s:s, s:i, s:s, s:s, s:o}", "kind", "workload", "format", 1, "name", name,
			 "task", name, "axes", axes);
}

int nodus__kb_problem(const char *name, const char *problem, const char *source,
		      const json_t *probe, const nodus_kb_tolerance *tol, json_t **task,
		      json_t **workload, json_t **solution, nodus_buf *notes, nodus_error *err)
{
	struct axes a;
	json_t *ins = json_array(), *outs = json_array();
	double def = 1e-4;
	char ref[NODUS_KB_NAME_MAX + 8];
	*task = *workload = *solution = NULL;
	memset(&a, 0, sizeof(a));
	int rc = task_inputs(probe, &a, problem, ins, notes, err);
	if (!rc)
		rc = task_outputs(probe, &a, problem, outs, &def, err);
	if (rc) {
		json_decref(ins);
		json_decref(outs);
		return rc;
	}
	double atol = tol && tol->atol >= 0 ? tol->atol : def;
	double rtol = tol && tol->rtol >= 0 ? tol->rtol : def;
	json_t *axes = json_object();
	mark_var(&a, probe, notes);
	for (int k = 0; k < a.n; k++)
		json_object_set_new(axes, a.name[k],
				    a.var[k] ? json_pack("{s:s}", "type", "var")
					     : json_pack("{s:s, s:I}", "type", "const", "value",
							 a.value[k]));
	*task = json_pack("{s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:{s:f, s:f}, s:b}", "kind", "task",
			  "format", 1, "name", name, "description",
			  describe(problem, notes, atol, rtol), "axes", axes, "inputs", ins,
			  "outputs", outs, "tolerance", "atol", atol, "rtol", rtol,
			  "deterministic", 1);
	*workload = workload_for(name, &a);
	snprintf(ref, sizeof(ref), "%s_ref", name);
	*solution = nodus__kb_candidate(ref, name, source, json_object_get(probe, "init"),
					json_object_get(probe, "params"));
	const char *why = json_string_value(json_object_get(probe, "params_why"));
	if (why && *why)
		nodus_buf_addf(notes, "parameters: not declared (%s): the adapter redraws them by "
			       "position and shape, so a candidate must declare them in the "
			       "reference's order\n", why);
	if (*solution) {
		json_object_set_new(*solution, "entry", json_string("Model"));
		json_object_set_new(*solution, "tags", json_pack("[s, s]", "reference", "kernelbench"));
	}
	if (!*task || !*workload || !*solution) {
		json_decref(*task);
		json_decref(*workload);
		json_decref(*solution);
		*task = *workload = *solution = NULL;
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	}
	return 0;
}

json_t *nodus__kb_candidate(const char *name, const char *task, const char *source,
			    const json_t *init, const json_t *params)
{
	json_t *py = json_pack("{s:s}", "style", "module");
	if (py && json_array_size(init))
		json_object_set_new(py, "init", json_deep_copy(init));
	/* the reference's parameters, the same in every solution of the
	 * problem: the adapter matches each side's own against them */
	if (py && json_array_size(params))
		json_object_set_new(py, "params", json_deep_copy(params));
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:[s], s:s, s:[s, s]}", "kind",
			 "solution", "format", 1, "name", name, "task", task, "backend", "cpu",
			 "language", "python", "python", py, "sources", source, "entry", "ModelNew",
			 "tags", "candidate", "kernelbench");
}
