/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cpu_groups.h: the CPUs of one host, split between the orchestrators of
 * `nodus run --devices` (cpu_groups.c).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_RUN_CPU_GROUPS_H
#define NODUS_RUN_CPU_GROUPS_H

#include <sched.h>
#include <stddef.h>

/* How the split went: every group its own physical cores, its own CPUs
 * (SMT siblings shared between groups: fewer cores than groups), or no
 * split at all (fewer CPUs than groups: every group is every CPU). */
enum nodus_cpu_split { NODUS_SPLIT_CORES, NODUS_SPLIT_CPUS, NODUS_SPLIT_NONE };

/* Splits the CPUs this process may use into n disjoint groups (groups[0..n-1])
 * of contiguous whole physical cores, in CPU order, as even as they go.
 * topology_root is the sysfs CPU folder ("/sys/devices/system/cpu"; a test
 * gives its own), read for each CPU's SMT siblings (a CPU whose siblings
 * cannot be read is a core of its own). Returns how it split; -1 when the
 * process's affinity cannot be read. */
int nodus_cpu_groups(int n, cpu_set_t *groups, const char *topology_root);

/* The same split of the CPUs in allowed (the tests' way in). */
int nodus_cpu_groups_of(const cpu_set_t *allowed, int n, cpu_set_t *groups,
			const char *topology_root);

/* "0-7,16-23": the CPUs of set, as ranges. */
void nodus_cpu_set_format(const cpu_set_t *set, char *out, size_t size);

#endif
