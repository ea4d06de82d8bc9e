/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build.h: turning a solution's sources into a shared object, cached by
 * content.
 *
 * The cache key is SHA-256 over the solution's content hash, the sources'
 * names, the compiler's version line and the target architecture, so a new
 * compiler or a different GPU architecture never reuses an old object; the
 * tool chain and include files the build read are listed with their hashes
 * beside the object (KEY.deps), and a change to any of them is a miss. The
 * compiler runs confined (build.c): it reads only the listed sources,
 * nodus's include directory and the tool chain; a build that read any
 * other file is refused.
 * Objects are written to a temporary name and renamed, so a killed build
 * never leaves a half-written object under its final name. A compile error
 * or a refused build is a result (res->log, filtered to the solution's own
 * diagnostics; the whole log is kept beside the cache entry), not an error
 * of the harness.
 * A python solution is built from nodus's include/nodus/torch_adapter.c
 * with its module embedded and the interpreter's facts (run/python.h) in
 * its defines; those facts enter the cache key. Its load_inline/load
 * extensions are built too, by running the module once in the build's
 * jail, into {cache}/{KEY}.ext (build.c, include/nodus/torch_ext.py).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_BUILD_H
#define NODUS_BUILD_H

#include "common/common.h"
#include "spec/spec.h"

typedef struct nodus_build_result {
	int ok;                  /* 1: so_path holds a loadable object */
	int cache_hit;           /* 1: found in the cache, nothing compiled */
	double compile_s;        /* seconds spent compiling (0 on a hit) */
	char so_path[1024];      /* the shared object */
	char log[2048];          /* first part of the compiler's output on failure */
	char key[NODUS_SHA256_HEX]; /* cache key */
	char guard[40];          /* when nodus refused the build: the guard's name, else "" */
	int hack;                /* 1: refused because the solution made the tool chain read a
				  * file no solution may read (outside its directory, include/
				  * and the tool chain): REWARD_HACK, not COMPILE_ERROR */
} nodus_build_result;

typedef struct nodus_build_opts {
	const char *cache_dir;   /* where objects live; created if missing */
	const char *include_dir; /* directory holding nodus/solution.h */
	const char *cuda_arch;   /* e.g. "sm_90"; NULL = "sm_90" */
	double timeout_s;        /* watchdog of the whole build; 0 = 120 s (python: 600 s at least) */
	const char *self_path;   /* the nodus binary (runs `nodus __jail`); NULL = /proc/self/exe */
	const char *python;      /* interpreter of python solutions (target.python); NULL = none */
} nodus_build_opts;

/* Builds (or finds) solution s. Returns 0 with res->ok telling whether it
 * compiled; a negative code only when the harness itself failed (cannot
 * create the cache directory, cannot run a compiler at all). */
int nodus_build_solution(const nodus_solution *s, const nodus_build_opts *opts,
			 nodus_build_result *res, nodus_error *err);

/* The warm step of a python solution on cuda whose module names triton
 * (include/nodus/torch_ext.py): after nodus_build_solution built it
 * (built), its module runs once more in the build's jail, with the GPU,
 * and calls its entry on fresh tensors of every shape calls_json lists
 * ({"calls": [{"inputs": [[DTYPE, [DIM...]]...], "outputs": [...]}...]});
 * what Triton compiled is kept in {cache}/{KEY}.ext/triton, which the
 * worker's Triton reads and never writes. Once per solution and
 * calls_json (a marker beside the kernels). res->ok 1 when warmed, found
 * warmed or not needed (another language or backend, no triton in the
 * module); 0 with res->log (a Triton compile error: guard "compile"; the
 * step could not use the GPU: guard "triton_warm_gpu", nodus's failure,
 * not the solution's). res->compile_s is its time. < 0: a harness
 * failure. */
int nodus_build_warm(const nodus_solution *s, const nodus_build_opts *opts,
		     const nodus_build_result *built, const char *calls_json,
		     nodus_build_result *res, nodus_error *err);

/* 1 for a python solution on cuda whose module names triton (its source
 * holds the word, as the adapter decides): the solutions nodus_build_warm
 * warms; 0 for any other, or when the source cannot be read. */
int nodus_build_uses_triton(const nodus_solution *s);

/* The compiler's version line for a backend ("cc (Debian 12.2.0) ..."),
 * cached after the first call; "" when the compiler cannot be run. */
const char *nodus_build_compiler_version(int backend);

/* Directory of include/nodus/solution.h for this installation:
 * $NODUS_INCLUDE, else <dir of the nodus binary>/../include, else the
 * source tree nodus was built from. */
const char *nodus_build_include_dir(const char *self_path, char *buf, size_t size);

#endif
