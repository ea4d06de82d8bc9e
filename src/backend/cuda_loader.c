/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_loader.c: finds and loads the CUDA backend (libnodus_cuda.so).
 *
 * The backend is a separate shared object so that nodus itself builds and
 * runs without the CUDA toolkit, driver or GPU. This file therefore uses
 * nothing from CUDA: it dlopen()s the library, looks up its one exported
 * getter and probes the driver, so that "not built" and "no driver or GPU"
 * are told apart before a worker starts measuring.
 *
 * Where the library is looked for, first match wins:
 *   1. $NODUS_CUDA_BACKEND (a path to the .so);
 *   2. libnodus_cuda.so in the directory of /proc/self/exe (the build puts
 *      it next to the nodus binary).
 * The handle is never closed: the ops table lives in the library.
 * ------------------------------------------------------------------------ */
#include "backend/backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"

#define LIB_NAME "libnodus_cuda.so"

/* Writes the path of LIB_NAME beside the running executable into out. */
static int beside_exe(char *out, size_t out_size, nodus_error *err)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		return NODUS_ERR(err, NODUS_EIO, "cuda backend: cannot read /proc/self/exe: %s",
				 strerror(errno));
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	size_t need = strlen(exe) + 1 + sizeof LIB_NAME;
	if (need > out_size)
		return NODUS_ERR(err, NODUS_EINVAL, "cuda backend: path too long: '%s'", exe);
	memcpy(out, exe, strlen(exe));
	out[strlen(exe)] = '/';
	memcpy(out + strlen(exe) + 1, LIB_NAME, sizeof LIB_NAME);
	return 0;
}

/* Without libcuda.so.1 the backend would fail inside its first runtime
 * call with a less direct message; say it here. */
static int probe_driver(nodus_error *err)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!drv) {
		const char *why = dlerror();
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "no CUDA driver or GPU: %s",
				 why ? why : "cannot load libcuda.so.1");
	}
	dlclose(drv);
	return 0;
}

int nodus_backend_cuda_path(char *out, size_t size, nodus_error *err)
{
	const char *env = getenv("NODUS_CUDA_BACKEND");
	if (env && *env) {
		if (strlen(env) >= size)
			return NODUS_ERR(err, NODUS_EINVAL, "NODUS_CUDA_BACKEND: path too long");
		memcpy(out, env, strlen(env) + 1);
		return 0;
	}
	return beside_exe(out, size, err);
}

int nodus_backend_cuda_load(const nodus_backend_ops **ops, nodus_error *err)
{
	char path[PATH_MAX];
	*ops = NULL;
	int ret = nodus_backend_cuda_path(path, sizeof path, err);
	if (ret)
		return ret;
	if (access(path, F_OK) != 0)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "cuda backend not built: no '%s'%s", path,
				 NODUS_HAVE_CUDA ? "" : " (configured without the CUDA toolkit)");
	ret = probe_driver(err);
	if (ret)
		return ret;
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "cuda backend: cannot load '%s': %s",
				 path, why ? why : "unknown dlopen error");
	}
	void *sym = dlsym(lib, NODUS_CUDA_BACKEND_SYMBOL);
	if (!sym) {
		dlclose(lib);
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "cuda backend: '%s' lacks %s", path,
				 NODUS_CUDA_BACKEND_SYMBOL);
	}
	nodus_cuda_backend_get_fn get;
	memcpy(&get, &sym, sizeof get);
	*ops = get();
	if (!*ops) {
		dlclose(lib);
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "cuda backend: %s returned NULL",
				 NODUS_CUDA_BACKEND_SYMBOL);
	}
	return 0;
}

int nodus_backend_cuda_symbol(const char *name, void **sym, nodus_error *err)
{
	const nodus_backend_ops *ops;
	int rc = nodus_backend_cuda_load(&ops, err);
	if (rc)
		return rc;
	char path[PATH_MAX];
	const char *env = getenv("NODUS_CUDA_BACKEND");
	if (env && *env)
		snprintf(path, sizeof path, "%s", env);
	else if ((rc = beside_exe(path, sizeof path, err)))
		return rc;
	/* already loaded by nodus_backend_cuda_load: this only takes a reference */
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	*sym = lib ? dlsym(lib, name) : NULL;
	if (!*sym)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "cuda backend: '%s' lacks %s", path, name);
	return 0;
}
