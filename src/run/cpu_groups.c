/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cpu_groups.c: the CPUs of one host split between the orchestrators of
 * `nodus run --devices` (docs/scaling.md).
 *
 * Each orchestrator pins both timing workers of a pair to one CPU, the
 * last its own affinity allows (drive.c, timing_cpu), so that the two
 * sides launch, flush and read their clocks on one core. Orchestrators
 * started with the same affinity would all choose the same last CPU and
 * time their pairs on one core, each slowing the others' host-bound
 * calls by whatever it ran there. So each gets a group of its own: whole
 * physical cores (an SMT sibling shares its core's pipelines and caches),
 * contiguous in CPU order, which on the usual numbering keeps a group
 * inside one socket.
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/cpu_groups.h"

/* The core of cpu: the first CPU of its thread_siblings_list, or cpu
 * itself where that cannot be read. */
static int core_of(const char *root, int cpu)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", root, cpu);
	FILE *f = fopen(path, "r");
	if (!f)
		return cpu;
	int first = -1;
	if (fscanf(f, "%d", &first) != 1 || first < 0 || first >= CPU_SETSIZE)
		first = cpu;
	fclose(f);
	return first;
}

int nodus_cpu_groups(int n, cpu_set_t *groups, const char *topology_root)
{
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -1;
	return nodus_cpu_groups_of(&allowed, n, groups, topology_root);
}

int nodus_cpu_groups_of(const cpu_set_t *allowed_set, int n, cpu_set_t *groups,
			const char *topology_root)
{
	if (n < 1)
		return -1;
	const cpu_set_t allowed = *allowed_set;
	int cpus[CPU_SETSIZE], core[CPU_SETSIZE], m = 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed)) {
			cpus[m] = c;
			core[m++] = core_of(topology_root, c);
		}
	/* the distinct cores, in the order of their first CPU */
	int cores[CPU_SETSIZE], k = 0;
	for (int i = 0; i < m; i++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = cores[j] == core[i];
		if (!seen)
			cores[k++] = core[i];
	}
	for (int g = 0; g < n; g++)
		CPU_ZERO(&groups[g]);
	if (k >= n) {
		for (int i = 0; i < m; i++) {
			int j = 0;
			while (cores[j] != core[i])
				j++;
			CPU_SET(cpus[i], &groups[(long)j * n / k]);
		}
		return NODUS_SPLIT_CORES;
	}
	if (m >= n) {
		for (int i = 0; i < m; i++)
			CPU_SET(cpus[i], &groups[(long)i * n / m]);
		return NODUS_SPLIT_CPUS;
	}
	for (int g = 0; g < n; g++)
		groups[g] = allowed;
	return NODUS_SPLIT_NONE;
}

void nodus_cpu_set_format(const cpu_set_t *set, char *out, size_t size)
{
	size_t len = 0;
	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && len < size; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		int w = e > c ? snprintf(out + len, size - len, "%s%d-%d", len ? "," : "", c, e)
			      : snprintf(out + len, size - len, "%s%d", len ? "," : "", c);
		if (w < 0)
			break;
		len += (size_t)w;
		c = e;
	}
}
