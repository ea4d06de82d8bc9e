/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_fill.cu: the fill op, the judge's input generator on the device.
 *
 * It writes what nodus_judge_fill (src/judge/inputs.c, docs/judge.md
 * "Generator") writes for float32 data, so that a tensor of 128 MB costs a
 * kernel instead of a host draw and an upload. The integer work (Philox,
 * the 53-bit uniform) is exact. The double arithmetic uses the _rn
 * intrinsics in the host's order of operations, so nvcc cannot contract a
 * multiply and an add into an FMA the host does not make. Only log and cos
 * (the normal distribution) are not correctly rounded on either side: the
 * device's value may differ from the host's in the last bits of the
 * double, which matters only where the double lies next to a float32
 * rounding midpoint. Such elements (about one normal value in 40000 on
 * the H200) are listed, and the worker writes the host's value there.
 * ------------------------------------------------------------------------ */
#include "backend/cuda/cuda_backend.h"
#include "judge/philox_core.h"

#include <math.h>
#include <stdlib.h>

#define PHILOX_TAG 0x6e6f6475u /* "nodu", as in inputs.c */
#define TWO_PI 6.283185307179586
/* How far apart the host's and the device's normal values may be, relative
 * to the magnitudes added: log is within 1 ulp on both sides and cos within
 * 2 ulp on the device and 1 on the host, which after sqrt and three
 * roundings is under 16 ulp of the double (2^-48); 2^-40 leaves 256x. */
#define NEAR_REL 0x1p-40
#define NEAR_CAP 65536


__device__ static double uniform53(uint32_t hi, uint32_t lo)
{
	uint64_t k = (uint64_t)hi << 21 | lo >> 11;
	return __dmul_rn((double)k, 0x1p-53);
}

__device__ static double to_f32(double v)
{
	return (double)__double2float_rn(v);
}

__device__ static double step_f32(double v, int up)
{
	return (double)nextafterf((float)v, up ? INFINITY : -INFINITY);
}

/* Whether v, as the host computes it up to tol, may round to another
 * float32 than the device's. */
__device__ static int near_midpoint(double v, double tol)
{
	float f = __double2float_rn(v);
	if (isinf(f) || isnan(f))
		return 1;
	double fd = f;
	double hi = ((double)nextafterf(f, INFINITY) + fd) * 0.5;
	double lo = ((double)nextafterf(f, -INFINITY) + fd) * 0.5;
	return isinf(hi) || isinf(lo) || hi - v <= tol || v - lo <= tol; /* past FLT_MAX */
}

__global__ static void fill_kernel(float *data, int64_t numel, nodus_fill_spec s,
				   unsigned long long *n_near, int64_t *near, int max_near)
{
	int64_t blocks = (numel + 3) / 4;
	for (int64_t block = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; block < blocks;
	     block += (int64_t)gridDim.x * blockDim.x) {
		uint32_t words[4][4] = {{0}};
		for (int d = 0; d < s.n_draws; d++)
			nodus__philox4x32_10((uint32_t)block, (uint32_t)((uint64_t)block >> 32), s.tensor,
					     PHILOX_TAG + (uint32_t)d, s.key[0], s.key[1], words[d]);
		for (int lane = 0; lane < 4; lane++) {
			int64_t i = block * 4 + lane;
			if (i >= numel)
				break;
			double u = uniform53(words[0][lane], words[1][lane]);
			int sign = (words[1][lane] & 1u) ? -1 : 1;
			double v = 0.0;
			int maybe = 0;
			switch (s.kind) {
			case NODUS_FILL_NORMAL: {
				double radius = sqrt(__dmul_rn(-2.0, log(__dsub_rn(1.0, u))));
				double u2 = uniform53(words[2][lane], words[3][lane]);
				double prod = __dmul_rn(__dmul_rn(s.b, radius), cos(__dmul_rn(TWO_PI, u2)));
				v = __dadd_rn(s.a, prod);
				maybe = near_midpoint(v, (fabs(prod) + fabs(s.a)) * NEAR_REL);
				break;
			}
			case NODUS_FILL_UNIFORM:
			case NODUS_FILL_POSITIVE:
				v = __dadd_rn(s.a, __dmul_rn(__dsub_rn(s.b, s.a), u));
				break;
			case NODUS_FILL_AFFINE_SCALE:
				v = __dadd_rn(1.0, __dmul_rn((double)sign * s.a,
							    __dadd_rn(0.1, __dmul_rn(0.9, u))));
				break;
			case NODUS_FILL_AFFINE_SHIFT:
				v = __dmul_rn((double)sign * s.a, __dadd_rn(0.1, __dmul_rn(0.9, u)));
				break;
			case NODUS_FILL_CONSTANT:
				v = s.a;
				break;
			}
			/* finish_float of inputs.c, for float32 */
			double r = to_f32(v);
			if (s.kind == NODUS_FILL_UNIFORM || s.kind == NODUS_FILL_POSITIVE) {
				if (r >= s.b)
					r = step_f32(r, 0);
				if (r < s.a)
					r = step_f32(r, 1);
			}
			if (s.variant & NODUS_FILL_SCALE_3)
				r = to_f32(__dmul_rn(r, 3.0));
			if (s.variant & NODUS_FILL_SCALE_001)
				r = to_f32(__dmul_rn(r, 0.01));
			if (s.variant & NODUS_FILL_NEGATE) {
				r = -r;
				sign = -sign;
			}
			if (s.kind == NODUS_FILL_AFFINE_SCALE && r == 1.0)
				r = step_f32(r, sign > 0);
			if ((s.kind == NODUS_FILL_AFFINE_SHIFT || s.kind == NODUS_FILL_POSITIVE) &&
			    r == 0.0) {
				if (s.kind == NODUS_FILL_POSITIVE)
					sign = (s.variant & NODUS_FILL_NEGATE) ? -1 : 1;
				r = step_f32(0.0, sign > 0);
			}
			data[i] = (float)r;
			if (maybe) {
				unsigned long long k = atomicAdd(n_near, 1ull);
				if (k < (unsigned long long)max_near)
					near[k] = i;
			}
		}
	}
}

int nodus__cuda_fill_init(cuda_ctx *c, nodus_error *err)
{
	if (c->fill_near)
		return 0;
	return NODUS_CUDA_CALL(err, cudaMalloc(&c->fill_near, sizeof(unsigned long long) +
								  NEAR_CAP * sizeof(int64_t)));
}

void nodus__cuda_fill_release(cuda_ctx *c)
{
	if (c->fill_near)
		cudaFree(c->fill_near);
	c->fill_near = NULL;
	if (c->fill_many_dev)
		cudaFree(c->fill_many_dev);
	c->fill_many_dev = NULL;
	c->fill_many_bytes = 0;
}

static int launch_fill(cuda_ctx *c, void *data, int64_t numel, const nodus_fill_spec *spec,
		       unsigned long long *count, int64_t *list, int max_near, nodus_error *err)
{
	int64_t blocks = (numel + 3) / 4;
	int threads = 256;
	int64_t grid = (blocks + threads - 1) / threads;
	int cap = c->sm_count > 0 ? c->sm_count * 32 : 4096;
	fill_kernel<<<(unsigned)(grid < cap ? grid : cap), threads, 0, c->stream>>>(
		(float *)data, numel, *spec, count, list, max_near);
	return NODUS_CUDA_CALL(err, cudaGetLastError());
}

int nodus__cuda_fill(void *ctx, void *data, int64_t numel, const nodus_fill_spec *spec,
		     int64_t *near, int max_near, int *n_near, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	*n_near = 0;
	if (numel <= 0)
		return 0;
	if (spec->kind < NODUS_FILL_NORMAL || spec->kind > NODUS_FILL_CONSTANT ||
	    (spec->n_draws != 2 && spec->n_draws != 4))
		return NODUS_ERR(err, NODUS_EINVAL, "fill: kind %d with %d draws", spec->kind,
				 spec->n_draws);
	if (max_near > NEAR_CAP)
		max_near = NEAR_CAP;
	if (max_near < 0)
		max_near = 0;
	int ret = nodus__cuda_fill_init(c, err);
	unsigned long long *count = (unsigned long long *)c->fill_near;
	int64_t *list = (int64_t *)(count + 1);
	/* only a normal draw can land near a rounding midpoint: any other is
	 * left to the stream, which every op of this backend uses in order (a
	 * download synchronises it), without the count's reset, copy and wait:
	 * a fresh sample of 128 copies paid four calls and a wait per copy */
	int may_be_near = spec->kind == NODUS_FILL_NORMAL;
	if (!may_be_near)
		max_near = 0;
	if (!ret && may_be_near)
		ret = NODUS_CUDA_CALL(err, cudaMemsetAsync(count, 0, sizeof(*count), c->stream));
	(void)cudaGetLastError(); /* see cuda_patch: only our launch's error counts */
	if (!ret)
		ret = launch_fill(c, data, numel, spec, count, list, max_near, err);
	unsigned long long got = 0;
	if (ret || !may_be_near)
		return ret;
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(&got, count, sizeof(got),
							   cudaMemcpyDeviceToHost, c->stream));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaStreamSynchronize(c->stream));
	if (ret)
		return ret;
	*n_near = got > (unsigned long long)INT32_MAX ? INT32_MAX : (int)got;
	int copy = *n_near < max_near ? *n_near : max_near;
	if (copy > 0)
		ret = NODUS_CUDA_CALL(err, cudaMemcpy(near, list, (size_t)copy * sizeof(int64_t),
						      cudaMemcpyDeviceToHost));
	return ret;
}

/* One launch per buffer, each counting into its own slot, then one copy of
 * the counts and one wait for all of them; the few lists that are not
 * empty follow, one copy each. */
int nodus__cuda_fill_many(void *ctx, int n, void *const *data, const int64_t *numel,
			  const nodus_fill_spec *spec, int64_t *near, int max_near, int *n_near,
			  nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	if (n <= 0)
		return 0;
	if (max_near < 0)
		max_near = 0;
	for (int k = 0; k < n; k++) {
		n_near[k] = 0;
		if (spec[k].kind < NODUS_FILL_NORMAL || spec[k].kind > NODUS_FILL_CONSTANT ||
		    (spec[k].n_draws != 2 && spec[k].n_draws != 4))
			return NODUS_ERR(err, NODUS_EINVAL, "fill: kind %d with %d draws",
					 spec[k].kind, spec[k].n_draws);
	}
	size_t need = (size_t)n * sizeof(unsigned long long) +
		      (size_t)n * (size_t)max_near * sizeof(int64_t);
	int ret = 0;
	if (need > c->fill_many_bytes) {
		if (c->fill_many_dev)
			cudaFree(c->fill_many_dev);
		c->fill_many_dev = NULL;
		c->fill_many_bytes = 0;
		if ((ret = NODUS_CUDA_CALL(err, cudaMalloc(&c->fill_many_dev, need))))
			return ret;
		c->fill_many_bytes = need;
	}
	unsigned long long *count = (unsigned long long *)c->fill_many_dev;
	int64_t *list = (int64_t *)(count + n);
	ret = NODUS_CUDA_CALL(err, cudaMemsetAsync(count, 0, (size_t)n * sizeof(*count), c->stream));
	(void)cudaGetLastError(); /* see cuda_patch: only our launches' errors count */
	for (int k = 0; !ret && k < n; k++)
		if (numel[k] > 0)
			ret = launch_fill(c, data[k], numel[k], &spec[k], count + k,
					  list + (size_t)k * (size_t)max_near,
					  spec[k].kind == NODUS_FILL_NORMAL ? max_near : 0, err);
	unsigned long long *got = (unsigned long long *)malloc((size_t)n * sizeof(*got));
	if (!ret && !got)
		ret = NODUS_ERR(err, NODUS_ENOMEM, "out of memory for fill counts");
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaMemcpyAsync(got, count, (size_t)n * sizeof(*got),
							   cudaMemcpyDeviceToHost, c->stream));
	/* always: the kernels queued must be done before the caller goes on */
	nodus_error sync_err;
	int sync = NODUS_CUDA_CALL(&sync_err, cudaStreamSynchronize(c->stream));
	if (!ret && sync) {
		*err = sync_err;
		ret = sync;
	}
	for (int k = 0; !ret && k < n; k++) {
		n_near[k] = got[k] > (unsigned long long)INT32_MAX ? INT32_MAX : (int)got[k];
		int copy = n_near[k] < max_near ? n_near[k] : max_near;
		if (copy > 0)
			ret = NODUS_CUDA_CALL(err, cudaMemcpy(near + (size_t)k * (size_t)max_near,
							      list + (size_t)k * (size_t)max_near,
							      (size_t)copy * sizeof(int64_t),
							      cudaMemcpyDeviceToHost));
	}
	free(got);
	return ret;
}
