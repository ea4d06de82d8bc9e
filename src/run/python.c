/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * python.c: probing the interpreter a target names (see python.h).
 *
 * The probe prints one JSON object on stdout; its stdout goes to a
 * temporary file, its stderr to /dev/null, and it has 60 s (importing
 * torch takes one or two). Every path it reports is checked against the
 * trees a worker may read, so a misplaced interpreter is refused at plan
 * time in words, not killed by Landlock in the middle of a run.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "run/python.h"

#define PROBE_TIMEOUT_MS 60000
#define PROBE_CACHE 4

static const char probe_script[] =
	"import json, os, sys, sysconfig\n"
	"r = {'version': sys.version.split()[0], 'prefix': sys.prefix,\n"
	"     'libdir': sysconfig.get_config_var('LIBDIR') or '',\n"
	"     'soname': sysconfig.get_config_var('INSTSONAME') or '',\n"
	"     'shared': bool(sysconfig.get_config_var('Py_ENABLE_SHARED')),\n"
	"     'path': [p for p in sys.path if p and os.path.exists(p)]}\n"
	"try:\n"
	"    import torch\n"
	"    r['torch'] = torch.__version__\n"
	"except Exception as e:\n"
	"    r['torch_error'] = f'{type(e).__name__}: {e}'\n"
	"print(json.dumps(r))\n";

/* The trees a worker's Landlock lets it read (src/exec/sandbox.c). */
static const char *const readable_roots[] = {"/lib",	   "/lib32",	  "/lib64",
					     "/usr/lib",  "/usr/lib32", "/usr/lib64",
					     "/usr/local/lib", NULL};

static int readable(const char *path)
{
	char real[4096];
	if (!realpath(path, real))
		return 0;
	for (int k = 0; readable_roots[k]; k++) {
		size_t n = strlen(readable_roots[k]);
		if (strncmp(real, readable_roots[k], n) == 0 && (real[n] == '/' || !real[n]))
			return 1;
	}
	return 0;
}

/* Runs the probe; its stdout into text. */
static int run_probe(const char *interpreter, nodus_buf *text, nodus_error *err)
{
	char tmp[] = "/tmp/nodus-python-probe-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot create a temporary file: %s", strerror(errno));
	unlink(tmp);
	const char *argv[] = {interpreter, "-I", "-c", probe_script, NULL};
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stdin_fd = -2;
	o.stdout_fd = fd;
	o.stderr_fd = -2;
	o.die_with_parent = 1;
	nodus_child c;
	int rc = nodus_child_start(&c, &o, err);
	if (rc == 0) {
		rc = nodus_child_finish_timeout(&c, PROBE_TIMEOUT_MS);
		if (rc > 0)
			rc = NODUS_ERR(err, NODUS_ECHILD, "target.python '%s': the probe exited with "
					   "status %d", interpreter, rc);
	}
	char chunk[4096];
	ssize_t n;
	lseek(fd, 0, SEEK_SET);
	while (rc == 0 && (n = read(fd, chunk, sizeof(chunk))) > 0)
		nodus_buf_add(text, chunk, (size_t)n);
	close(fd);
	return rc;
}

/* Copies the probe's answer into p, checking it; 0 or NODUS_EINVAL. */
static int fill_info(const char *py, json_t *r, nodus_python_info *p, nodus_error *err)
{
	const char *torch = json_string_value(json_object_get(r, "torch"));
	const char *libdir = json_string_value(json_object_get(r, "libdir"));
	const char *soname = json_string_value(json_object_get(r, "soname"));
	if (!torch)
		return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s' cannot import torch (%s)", py,
				 json_string_value(json_object_get(r, "torch_error")));
	if (!json_is_true(json_object_get(r, "shared")) || !libdir || !soname || !*soname)
		return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s' has no shared libpython "
				 "(built without --enable-shared?)", py);
	snprintf(p->interpreter, sizeof(p->interpreter), "%s", py);
	snprintf(p->version, sizeof(p->version), "%s",
		 json_string_value(json_object_get(r, "version")));
	snprintf(p->torch, sizeof(p->torch), "%s", torch);
	snprintf(p->home, sizeof(p->home), "%s", json_string_value(json_object_get(r, "prefix")));
	snprintf(p->libpython, sizeof(p->libpython), "%s/%s", libdir, soname);
	if (!readable(p->libpython))
		return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': its library '%s' is missing "
				 "or outside the trees a worker may read (/lib*, /usr/lib*, "
				 "/usr/local/lib)", py, p->libpython);
	json_t *path = json_object_get(r, "path");
	size_t k;
	json_t *e;
	size_t used = 0;
	json_array_foreach(path, k, e) {
		const char *d = json_string_value(e);
		if (!d)
			continue;
		if (!readable(d))
			return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': sys.path entry '%s' "
					 "is outside the trees a worker may read (/lib*, /usr/lib*, "
					 "/usr/local/lib)", py, d);
		if (strpbrk(d, ":\"\\\n") || used + strlen(d) + 2 > sizeof(p->path))
			return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': sys.path entry '%s' "
					 "has a colon, quote or backslash, or the path is too long", py, d);
		used += (size_t)snprintf(p->path + used, sizeof(p->path) - used, "%s%s",
					 used ? ":" : "", d);
	}
	if (strpbrk(p->home, ":\"\\\n") || strpbrk(p->libpython, "\"\\\n"))
		return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': its prefix or library path "
				 "has a quote or backslash", py);
	return 0;
}

int nodus__python_probe(const char *interpreter, const nodus_python_info **out, nodus_error *err)
{
	/* cached per process, like the compilers' version lines (build.c) */
	static nodus_python_info cache[PROBE_CACHE];
	static int n_cache;
	*out = NULL;
	for (int k = 0; k < n_cache; k++)
		if (strcmp(cache[k].interpreter, interpreter) == 0) {
			*out = &cache[k];
			return 0;
		}
	if (n_cache == PROBE_CACHE)
		return NODUS_ERR(err, NODUS_EINVAL, "more than %d python interpreters", PROBE_CACHE);
	if (interpreter[0] != '/' || access(interpreter, X_OK))
		return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': expected an executable "
				 "interpreter (an absolute path)", interpreter);
	nodus_buf text = NODUS_BUF_INIT;
	int rc = run_probe(interpreter, &text, err);
	json_t *r = rc ? NULL : json_loads(text.data, 0, NULL);
	if (!rc && !json_is_object(r))
		rc = NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': expected the probe's JSON, "
			       "got \"%.80s\"", interpreter, text.data);
	nodus_python_info p;
	memset(&p, 0, sizeof(p));
	if (!rc && !(rc = fill_info(interpreter, r, &p, err))) {
		cache[n_cache] = p;
		*out = &cache[n_cache++];
	}
	json_decref(r);
	nodus_buf_release(&text);
	return rc;
}
