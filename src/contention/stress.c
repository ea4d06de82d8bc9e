/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stress.c: cpu stressors and the cpu isolation measurement (see
 * contention.h).
 *
 * membw streams a 256 MiB buffer (far beyond any last-level cache) through
 * read-modify-write passes; compute runs independent FMA chains that stay
 * in registers; mixed alternates the two every 50 ms. A duty cycle d keeps
 * a stressor busy for d x 100 ms of every 100 ms period.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "contention/contention.h"

#define MEMBW_BYTES ((size_t)256 << 20)

int nodus_stressors_start(nodus_stressors *s, const nodus_condition *cond, const char *self_path,
			  const char *const *env, nodus_error *err)
{
	memset(s, 0, sizeof(*s));
	if (cond->tenants > NODUS_MAX_STRESSORS)
		return NODUS_ERR(err, NODUS_EINVAL, "condition '%s': at most %d stressors",
				 cond->name, NODUS_MAX_STRESSORS);
	snprintf(s->unit, sizeof(s->unit), "%s",
		 cond->load == NODUS_LOAD_COMPUTE ? "flops/s" : "bytes/s");
	const char *cmd = cond->kind == NODUS_COND_CPU_STRESS ? "__stress" : "__gpustress";
	char duty[32];
	snprintf(duty, sizeof(duty), "%.3f", cond->duty_cycle > 0 ? cond->duty_cycle : 1.0);
	for (int i = 0; i < cond->tenants; i++) {
		const char *argv[] = {self_path, cmd, nodus_load_name(cond->load), duty, NULL};
		nodus_child_opts o;
		memset(&o, 0, sizeof(o));
		o.argv = argv;
		o.stdin_fd = -2;
		o.stdout_fd = -1;
		o.stderr_fd = -2;
		o.die_with_parent = 1;
		o.env = env;
		int rc = nodus_child_start(&s->child[i], &o, err);
		if (rc) {
			nodus_stressors_stop(s);
			return rc;
		}
		fcntl(s->child[i].out_fd, F_SETFL, O_NONBLOCK);
		s->alive[i] = 1;
		s->n++;
	}
	/* let them reach their working set (GPU ones: create a context) before
	 * anything is measured */
	struct timespec ts = {cond->kind == NODUS_COND_CPU_STRESS ? 0 : 1, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
	nodus_stressors_poll(s);
	return 0;
}

void nodus_stressors_poll(nodus_stressors *s)
{
	for (int i = 0; i < s->n; i++) {
		char buf[512];
		ssize_t n = -1;
		while (s->alive[i] && (n = read(s->child[i].out_fd, buf, sizeof(buf) - 1)) != 0) {
			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR)
					s->alive[i] = 0;
				break;
			}
			for (ssize_t k = 0; k < n; k++) {
				size_t len = strlen(s->partial[i]);
				if (buf[k] == '\n') {
					s->rate[i] = strtod(s->partial[i], NULL);
					s->partial[i][0] = '\0';
				} else if (len + 1 < sizeof(s->partial[i])) {
					s->partial[i][len] = buf[k];
					s->partial[i][len + 1] = '\0';
				}
			}
		}
		if (n == 0)
			s->alive[i] = 0;
	}
}

json_t *nodus_stressors_describe(const nodus_stressors *s, const nodus_condition *cond)
{
	json_t *rates = json_array();
	int alive = 0;
	double total = 0;
	for (int i = 0; i < s->n; i++) {
		json_array_append_new(rates, json_real(s->rate[i]));
		alive += s->alive[i];
		total += s->rate[i];
	}
	return json_pack("{s:s,s:i,s:s,s:f,s:i,s:i,s:o,s:f,s:s}", "kind",
			 nodus_condition_kind_name(cond->kind),
			 "declared_tenants", cond->tenants, "load", nodus_load_name(cond->load),
			 "duty_cycle", cond->duty_cycle, "started", s->n, "alive", alive,
			 "achieved_rates", rates, "achieved_total", total, "unit", s->unit);
}

void nodus_stressors_stop(nodus_stressors *s)
{
	for (int i = 0; i < s->n; i++) {
		nodus_child_kill(&s->child[i]);
		nodus_child_finish(&s->child[i]);
	}
	s->n = 0;
}

/* ---- the stressor process ---- */

static double now_s(void)
{
	return (double)nodus_now_ns() * 1e-9;
}

/* Streams buf in chunks; every touched cache line is read and written. */
static double membw_burst(double *buf, size_t n, size_t *pos, double until)
{
	const size_t chunk = (size_t)1 << 20;
	double bytes = 0;
	while (now_s() < until) {
		size_t end = *pos + chunk < n ? *pos + chunk : n;
		for (size_t i = *pos; i < end; i += 8)
			buf[i] = buf[i] * 0.5 + 1.0;
		bytes += (double)(end - *pos) * sizeof(double) * 2;
		*pos = end == n ? 0 : end;
	}
	return bytes;
}

static double compute_burst(double until)
{
	double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	double flops = 0;
	while (now_s() < until) {
		for (int it = 0; it < 100000; it++)
			for (int k = 0; k < 8; k++)
				a[k] = a[k] * 0.999999 + 1e-7;
		flops += 100000.0 * 8 * 2;
	}
	volatile double sink = a[0] + a[7];
	(void)sink;
	return flops;
}

int nodus_stress_main(const char *kind, double duty)
{
	int membw = strcmp(kind, "membw") == 0, mixed = strcmp(kind, "mixed") == 0;
	size_t n = MEMBW_BYTES / sizeof(double);
	double *buf = (membw || mixed) ? malloc(MEMBW_BYTES) : NULL;
	if ((membw || mixed) && !buf)
		return 1;
	if (buf)
		memset(buf, 0, MEMBW_BYTES);
	if (duty <= 0 || duty > 1)
		duty = 1;
	double work = 0, window_start = now_s();
	size_t pos = 0;
	int phase = 0;
	for (;;) {
		double period_start = now_s();
		double busy_until = period_start + 0.1 * duty;
		while (now_s() < busy_until) {
			double slice = now_s() + 0.05;
			if (slice > busy_until)
				slice = busy_until;
			int use_mem = membw || (mixed && (phase++ & 1));
			work += use_mem ? membw_burst(buf, n, &pos, slice) : compute_burst(slice);
		}
		double rest = period_start + 0.1 - now_s();
		if (rest > 0) {
			struct timespec ts = {0, (long)(rest * 1e9)};
			nanosleep(&ts, NULL);
		}
		double t = now_s();
		if (t - window_start >= 0.2) {
			printf("%.0f\n", work / (t - window_start));
			fflush(stdout);
			work = 0;
			window_start = t;
		}
	}
}

/* ---- isolation on the cpu ---- */

static int read_jiffies(unsigned long long *busy, unsigned long long *total)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	unsigned long long v[10] = {0};
	int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			 &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	fclose(f);
	if (got < 4)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++) /* guest time is already in user */
		*total += v[i];
	*busy = *total - v[3] - v[4]; /* minus idle and iowait */
	return 0;
}

int nodus_cpu_busy_cores(int window_ms, double *busy_cores, nodus_error *err)
{
	unsigned long long b0, t0, b1, t1;
	if (read_jiffies(&b0, &t0))
		return NODUS_ERR(err, NODUS_EIO, "cannot read /proc/stat");
	struct timespec ts = {window_ms / 1000, (long)(window_ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	if (read_jiffies(&b1, &t1))
		return NODUS_ERR(err, NODUS_EIO, "cannot read /proc/stat");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	*busy_cores = t1 > t0 ? (double)(b1 - b0) / (double)(t1 - t0) * (double)cpus : 0.0;
	return 0;
}
