/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * instance.c: input instances, generated identically by the orchestrator
 * (for mutation checksums), the oracle worker and the measure worker. See
 * protocol.h.
 * ------------------------------------------------------------------------ */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "judge/judge.h"
#include "run/protocol.h"
#include "run/timed_checks.h"

#define FILL_NEAR_MAX 4096 /* elements the host redraws per tensor, at most */

void nodus__instance_axes(const nodus_task *t, const nodus_workload *w, int probe,
			  int64_t axes_out[NODUS_MAX_AXES])
{
	/* a file input has the workload's shape only: with one the probe
	 * keeps the shape (an extra trial), and the audit says the shape
	 * check is lost (docs/judge.md, 2.6) */
	for (int i = 0; probe && i < t->n_inputs; i++)
		if (nodus_workload_file_input(w, i))
			probe = 0;
	for (int a = 0; a < t->n_axes; a++) {
		int64_t v = t->axes[a].is_const ? t->axes[a].value : w->axis_value[a];
		if (probe && !t->axes[a].is_const) {
			int64_t p = v - 1 - v / 8;
			v = p < 1 ? 1 : p;
		}
		axes_out[a] = v;
	}
}

int64_t nodus__tensor_numel(const nodus_tensor_spec *ts, const int64_t *axes)
{
	int64_t n = 1;
	for (int d = 0; d < ts->ndim; d++)
		n *= axes[ts->axis[d]];
	return n;
}

static const nodus_dist *input_dist(const nodus_task *t, const nodus_workload *w, int i)
{
	return w->has_init[i] ? &w->init_override[i] : &t->inputs[i].init;
}

/* The variants the judge may apply to input i (an affine_scale adds negate). */
static unsigned input_variants(const nodus_task *t, const nodus_workload *w, int i)
{
	return nodus_judge_input_variants(t->inputs[i].variants, input_dist(t, w, i));
}

int nodus__perturbation(const nodus_task *t, const nodus_workload *w, const nodus_instance *in,
			uint64_t perturb_seed, nodus_perturbation *p)
{
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(t, w, in->probe, axes);
	memset(p, 0, sizeof(*p));
	uint64_t base = nodus_judge_trial_seed(perturb_seed, (uint64_t)in->sample,
					       (uint64_t)in->copy);
	for (int i = 0; i < t->n_inputs; i++) {
		int64_t numel = nodus__tensor_numel(&t->inputs[i], axes);
		size_t esize = nodus_dtype_size(t->inputs[i].dtype);
		double scratch[NODUS_PERTURB_ELEMENTS];
		int fixed = nodus_workload_file_input(w, i);
		/* a file may hold fewer elements than the draws: it draws none */
		int rc = fixed ? 0
			       : nodus_judge_fill(scratch, t->inputs[i].dtype,
						  NODUS_PERTURB_ELEMENTS, input_dist(t, w, i), axes,
						  in->variant & input_variants(t, w, i), base,
						  (uint32_t)i);
		if (rc)
			return rc;
		for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++) {
			uint64_t r = nodus_judge_trial_seed(base, (uint64_t)i, (uint64_t)e + 1000);
			p->index[i][e] = (int64_t)(r % (uint64_t)numel);
			if (!fixed)
				memcpy(p->value[i][e], (unsigned char *)scratch + (size_t)e * esize,
				       esize);
			/* a file input keeps its values: its "perturbation" writes
			 * back the element already there, so every consumer of
			 * the perturbation (host, device patches, the timed
			 * copies' checks) leaves it as the file has it */
			if (fixed && (rc = nodus_judge_fill_at(p->value[i][e], t->inputs[i].dtype,
								p->index[i][e], input_dist(t, w, i),
								axes, 0, base, (uint32_t)i)))
				return rc;
		}
	}
	return 0;
}

struct fill_part {
	pthread_t thread;
	void *data;
	int dtype;
	int64_t first, count;
	const nodus_dist *dist;
	const int64_t *axes;
	unsigned variant;
	uint64_t seed;
	uint32_t tensor;
	int rc;
};

static void *fill_part_run(void *arg)
{
	struct fill_part *p = arg;
	p->rc = nodus_judge_fill_range(p->data, p->dtype, p->first, p->count, p->dist, p->axes,
				       p->variant, p->seed, p->tensor);
	return NULL;
}

/* Draws one tensor, split over up to `threads` threads when it is large
 * (the generator is counter-based: each range is independent). */
static int fill_tensor(void *data, int dtype, int64_t numel, const nodus_dist *dist,
		       const int64_t *axes, unsigned variant, uint64_t seed, uint32_t tensor,
		       int threads)
{
	if (threads > 16)
		threads = 16;
	/* a thread starts in tens of microseconds; give each at least 16k elements */
	if (threads > numel / 16384)
		threads = (int)(numel / 16384);
	if (threads <= 1)
		return nodus_judge_fill(data, dtype, numel, dist, axes, variant, seed, tensor);
	struct fill_part part[16];
	int64_t chunk = ((numel + threads - 1) / threads + 3) & ~(int64_t)3;
	int started = 0, rc = 0;
	for (int k = 0; k < threads; k++) {
		int64_t first = (int64_t)k * chunk;
		if (first >= numel)
			break;
		part[k] = (struct fill_part){0, data, dtype, first,
					     first + chunk > numel ? numel - first : chunk, dist, axes,
					     variant, seed, tensor, 0};
		if (pthread_create(&part[k].thread, NULL, fill_part_run, &part[k])) {
			fill_part_run(&part[k]); /* no thread: draw it here */
			part[k].thread = 0;
			if (part[k].rc)
				rc = part[k].rc;
			continue;
		}
		started = k + 1;
	}
	for (int k = 0; k < started; k++) {
		if (part[k].thread)
			pthread_join(part[k].thread, NULL);
		if (part[k].rc)
			rc = part[k].rc;
	}
	return rc;
}

double nodus__call_bytes(const nodus_task *t, const nodus_workload *w)
{
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(t, w, 0, axes);
	double bytes = 0;
	for (int i = 0; i < t->n_inputs; i++)
		bytes += (double)nodus__tensor_numel(&t->inputs[i], axes) *
			 (double)nodus_dtype_size(t->inputs[i].dtype);
	for (int o = 0; o < t->n_outputs; o++)
		bytes += (double)nodus__tensor_numel(&t->outputs[o], axes) *
			 (double)nodus_dtype_size(t->outputs[o].dtype);
	return bytes;
}

int nodus__timing_copies(const nodus_task *t, const nodus_workload *w, int cuda,
			 int64_t min_sample_ns, int input_copies)
{
	/* bytes per second a call of the backend is taken never to beat (an
	 * H200 moves 4.8 TB/s; a cpu core far less), and the memory all copies
	 * may take. Every copy costs an allocation of each tensor, its guards
	 * and a rotation (about 0.3 ms for three tensors on the H200), so the
	 * bound is kept near the real peaks: a kernel this fast gets shorter
	 * samples instead (ab-39). */
	const double fastest_bps = cuda ? 5e12 : 50e9;
	const double budget = cuda ? (double)((int64_t)4 << 30) : (double)((int64_t)1 << 30);
	double per_call = nodus__call_bytes(t, w);
	if (per_call < 64)
		per_call = 64;
	double want = (double)min_sample_ns * 1e-9 * fastest_bps / per_call;
	double n = want < input_copies ? input_copies : want;
	double fit = budget / per_call;
	if (n > fit)
		n = fit;
	if (n > NODUS_MAX_TIMING_CALLS)
		n = NODUS_MAX_TIMING_CALLS;
	return n < 1 ? 1 : (int)n;
}

int64_t nodus__copy_shift(uint64_t copy_base, int input, int copy, int64_t numel)
{
	if (copy <= 0 || numel <= 0)
		return 0;
	uint64_t r = nodus_judge_trial_seed(copy_base, 0x707a7e + (uint64_t)input, (uint64_t)copy);
	return (int64_t)(r % (uint64_t)numel);
}

uint64_t nodus__fresh_seed(uint64_t copy_base, int copy, uint64_t q)
{
	return nodus_judge_trial_seed(nodus_judge_trial_seed(copy_base, 0xf7e54d, q), 0xc0b1e5,
				      (uint64_t)copy);
}

/* A file input is never rotated: its elements' positions are its
 * structure (an index pointer is sorted, a row of indices belongs to its
 * row), unlike independently drawn elements. */
int64_t nodus__input_shift(const nodus_workload *w, uint64_t copy_base, int input, int copy,
			   int64_t numel)
{
	return nodus_workload_file_input(w, input) ? 0
						   : nodus__copy_shift(copy_base, input, copy, numel);
}

static void reverse_elements(unsigned char *p, int64_t first, int64_t last, size_t es)
{
	unsigned char tmp[16];
	for (; first < last; first++, last--) {
		memcpy(tmp, p + (size_t)first * es, es);
		memcpy(p + (size_t)first * es, p + (size_t)last * es, es);
		memcpy(p + (size_t)last * es, tmp, es);
	}
}

/* Copy in->copy of input i, from copy 0 as drawn in data: rotated left in
 * place by its shift (three reversals: no second buffer for a tensor that
 * may be large). */
static void rotate_to_copy(const nodus_workload *w, const nodus_instance *in, int i, int dtype,
			   int64_t numel, void *data)
{
	int64_t s = nodus__input_shift(w, in->copy_base, i, in->copy, numel);
	if (s == 0)
		return;
	size_t es = nodus_dtype_size(dtype);
	reverse_elements(data, 0, s - 1, es);
	reverse_elements(data, s, numel - 1, es);
	reverse_elements(data, 0, numel - 1, es);
}

int nodus__instance_fill(const nodus_task *t, const nodus_workload *w, const nodus_instance *in,
			 uint64_t perturb_seed, int threads, void *const *inputs)
{
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(t, w, in->probe, axes);
	for (int i = 0; i < t->n_inputs; i++) {
		int64_t numel = nodus__tensor_numel(&t->inputs[i], axes);
		int rc = fill_tensor(inputs[i], t->inputs[i].dtype, numel, input_dist(t, w, i), axes,
				     in->variant & input_variants(t, w, i), in->seed, (uint32_t)i,
				     threads);
		if (rc)
			return rc;
		rotate_to_copy(w, in, i, t->inputs[i].dtype, numel, inputs[i]);
	}
	if (in->sample < 0)
		return 0;
	nodus_perturbation p;
	int rc = nodus__perturbation(t, w, in, perturb_seed, &p);
	if (rc)
		return rc;
	for (int i = 0; i < t->n_inputs; i++) {
		size_t esize = nodus_dtype_size(t->inputs[i].dtype);
		for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++)
			memcpy((unsigned char *)inputs[i] + (size_t)p.index[i][e] * esize,
			       p.value[i][e], esize);
	}
	return 0;
}

int nodus__instance_fill_one(const nodus_task *t, const nodus_workload *w,
			     const nodus_instance *in, int i, int threads, void *data)
{
	if (i < 0 || i >= t->n_inputs)
		return NODUS_EINVAL;
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(t, w, in->probe, axes);
	int64_t numel = nodus__tensor_numel(&t->inputs[i], axes);
	int rc = fill_tensor(data, t->inputs[i].dtype, numel, input_dist(t, w, i), axes,
			     in->variant & input_variants(t, w, i), in->seed, (uint32_t)i, threads);
	if (rc)
		return rc;
	rotate_to_copy(w, in, i, t->inputs[i].dtype, numel, data);
	if (in->sample < 0)
		return 0;
	nodus_perturbation p;
	if ((rc = nodus__perturbation(t, w, in, in->perturb_seed, &p)))
		return rc;
	size_t esize = nodus_dtype_size(t->inputs[i].dtype);
	for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++)
		memcpy((unsigned char *)data + (size_t)p.index[i][e] * esize, p.value[i][e], esize);
	return 0;
}

/* Writes instance in's perturbation of input i into the device buffer
 * dev_data, after its values are drawn; where two perturbed elements share
 * an index the later wins, as in nodus__instance_fill, and patches of one
 * call must not overlap. */
static int patch_perturbation(const nodus_task *t, const nodus_workload *w,
			      const nodus_instance *in, int i, const nodus_backend_ops *ops,
			      void *dev, void *dev_data, nodus_error *err)
{
	static nodus_patch patches[NODUS_PERTURB_ELEMENTS];
	size_t esize = nodus_dtype_size(t->inputs[i].dtype);
	int rc;
	nodus_perturbation p;
	if ((rc = nodus__perturbation(t, w, in, in->perturb_seed, &p)))
		return NODUS_ERR(err, rc, "cannot draw a perturbation");
	int n = 0;
	for (int e = 0; e < NODUS_PERTURB_ELEMENTS; e++) {
		int later = 0;
		for (int f = e + 1; f < NODUS_PERTURB_ELEMENTS; f++)
			later |= p.index[i][f] == p.index[i][e];
		if (later)
			continue;
		memset(&patches[n], 0, sizeof(patches[n]));
		patches[n].dst = (char *)dev_data + (size_t)p.index[i][e] * esize;
		patches[n].bytes = (uint32_t)esize;
		memcpy(patches[n].value, p.value[i][e], esize);
		n++;
	}
	return ops->patch(dev, patches, n, err);
}

/* Copy in->copy > 0 of input i on the device: copy 0 drawn into a buffer
 * of its own, rotated into dev_data (two device copies), then perturbed:
 * the oracle rebuilds a checked timed call's inputs as fast as a trial's. */
static int fill_copy_device(const nodus_task *t, const nodus_workload *w,
			    const nodus_instance *in, int i, const nodus_backend_ops *ops, void *dev,
			    void *dev_data, int *done, nodus_error *err)
{
	if (!ops->copy || !ops->alloc || !ops->free)
		return 0;
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(t, w, in->probe, axes);
	int64_t numel = nodus__tensor_numel(&t->inputs[i], axes);
	size_t es = nodus_dtype_size(t->inputs[i].dtype);
	nodus_instance base = *in;
	base.copy = 0;
	base.sample = -1;
	void *tmp = NULL;
	int rc = ops->alloc(dev, (size_t)numel * es, &tmp, err);
	if (rc)
		return rc;
	rc = nodus__instance_fill_device(t, w, &base, i, ops, dev, tmp, done, err);
	if (!rc && *done) {
		size_t total = (size_t)numel * es;
		size_t cut = (size_t)nodus__input_shift(w, in->copy_base, i, in->copy, numel) * es;
		if (total - cut)
			rc = ops->copy(dev, dev_data, (const char *)tmp + cut, total - cut, err);
		if (!rc && cut)
			rc = ops->copy(dev, (char *)dev_data + (total - cut), tmp, cut, err);
	}
	ops->free(dev, tmp);
	if (rc || !*done)
		return rc;
	if (in->sample >= 0 && (rc = patch_perturbation(t, w, in, i, ops, dev, dev_data, err))) {
		*done = 0;
		return rc;
	}
	return 0;
}

int nodus__instance_fill_device(const nodus_task *t, const nodus_workload *w,
				const nodus_instance *in, int i, const nodus_backend_ops *ops,
				void *dev, void *dev_data, int *done, nodus_error *err)
{
	*done = 0;
	if (!ops->fill || i < 0 || i >= t->n_inputs)
		return 0;
	if (in->copy > 0)
		return fill_copy_device(t, w, in, i, ops, dev, dev_data, done, err);
	int64_t axes[NODUS_MAX_AXES];
	nodus__instance_axes(t, w, in->probe, axes);
	int64_t numel = nodus__tensor_numel(&t->inputs[i], axes);
	const nodus_dist *dist = input_dist(t, w, i);
	unsigned variant = in->variant & input_variants(t, w, i);
	nodus_fill_spec spec;
	if (nodus_judge_fill_spec(t->inputs[i].dtype, dist, axes, variant, in->seed, (uint32_t)i,
				  &spec))
		return 0;
	/* static: 160 kB, and a worker draws from one thread */
	static int64_t near[FILL_NEAR_MAX];
	static nodus_patch patches[FILL_NEAR_MAX];
	int n_near = 0;
	int rc = ops->fill(dev, dev_data, numel, &spec, near, FILL_NEAR_MAX, &n_near, err);
	if (rc || n_near > FILL_NEAR_MAX)
		return rc;
	size_t esize = nodus_dtype_size(t->inputs[i].dtype);
	for (int k = 0; k < n_near; k++) {
		memset(&patches[k], 0, sizeof(patches[k]));
		patches[k].dst = (char *)dev_data + (size_t)near[k] * esize;
		patches[k].bytes = (uint32_t)esize;
		rc = nodus_judge_fill_at(patches[k].value, t->inputs[i].dtype, near[k], dist, axes,
					 variant, in->seed, (uint32_t)i);
		if (rc)
			return NODUS_ERR(err, rc, "cannot draw element %lld of input %d",
					 (long long)near[k], i);
	}
	if (n_near > 0 && (rc = ops->patch(dev, patches, n_near, err)))
		return rc;
	if (in->sample >= 0 && (rc = patch_perturbation(t, w, in, i, ops, dev, dev_data, err)))
		return rc;
	*done = 1;
	return 0;
}

/* Near elements fill_many lists per buffer: a small tensor has a few (one
 * normal value in 40000), and a buffer with more is drawn again alone by
 * fill_device, whose list is longer. */
#define FILL_MANY_NEAR 64

int nodus__instance_fill_device_many(const nodus_task *t, const nodus_workload *w,
				     const nodus_instance *in, const int *input,
				     void *const *dev_data, int n, const nodus_backend_ops *ops,
				     void *dev, int *done, nodus_error *err)
{
	int rc = 0;
	for (int k = 0; k < n; k++)
		done[k] = 0;
	if (n <= 0)
		return 0;
	if (!ops->fill_many) {
		for (int k = 0; !rc && k < n; k++)
			rc = nodus__instance_fill_device(t, w, &in[k], input[k], ops, dev,
							 dev_data[k], &done[k], err);
		return rc;
	}
	int *which = malloc((size_t)n * sizeof(*which));
	int *n_near = malloc((size_t)n * sizeof(*n_near));
	void **data = malloc((size_t)n * sizeof(*data));
	int64_t *numel = malloc((size_t)n * sizeof(*numel));
	nodus_fill_spec *spec = malloc((size_t)n * sizeof(*spec));
	int64_t *near = malloc((size_t)n * FILL_MANY_NEAR * sizeof(*near));
	nodus_patch *patches = malloc((size_t)n * FILL_MANY_NEAR * sizeof(*patches));
	if (!which || !n_near || !data || !numel || !spec || !near || !patches) {
		rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory for device draws");
		goto out;
	}
	int m = 0;
	for (int k = 0; !rc && k < n; k++) {
		int i = input[k];
		if (i < 0 || i >= t->n_inputs)
			continue;
		if (in[k].copy > 0 || in[k].sample >= 0) { /* a rotation or a perturbation */
			rc = nodus__instance_fill_device(t, w, &in[k], i, ops, dev, dev_data[k],
							 &done[k], err);
			continue;
		}
		int64_t axes[NODUS_MAX_AXES];
		nodus__instance_axes(t, w, in[k].probe, axes);
		unsigned variant = in[k].variant & input_variants(t, w, i);
		if (nodus_judge_fill_spec(t->inputs[i].dtype, input_dist(t, w, i), axes, variant,
					  in[k].seed, (uint32_t)i, &spec[m]))
			continue; /* the host draws it */
		numel[m] = nodus__tensor_numel(&t->inputs[i], axes);
		data[m] = dev_data[k];
		which[m++] = k;
	}
	if (rc || !m || (rc = ops->fill_many(dev, m, data, numel, spec, near, FILL_MANY_NEAR,
					     n_near, err)))
		goto out;
	int n_patches = 0;
	for (int g = 0; !rc && g < m; g++) {
		int k = which[g], i = input[k];
		if (n_near[g] > FILL_MANY_NEAR) {
			rc = nodus__instance_fill_device(t, w, &in[k], i, ops, dev, dev_data[k],
							 &done[k], err);
			continue;
		}
		int64_t axes[NODUS_MAX_AXES];
		nodus__instance_axes(t, w, in[k].probe, axes);
		unsigned variant = in[k].variant & input_variants(t, w, i);
		size_t esize = nodus_dtype_size(t->inputs[i].dtype);
		for (int e = 0; !rc && e < n_near[g]; e++) {
			int64_t at = near[(size_t)g * FILL_MANY_NEAR + (size_t)e];
			nodus_patch *p = &patches[n_patches++];
			memset(p, 0, sizeof(*p));
			p->dst = (char *)dev_data[k] + (size_t)at * esize;
			p->bytes = (uint32_t)esize;
			rc = nodus_judge_fill_at(p->value, t->inputs[i].dtype, at, input_dist(t, w, i),
						 axes, variant, in[k].seed, (uint32_t)i);
			if (rc)
				rc = NODUS_ERR(err, rc, "cannot draw element %lld of input %d",
					       (long long)at, i);
		}
		done[k] = !rc;
	}
	if (!rc && n_patches > 0 && (rc = ops->patch(dev, patches, n_patches, err)))
		for (int g = 0; g < m; g++)
			done[which[g]] = 0;
out:
	free(which);
	free(n_near);
	free(data);
	free(numel);
	free(spec);
	free(near);
	free(patches);
	return rc;
}

/* Bytes of checked data (inputs drawn by the oracle, outputs sent by both
 * workers) an attempt may spend on checks beyond the judge's recheck_reps:
 * a call of small tensors costs almost nothing to check, and each check
 * more is a chance more to catch a candidate that skips some timed calls
 * (one that skipped 30% of them, told apart by how soon a call followed
 * the last, was FASTER in 7 of 11 attempts with two checks: session 19). */
#define EXTRA_CHECK_BYTES (8.0 * 1024 * 1024)

int nodus__timed_checks_for(const nodus_task *t, const nodus_workload *w, int recheck_reps)
{
	double per_call = nodus__call_bytes(t, w);
	double extra = per_call > 0 ? EXTRA_CHECK_BYTES / per_call : 0;
	double n = (double)recheck_reps + (recheck_reps > 0 ? extra : 0);
	return n > NODUS_TIMED_CHECKS_MAX ? NODUS_TIMED_CHECKS_MAX : (int)n;
}
