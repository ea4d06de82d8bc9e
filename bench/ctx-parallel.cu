/* ctx-parallel.cu: how long N processes take to create their CUDA contexts
 * when they start at the same moment, which decides how nodus should start
 * its spare workers (one pair's worth at a time, or many at once).
 *
 *   nvcc -O2 -arch=sm_90 -o ctx-parallel bench/ctx-parallel.cu
 *   ./ctx-parallel [REPS]          one line per (N, rep), then medians
 *
 * Each child is forked from a parent that never touches CUDA, sets the
 * device, creates its context (cudaFree(0)) and reports, through a pipe,
 * when that began and ended; the parent reports the wall time from the
 * first fork until the last child is ready, and each child's own context
 * time. Children then wait until all are ready and exit together, so a
 * context being torn down never overlaps the next measurement's start. */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One measurement of n children; returns the wall time and fills the
 * children's median context time. */
static int measure(int n, double *wall_s, double *median_ctx_s, double *max_ctx_s)
{
	int report[2], release[2];
	if (pipe(report) || pipe(release)) {
		perror("pipe");
		return -1;
	}
	double t0 = now_s();
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return -1;
		}
		if (pid == 0) {
			close(report[0]);
			close(release[1]);
			double c0 = now_s();
			cudaError_t e = cudaSetDevice(0);
			if (e == cudaSuccess)
				e = cudaFree(0);
			double c1 = now_s();
			double msg[2] = {e == cudaSuccess ? c1 - c0 : -1.0, c1};
			if (write(report[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
				_exit(1);
			char b;
			(void)!read(release[0], &b, 1); /* returns at EOF: all ready */
			_exit(e == cudaSuccess ? 0 : 2);
		}
	}
	close(report[1]);
	close(release[0]);
	double ctx[64], last = t0;
	int got = 0, failed = 0;
	for (int i = 0; i < n; i++) {
		double msg[2];
		if (read(report[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			break;
		if (msg[0] < 0)
			failed++;
		ctx[got++] = msg[0];
		if (msg[1] > last)
			last = msg[1];
	}
	close(release[1]); /* everyone may exit now */
	close(report[0]);
	for (int i = 0; i < n; i++)
		wait(NULL);
	if (got != n || failed) {
		fprintf(stderr, "ctx-parallel: %d of %d children reported, %d failed\n", got, n,
			failed);
		return -1;
	}
	qsort(ctx, (size_t)n, sizeof(ctx[0]), cmp_double);
	*wall_s = last - t0;
	*median_ctx_s = ctx[n / 2];
	*max_ctx_s = ctx[n - 1];
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ctx-parallel [REPS]\n"
		       "N processes create CUDA contexts at once (N = 1 2 4 6 8 12), REPS times\n"
		       "each (default 3), interleaved; prints wall time to all ready and the\n"
		       "median and max per-child context time.\n");
		return 0;
	}
	int reps = argc > 1 ? atoi(argv[1]) : 3;
	if (reps < 1 || reps > 20) {
		fprintf(stderr, "ctx-parallel: REPS must be 1..20, got '%s'\n", argv[1]);
		return 2;
	}
	static const int ns[] = {1, 2, 4, 6, 8, 12};
	enum { NN = sizeof(ns) / sizeof(ns[0]) };
	double walls[NN][20];
	printf("%-4s %-4s %9s %9s %9s\n", "N", "rep", "wall_s", "ctx_med_s", "ctx_max_s");
	for (int r = 0; r < reps; r++) {
		for (int k = 0; k < NN; k++) {
			double wall, med, mx;
			if (measure(ns[k], &wall, &med, &mx))
				return 1;
			walls[k][r] = wall;
			printf("%-4d %-4d %9.3f %9.3f %9.3f\n", ns[k], r, wall, med, mx);
			fflush(stdout);
			usleep(300000); /* let the last contexts' teardown finish */
		}
	}
	printf("\nmedian wall to all ready, per N:\n");
	for (int k = 0; k < NN; k++) {
		qsort(walls[k], (size_t)reps, sizeof(double), cmp_double);
		printf("  N=%-3d %.3f s  (%.3f s per context)\n", ns[k], walls[k][reps / 2],
		       walls[k][reps / 2] / ns[k]);
	}
	return 0;
}
