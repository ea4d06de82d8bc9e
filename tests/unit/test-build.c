/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-build.c: unit tests of the confined build's pieces that decide
 * from text alone: the flag allow-list (src/spec/flags.c), what a
 * dependency list may name (src/run/build_deps.c), which compiler lines
 * reach a record (src/run/build_log.c), and the Landlock ruleset
 * (src/exec/landlock.c) in a forked child. The whole build, under the
 * jail, is tested end to end by tests/e2e/t2200-build-confined.sh.
 * ------------------------------------------------------------------------ */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/landlock.h"
#include "run/build-internal.h"
#include "spec/spec-internal.h"

/* ---- flags ---- */

static void test_flags_allowed(void **state)
{
	(void)state;
	static const char *const cpu_ok[] = {"-O2", "-O3", "-Ofast", "-march=native", "-mavx2",
					     "-funroll-loops", "-ffast-math", "-fopenmp", "-DN=4",
					     "-UNDEBUG", "-std=c17", "-g", "-Wall", "-Werror=vla",
					     "-pthread"};
	for (size_t k = 0; k < sizeof(cpu_ok) / sizeof(cpu_ok[0]); k++)
		if (nodus__flag_fault(cpu_ok[k], NODUS_BACKEND_CPU))
			fail_msg("cpu flag %s refused: %s", cpu_ok[k],
				 nodus__flag_fault(cpu_ok[k], NODUS_BACKEND_CPU));
	static const char *const cuda_ok[] = {"-O3", "--use_fast_math", "-lineinfo",
					      "--maxrregcount=64", "-Xcompiler=-O3,-march=native",
					      "--fmad=false"};
	for (size_t k = 0; k < sizeof(cuda_ok) / sizeof(cuda_ok[0]); k++)
		if (nodus__flag_fault(cuda_ok[k], NODUS_BACKEND_CUDA))
			fail_msg("cuda flag %s refused: %s", cuda_ok[k],
				 nodus__flag_fault(cuda_ok[k], NODUS_BACKEND_CUDA));
}

static void test_flags_refused(void **state)
{
	(void)state;
	/* each rebinds symbols, or makes the tool chain read, run or write a
	 * file of the solution's choosing, or redirects the output */
	static const char *const bad[] = {
		"-Wl,--wrap=malloc", "-Wl,--defsym=a=b", "-Xlinker", "-zinterpose", "-z",
		"-include", "-includex.h", "-imacrosx.h", "-B.", "-Bprefix", "-specs=x", "--specs=x",
		"-fplugin=x.so", "-fprofile-use=x", "-fauto-profile=x", "-fsanitize=address",
		"-fuse-ld=lld", "-flto", "-fdump-tree-all", "-Tx.ld", "-Wa,-I.", "-Wp,-include,x",
		"-Isub", "-iquote.", "-isystem.", "-L.", "-lm", "-o", "-x", "-nostdlib", "-static",
		"-save-temps", "-MD", "-MF", "-wrapper", "-D4N", "--param=x", "-foffload=nvptx",
		"-fmodule-mapper=x", "-Xassembler", "-Xpreprocessor", "@file", "-Wl,@file"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		if (!nodus__flag_fault(bad[k], NODUS_BACKEND_CPU))
			fail_msg("cpu flag %s allowed", bad[k]);
	static const char *const cuda_bad[] = {
		"-Xcompiler=-Wl,--wrap=malloc", "-Xcompiler", "--compiler-options=-B.",
		"--linker-options=--wrap=x", "-Xlinker=--defsym=a=b", "--run", "-run", "-ccbin=gcc",
		"--compiler-bindir=x", "--options-file=x", "-optf=x",
		"-forward-unknown-to-host-compiler", "--pre-include=x", "-Xptxas=-v", "-odir=x",
		"--keep", "-Xnvlink=x", "--dependency-output=x", "-include", "-fatbin"};
	for (size_t k = 0; k < sizeof(cuda_bad) / sizeof(cuda_bad[0]); k++)
		if (!nodus__flag_fault(cuda_bad[k], NODUS_BACKEND_CUDA))
			fail_msg("cuda flag %s allowed", cuda_bad[k]);
}

/* ---- dependencies and the log filter ---- */

static char dir[] = "/tmp/nodus-test-build-XXXXXX";
static build_paths paths;

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup_paths(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/sol", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/inc", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bd", dir);
	mkdir(p, 0755);
	memset(&paths, 0, sizeof(paths));
	snprintf(paths.sol_dir, sizeof(paths.sol_dir), "%s/sol", dir);
	snprintf(paths.include_dir, sizeof(paths.include_dir), "%s/inc", dir);
	snprintf(paths.build_dir, sizeof(paths.build_dir), "%s/bd", dir);
	snprintf(paths.sources[0], sizeof(paths.sources[0]), "%s/sol/k.c", dir);
	snprintf(paths.sources[1], sizeof(paths.sources[1]), "%s/sol/k.h", dir);
	paths.n_sources = 2;
	snprintf(paths.roots[0], sizeof(paths.roots[0]), "/usr");
	paths.n_roots = 1;
	write_file(paths.sources[0], "int k;\n");
	write_file(paths.sources[1], "#define K 1\n");
	snprintf(p, sizeof(p), "%s/sol/unlisted.h", dir);
	write_file(p, "#define U 1\n");
	snprintf(p, sizeof(p), "%s/inc/nodus.h", dir);
	write_file(p, "/* nodus */\n");
	/* links in the solution's directory: out of it, and to an unlisted file */
	char link[PATH_MAX + 32];
	snprintf(link, sizeof(link), "%s/sol/to_passwd.h", dir);
	if (symlink("/etc/passwd", link))
		return -1;
	snprintf(link, sizeof(link), "%s/sol/to_unlisted.h", dir);
	return symlink("unlisted.h", link) ? -1 : 0;
}

static int teardown_paths(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Writes a make rule naming deps (space-separated) and checks it. */
static int check_deps(const char *deps, nodus_buf *sealed, char *why, size_t size)
{
	char file[PATH_MAX], text[4096];
	snprintf(file, sizeof(file), "%s/bd/t.d", dir);
	snprintf(text, sizeof(text), "obj0.o: %s\n", deps);
	write_file(file, text);
	return nodus__build_deps_check(&paths, file, 0, sealed, why, size);
}

static void test_deps(void **state)
{
	(void)state;
	nodus_buf sealed = NODUS_BUF_INIT;
	char why[512] = "", deps[2048];
	/* the sources, nodus's header, a tool chain header, a vanished temporary */
	snprintf(deps, sizeof(deps), "%s/sol/k.c \\\n %s/sol/k.h %s/inc/nodus.h /usr/include/stdio.h "
		 "%s/bd/ccGONE.s", dir, dir, dir, dir);
	assert_int_equal(check_deps(deps, &sealed, why, sizeof(why)), 0);
	if (!strstr(sealed.data, "/usr/include/stdio.h\n") || !strstr(sealed.data, "inc/nodus.h\n") ||
	    strstr(sealed.data, "k.c"))
		fail_msg("sealed list wrong: %s", sealed.data);
	/* a file of the solution's directory that sources do not list */
	snprintf(deps, sizeof(deps), "%s/sol/k.c %s/sol/unlisted.h", dir, dir);
	/* (a mistake: the message says what to add) */
	assert_int_equal(check_deps(deps, &sealed, why, sizeof(why)), BUILD_REFUSED_MISTAKE);
	if (!strstr(why, "'unlisted.h'") || !strstr(why, "build_undeclared_read") ||
	    !strstr(why, "add \"unlisted.h\" to its \"sources\""))
		fail_msg("unlisted header: %s", why);
	/* a file outside (an attack): through the solution's directory and "..", too */
	assert_int_equal(check_deps("/etc/passwd", &sealed, why, sizeof(why)), BUILD_REFUSED_HACK);
	if (!strstr(why, "/etc/passwd") || !strstr(why, "build_outside_read"))
		fail_msg("outside file: %s", why);
	snprintf(deps, sizeof(deps), "%s/sol/../inc/../../../etc/hostname", dir);
	assert_int_equal(check_deps(deps, &sealed, why, sizeof(why)), BUILD_REFUSED_HACK);
	/* /proc resolves otherwise here than in the compiler; an absolute
	 * file that vanished was not a temporary of the build */
	assert_int_equal(check_deps("/proc/self/cwd/../../etc/shadow", &sealed, why, sizeof(why)),
			 BUILD_REFUSED_HACK);
	assert_int_equal(check_deps("/proc/self/root/etc/shadow", &sealed, why, sizeof(why)),
			 BUILD_REFUSED_HACK);
	assert_int_equal(check_deps("/nonexistent/vanished.h", &sealed, why, sizeof(why)),
			 BUILD_REFUSED_HACK);
	/* a link in the solution's directory is judged by what it points at */
	snprintf(deps, sizeof(deps), "%s/sol/to_passwd.h", dir);
	assert_int_equal(check_deps(deps, &sealed, why, sizeof(why)), BUILD_REFUSED_HACK);
	snprintf(deps, sizeof(deps), "%s/sol/to_unlisted.h", dir);
	assert_int_equal(check_deps(deps, &sealed, why, sizeof(why)), BUILD_REFUSED_MISTAKE);
	snprintf(deps, sizeof(deps), "%s/bd/ccGONE.s tmpxft_GONE.cpp", dir);
	assert_int_equal(check_deps(deps, &sealed, why, sizeof(why)), 0);
	/* no dependency list at all is a refusal, not a pass */
	char missing[PATH_MAX];
	snprintf(missing, sizeof(missing), "%s/bd/none.d", dir);
	assert_int_equal(nodus__build_deps_check(&paths, missing, 0, &sealed, why, sizeof(why)),
			 BUILD_REFUSED_MISTAKE);
	assert_non_null(strstr(why, "build_deps"));
	nodus_buf_release(&sealed);
}

/* One failed step's output line; what nodus__build_denied makes of it. */
static enum build_refusal denied(const char *fmt, const char *arg, char *why, size_t size,
				 char *guard)
{
	char raw[4096];
	snprintf(raw, sizeof(raw), "compilation of something\n");
	size_t n = strlen(raw);
	snprintf(raw + n, sizeof(raw) - n, fmt, arg);
	why[0] = guard[0] = '\0';
	return nodus__build_denied(&paths, raw, "build_confined", why, size, guard, 40);
}

static void test_denied(void **state)
{
	(void)state;
	char why[1024], guard[40];
	/* cc1 (#include "..."): the path as it opened it, absolute */
	assert_int_equal(denied("%s/sol/k.c:1:10: fatal error: /etc/passwd: Permission denied\n",
				dir, why, sizeof(why), guard),
			 BUILD_REFUSED_HACK);
	assert_string_equal(guard, "build_confined");
	if (!strstr(why, "'/etc/passwd'"))
		fail_msg("outside file not named: %s", why);
	char line[PATH_MAX + 128];
	/* an unlisted header next to the source: a mistake, and what to add */
	snprintf(line, sizeof(line), "%%s/sol/k.c:1:10: fatal error: %s/sol/unlisted.h: "
		 "Permission denied", dir);
	assert_int_equal(denied(line, dir, why, sizeof(why), guard), BUILD_REFUSED_MISTAKE);
	assert_string_equal(guard, "build_undeclared_read");
	if (!strstr(why, "add \"unlisted.h\" to its \"sources\""))
		fail_msg("no advice for the unlisted header: %s", why);
	/* "..", and links: judged by what they resolve to */
	snprintf(line, sizeof(line), "x.c:1:1: fatal error: %s/sol/../sol/unlisted.h: "
		 "Permission denied%%s", dir);
	assert_int_equal(denied(line, "", why, sizeof(why), guard), BUILD_REFUSED_MISTAKE);
	snprintf(line, sizeof(line), "x.c:1:1: fatal error: %s/sol/../../../../../../etc/passwd: "
		 "Permission denied%%s", dir);
	assert_int_equal(denied(line, "", why, sizeof(why), guard), BUILD_REFUSED_HACK);
	snprintf(line, sizeof(line), "x.c:1:1: fatal error: %s/sol/to_passwd.h: "
		 "Permission denied%%s", dir);
	assert_int_equal(denied(line, "", why, sizeof(why), guard), BUILD_REFUSED_HACK);
	snprintf(line, sizeof(line), "x.c:1:1: fatal error: %s/sol/to_unlisted.h: "
		 "Permission denied%%s", dir);
	assert_int_equal(denied(line, "", why, sizeof(why), guard), BUILD_REFUSED_MISTAKE);
	/* no location: __has_include, #pragma GCC dependency, -include */
	assert_int_equal(denied("cc1: fatal error: %s: Permission denied\n", "/etc/passwd", why,
				sizeof(why), guard),
			 BUILD_REFUSED_HACK);
	assert_int_equal(denied("cc1: fatal error: %s: Permission denied\n", "/proc/self/environ",
				why, sizeof(why), guard),
			 BUILD_REFUSED_HACK);
	/* gas: .include, and .incbin relative to its cwd (the build directory) */
	assert_int_equal(denied("%s/bd/cc.s:4: Error: can't open /etc/passwd for reading: "
				"Permission denied\n", dir, why, sizeof(why), guard),
			 BUILD_REFUSED_HACK);
	assert_int_equal(denied("cc.s:4: Error: file not found: %s\n",
				"../../../../../../../../etc/passwd", why, sizeof(why), guard),
			 BUILD_REFUSED_HACK);
	assert_int_equal(denied("cc.s:4: Error: file not found: %s\n", "../sol/unlisted.h", why,
				sizeof(why), guard),
			 BUILD_REFUSED_MISTAKE);
	/* a typo is the compiler's own error; so is a tool chain file failing */
	assert_int_equal(denied("k.c:1:10: fatal error: %s: No such file or directory\n", "typo.h",
				why, sizeof(why), guard),
			 BUILD_REFUSED_NO);
	assert_int_equal(denied("cc.s:4: Error: file not found: %s\n", "nothere.bin", why,
				sizeof(why), guard),
			 BUILD_REFUSED_NO);
	assert_int_equal(denied("k.c:1:10: fatal error: %s: Permission denied\n",
				"/usr/include/stdio.h", why, sizeof(why), guard),
			 BUILD_REFUSED_NO);
	assert_string_equal(guard, "");
	/* without Landlock: a diagnostic located in a foreign file shows it was read */
	assert_int_equal(denied("%s: Assembler messages:\n/etc/passwd:13: Error: invalid character\n",
				"/etc/passwd", why, sizeof(why), guard),
			 BUILD_REFUSED_HACK);
	snprintf(line, sizeof(line), "In file included from %s/sol/k.c:1:\n%s/sol/unlisted.h:1:9: "
		 "error: bad%%s", dir, dir);
	assert_int_equal(denied(line, "", why, sizeof(why), guard), BUILD_REFUSED_MISTAKE);
	/* located in the sources, the include directory or a tool chain header: the compiler's */
	snprintf(line, sizeof(line), "In file included from %s/sol/k.c:1:\n%s/inc/nodus.h:1:2: "
		 "error: x\n/usr/include/string.h:43:70: note: y%%s", dir, dir);
	assert_int_equal(denied(line, "", why, sizeof(why), guard), BUILD_REFUSED_NO);
}

static void test_log_filter(void **state)
{
	(void)state;
	char raw[4096], out[2048];
	snprintf(raw, sizeof(raw),
		 "%s/sol/k.c: In function 'f':\n"
		 "%s/sol/k.c:3:5: error: 'x' undeclared\n"
		 "    3 |     x = 1;\n"
		 "      |     ^\n"
		 "In file included from %s/sol/k.c:1:\n"
		 "/etc/passwd:1:5: error: expected ';' before ':' token\n"
		 "    1 | root:x:0:0:root:/root:/bin/bash\n"
		 "      |     ^\n"
		 "/usr/include/string.h:43:70: note: expected 'const void *'\n"
		 "   43 | extern void *memcpy (void *__restrict __dest,\n"
		 "%s/bd/cc1.s:7: Error: file not found: /etc/shadow\n"
		 "cc1: all warnings being treated as errors\n"
		 "nodus: landlock unavailable (x)\n"
		 "nodus: landlock unavailable (x)\n",
		 dir, dir, dir, dir);
	nodus__build_log_filter(&paths, raw, out, sizeof(out));
	static const char *const kept[] = {"k.c:3:5: error: 'x' undeclared", "    3 |     x = 1;",
					   "cc1.s:7: Error: file not found: /etc/shadow",
					   "cc1: all warnings", "left out"};
	for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
		if (!strstr(out, kept[k]))
			fail_msg("'%s' not kept: %s", kept[k], out);
	static const char *const dropped[] = {"root:x:0:0", "expected ';' before", "extern void",
					      dir};
	for (size_t k = 0; k < sizeof(dropped) / sizeof(dropped[0]); k++)
		if (strstr(out, dropped[k]))
			fail_msg("'%s' reached the record: %s", dropped[k], out);
	const char *first = strstr(out, "landlock unavailable");
	assert_non_null(first);
	assert_null(strstr(first + 1, "landlock unavailable")); /* once */
}

/* ---- Landlock ---- */

static void test_landlock_confines(void **state)
{
	(void)state;
	if (nodus_landlock_abi() < 1)
		skip();
	char allowed[PATH_MAX], denied[PATH_MAX];
	snprintf(allowed, sizeof(allowed), "%s/bd", dir);
	snprintf(denied, sizeof(denied), "%s/sol/k.c", dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		nodus_landlock ll;
		nodus_error err;
		if (nodus_landlock_open(&ll, &err) || nodus_landlock_allow(&ll, allowed, NODUS_LL_WRITE, &err) ||
		    nodus_landlock_enforce(&ll, &err))
			_exit(10);
		char p[PATH_MAX + 8];
		snprintf(p, sizeof(p), "%s/new", allowed);
		int fd = open(p, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			_exit(11); /* writing where allowed must work */
		close(fd);
		if (open(denied, O_RDONLY) >= 0)
			_exit(12); /* reading elsewhere must not */
		if (open("/etc/passwd", O_RDONLY) >= 0)
			_exit(13);
		execl("/bin/true", "true", (char *)NULL);
		_exit(0); /* exec refused: no execute right anywhere */
	}
	int st = 0;
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_allowed),
		cmocka_unit_test(test_flags_refused),
		cmocka_unit_test(test_deps),
		cmocka_unit_test(test_denied),
		cmocka_unit_test(test_log_filter),
		cmocka_unit_test(test_landlock_confines),
	};
	return cmocka_run_group_tests(tests, setup_paths, teardown_paths);
}
