/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * flags.c: which compiler flags a solution may ask for (build.flags).
 *
 * An allow-list, not a deny-list: a flag passes only when it belongs to a
 * family known to change code generation or diagnostics and nothing else.
 * The families an attacker would reach for are the ones that rebind
 * symbols or make the tool chain read, run or write files of their
 * choosing, and each has many spellings (-Wl,--wrap=, -Xlinker, -z,
 * -Wl,@file, -Xcompiler=-Wl,... for nvcc, -include, -imacros, -B,
 * -specs=, -fplugin=, -fprofile-use=, -fsanitize=, -fuse-ld=, -T, nvcc's
 * --run, --options-file, -ccbin ...). An allow-list holds against the
 * spellings nobody thought of.
 *
 * Allowed, for both backends (after the character check: [A-Za-z0-9_=.,+-],
 * so no '/', '@', '$', quote or space can ever appear):
 *   -O0 -O1 -O2 -O3 -Os -Og -Oz -Ofast    optimisation level
 *   -DNAME[=VALUE] -UNAME                  macros (NAME a C identifier)
 *   -std=NAME -g -g0..3 -ggdb -w -pedantic -pedantic-errors -pthread
 *   -WNAME                                 warnings: no ',' (that is -Wl, -Wa, -Wp)
 *   -mNAME[=VALUE]                         target options: no ','
 *   -fNAME[=VALUE]                         code generation: no ',', and none of
 *                                          the -f families in denied_f[] below
 * Allowed for cuda only: nvcc's code-generation options in nvcc_allowed[],
 * and -Xcompiler=LIST whose every comma-separated member passes the cpu rules.
 * Everything else is refused with the reason returned.
 * ------------------------------------------------------------------------ */
#include "spec-internal.h"

#include <string.h>

/* -f families that read, run or write files, or change what the object
 * links against (a runtime that interposes malloc, another linker). */
static const char *const denied_f[] = {
	"-fplugin", "-fprofile", "-fauto-profile", "-fcreate-profile", "-fbranch-probabilities",
	"-fsanitize", "-fuse-ld", "-fuse-linker-plugin", "-flto", "-fdump", "-fcallgraph-info",
	"-fstack-usage", "-fcoverage", "-ftest-coverage", "-fopt-info", "-fsave-optimization-record",
	"-fdeps", "-fmodule", "-fself-test", "-fcompare-debug", "-fwpa", "-fltrans", "-foffload",
	/* nvcc: output kinds, traces written to files, options handed on unchecked */
	"-fatbin", "-fdevice-time-trace", "-forward",
};

/* nvcc options that change code generation only (exact, or prefix with '='). */
static const char *const nvcc_allowed[] = {
	"--use_fast_math", "-use_fast_math", "-lineinfo", "--generate-line-info",
	"--extended-lambda", "-extended-lambda", "--expt-relaxed-constexpr",
	"-expt-relaxed-constexpr", "--expt-extended-lambda", "-expt-extended-lambda",
	"--restrict", "-restrict", "--ftz=", "-ftz=", "--prec-div=", "-prec-div=",
	"--prec-sqrt=", "-prec-sqrt=", "--fmad=", "-fmad=", "--maxrregcount=",
	"-maxrregcount=", "--default-stream=", "-default-stream=", "--extra-device-vectorization",
	"-extra-device-vectorization",
};

static int is_ident(const char *s, const char *end)
{
	if (s == end || (*s >= '0' && *s <= '9'))
		return 0;
	for (; s < end; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int starts(const char *f, const char *prefix)
{
	return strncmp(f, prefix, strlen(prefix)) == 0;
}

/* The rules shared by both backends; NULL when f is allowed. */
static const char *host_fault(const char *f)
{
	static const char *const exact[] = {"-O0", "-O1", "-O2", "-O3", "-Os", "-Og", "-Oz",
					    "-Ofast", "-g", "-g0", "-g1", "-g2", "-g3", "-ggdb",
					    "-w", "-pedantic", "-pedantic-errors", "-pthread"};
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(exact); k++)
		if (strcmp(f, exact[k]) == 0)
			return NULL;
	if (f[1] == 'D' || f[1] == 'U') {
		const char *eq = f[1] == 'D' ? strchr(f, '=') : NULL;
		return is_ident(f + 2, eq ? eq : f + strlen(f)) ? NULL
								 : "a macro name that is not a C identifier";
	}
	if (starts(f, "-std="))
		return f[5] ? NULL : "an empty -std=";
	if (f[1] == 'W' || f[1] == 'm' || f[1] == 'f') {
		if (!f[2])
			return "an incomplete option";
		if (strchr(f, ','))
			return "an option list passed to another tool (-Wl, -Wa, -Wp and the like "
			       "are refused: they can rebind symbols or read files)";
		for (size_t k = 0; f[1] == 'f' && k < NODUS_ARRAY_SIZE(denied_f); k++)
			if (starts(f, denied_f[k]))
				return "an option that makes the tool chain read, run or write files, "
				       "or changes what the object links against";
		return NULL;
	}
	return "an option nodus sets itself or forbids (allowed: -O*, -D, -U, -std=, -g*, "
	       "-W*, -m*, -f* for code generation; see docs/formats.md)";
}

/* nvcc's -Xcompiler=A,B,...: every member must pass the host rules. */
static const char *xcompiler_fault(const char *list)
{
	char item[128];
	while (*list) {
		size_t n = strcspn(list, ",");
		if (n == 0 || n >= sizeof(item))
			return "an -Xcompiler list with an empty or overlong member";
		memcpy(item, list, n);
		item[n] = '\0';
		if (item[0] != '-' || !item[1] || host_fault(item))
			return "an -Xcompiler member that is not an allowed host compiler option";
		list += n + (list[n] == ',');
	}
	return NULL;
}

const char *nodus__flag_fault(const char *f, int backend)
{
	if (f[0] != '-' || !f[1])
		return "not an option";
	for (const char *p = f + 1; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=.,+-",
			    *p))
			return "a character outside [A-Za-z0-9_=.,+-]";
	if (backend == NODUS_BACKEND_CUDA) {
		for (size_t k = 0; k < NODUS_ARRAY_SIZE(nvcc_allowed); k++) {
			const char *a = nvcc_allowed[k];
			size_t n = strlen(a);
			if (a[n - 1] == '=' ? strncmp(f, a, n) == 0 && f[n] : strcmp(f, a) == 0)
				return NULL;
		}
		if (starts(f, "-Xcompiler=") || starts(f, "--compiler-options="))
			return xcompiler_fault(strchr(f, '=') + 1);
		/* nvcc spells many tool-chain options with one dash and a long
		 * name (-ccbin, -odir, -run): only the host families below are
		 * shared, and -f/-m/-W mean the same to nvcc as to cc */
	}
	return host_fault(f);
}
