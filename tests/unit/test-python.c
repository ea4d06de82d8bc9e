/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-python.c: unit tests of the interpreter probe (src/run/python.c)
 * with stand-in interpreters: shell scripts that print the probe's JSON
 * as a real interpreter would, one per way an interpreter can be unfit
 * for a worker. Each refusal must say, naming the interpreter, what is
 * wrong; a fit one is read field by field and cached. The real probe of
 * Debian's python3 with torch runs in tests/e2e/t7000-run-torch-cpu.sh.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/python.h"

/* Writes an executable script at dir/name printing json; its path in out. */
static void fake(const char *dir, const char *name, const char *json, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", dir, name);
	FILE *f = fopen(out, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat <<'EOF'\n%s\nEOF\n", json);
	fclose(f);
	assert_int_equal(chmod(out, 0755), 0);
}

/* A libpython inside the trees a worker may read, whatever the machine. */
static const char *some_lib(void)
{
	static const char *const cands[] = {"/usr/lib/x86_64-linux-gnu/libc.so.6",
					    "/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6",
					    "/lib64/libc.so.6", NULL};
	for (int k = 0; cands[k]; k++)
		if (access(cands[k], R_OK) == 0)
			return cands[k];
	return NULL;
}

/* Probes a stand-in whose answer is json; rc and the message. */
static int probe_json(const char *name, const char *json, const nodus_python_info **py,
		      nodus_error *err)
{
	char dir[] = "/tmp/nodus-test-python-XXXXXX", path[256];
	assert_non_null(mkdtemp(dir));
	fake(dir, name, json, path, sizeof(path));
	memset(err, 0, sizeof(*err));
	int rc = nodus__python_probe(path, py, err);
	unlink(path);
	rmdir(dir);
	return rc;
}

static void expect_refused(const char *name, const char *json, const char *words)
{
	const nodus_python_info *py;
	nodus_error err;
	int rc = probe_json(name, json, &py, &err);
	if (rc == 0 || !strstr(err.message, words) || !strstr(err.message, name))
		fail_msg("%s: rc %d, message \"%s\", expected it to name the interpreter and say "
			 "\"%s\"", name, rc, err.message, words);
	assert_null(py);
}

static void test_refusals(void **state)
{
	(void)state;
	const char *lib = some_lib();
	if (!lib)
		skip();
	char dir[512], soname[256], j[2048];
	snprintf(dir, sizeof(dir), "%s", lib);
	*strrchr(dir, '/') = '\0';
	snprintf(soname, sizeof(soname), "%s", strrchr(lib, '/') + 1);
	/* 1.1 torch cannot be imported */
	snprintf(j, sizeof(j), "{\"version\": \"3.11.2\", \"prefix\": \"/usr\", \"libdir\": \"%s\", "
		 "\"soname\": \"%s\", \"shared\": true, \"path\": [\"/usr/lib\"], "
		 "\"torch_error\": \"ModuleNotFoundError: No module named 'torch'\"}", dir, soname);
	expect_refused("py-notorch", j, "cannot import torch (ModuleNotFoundError");
	/* 1.2 no shared libpython */
	snprintf(j, sizeof(j), "{\"version\": \"3.12.1\", \"prefix\": \"/usr\", \"libdir\": \"%s\", "
		 "\"soname\": \"\", \"shared\": false, \"path\": [], \"torch\": \"2.1\"}", dir);
	expect_refused("py-static", j, "has no shared libpython");
	/* 1.3 a module path a worker could not read */
	snprintf(j, sizeof(j), "{\"version\": \"3.11.2\", \"prefix\": \"/usr\", \"libdir\": \"%s\", "
		 "\"soname\": \"%s\", \"shared\": true, \"path\": [\"/usr/lib\", \"/tmp\"], "
		 "\"torch\": \"1.13.0\"}", dir, soname);
	expect_refused("py-homepath", j, "sys.path entry '/tmp' is outside the trees");
	/* 1.4 a library a worker could not read */
	snprintf(j, sizeof(j), "{\"version\": \"3.11.2\", \"prefix\": \"/usr\", \"libdir\": \"/tmp\", "
		 "\"soname\": \"libpython3.11.so.1.0\", \"shared\": true, \"path\": [], "
		 "\"torch\": \"1.13.0\"}");
	expect_refused("py-tmplib", j, "its library '/tmp/libpython3.11.so.1.0' is missing");
	/* 1.5 not the probe's JSON at all */
	expect_refused("py-garbage", "Python 2.7.18", "expected the probe's JSON");
	/* 1.6 not an absolute path */
	const nodus_python_info *py;
	nodus_error err = {0};
	assert_int_not_equal(nodus__python_probe("python3", &py, &err), 0);
	assert_non_null(strstr(err.message, "expected an executable interpreter"));
}

static void test_fit(void **state)
{
	(void)state;
	const char *lib = some_lib();
	if (!lib)
		skip();
	char dir[512], soname[256], j[2048];
	snprintf(dir, sizeof(dir), "%s", lib);
	*strrchr(dir, '/') = '\0';
	snprintf(soname, sizeof(soname), "%s", strrchr(lib, '/') + 1);
	snprintf(j, sizeof(j), "{\"version\": \"3.11.2\", \"prefix\": \"/usr\", \"libdir\": \"%s\", "
		 "\"soname\": \"%s\", \"shared\": true, \"path\": [\"/usr/lib\", \"%s\"], "
		 "\"torch\": \"1.13.0a0\"}", dir, soname, dir);
	char tdir[] = "/tmp/nodus-test-python-XXXXXX", path[256];
	assert_non_null(mkdtemp(tdir));
	fake(tdir, "py-fit", j, path, sizeof(path));
	const nodus_python_info *py = NULL, *again = NULL;
	nodus_error err = {0};
	int rc = nodus__python_probe(path, &py, &err);
	if (rc)
		fail_msg("a fit interpreter was refused: %s", err.message);
	assert_string_equal(py->version, "3.11.2");
	assert_string_equal(py->torch, "1.13.0a0");
	assert_string_equal(py->home, "/usr");
	assert_string_equal(py->libpython, lib);
	char want[1100];
	snprintf(want, sizeof(want), "/usr/lib:%s", dir);
	assert_string_equal(py->path, want);
	/* 2.1 cached: the stand-in is gone, the answer is the same object */
	unlink(path);
	rmdir(tdir);
	assert_int_equal(nodus__python_probe(path, &again, &err), 0);
	assert_ptr_equal(again, py);
}

/* 3. KEY.read: the interpreter's trees, then the prebuilt extensions'
 * directory (KEY.ext), read back in order; none of either, no file; an
 * ext_dir with a ':' is refused in words */
static void test_trees_ext(void **state)
{
	(void)state;
	char dir[] = "/tmp/nodus-test-python-XXXXXX", so[256], read[256], buf[4200];
	assert_non_null(mkdtemp(dir));
	snprintf(so, sizeof(so), "%s/KEY.so", dir);
	snprintf(read, sizeof(read), "%s/KEY.read", dir);
	nodus_python_info info;
	memset(&info, 0, sizeof(info));
	snprintf(info.trees, sizeof(info.trees), "/opt/venv/lib/site");
	nodus_error err = {0};
	const char *list[NODUS_PY_MAX_TREES];
	assert_int_equal(nodus__python_trees_write(so, &info, "/c/KEY.ext", &err), 0);
	assert_int_equal(nodus__python_trees(so, list, NODUS_PY_MAX_TREES, buf, sizeof(buf)), 2);
	assert_string_equal(list[0], "/opt/venv/lib/site");
	assert_string_equal(list[1], "/c/KEY.ext");
	info.trees[0] = '\0';
	assert_int_equal(nodus__python_trees_write(so, &info, "/c/KEY.ext", &err), 0);
	assert_int_equal(nodus__python_trees(so, list, NODUS_PY_MAX_TREES, buf, sizeof(buf)), 1);
	assert_string_equal(list[0], "/c/KEY.ext");
	assert_int_not_equal(nodus__python_trees_write(so, &info, "/c:d/KEY.ext", &err), 0);
	assert_non_null(strstr(err.message, "has a colon"));
	assert_int_equal(nodus__python_trees_write(so, &info, NULL, &err), 0);
	assert_int_equal(access(read, F_OK), -1); /* nothing to read: no file */
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_trees_ext),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
