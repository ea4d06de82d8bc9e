/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-nvml.c: the run-time NVML binding (src/backend/nvml.c).
 *
 * 1. Without NVML (a wrong library path, or a machine with no driver) open
 *    fails with NODUS_EUNAVAILABLE and a message naming the cause.
 * 2. Against a fake libnvidia-ml built by this test with `cc` (its answers
 *    set through environment variables), the binding must count processes
 *    from NULL-buffer queries, fall back to the old throttle-reasons
 *    symbol, read every fingerprint field, and the isolation check must
 *    fail on co-tenants and on thermal/power slowdown but not on SW power
 *    cap alone.
 * 3. Against the real NVML, when a GPU is present: open, snapshot and the
 *    process counts succeed; otherwise those tests print "skipped: no GPU".
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/nvml.h"
#include "common/common.h"

/* A fake NVML: every answer comes from an environment variable, so one
 * build serves all cases. FAKE_OLD_NAMES builds the variant of a driver
 * older than CUDA 12.2, which only has ...ClocksThrottleReasons. */
static const char fake_src[] =
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <stdio.h>\n"
	"static unsigned env(const char *n, unsigned d) {\n"
	"  const char *s = getenv(n); return s ? (unsigned)strtoul(s, 0, 0) : d; }\n"
	"static int dev_tag;\n"
	"int nvmlInit_v2(void) { return 0; }\n"
	"int nvmlShutdown(void) { return 0; }\n"
	"const char *nvmlErrorString(int rc) { return rc == 7 ? \"Insufficient Size\" : \"Fake error\"; }\n"
	"int nvmlDeviceGetCount_v2(unsigned *c) { *c = env(\"FAKE_NVML_GPUS\", 1); return 0; }\n"
	"int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { (void)i; *d = &dev_tag; return 0; }\n"
	"int nvmlDeviceGetHandleByPciBusId_v2(const char *b, void **d) {\n"
	"  if (strcmp(b, \"0000:19:00.0\")) return 6; *d = &dev_tag; return 0; }\n"
	"static int procs(const char *n, unsigned *count, void *buf) {\n"
	"  unsigned k = env(n, 0); if (buf) return 2;\n"
	"  if (k > *count) { *count = k; return 7; } *count = k; return 0; }\n"
	"int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *c, void *b) {\n"
	"  (void)d; return procs(\"FAKE_NVML_COMPUTE\", c, b); }\n"
	"int nvmlDeviceGetMPSComputeRunningProcesses_v3(void *d, unsigned *c, void *b) {\n"
	"  (void)d; return procs(\"FAKE_NVML_MPS\", c, b); }\n"
	"#ifdef FAKE_OLD_NAMES\n"
	"int nvmlDeviceGetCurrentClocksThrottleReasons(void *d, unsigned long long *r)\n"
	"#else\n"
	"int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *r)\n"
	"#endif\n"
	"{ (void)d; *r = env(\"FAKE_NVML_REASONS\", 0); return 0; }\n"
	"int nvmlDeviceGetClockInfo(void *d, int t, unsigned *v) { (void)d; *v = t == 1 ? 1980 : 3201; return 0; }\n"
	"int nvmlDeviceGetMaxClockInfo(void *d, int t, unsigned *v) { (void)d; *v = t == 1 ? 1980 : 3201; return 0; }\n"
	"int nvmlDeviceGetTemperature(void *d, int s, unsigned *v) { (void)d; (void)s; *v = 41; return 0; }\n"
	"int nvmlDeviceGetPowerUsage(void *d, unsigned *v) { (void)d; *v = 123456; return 0; }\n"
	"int nvmlDeviceGetEnforcedPowerLimit(void *d, unsigned *v) { (void)d; *v = 700000; return 0; }\n"
	"int nvmlDeviceGetName(void *d, char *s, unsigned n) { (void)d; snprintf(s, n, \"NVIDIA H200\"); return 0; }\n"
	"int nvmlDeviceGetUUID(void *d, char *s, unsigned n) { (void)d; snprintf(s, n, \"GPU-fake\"); return 0; }\n"
	"int nvmlSystemGetDriverVersion(char *s, unsigned n) { snprintf(s, n, \"580.159.04\"); return 0; }\n"
	"int nvmlDeviceGetMigMode(void *d, unsigned *c, unsigned *p) { (void)d; *c = *p = 0; return 0; }\n"
	"int nvmlDeviceGetEccMode(void *d, int *c, int *p) { (void)d; *c = *p = 1; return 0; }\n"
	"struct pci { char legacy[16]; unsigned dom, bus, dev, id, sub; char bus_id[32]; };\n"
	"int nvmlDeviceGetPciInfo_v3(void *d, struct pci *p) { (void)d; memset(p, 0, sizeof *p);\n"
	"  snprintf(p->bus_id, sizeof p->bus_id, \"00000000:19:00.0\"); return 0; }\n"
	"struct mem { unsigned long long total, free, used; };\n"
	"int nvmlDeviceGetMemoryInfo(void *d, struct mem *m) { (void)d; m->total = 150754820096ULL;\n"
	"  m->free = m->used = 0; return 0; }\n";

typedef struct fake_libs {
	char dir[64];       /* temporary directory holding both builds */
	char current[128];  /* fake with ...ClocksEventReasons */
	char old[128];      /* fake with only ...ClocksThrottleReasons */
	int built;          /* 1 when cc built both */
} fake_libs;

static int build_one(const fake_libs *f, const char *out, const char *define)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o %s %s %s/fake.c 2>/dev/null", out, define,
		 f->dir);
	return system(cmd);
}

static int setup_fake(void **state)
{
	static fake_libs f;
	memset(&f, 0, sizeof f);
	snprintf(f.dir, sizeof f.dir, "/tmp/nodus-test-nvml-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	char src[128];
	snprintf(src, sizeof src, "%s/fake.c", f.dir);
	FILE *fp = fopen(src, "w");
	if (!fp)
		return -1;
	fputs(fake_src, fp);
	fclose(fp);
	snprintf(f.current, sizeof f.current, "%s/libfake-nvml.so", f.dir);
	snprintf(f.old, sizeof f.old, "%s/libfake-nvml-old.so", f.dir);
	f.built = build_one(&f, f.current, "") == 0 && build_one(&f, f.old, "-DFAKE_OLD_NAMES") == 0;
	*state = &f;
	return 0;
}

static int teardown_fake(void **state)
{
	fake_libs *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
	if (system(cmd) != 0)
		return -1;
	unsetenv("NODUS_NVML_LIBRARY");
	return 0;
}

static void need_fake(const fake_libs *f, const char *lib)
{
	if (!f->built) {
		print_message("skipped: cc could not build the fake NVML\n");
		skip();
	}
	setenv("NODUS_NVML_LIBRARY", lib, 1);
	unsetenv("FAKE_NVML_COMPUTE");
	unsetenv("FAKE_NVML_MPS");
	unsetenv("FAKE_NVML_REASONS");
	unsetenv("FAKE_NVML_GPUS");
}

/* 1.1 a library that does not exist is "unavailable", and says which */
static void test_missing_library(void **state)
{
	(void)state;
	nodus_nvml *n = (nodus_nvml *)0x1;
	nodus_error err;
	memset(&err, 0, sizeof err);
	setenv("NODUS_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	int ret = nodus_nvml_open(&n, NULL, NULL, &err);
	unsetenv("NODUS_NVML_LIBRARY");
	assert_int_equal(ret, NODUS_EUNAVAILABLE);
	assert_int_equal(err.code, NODUS_EUNAVAILABLE);
	assert_null(n);
	assert_non_null(strstr(err.message, "no NVIDIA driver"));
	assert_non_null(strstr(err.message, "/nonexistent/libnvidia-ml.so.1"));
}

/* 2.1 counts come from NULL-buffer queries: 0 = SUCCESS, k = INSUFFICIENT_SIZE */
static void test_fake_process_counts(void **state)
{
	fake_libs *f = *state;
	need_fake(f, f->current);
	nodus_nvml *n = NULL;
	nodus_error err;
	assert_int_equal(nodus_nvml_open(&n, NULL, NULL, &err), 0);
	int compute = -1, mps = -1;
	assert_int_equal(nodus_nvml_process_counts(n, &compute, &mps, &err), 0);
	assert_int_equal(compute, 0);
	assert_int_equal(mps, 0);
	setenv("FAKE_NVML_COMPUTE", "3", 1);
	setenv("FAKE_NVML_MPS", "2", 1);
	assert_int_equal(nodus_nvml_process_counts(n, &compute, &mps, &err), 0);
	assert_int_equal(compute, 3);
	assert_int_equal(mps, 2);
	nodus_nvml_close(n);
}

/* 2.2 isolation: own process expected; co-tenants and slowdowns fail it */
static void test_fake_isolation(void **state)
{
	fake_libs *f = *state;
	need_fake(f, f->current);
	nodus_nvml *n = NULL;
	nodus_error err;
	char why[160];
	int iso = -1, others = -1;
	uint64_t reasons = 99;
	assert_int_equal(nodus_nvml_open(&n, NULL, NULL, &err), 0);

	setenv("FAKE_NVML_COMPUTE", "1", 1);
	assert_int_equal(nodus_nvml_isolation_check(n, 1, &iso, &others, &reasons, why,
						    sizeof why, &err), 0);
	assert_int_equal(iso, 1);
	assert_int_equal(others, 0);
	assert_int_equal(reasons, 0);
	assert_string_equal(why, "");

	setenv("FAKE_NVML_COMPUTE", "2", 1);
	assert_int_equal(nodus_nvml_isolation_check(n, 1, &iso, &others, &reasons, why,
						    sizeof why, &err), 0);
	assert_int_equal(iso, 0);
	assert_int_equal(others, 1);
	assert_non_null(strstr(why, "1 other process"));

	setenv("FAKE_NVML_COMPUTE", "1", 1);
	setenv("FAKE_NVML_MPS", "2", 1);
	assert_int_equal(nodus_nvml_isolation_check(n, 1, &iso, &others, NULL, why, sizeof why,
						    &err), 0);
	assert_int_equal(iso, 0);
	assert_int_equal(others, 1);

	/* SW power cap alone is a normal state under load: still isolated */
	setenv("FAKE_NVML_MPS", "0", 1);
	setenv("FAKE_NVML_REASONS", "0x4", 1);
	assert_int_equal(nodus_nvml_isolation_check(n, 1, &iso, &others, &reasons, why,
						    sizeof why, &err), 0);
	assert_int_equal(iso, 1);
	assert_int_equal(reasons, NODUS_NVML_REASON_SW_POWER_CAP);

	/* HW thermal slowdown is not */
	setenv("FAKE_NVML_REASONS", "0x44", 1);
	assert_int_equal(nodus_nvml_isolation_check(n, 1, &iso, &others, &reasons, why,
						    sizeof why, &err), 0);
	assert_int_equal(iso, 0);
	assert_int_equal(others, 0);
	assert_string_equal(why, "clocks slowed down by hw_thermal");
	nodus_nvml_close(n);
}

/* 2.3 drivers before CUDA 12.2 only have ...ClocksThrottleReasons */
static void test_fake_old_reason_symbol(void **state)
{
	fake_libs *f = *state;
	need_fake(f, f->old);
	nodus_nvml *n = NULL;
	nodus_error err;
	nodus_nvml_snapshot s;
	setenv("FAKE_NVML_REASONS", "0x8", 1);
	assert_int_equal(nodus_nvml_open(&n, NULL, NULL, &err), 0);
	assert_int_equal(nodus_nvml_snapshot_read(n, &s, &err), 0);
	assert_int_equal(s.reasons_valid, 1);
	assert_int_equal(s.clocks_event_reasons, NODUS_NVML_REASON_HW_SLOWDOWN);
	assert_int_equal(s.sm_clock_mhz, 1980);
	assert_int_equal(s.mem_clock_mhz, 3201);
	assert_int_equal(s.temperature_c, 41);
	assert_int_equal(s.power_mw, 123456);
	assert_true(s.t_ns > 0);
	nodus_nvml_close(n);
}

/* 2.4 fingerprint facts; selection by PCI bus id; zero GPUs is unavailable */
static void test_fake_info_and_selection(void **state)
{
	fake_libs *f = *state;
	need_fake(f, f->current);
	nodus_nvml *n = NULL;
	nodus_error err;
	nodus_nvml_info info;
	assert_int_equal(nodus_nvml_open(&n, "0000:19:00.0", "GPU-fake", &err), 0);
	assert_int_equal(nodus_nvml_info_read(n, &info), 0);
	assert_string_equal(info.name, "NVIDIA H200");
	assert_string_equal(info.uuid, "GPU-fake");
	assert_string_equal(info.pci_bus_id, "00000000:19:00.0");
	assert_string_equal(info.driver_version, "580.159.04");
	assert_int_equal(info.mig_mode, 0);
	assert_string_equal(info.mig_profile, "");
	assert_int_equal(info.mig_sm_count, -1);
	assert_int_equal(info.memory_bytes, 150754820096LL);
	assert_int_equal(info.power_limit_mw, 700000);
	assert_int_equal(info.ecc_enabled, 1);
	assert_int_equal(info.max_sm_clock_mhz, 1980);
	/* the fake lacks DefaultApplicationsClock: unknown, not zero */
	assert_int_equal(info.default_sm_clock_mhz, -1);
	nodus_nvml_close(n);

	assert_int_equal(nodus_nvml_open(&n, "0000:01:00.0", NULL, &err), NODUS_EUNAVAILABLE);
	assert_non_null(strstr(err.message, "0000:01:00.0"));
	assert_null(n);

	setenv("FAKE_NVML_GPUS", "0", 1);
	assert_int_equal(nodus_nvml_open(&n, NULL, NULL, &err), NODUS_EUNAVAILABLE);
	assert_non_null(strstr(err.message, "no GPU"));
	unsetenv("FAKE_NVML_GPUS");
}

/* 2.5 reason names, "none", unknown bits in hex, truncation is safe */
static void test_reasons_format(void **state)
{
	(void)state;
	char out[64];
	nodus_nvml_reasons_format(0, out, sizeof out);
	assert_string_equal(out, "none");
	nodus_nvml_reasons_format(NODUS_NVML_REASON_SW_POWER_CAP | NODUS_NVML_REASON_HW_SLOWDOWN,
				  out, sizeof out);
	assert_string_equal(out, "sw_power_cap+hw_slowdown");
	nodus_nvml_reasons_format(0x1000 | NODUS_NVML_REASON_GPU_IDLE, out, sizeof out);
	assert_string_equal(out, "gpu_idle+0x1000");
	char tiny[6];
	nodus_nvml_reasons_format(NODUS_NVML_REASON_HW_POWER_BRAKE, tiny, sizeof tiny);
	assert_true(strlen(tiny) < sizeof tiny);
}

/* 3.1 the real NVML: unavailable with a reason, or working on a GPU */
static void test_real_nvml(void **state)
{
	(void)state;
	nodus_nvml *n = NULL;
	nodus_error err;
	memset(&err, 0, sizeof err);
	unsetenv("NODUS_NVML_LIBRARY");
	int ret = nodus_nvml_open(&n, NULL, NULL, &err);
	if (ret == NODUS_EUNAVAILABLE) {
		assert_true(strlen(err.message) > 0);
		assert_non_null(strstr(err.message, "nvml"));
		print_message("skipped: no GPU (%s)\n", err.message);
		skip();
	}
	assert_int_equal(ret, 0);
	nodus_nvml_snapshot s;
	assert_int_equal(nodus_nvml_snapshot_read(n, &s, &err), 0);
	assert_true(s.sm_clock_mhz > 0);
	int compute = -1, mps = -1;
	assert_int_equal(nodus_nvml_process_counts(n, &compute, &mps, &err), 0);
	assert_true(compute >= 0 && mps >= 0);
	nodus_nvml_info info;
	assert_int_equal(nodus_nvml_info_read(n, &info), 0);
	assert_true(strlen(info.name) > 0);
	assert_true(info.memory_bytes > 0);
	nodus_nvml_close(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_fake_process_counts),
		cmocka_unit_test(test_fake_isolation),
		cmocka_unit_test(test_fake_old_reason_symbol),
		cmocka_unit_test(test_fake_info_and_selection),
		cmocka_unit_test(test_reasons_format),
		cmocka_unit_test(test_real_nvml),
	};
	return cmocka_run_group_tests(tests, setup_fake, teardown_fake);
}
