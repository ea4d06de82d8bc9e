/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_denied.c: which file Landlock kept the compiler from reading (or,
 * without Landlock, which foreign file it read), from the output of the
 * step that failed, and whether reading it was a mistake or an attack
 * (build-internal.h).
 *
 * Under the jail a read of anything but the listed sources, nodus's
 * include/ and the tool chain fails in the kernel, and the tool reports
 * it in its own words; the dependency lists that judge a build without
 * Landlock (build_deps.c) are never written, since the step stops there.
 * The tools' words are the only account of what was refused, so they are
 * read here, in the three forms the GNU tool chain (and nvcc, which uses
 * it to preprocess and assemble) gives them:
 *   cc1 (#include, -include, __has_include, #pragma GCC dependency):
 *       [LOCATION: ]fatal error: PATH: Permission denied
 *     with PATH as the preprocessor opened it (the including file's
 *     directory joined to the name: absolute here, as sources are passed
 *     absolute);
 *   gas (.include):  Error: can't open PATH for reading: Permission denied
 *   gas (.incbin):   Error: file not found: PATH
 *     gas says "file not found" for a refused file and for a missing one
 *     alike, and takes a relative PATH from its cwd, the build directory.
 * A diagnostic located in a file shows the tool did read it (without
 * Landlock, gas assembling an .include'd /etc/passwd complains about its
 * lines, and writes no dependency list when it fails), so its location is
 * judged too. Each file is then located the way the tool looked for it (absolute, else
 * from the build directory, then from include/), resolved with realpath
 * (symbolic links, "..") and judged by nodus__build_read_refusal, the same
 * rule the dependency check applies. A name that resolves to nothing is a
 * missing file, not a refusal: a typo stays the compiler's own error. The
 * tool's messages come from the tool chain, not from the solution, which
 * chooses only the name; a name made to look like another file can only
 * make an attack read as a mistake or the reverse, never let a read
 * through: Landlock refused it either way.
 * ------------------------------------------------------------------------ */
#include "run/build-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The forms above: text before PATH (searched backwards from the end
 * marker when `last` is 1), and the text that ends PATH ("" = the end of
 * the line). */
struct denial_form {
	const char *before; /* what precedes PATH */
	const char *after;  /* what follows PATH */
	int last;           /* 1: PATH starts after the last `before` ahead of `after` */
};

static const struct denial_form forms[] = {
	{"error: ", ": Permission denied", 1},
	{"can't open ", " for reading: Permission denied", 0},
	{"Error: file not found: ", "", 0},
};

/* PATH of line in form f into out; 0 when the line is not of that form. */
static int path_of(const char *line, const struct denial_form *f, char *out, size_t size)
{
	const char *end = f->after[0] ? strstr(line, f->after) : line + strlen(line);
	if (!end)
		return 0;
	const char *start = NULL;
	size_t nb = strlen(f->before);
	for (const char *s = strstr(line, f->before); s && s < end; s = strstr(s + 1, f->before)) {
		start = s + nb;
		if (!f->last)
			break;
	}
	if (!start || start >= end || (size_t)(end - start) >= size)
		return 0;
	snprintf(out, size, "%.*s", (int)(end - start), start);
	return 1;
}

/* Where the tool found `name`, resolved into real; 0, or -1 when it
 * resolves nowhere. /proc and /dev/fd names are kept as named. */
static int locate(const build_paths *p, const char *name, char *real)
{
	char joined[2 * PATH_MAX + 8];
	if (strncmp(name, "/proc/", 6) == 0 || strncmp(name, "/dev/fd/", 8) == 0) {
		snprintf(real, PATH_MAX, "%s", name);
		return 0;
	}
	if (name[0] == '/')
		return realpath(name, real) ? 0 : -1;
	const char *bases[] = {p->build_dir, p->include_dir};
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(bases); k++) {
		snprintf(joined, sizeof(joined), "%s/%s", bases[k], name);
		if (realpath(joined, real))
			return 0;
	}
	return -1;
}

/* The file a diagnostic is located in ("PATH:LINE:...", "PATH: Assembler
 * messages:", "In file included from PATH:LINE"), into out; 0 when the
 * line names none. */
static int location_of(const char *line, char *out, size_t size)
{
	static const char included[] = "In file included from ";
	if (strncmp(line, included, sizeof(included) - 1) == 0)
		line += sizeof(included) - 1;
	size_t n = strcspn(line, ":");
	if (n == 0 || line[0] == ' ' || line[0] == '\t' || !line[n] || n >= size)
		return 0;
	const char *rest = line + n + 1;
	if (!(rest[0] >= '0' && rest[0] <= '9') && strcmp(rest, " Assembler messages:") != 0)
		return 0;
	snprintf(out, size, "%.*s", (int)n, line);
	return 1;
}

/* The refusal the file `name` (as the tool named it) deserves. */
static enum build_refusal judge_name(const build_paths *p, const char *name,
				     const char *outside_guard, char *why, size_t why_size,
				     char *guard, size_t guard_size)
{
	char real[PATH_MAX];
	if (locate(p, name, real))
		return BUILD_REFUSED_NO; /* not there: the tool's own "not found" */
	enum build_refusal r = nodus__build_read_refusal(p, real, outside_guard, why, why_size);
	if (r != BUILD_REFUSED_NO)
		snprintf(guard, guard_size, "%s",
			 r == BUILD_REFUSED_HACK ? outside_guard : "build_undeclared_read");
	return r;
}

enum build_refusal nodus__build_denied(const build_paths *p, const char *raw,
					const char *outside_guard, char *why, size_t why_size,
					char *guard, size_t guard_size)
{
	char line[4096], name[PATH_MAX];
	for (const char *s = raw; *s;) {
		size_t n = strcspn(s, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), s);
		s += n + (s[n] == '\n');
		enum build_refusal r = BUILD_REFUSED_NO;
		if (location_of(line, name, sizeof(name)))
			r = judge_name(p, name, outside_guard, why, why_size, guard, guard_size);
		for (size_t k = 0; !r && k < NODUS_ARRAY_SIZE(forms); k++)
			if (path_of(line, &forms[k], name, sizeof(name)))
				r = judge_name(p, name, outside_guard, why, why_size, guard,
					       guard_size);
		if (r)
			return r;
	}
	return BUILD_REFUSED_NO;
}
