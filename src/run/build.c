/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build.c: compile solutions into cached shared objects (see build.h).
 * Compilers run through src/exec, with a watchdog, their output captured
 * into a log file next to the cache entry.
 * ------------------------------------------------------------------------ */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "run/build.h"

#define MAX_ARGS (NODUS_MAX_SOURCES + NODUS_MAX_FLAGS + 32)

static int mkdir_p(const char *path)
{
	char tmp[1024];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	}
	return (mkdir(tmp, 0755) && errno != EEXIST) ? -1 : 0;
}

/* Runs argv with stdout+stderr into log_path; returns exit status or -1. */
static int run_tool(const char *const *argv, const char *log_path, double timeout_s,
		    nodus_error *err)
{
	int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", log_path, strerror(errno));
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stdin_fd = -2;
	o.stdout_fd = fd;
	o.stderr_fd = fd;
	nodus_child c;
	int rc = nodus_child_start(&c, &o, err);
	close(fd);
	if (rc)
		return rc;
	return nodus_child_finish_timeout(&c, (int)(timeout_s * 1000));
}

static char cc_version[256], nvcc_version[256];

const char *nodus_build_compiler_version(int backend)
{
	char *slot = backend == NODUS_BACKEND_CUDA ? nvcc_version : cc_version;
	if (slot[0])
		return slot;
	const char *argv_cc[] = {"cc", "--version", NULL};
	const char *argv_nvcc[] = {"nvcc", "--version", NULL};
	char log[] = "/tmp/nodus-compiler-version-XXXXXX";
	int fd = mkstemp(log);
	if (fd < 0)
		return "";
	close(fd);
	nodus_error err;
	int rc = run_tool(backend == NODUS_BACKEND_CUDA ? argv_nvcc : argv_cc, log, 30, &err);
	if (rc == 0) {
		FILE *f = fopen(log, "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			/* nvcc's useful line is the last ("Build cuda_13.0..."); cc's the first */
			snprintf(slot, 256, "%s", line);
			if (backend != NODUS_BACKEND_CUDA)
				break;
		}
		if (f)
			fclose(f);
	}
	unlink(log);
	return slot;
}

const char *nodus_build_include_dir(const char *self_path, char *buf, size_t size)
{
	const char *env = getenv("NODUS_INCLUDE");
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return buf;
	}
	if (self_path) {
		char tmp[1024];
		snprintf(tmp, sizeof(tmp), "%s", self_path);
		snprintf(buf, size, "%s/../include", dirname(tmp));
		char probe[1200];
		snprintf(probe, sizeof(probe), "%s/nodus/solution.h", buf);
		if (access(probe, R_OK) == 0)
			return buf;
	}
	snprintf(buf, size, "%s/include", NODUS_SOURCE_DIR);
	return buf;
}

static void cache_key(const nodus_solution *s, const nodus_build_opts *o, char *out)
{
	nodus_buf b = NODUS_BUF_INIT;
	nodus_buf_addf(&b, "nodus-build-1\n%s\n%s\n%s\n", s->hash,
		       nodus_build_compiler_version(s->backend),
		       s->backend == NODUS_BACKEND_CUDA ? (o->cuda_arch ? o->cuda_arch : "sm_90")
							: "host");
	nodus_sha256_hex(b.data, b.len, out);
	nodus_buf_release(&b);
}

static void read_log(const char *path, char *out, size_t size)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
}

int nodus_build_solution(const nodus_solution *s, const nodus_build_opts *o,
			 nodus_build_result *res, nodus_error *err)
{
	memset(res, 0, sizeof(*res));
	if (mkdir_p(o->cache_dir))
		return NODUS_ERR(err, NODUS_EIO, "cannot create cache directory '%s': %s",
				 o->cache_dir, strerror(errno));
	cache_key(s, o, res->key);
	snprintf(res->so_path, sizeof(res->so_path), "%s/%s.so", o->cache_dir, res->key);
	if (access(res->so_path, R_OK) == 0) {
		res->ok = 1;
		res->cache_hit = 1;
		return 0;
	}

	char tmp_path[1100], log_path[1100], inc[1100];
	snprintf(tmp_path, sizeof(tmp_path), "%s/%s.%d.tmp.so", o->cache_dir, res->key, getpid());
	snprintf(log_path, sizeof(log_path), "%s/%s.log", o->cache_dir, res->key);
	snprintf(inc, sizeof(inc), "-I%s", o->include_dir);
	char src_paths[NODUS_MAX_SOURCES][800];
	char libs[8][80];
	const char *argv[MAX_ARGS];
	int n = 0;
	int cuda = s->backend == NODUS_BACKEND_CUDA;
	char arch[64];
	if (cuda) {
		snprintf(arch, sizeof(arch), "-arch=%s", o->cuda_arch ? o->cuda_arch : "sm_90");
		argv[n++] = "nvcc";
		argv[n++] = "-shared";
		argv[n++] = "-Xcompiler";
		argv[n++] = "-fPIC";
		argv[n++] = arch;
		argv[n++] = "-std=c++17";
	} else {
		argv[n++] = "cc";
		argv[n++] = "-shared";
		argv[n++] = "-fPIC";
		argv[n++] = "-std=c11";
	}
	argv[n++] = inc;
	for (int i = 0; i < s->n_flags; i++)
		argv[n++] = s->flags[i];
	for (int i = 0; i < s->n_sources; i++) {
		snprintf(src_paths[i], sizeof(src_paths[i]), "%s/%s", s->dir, s->sources[i]);
		argv[n++] = src_paths[i];
	}
	argv[n++] = "-o";
	argv[n++] = tmp_path;
	for (int i = 0; i < s->n_libs; i++) {
		snprintf(libs[i], sizeof(libs[i]), "-l%s", s->libs[i]);
		argv[n++] = libs[i];
	}
	argv[n] = NULL;

	uint64_t t0 = nodus_now_ns();
	int status = run_tool(argv, log_path, o->timeout_s > 0 ? o->timeout_s : 120, err);
	res->compile_s = (double)(nodus_now_ns() - t0) * 1e-9;
	if (status < 0) {
		/* the compiler could not be started at all */
		read_log(log_path, res->log, sizeof(res->log));
		return status;
	}
	if (status != 0) {
		read_log(log_path, res->log, sizeof(res->log));
		unlink(tmp_path);
		return 0;
	}
	if (rename(tmp_path, res->so_path))
		return NODUS_ERR(err, NODUS_EIO, "cannot move '%s' into the cache: %s", tmp_path,
				 strerror(errno));
	res->ok = 1;
	return 0;
}
