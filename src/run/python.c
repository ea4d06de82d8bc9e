/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * python.c: probing the interpreter a target names (see python.h).
 *
 * The probe prints one JSON object on stdout; its stdout goes to a
 * temporary file, its stderr to /dev/null, and it has 60 s (importing
 * torch takes one or two). Every path it reports must lie in the trees
 * every worker may read (the system's library trees) or in the
 * interpreter's own prefix (a virtual environment's, or an installation's
 * under /opt): those its workers are then let read, and only those
 * (nodus_python_info.trees). Anything else is refused at plan time in
 * words, not killed by Landlock in the middle of a run.
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
	"     'base_prefix': getattr(sys, 'base_prefix', sys.prefix),\n"
	"     'libs': [v for k, v in sysconfig.get_paths().items()\n"
	"              if k in ('stdlib', 'platstdlib', 'purelib', 'platlib') and os.path.isdir(v)],\n"
	"     'libdir': sysconfig.get_config_var('LIBDIR') or '',\n"
	"     'soname': sysconfig.get_config_var('INSTSONAME') or '',\n"
	"     'shared': bool(sysconfig.get_config_var('Py_ENABLE_SHARED')),\n"
	"     'path': [p for p in sys.path if p and os.path.exists(p)]}\n"
	"try:\n"
	"    import torch\n"
	"    r['torch'] = torch.__version__\n"
	"except Exception as e:\n"
	"    r['torch_error'] = f'{type(e).__name__}: {e}'\n"
	/* tvm_ffi (FlashInfer-Bench's tvm-ffi binding), without the torch
	 * addon its import would otherwise compile (torch_ext.py) */
	"os.environ['TVM_FFI_DISABLE_TORCH_C_DLPACK'] = '1'\n"
	"try:\n"
	"    import tvm_ffi\n"
	"    r['tvm_ffi'] = tvm_ffi.__version__\n"
	"except Exception as e:\n"
	"    r['tvm_ffi_error'] = f'{type(e).__name__}: {e}'\n"
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

/* 1 when path lies in the tree root (both resolved), and root is at least
 * two levels deep: a prefix of "/" or "/opt" would open everything under
 * it to solution code. */
static int under_prefix(const char *path, const char *root)
{
	char real[4096], top[4096];
	if (!root || !*root || !realpath(path, real) || !realpath(root, top))
		return 0;
	const char *second = strchr(top + 1, '/');
	if (!top[1] || !second || !second[1])
		return 0;
	size_t n = strlen(top);
	return strncmp(real, top, n) == 0 && (real[n] == '/' || !real[n]);
}

/* Adds path (resolved) to the ':'-separated list trees, unless a tree
 * there holds it already; 0, or -1 when it does not fit, would make more
 * than NODUS_PY_MAX_TREES - 1 (the last place is the extension
 * directory's), or holds a character the list cannot carry. */
static int add_tree(char *trees, size_t size, const char *path)
{
	char real[4096];
	if (!realpath(path, real) || strpbrk(real, ":\"\\\n"))
		return -1;
	int count = 0;
	for (const char *t = trees; *t;) {
		size_t n = strcspn(t, ":");
		if (strncmp(real, t, n) == 0 && (real[n] == '/' || !real[n]))
			return 0;
		count++;
		t += n + (t[n] == ':');
	}
	size_t used = strlen(trees);
	/* one place left for the extension directory (build.c) */
	if (count >= NODUS_PY_MAX_TREES - 1 || used + strlen(real) + 2 > size)
		return -1;
	snprintf(trees + used, size - used, "%s%s", used ? ":" : "", real);
	return 0;
}

/* Where a worker reads path from: 0 (a system tree, or added to p->trees:
 * inside one of the interpreter's own library directories, libs, which
 * lie in its prefix), or -1 (neither, or p->trees is full). Only those:
 * a .pth file or an editable install naming another directory (a user's
 * project, which may hold the store or the suites) is not opened. */
static int reach(nodus_python_info *p, const char *path, const char *prefix, const char *base,
		 const json_t *libs)
{
	if (readable(path))
		return 0;
	size_t k;
	const json_t *e;
	json_array_foreach(libs, k, e) {
		const char *lib = json_string_value(e);
		if (lib && (under_prefix(lib, prefix) || under_prefix(lib, base)) &&
		    under_prefix(path, lib))
			return add_tree(p->trees, sizeof(p->trees), path);
	}
	return -1;
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
	const char *tvm = json_string_value(json_object_get(r, "tvm_ffi"));
	const char *tvm_why = json_string_value(json_object_get(r, "tvm_ffi_error"));
	snprintf(p->tvm_ffi, sizeof(p->tvm_ffi), "%s", tvm ? tvm : "");
	snprintf(p->tvm_ffi_error, sizeof(p->tvm_ffi_error), "%s", tvm_why ? tvm_why : "");
	/* a virtual environment's prefix has no standard library: the
	 * interpreter's home is its base, and the environment's packages come
	 * in through sys.path */
	const char *prefix = json_string_value(json_object_get(r, "prefix"));
	const char *base = json_string_value(json_object_get(r, "base_prefix"));
	snprintf(p->home, sizeof(p->home), "%s", base ? base : prefix ? prefix : "");
	snprintf(p->libpython, sizeof(p->libpython), "%s/%s", libdir, soname);
	const json_t *libs = json_object_get(r, "libs");
	/* the library itself (a file) may lie beside the library directories,
	 * in the prefix's lib/ */
	if (!readable(p->libpython) &&
	    (!(under_prefix(p->libpython, prefix) || under_prefix(p->libpython, base)) ||
	     add_tree(p->trees, sizeof(p->trees), p->libpython)))
		return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': its library '%s' is missing "
				 "or outside the trees a worker may read (/lib*, /usr/lib*, "
				 "/usr/local/lib, or the interpreter's own prefix '%s')", py,
				 p->libpython, prefix ? prefix : "");
	json_t *path = json_object_get(r, "path");
	size_t k;
	json_t *e;
	size_t used = 0;
	json_array_foreach(path, k, e) {
		const char *d = json_string_value(e);
		if (!d)
			continue;
		if (reach(p, d, prefix, base, libs))
			return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s': sys.path entry '%s' "
					 "is outside the trees a worker may read (/lib*, /usr/lib*, "
					 "/usr/local/lib, or the interpreter's own library "
					 "directories: its stdlib and site-packages inside its prefix "
					 "'%s' or '%s', two levels deep at least; at most %d); a .pth "
					 "file or an editable install naming another directory is not "
					 "read: install the package into the interpreter's environment",
					 py, d, prefix ? prefix : "", base ? base : "",
					 NODUS_PY_MAX_TREES - 1);
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

/* SO_PATH with its ".so" ending replaced by ".read". */
static int trees_path(const char *so_path, char *out, size_t size)
{
	size_t n = strlen(so_path);
	if (n < 3 || strcmp(so_path + n - 3, ".so") != 0 || n + 3 > size)
		return -1;
	snprintf(out, size, "%.*s.read", (int)(n - 3), so_path);
	return 0;
}

int nodus__python_trees_write(const char *so_path, const nodus_python_info *info,
			      const char *ext_dir, nodus_error *err)
{
	char path[4200], tmp[4220];
	if (trees_path(so_path, path, sizeof(path)))
		return NODUS_ERR(err, NODUS_EINTERNAL, "'%s' is not a shared object's path", so_path);
	if (ext_dir && (!*ext_dir || strpbrk(ext_dir, ":\n")))
		return NODUS_ERR(err, NODUS_EINVAL, "the extension directory '%s' has a colon or a "
				 "newline: use another --cache", ext_dir);
	if (!info->trees[0] && !ext_dir) {
		unlink(path);
		return 0;
	}
	char line[4200 + 8];
	snprintf(line, sizeof(line), "%s%s%s", info->trees, info->trees[0] && ext_dir ? ":" : "",
		 ext_dir ? ext_dir : "");
	/* the same list already there: nothing to write (workers of other
	 * attempts and replay shards read it now) */
	char now[4200 + 8];
	FILE *cur = fopen(path, "r");
	size_t got = cur ? fread(now, 1, sizeof(now) - 1, cur) : 0;
	if (cur)
		fclose(cur);
	now[got] = 0;
	if (cur && strcspn(now, "\n") == strlen(line) && strncmp(now, line, strlen(line)) == 0)
		return 0;
	/* a name of its own: two writers at once never share a half file */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	int ok = f && fprintf(f, "%s\n", line) > 0 && fchmod(fileno(f), 0644) == 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}

int nodus__python_trees(const char *so_path, const char **list, int max, char *buf,
			size_t size)
{
	char path[4200];
	if (!so_path || trees_path(so_path, path, sizeof(path)))
		return 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	int k = 0;
	for (char *s = buf; *s && k < max;) {
		size_t len = strcspn(s, ":");
		list[k++] = s;
		if (!s[len])
			break;
		s[len] = 0;
		s += len + 1;
	}
	return k;
}

int nodus__python_need_tvm_ffi(const nodus_python_info *py, const char *solution,
			       nodus_error *err)
{
	if (py->tvm_ffi[0])
		return 0;
	return NODUS_ERR(err, NODUS_EINVAL, "target.python '%s' cannot import tvm_ffi (%s), which "
			 "solution '%s' uses (FlashInfer-Bench's tvm-ffi binding): install it "
			 "into that interpreter's environment with '%s -m pip install "
			 "apache-tvm-ffi==%s'", py->interpreter,
			 py->tvm_ffi_error[0] ? py->tvm_ffi_error : "not importable", solution,
			 py->interpreter, NODUS_TVM_FFI_VERSION);
}

int nodus__python_source_names(const char *path, const char *word)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	nodus_buf text = NODUS_BUF_INIT;
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && text.len < (16u << 20))
		nodus_buf_add(&text, chunk, n);
	fclose(f);
	int yes = text.data && strstr(text.data, word) != NULL;
	nodus_buf_release(&text);
	return yes;
}
