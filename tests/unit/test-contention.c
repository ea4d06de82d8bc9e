/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-contention.c: what the conditions rely on without a GPU.
 *   1. a private MPS directory whose orchestrator is gone is swept; one
 *      whose orchestrator is alive is left alone;
 *   2. the cpu busy-core measurement sees a busy loop;
 *   3. cpu stressors run, report a rate, and are gone after stop.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "contention/contention.h"

static void make_mps_dir(char *dir, size_t size, long owner)
{
	snprintf(dir, size, "/tmp/nodus-mps-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char path[400];
	snprintf(path, sizeof(path), "%s/pipe", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/log", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/log/control.log", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/owner", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%ld\n", owner);
	fclose(f);
}

static void test_stale_mps_dirs_swept(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char stale[64], live[64];
	make_mps_dir(stale, sizeof(stale), (long)dead);
	make_mps_dir(live, sizeof(live), (long)getpid());
	nodus_mps_sweep_stale();
	assert_int_not_equal(access(stale, F_OK), 0);
	assert_int_equal(access(live, F_OK), 0);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", live);
	assert_int_equal(system(cmd), 0);
}

static void test_busy_cores_see_a_busy_loop(void **state)
{
	(void)state;
	pid_t hog = fork();
	if (hog == 0)
		for (;;)
			;
	double busy = 0;
	nodus_error err;
	assert_int_equal(nodus_cpu_busy_cores(300, &busy, &err), 0);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	assert_true(busy >= 0.7);
}

static void test_stressors_run_and_stop(void **state)
{
	(void)state;
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	/* the nodus binary sits at the top of the build tree, tests below it */
	char nodus[600];
	snprintf(nodus, sizeof(nodus), "%s", self);
	char *slash = strrchr(nodus, '/');
	*slash = '\0';
	slash = strrchr(nodus, '/');
	snprintf(slash, sizeof(nodus) - (size_t)(slash - nodus), "/nodus");
	if (access(nodus, X_OK) != 0)
		skip();
	nodus_condition c;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "stress");
	c.kind = NODUS_COND_CPU_STRESS;
	c.tenants = 2;
	c.load = NODUS_LOAD_COMPUTE;
	c.duty_cycle = 0.5;
	nodus_stressors s;
	nodus_error err;
	assert_int_equal(nodus_stressors_start(&s, &c, nodus, NULL, &err), 0);
	sleep(1);
	nodus_stressors_poll(&s);
	json_t *d = nodus_stressors_describe(&s, &c);
	assert_int_equal(json_integer_value(json_object_get(d, "alive")), 2);
	assert_true(json_real_value(json_object_get(d, "achieved_total")) > 0);
	json_decref(d);
	pid_t pids[2] = {s.child[0].pid, s.child[1].pid};
	nodus_stressors_stop(&s);
	for (int i = 0; i < 2; i++)
		assert_int_not_equal(kill(pids[i], 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_mps_dirs_swept),
		cmocka_unit_test(test_busy_cores_see_a_busy_loop),
		cmocka_unit_test(test_stressors_run_and_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
