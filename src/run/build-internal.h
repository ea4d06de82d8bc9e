/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build-internal.h: the pieces of the confined build shared by build.c
 * (steps, jail, cache), build_deps.c (what the compiler read) and
 * build_log.c (what of its output reaches a record). Not an interface to
 * other modules.
 *
 * A build knows, resolved (realpath) once at its start: the solution's
 * directory and each source, nodus's include directory, the tool chain's
 * roots, and its own private build directory. Every decision below is a
 * prefix or equality test between resolved paths.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_BUILD_INTERNAL_H
#define NODUS_BUILD_INTERNAL_H

#include <limits.h>

#include "common/common.h"
#include "spec/spec.h"

#define BUILD_MAX_ROOTS 12 /* tool chain directories */

typedef struct build_paths {
	char sol_dir[PATH_MAX];                       /* the solution's directory */
	char sources[NODUS_MAX_SOURCES][PATH_MAX];    /* each listed source */
	int n_sources;                                /* entries in sources */
	char include_dir[PATH_MAX];                   /* nodus's public headers */
	char roots[BUILD_MAX_ROOTS][PATH_MAX];        /* tool chain: /usr, the CUDA toolkit ... */
	int n_roots;                                  /* entries in roots */
	char build_dir[1024];                         /* this build's own directory */
} build_paths;

/* 1 when path (resolved) is dir or lies beneath it. */
int nodus__build_under(const char *path, const char *dir);

/* What a dependency is to the build: a listed source, a header of nodus's
 * include directory or a tool chain file (DEP_SEALED: hashed into the
 * cache entry), a temporary of the build itself (DEP_OWN), or anything
 * else (DEP_FOREIGN: a file of the suite not listed in sources, or a file
 * outside the suite and the tool chain). */
enum build_dep_kind { DEP_SOURCE, DEP_SEALED, DEP_OWN, DEP_FOREIGN };
enum build_dep_kind nodus__build_dep_kind(const build_paths *p, const char *real);

/* Why a build was refused, which decides its record's status. A file of
 * the solution's own directory that sources do not list is a mistake
 * (COMPILE_ERROR: the message says to add it); any other file outside the
 * listed sources, nodus's include/ and the tool chain (another directory
 * of the suite, /etc, /root, /proc, the plan, the store) is nothing an
 * honest solution reads and no listing could make readable: an attack
 * (REWARD_HACK). */
enum build_refusal {
	BUILD_REFUSED_NO = 0,      /* not refused */
	BUILD_REFUSED_MISTAKE = 1, /* an unlisted file of the solution's directory, or no list */
	BUILD_REFUSED_HACK = 2,    /* a file no solution may read */
};

/* The refusal a read of `real` (resolved, or a /proc name) deserves:
 * BUILD_REFUSED_NO for a listed source, an include/ or tool chain file or
 * the build's own; MISTAKE beneath the solution's directory; HACK else.
 * Fills why (a "nodus: ..." line naming the file and the guard: guard
 * build_undeclared_read for a mistake, `outside_guard` for an attack). */
enum build_refusal nodus__build_read_refusal(const build_paths *p, const char *real,
					      const char *outside_guard, char *why,
					      size_t why_size);

/* Reads a make-style dependency file (gcc -M/-MD, nvcc -MD, gas --MD);
 * relative names are taken from the build directory. Every dependency that
 * exists is judged by nodus__build_read_refusal (guard build_outside_read
 * for an attack): the first refused fills why and decides the return
 * value; DEP_SEALED ones are appended to sealed as "path\n" once. A /proc
 * name, or an absolute one that no longer exists, is BUILD_REFUSED_HACK.
 * A missing dependency file is 0 when may_be_missing, else MISTAKE. */
enum build_refusal nodus__build_deps_check(const build_paths *p, const char *dep_file,
					    int may_be_missing, nodus_buf *sealed, char *why,
					    size_t why_size);

/* After a step failed: the first file its output (raw) says the compiler
 * or the assembler could not open ("fatal error: PATH: Permission denied",
 * gas's "can't open PATH for reading: Permission denied" and "file not
 * found: PATH") or read (a diagnostic located in it: "PATH:LINE: ...",
 * "PATH: Assembler messages:"), located as the tool did (absolute, else
 * from the build directory, the tools' cwd, or nodus's include/), resolved
 * (symbolic links, "..") and judged by nodus__build_read_refusal with
 * outside_guard (build_confined under Landlock, build_outside_read
 * without). BUILD_REFUSED_NO when every file named is one the build may
 * read or does not exist (a typo is the compiler's own error); guard gets
 * the guard's name otherwise. */
enum build_refusal nodus__build_denied(const build_paths *p, const char *raw,
					const char *outside_guard, char *why, size_t why_size,
					char *guard, size_t guard_size);

/* Writes "sha256 path" per line of sealed into path (the cache entry's
 * list of tool chain and include files). */
int nodus__build_deps_write(const char *path, const char *sealed, nodus_error *err);
/* 1 when every file listed in path (written by _write) still has its
 * hash: the cached object was built from what is there now. */
int nodus__build_deps_current(const char *path);

/* Copies into out (at most size bytes, NUL-terminated) the lines of the
 * compiler's output raw that are about the solution's own files (their
 * directory shown relative), nodus's notes ("nodus: ..."), and the tool
 * chain's own summary lines; quoted lines of any other file and lines
 * located in them are left out, and a last line says how many. */
void nodus__build_log_filter(const build_paths *p, const char *raw, char *out, size_t size);

#endif
