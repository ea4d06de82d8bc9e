/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * python.h: what nodus knows of the interpreter a target names for its
 * Python solutions (docs/formats.md, "Python solutions").
 *
 * nodus__python_probe runs the interpreter once (`python -I -c PROBE`,
 * through src/exec, unconfined like `cc --version`: it is the user's own
 * program, not solution code) and reads back its version, shared library,
 * home, module path and torch's version. The answer is cached for the
 * process, per interpreter. The probe refuses an interpreter the worker
 * could not run: one without a shared libpython, one that cannot import
 * torch, or one whose library or module path lies outside the trees a
 * worker's Landlock may read (docs/sandbox.md).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_PYTHON_H
#define NODUS_PYTHON_H

#include "common/common.h"

typedef struct nodus_python_info {
	char interpreter[512];   /* the path the target names */
	char version[32];        /* sys.version's first word, "3.11.2" */
	char libpython[1024];    /* its shared library, absolute */
	char home[512];          /* sys.prefix (the worker's PYTHONHOME) */
	char path[4096];         /* sys.path without "" and missing entries, ':'-separated */
	char torch[64];          /* torch.__version__ */
} nodus_python_info;

/* Fills out for interpreter (absolute). Returns 0, or NODUS_ECHILD /
 * NODUS_EINVAL with err naming the interpreter and what was wrong. The
 * pointer returned through *out stays valid for the life of the process. */
int nodus__python_probe(const char *interpreter, const nodus_python_info **out,
			nodus_error *err);

#endif
