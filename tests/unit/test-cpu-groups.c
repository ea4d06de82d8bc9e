/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-cpu-groups.c: the CPUs split between the orchestrators of
 * `nodus run --devices` (src/run/cpu_groups.c): disjoint groups of whole
 * physical cores, contiguous, as even as they go; SMT siblings shared only
 * where there are fewer cores than groups; no split where there are fewer
 * CPUs. The topology is a folder of the test's own, laid out as sysfs.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/cpu_groups.h"

static char root[256];

/* cpus 0..ncpu-1; with smt, cpu c and c + ncpu/2 are siblings of core c
 * (the usual numbering of a two-thread-per-core host) */
static void topology(int ncpu, int smt)
{
	snprintf(root, sizeof(root), "/tmp/nodus-cpu-groups.%d", (int)getpid());
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mkdir(root, 0700), 0);
	for (int c = 0; c < ncpu; c++) {
		char dir[512], path[600];
		snprintf(dir, sizeof(dir), "%s/cpu%d", root, c);
		assert_int_equal(mkdir(dir, 0700), 0);
		snprintf(dir, sizeof(dir), "%s/cpu%d/topology", root, c);
		assert_int_equal(mkdir(dir, 0700), 0);
		snprintf(path, sizeof(path), "%s/thread_siblings_list", dir);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		int half = ncpu / 2, core = smt ? c % half : c;
		if (smt)
			fprintf(f, "%d,%d\n", core, core + half);
		else
			fprintf(f, "%d\n", c);
		fclose(f);
	}
}

static void cleanup(void)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	(void)system(cmd);
}

static cpu_set_t first_n(int n)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (int c = 0; c < n; c++)
		CPU_SET(c, &s);
	return s;
}

static void assert_disjoint_cover(const cpu_set_t *groups, int n, const cpu_set_t *all)
{
	cpu_set_t seen;
	CPU_ZERO(&seen);
	for (int g = 0; g < n; g++) {
		cpu_set_t both;
		CPU_AND(&both, &seen, &groups[g]);
		assert_int_equal(CPU_COUNT(&both), 0);
		assert_true(CPU_COUNT(&groups[g]) > 0);
		CPU_OR(&seen, &seen, &groups[g]);
	}
	assert_true(CPU_EQUAL(&seen, all));
}

/* 16 CPUs, 8 cores of two threads (c and c + 8), 4 groups: two whole cores
 * each, a core's siblings always together */
static void test_smt_cores_stay_whole(void **state)
{
	(void)state;
	topology(16, 1);
	cpu_set_t all = first_n(16), g[4];
	assert_int_equal(nodus_cpu_groups_of(&all, 4, g, root), NODUS_SPLIT_CORES);
	assert_disjoint_cover(g, 4, &all);
	char text[64];
	nodus_cpu_set_format(&g[0], text, sizeof(text));
	assert_string_equal(text, "0-1,8-9");
	nodus_cpu_set_format(&g[3], text, sizeof(text));
	assert_string_equal(text, "6-7,14-15");
	for (int gi = 0; gi < 4; gi++)
		for (int c = 0; c < 8; c++)
			assert_int_equal(CPU_ISSET(c, &g[gi]) != 0, CPU_ISSET(c + 8, &g[gi]) != 0);
	cleanup();
}

/* 8 cores, 3 groups: 3, 3 and 2 cores (floor(j * 3 / 8)), contiguous */
static void test_uneven_split_is_contiguous(void **state)
{
	(void)state;
	topology(8, 0);
	cpu_set_t all = first_n(8), g[3];
	assert_int_equal(nodus_cpu_groups_of(&all, 3, g, root), NODUS_SPLIT_CORES);
	assert_disjoint_cover(g, 3, &all);
	char text[64];
	nodus_cpu_set_format(&g[0], text, sizeof(text));
	assert_string_equal(text, "0-2");
	nodus_cpu_set_format(&g[1], text, sizeof(text));
	assert_string_equal(text, "3-5");
	nodus_cpu_set_format(&g[2], text, sizeof(text));
	assert_string_equal(text, "6-7");
	cleanup();
}

/* 2 cores of two threads, 4 groups: one CPU each, siblings shared */
static void test_fewer_cores_than_groups_splits_cpus(void **state)
{
	(void)state;
	topology(4, 1);
	cpu_set_t all = first_n(4), g[4];
	assert_int_equal(nodus_cpu_groups_of(&all, 4, g, root), NODUS_SPLIT_CPUS);
	assert_disjoint_cover(g, 4, &all);
	cleanup();
}

/* 2 CPUs, 3 groups: no split, each group every CPU */
static void test_fewer_cpus_than_groups_shares_all(void **state)
{
	(void)state;
	topology(2, 0);
	cpu_set_t all = first_n(2), g[3];
	assert_int_equal(nodus_cpu_groups_of(&all, 3, g, root), NODUS_SPLIT_NONE);
	for (int i = 0; i < 3; i++)
		assert_true(CPU_EQUAL(&g[i], &all));
	cleanup();
}

/* only the allowed CPUs are handed out (a cgroup or taskset limit kept),
 * and an unreadable topology makes each CPU a core of its own */
static void test_only_allowed_cpus_without_topology(void **state)
{
	(void)state;
	cpu_set_t allowed, g[2];
	CPU_ZERO(&allowed);
	CPU_SET(2, &allowed);
	CPU_SET(3, &allowed);
	CPU_SET(6, &allowed);
	CPU_SET(7, &allowed);
	assert_int_equal(nodus_cpu_groups_of(&allowed, 2, g, "/nonexistent"), NODUS_SPLIT_CORES);
	assert_disjoint_cover(g, 2, &allowed);
	char text[64];
	nodus_cpu_set_format(&g[0], text, sizeof(text));
	assert_string_equal(text, "2-3");
	nodus_cpu_set_format(&g[1], text, sizeof(text));
	assert_string_equal(text, "6-7");
	assert_int_equal(nodus_cpu_groups_of(&allowed, 0, g, "/nonexistent"), -1);
}

/* the process's own affinity: n groups of what it may use */
static void test_own_affinity(void **state)
{
	(void)state;
	cpu_set_t own, g[1];
	assert_int_equal(sched_getaffinity(0, sizeof(own), &own), 0);
	assert_true(nodus_cpu_groups(1, g, "/sys/devices/system/cpu") >= 0);
	assert_true(CPU_EQUAL(&g[0], &own));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smt_cores_stay_whole),
		cmocka_unit_test(test_uneven_split_is_contiguous),
		cmocka_unit_test(test_fewer_cores_than_groups_splits_cpus),
		cmocka_unit_test(test_fewer_cpus_than_groups_shares_all),
		cmocka_unit_test(test_only_allowed_cpus_without_topology),
		cmocka_unit_test(test_own_affinity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
