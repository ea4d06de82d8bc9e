/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * python.h: what nodus knows of the interpreter a target names for its
 * Python solutions (docs/formats.md, "Python solutions").
 *
 * nodus__python_probe runs the interpreter once (`python -I -c PROBE`,
 * through src/exec, unconfined like `cc --version`: it is the user's own
 * program, not solution code) and reads back its version, shared library,
 * home, module path, torch's version and tvm_ffi's (or why it has none: a
 * module that names tvm_ffi needs it, nodus__python_need_tvm_ffi). The answer is cached for the
 * process, per interpreter. The probe refuses an interpreter the worker
 * could not run: one without a shared libpython, one that cannot import
 * torch, or one whose library or module path lies outside both the trees
 * every worker's Landlock may read and the interpreter's own prefix
 * (docs/sandbox.md). What lies in the prefix is listed in trees: a worker
 * running the interpreter's solutions may read those, read-only.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_PYTHON_H
#define NODUS_PYTHON_H

#include "common/common.h"

typedef struct nodus_python_info {
	char interpreter[512];   /* the path the target names */
	char version[32];        /* sys.version's first word, "3.11.2" */
	char libpython[1024];    /* its shared library, absolute */
	char home[512];          /* sys.base_prefix, the standard library's (the worker's
				    PYTHONHOME; a virtual environment's sys.prefix has none) */
	char path[4096];         /* sys.path without "" and missing entries, ':'-separated */
	char torch[64];          /* torch.__version__ */
	char tvm_ffi[64];        /* tvm_ffi.__version__, "" when it cannot be imported */
	char tvm_ffi_error[256]; /* why not ("ModuleNotFoundError: ..."), else "" */
	char trees[4096];        /* ':'-separated, resolved: sys.path entries and the library
				    outside the system trees, inside the prefix; "" if none */
} nodus_python_info;

/* Fills out for interpreter (absolute). Returns 0, or NODUS_ECHILD /
 * NODUS_EINVAL with err naming the interpreter and what was wrong. The
 * pointer returned through *out stays valid for the life of the process. */
int nodus__python_probe(const char *interpreter, const nodus_python_info **out,
			nodus_error *err);

/* The apache-tvm-ffi nodus is tested with (scripts/deps.sh; torch_ext.py's
 * TVM_FFI_VERSION), named where an interpreter lacks it. */
#define NODUS_TVM_FFI_VERSION "0.1.15.post2"

/* 0 when py imports tvm_ffi, which solution (its name, for the message)
 * uses; else NODUS_EINVAL, err naming the interpreter, why it could not
 * import it and the pip command that installs it. */
int nodus__python_need_tvm_ffi(const nodus_python_info *py, const char *solution,
			       nodus_error *err);

/* 1 when the file at path (a python solution's module; its first 16 MiB)
 * holds word, else 0 (also when it cannot be read): how the build and the
 * plan tell which helpers a module uses (cpp_extension, tvm_ffi, triton). */
int nodus__python_source_names(const char *path, const char *word);

/* The trees a python solution's worker may read beside the system's
 * (info.trees, and the directory of its prebuilt load_inline extensions,
 * {cache}/{KEY}.ext, when ext_dir is not NULL), beside its adapter in the
 * compile cache: nodus__python_trees_write puts them in SO_PATH's ".read"
 * file (none when there are none; 0, NODUS_EINVAL for an ext_dir with a
 * ':', or NODUS_EIO), nodus__python_trees fills list (at most max
 * entries, pointing into buf) from it before the worker or the audit
 * confines itself, and returns how many (0: no file, or not a python
 * solution's adapter). */
#define NODUS_PY_MAX_TREES 32
int nodus__python_trees_write(const char *so_path, const nodus_python_info *info,
			      const char *ext_dir, nodus_error *err);
int nodus__python_trees(const char *so_path, const char **list, int max, char *buf,
			size_t size);

#endif
