/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_deps.c: what a build read, from the compiler's own dependency
 * output (build-internal.h).
 *
 * Every file the preprocessor opened (gcc/nvcc -M, -MD) and every file the
 * assembler opened (.include, .incbin: gas --MD) must be a listed source,
 * a header of nodus's include directory, or a tool chain file. Anything
 * else refuses the build, naming the file, and how decides the record:
 * a file of the solution's own directory that sources do not list would
 * not be hashed (a change to it would leave the plan's digest, verify and
 * the compile cache unaware), but listing it is all it takes, so that is a
 * mistake (COMPILE_ERROR, saying what to add); a file anywhere else has no
 * business in a solution at all and cannot be listed (sources resolve
 * inside the solution's directory), so reading it is an attack
 * (REWARD_HACK). Landlock refuses such reads already where the kernel has
 * it (build_denied.c then tells which file from the tools' messages); this
 * check holds without it.
 *
 * The tool chain and include files a build read are listed with their
 * hashes beside the cached object, so a changed system header or a
 * changed include/nodus/solution.h is a cache miss: the cache key covers
 * the sources (the solution hash), the file names, flags and compiler, and
 * this list covers the rest.
 * ------------------------------------------------------------------------ */
#include "run/build-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nodus__build_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 0)
		return 0;
	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

enum build_dep_kind nodus__build_dep_kind(const build_paths *p, const char *real)
{
	for (int k = 0; k < p->n_sources; k++)
		if (strcmp(real, p->sources[k]) == 0)
			return DEP_SOURCE;
	/* the build's own directory first: a cache kept inside the suite holds it */
	if (nodus__build_under(real, p->build_dir))
		return DEP_OWN;
	/* before the tool chain: a suite kept under /usr is still a suite */
	if (nodus__build_under(real, p->sol_dir))
		return DEP_FOREIGN;
	if (nodus__build_under(real, p->include_dir))
		return DEP_SEALED;
	for (int k = 0; k < p->n_roots; k++)
		if (nodus__build_under(real, p->roots[k]))
			return DEP_SEALED;
	return DEP_FOREIGN;
}

/* Next file name of a make rule at *s (backslash escapes a space, "$$" is
 * "$", backslash-newline continues); "" at the end. */
static int next_name(const char **s, char *out, size_t size)
{
	const char *p = *s;
	size_t n = 0;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
	       (p[0] == '\\' && (p[1] == '\n' || p[1] == '\r')))
		p += p[0] == '\\' ? 2 : 1;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
		char c = *p++;
		if (c == '\\' && (*p == ' ' || *p == '#' || *p == '\\'))
			c = *p++;
		else if (c == '$' && *p == '$')
			p++;
		else if (c == '\\' && (*p == '\n' || *p == '\r'))
			break;
		if (n + 1 < size)
			out[n++] = c;
	}
	out[n] = '\0';
	*s = p;
	return (int)n;
}

/* 1 when text, lines ending in '\n', has the line `line`. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *s = text; *s; s += strcspn(s, "\n") + 1) {
		if (strncmp(s, line, n) == 0 && s[n] == '\n')
			return 1;
		if (!strchr(s, '\n'))
			break;
	}
	return 0;
}

enum build_refusal nodus__build_read_refusal(const build_paths *p, const char *real,
					      const char *outside_guard, char *why,
					      size_t why_size)
{
	/* a /proc name resolves otherwise here than in the tool that read it
	 * (/proc/self/cwd/..., /proc/self/root/...): never a solution's file */
	int proc = strncmp(real, "/proc/", 6) == 0 || strncmp(real, "/dev/fd/", 8) == 0;
	if (!proc) {
		enum build_dep_kind kind = nodus__build_dep_kind(p, real);
		if (kind != DEP_FOREIGN)
			return BUILD_REFUSED_NO;
		if (nodus__build_under(real, p->sol_dir)) {
			const char *rel = real + strlen(p->sol_dir) + 1;
			snprintf(why, why_size,
				 "nodus: the build read '%s', which is not listed in the solution's "
				 "sources: add \"%s\" to its \"sources\" (every header and data file "
				 "a build reads is sealed) (guard build_undeclared_read)",
				 rel, rel);
			return BUILD_REFUSED_MISTAKE;
		}
	}
	snprintf(why, why_size,
		 "nodus: the build read or tried to read '%s', outside the solution's directory, nodus's include/ "
		 "and the tool chain: no solution may read it (guard %s)",
		 real, outside_guard);
	return BUILD_REFUSED_HACK;
}

enum build_refusal nodus__build_deps_check(const build_paths *p, const char *dep_file,
					    int may_be_missing, nodus_buf *sealed, char *why,
					    size_t why_size)
{
	nodus_buf text = NODUS_BUF_INIT;
	if (nodus_buf_read_file(&text, dep_file)) {
		nodus_buf_release(&text);
		if (may_be_missing)
			return BUILD_REFUSED_NO;
		snprintf(why, why_size, "nodus: the compiler wrote no dependency list (%s): the "
			 "build is refused, as what it read cannot be told (guard build_deps)",
			 dep_file);
		return BUILD_REFUSED_MISTAKE;
	}
	enum build_refusal rc = BUILD_REFUSED_NO;
	const char *s = text.data;
	char name[PATH_MAX], joined[PATH_MAX + 1100], real[PATH_MAX];
	while (!rc && next_name(&s, name, sizeof(name))) {
		size_t n = strlen(name);
		if (n && name[n - 1] == ':')
			continue; /* a rule's target ("obj.o:"; nvcc writes "obj.o :") */
		if (strcmp(name, ":") == 0)
			continue;
		if (strlen(name) + 1 >= sizeof(name)) {
			snprintf(why, why_size, "nodus: the build read a file whose name is too long "
				 "to check (guard build_outside_read)");
			rc = BUILD_REFUSED_HACK;
			break;
		}
		if (name[0] != '/')
			snprintf(joined, sizeof(joined), "%s/%s", p->build_dir, name);
		else
			snprintf(joined, sizeof(joined), "%s", name);
		if (strncmp(joined, "/proc/", 6) == 0) {
			rc = nodus__build_read_refusal(p, joined, "build_outside_read", why, why_size);
			break;
		}
		if (!realpath(joined, real)) {
			/* the tool chain's temporaries (in the build directory, or
			 * named relative to it) are gone by now; nothing else may be */
			if (name[0] != '/' || nodus__build_under(joined, p->build_dir))
				continue;
			snprintf(why, why_size, "nodus: the build read '%s', which is gone now: "
				 "outside the solution, nodus's include/ and the tool chain "
				 "(guard build_outside_read)", joined);
			rc = BUILD_REFUSED_HACK;
			break;
		}
		rc = nodus__build_read_refusal(p, real, "build_outside_read", why, why_size);
		if (!rc && nodus__build_dep_kind(p, real) == DEP_SEALED && !has_line(sealed->data, real))
			nodus_buf_addf(sealed, "%s\n", real);
	}
	nodus_buf_release(&text);
	return rc;
}

int nodus__build_deps_write(const char *path, const char *sealed, nodus_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path, strerror(errno));
	int rc = 0;
	for (const char *s = sealed; *s && !rc;) {
		size_t n = strcspn(s, "\n");
		char file[PATH_MAX], sha[NODUS_SHA256_HEX];
		snprintf(file, sizeof(file), "%.*s", (int)n, s);
		s += n + (s[n] == '\n');
		if ((rc = nodus_sha256_file(file, sha, err)))
			break;
		fprintf(f, "%s %s\n", sha, file);
	}
	if (fclose(f) && !rc)
		rc = NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path, strerror(errno));
	return rc;
}

int nodus__build_deps_current(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[PATH_MAX + 80];
	int ok = 1;
	while (ok && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *space = strchr(line, ' ');
		char sha[NODUS_SHA256_HEX];
		nodus_error err;
		if (!space)
			ok = 0;
		else if (*space = '\0', nodus_sha256_file(space + 1, sha, &err))
			ok = 0;
		else
			ok = strcmp(sha, line) == 0;
	}
	fclose(f);
	return ok;
}
