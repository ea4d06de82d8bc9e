/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build.c: compile solutions into cached shared objects (see build.h),
 * with the compiler confined.
 *
 * A build runs in its own directory (a fresh one under the cache), step by
 * step: per compiled source a dependency pass (-M: what the preprocessor
 * would read, checked before the compiler may say anything about it), a
 * compile (-c, with -MD and the assembler's --MD, which also lists
 * .incbin and .include files), then one link. Each step is a child of
 * src/exec under rlimits (CPU seconds, file size, open files, processes;
 * address space for cc only: nvcc's cicc reserves far more than it uses)
 * that runs `nodus __jail` (exec/landlock.h; it sets the address space
 * limit itself, just before exec), which restricts itself with
 * Landlock before it executes the compiler: reads only of the listed
 * sources (each file, not their directory, which other solutions share),
 * nodus's include directory and the tool chain (/usr, /lib*, the CUDA
 * toolkit found from nvcc's path, /etc/ld.so.cache), writes only in the
 * build directory (also its TMPDIR and HOME), no TCP, no signals outside.
 * Without Landlock the jail says so in the log and the dependency check
 * (build_deps.c) is what refuses a foreign read; under it, a refused read
 * is found again from the tool's message (build_denied.c). Either way a
 * refused file of the solution's own directory is a mistake (the record
 * is COMPILE_ERROR and says to list it), any other an attack (res->hack:
 * REWARD_HACK).
 *
 * A python solution compiles nodus's torch adapter instead; when its
 * module names torch.utils.cpp_extension (or tvm_ffi, whose
 * tvm_ffi.cpp.load_inline is built the same way), one more step in the
 * same jail (the record step: the target's interpreter runs
 * include/nodus/torch_ext.py, which executes the module with a recording
 * load_inline/load) builds its extensions into the build directory, and
 * nodus keeps each KEY/NAME.so
 * (regular files only, opened without following links) in {cache}/{KEY}.ext,
 * which the adapter is compiled to import from and KEY.read lets its
 * worker read. A failed extension is a compile error. Python builds get
 * 600 s at least.
 *
 * Compiled are the sources with a source extension (.c .s .S for cpu; .cu
 * .c .cc .cpp .cxx for cuda); every other listed file (headers, data for
 * .incbin) is only readable. The record gets the compiler's output through
 * build_log.c's filter; the unfiltered log stays beside the cache entry.
 * ------------------------------------------------------------------------ */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "run/build-internal.h"
#include "run/build.h"
#include "run/python.h"

#define MAX_ARGS (NODUS_MAX_SOURCES + NODUS_MAX_FLAGS + 96)
#define BUILD_FSIZE_BYTES ((int64_t)1 << 30)   /* no output file above 1 GiB */
#define BUILD_AS_BYTES ((int64_t)8 << 30)      /* cc's address space (not nvcc's) */
#define BUILD_NOFILE 1024
#define BUILD_NPROC 4096                       /* per user: cc1, as, ld, nvcc's stages */
#define PY_BUILD_TIMEOUT_S 600.0               /* a python solution's: its extensions too */

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

/* Runs argv with stdout+stderr appended to log_fd; returns exit status or
 * a negative code. env NULL inherits; limits: see the file comment (the
 * address space limit is the jail's, set just before the compiler runs). */
static int run_tool(const char *const *argv, const char *const *env, const char *cwd, int log_fd,
		    int limited, double timeout_s, nodus_error *err)
{
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.env = env;
	o.cwd = cwd;
	o.stdin_fd = -2;
	o.stdout_fd = log_fd;
	o.stderr_fd = log_fd;
	o.die_with_parent = 1;
	if (limited) {
		o.rlimit_cpu_s = (int64_t)timeout_s + 1;
		o.rlimit_fsize_bytes = BUILD_FSIZE_BYTES;
		o.rlimit_nofile = BUILD_NOFILE;
		o.rlimit_nproc = BUILD_NPROC;
		o.rlimit_core = -1;
	}
	nodus_child c;
	int rc = nodus_child_start(&c, &o, err);
	if (rc)
		return rc;
	rc = nodus_child_finish_timeout(&c, (int)(timeout_s * 1000));
	/* a step runs solution code (the record and warm steps: the module):
	 * a process it left in a session of its own is ours (subreaper) and
	 * dies now, not after the attempt whose timing it would share */
	nodus_exec_reap_strays();
	return rc;
}

/* Runs a version query (no jail: no solution input) and returns its output. */
static int version_of(const char *const *argv, char *out, size_t size, int last_line)
{
	char log[] = "/tmp/nodus-compiler-version-XXXXXX";
	int fd = mkstemp(log);
	out[0] = '\0';
	if (fd < 0)
		return -1;
	nodus_error err;
	int rc = run_tool(argv, NULL, NULL, fd, 0, 30, &err);
	close(fd);
	FILE *f = rc == 0 ? fopen(log, "r") : NULL;
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, size, "%s", line);
		if (!last_line)
			break;
	}
	if (f)
		fclose(f);
	unlink(log);
	return rc;
}

static char cc_version[256], nvcc_version[256];

const char *nodus_build_compiler_version(int backend)
{
	char *slot = backend == NODUS_BACKEND_CUDA ? nvcc_version : cc_version;
	if (slot[0])
		return slot;
	const char *argv_cc[] = {"cc", "--version", NULL};
	const char *argv_nvcc[] = {"nvcc", "--version", NULL};
	/* nvcc's useful line is the last ("Build cuda_13.0..."); cc's the first */
	int cuda = backend == NODUS_BACKEND_CUDA;
	version_of(cuda ? argv_nvcc : argv_cc, slot, 256, cuda);
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


/* ---- the paths a build may touch ---- */

/* Looks prog up in PATH and resolves it; 0 or -1. */
static int find_program(const char *prog, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX];
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, path, prog);
		if (access(cand, X_OK) == 0 && realpath(cand, out))
			return 0;
		path += n + (path[n] == ':');
	}
	(void)size;
	return -1;
}

static void add_root(build_paths *p, const char *dir)
{
	char real[PATH_MAX];
	if (p->n_roots >= BUILD_MAX_ROOTS || !realpath(dir, real))
		return;
	for (int k = 0; k < p->n_roots; k++)
		if (strcmp(p->roots[k], real) == 0)
			return;
	snprintf(p->roots[p->n_roots++], PATH_MAX, "%s", real);
}

static int is_compiled(const char *name, int cuda)
{
	static const char *const cpu_ext[] = {".c", ".s", ".S"};
	static const char *const cuda_ext[] = {".cu", ".c", ".cc", ".cpp", ".cxx"};
	const char *dot = strrchr(name, '.');
	if (!dot)
		return 0;
	const char *const *ext = cuda ? cuda_ext : cpu_ext;
	size_t n = cuda ? NODUS_ARRAY_SIZE(cuda_ext) : NODUS_ARRAY_SIZE(cpu_ext);
	for (size_t k = 0; k < n; k++)
		if (strcmp(dot, ext[k]) == 0)
			return 1;
	return 0;
}

/* Fills p from the solution and the options: everything resolved. */
static int resolve_paths(build_paths *p, const nodus_solution *s, const nodus_build_opts *o,
			 const char *compiler, nodus_error *err)
{
	memset(p, 0, sizeof(*p));
	if (!realpath(s->dir[0] ? s->dir : ".", p->sol_dir))
		return NODUS_ERR(err, NODUS_EIO, "cannot resolve '%s': %s", s->dir, strerror(errno));
	if (!realpath(o->include_dir, p->include_dir))
		return NODUS_ERR(err, NODUS_EIO, "cannot resolve the include directory '%s': %s",
				 o->include_dir, strerror(errno));
	for (int k = 0; k < s->n_sources; k++) {
		char full[PATH_MAX + sizeof(s->sources[0]) + 2];
		snprintf(full, sizeof(full), "%s/%s", p->sol_dir, s->sources[k]);
		if (!realpath(full, p->sources[k]))
			return NODUS_ERR(err, NODUS_EIO, "cannot resolve source '%s': %s", full,
					 strerror(errno));
		if (!nodus__build_under(p->sources[k], p->sol_dir))
			return NODUS_ERR(err, NODUS_EINVAL,
					 "source '%s' resolves to '%s', outside the solution's "
					 "directory (guard source_outside)",
					 s->sources[k], p->sources[k]);
	}
	p->n_sources = s->n_sources;
	static const char *const system_roots[] = {"/usr", "/lib", "/lib64", "/lib32", "/libx32",
						   "/bin", "/sbin"};
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(system_roots); k++)
		add_root(p, system_roots[k]);
	char real[PATH_MAX];
	if (find_program(compiler, real, sizeof(real)) == 0) {
		/* <root>/bin/nvcc: the CUDA toolkit is <root> */
		char *slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
		slash = strrchr(real, '/');
		if (slash && slash != real)
			*slash = '\0';
		add_root(p, real);
	}
	return 0;
}

/* ---- one build ---- */

struct build {
	const nodus_solution *s;
	const nodus_build_opts *o;
	build_paths p;
	int cuda;                        /* nvcc, not cc */
	char self[PATH_MAX];             /* the nodus binary, for `nodus __jail` */
	const char *jail[96];            /* argv prefix: nodus __jail RULES... -- */
	int n_jail;                      /* entries used in jail */
	char env_path[PATH_MAX + 8], env_tmp[PATH_MAX + 8], env_home[PATH_MAX + 8];
	char env_ld[PATH_MAX + 24];      /* LD_LIBRARY_PATH, when the orchestrator has one */
	const char *env[8];              /* the compiler's whole environment */
	char inc[PATH_MAX + 4];          /* -I<include dir> */
	char arch[64];                   /* -arch=sm_XX */
	char as_bytes[32];               /* the compiler's RLIMIT_AS, set by the jail */
	int log_fd;                      /* every step's output, appended */
	uint64_t deadline_ns;            /* the whole build's watchdog */
	nodus_buf sealed;                /* tool chain and include files read, one per line */
	const nodus_python_info *py;     /* a python solution's interpreter, else NULL */
	char py_defs[12][4200];          /* its adapter's -O and -D flags (torch_adapter.c) */
	char py_params[NODUS_PY_PARAMS_MAX + 32]; /* -DNODUS_PY_PARAMS: python.params */
	char ext_dir[PATH_MAX];          /* {cache}/{KEY}.ext: its prebuilt extensions */
	char ext_helper[PATH_MAX + 32];  /* include/nodus/torch_ext.py */
	char py_trees[4096];             /* py->trees, split in place for the jail */
	char py_bin[PATH_MAX];           /* the interpreter's directory (a venv's bin) */
	char py_cfg[PATH_MAX + 16];      /* a virtual environment's pyvenv.cfg */
	char env_py[8][2 * PATH_MAX + 32]; /* the record step's environment beyond env */
	double timeout_s;                /* the whole build's, for its message */
};

static void jail_rule(struct build *b, const char *opt, const char *path)
{
	if (b->n_jail + 3 < (int)NODUS_ARRAY_SIZE(b->jail)) {
		b->jail[b->n_jail++] = opt;
		b->jail[b->n_jail++] = path;
	}
}

static void build_prepare(struct build *b)
{
	build_paths *p = &b->p;
	b->n_jail = 0;
	b->jail[b->n_jail++] = b->self;
	b->jail[b->n_jail++] = "__jail";
	/* tests of the second layer (the dependency check, the log filter) */
	if (getenv("NODUS_TEST_NO_LANDLOCK"))
		b->jail[b->n_jail++] = "--no-landlock";
	for (int k = 0; k < p->n_roots; k++)
		jail_rule(b, "--exec", p->roots[k]);
	jail_rule(b, "--read", p->include_dir);
	for (int k = 0; k < p->n_sources; k++)
		jail_rule(b, "--read", p->sources[k]);
	jail_rule(b, "--read", "/etc/ld.so.cache");
	jail_rule(b, "--read", "/etc/ld.so.conf");
	jail_rule(b, "--read", "/etc/ld.so.conf.d");
	jail_rule(b, "--read", "/dev/urandom");
	jail_rule(b, "--write", "/dev/null");
	jail_rule(b, "--write", p->build_dir);
	if (!b->cuda) {
		snprintf(b->as_bytes, sizeof(b->as_bytes), "%lld", (long long)BUILD_AS_BYTES);
		jail_rule(b, "--as", b->as_bytes);
	}
	b->jail[b->n_jail++] = "--";
	const char *path = getenv("PATH");
	snprintf(b->env_path, sizeof(b->env_path), "PATH=%s",
		 path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	snprintf(b->env_tmp, sizeof(b->env_tmp), "TMPDIR=%s", p->build_dir);
	snprintf(b->env_home, sizeof(b->env_home), "HOME=%s", p->build_dir);
	const char *env[] = {b->env_path, b->env_tmp, b->env_home, "LANG=C", "LC_ALL=C", NULL, NULL};
	/* the jail is nodus itself, which may need its libraries from there
	 * (a bundle carried to a GPU machine) */
	const char *ld = getenv("LD_LIBRARY_PATH");
	if (ld && *ld) {
		snprintf(b->env_ld, sizeof(b->env_ld), "LD_LIBRARY_PATH=%s", ld);
		env[5] = b->env_ld;
	}
	memcpy(b->env, env, sizeof(env));
	snprintf(b->inc, sizeof(b->inc), "-I%s", p->include_dir);
	snprintf(b->arch, sizeof(b->arch), "-arch=%s", b->o->cuda_arch ? b->o->cuda_arch : "sm_90");
}

/* Runs one step (tool argv after the jail prefix); its exit status. */
static int build_step(struct build *b, const char *const *tool, nodus_error *err)
{
	const char *argv[MAX_ARGS];
	int n = 0;
	for (int k = 0; k < b->n_jail; k++)
		argv[n++] = b->jail[k];
	for (int k = 0; tool[k] && n + 1 < MAX_ARGS; k++)
		argv[n++] = tool[k];
	argv[n] = NULL;
	uint64_t now = nodus_now_ns();
	double left_s = now < b->deadline_ns ? (double)(b->deadline_ns - now) * 1e-9 : 0.001;
	return run_tool(argv, b->env, b->p.build_dir, b->log_fd, 1, left_s, err);
}

/* The compiler, its fixed options and the solution's flags, into argv. */
static int base_args(struct build *b, const char **argv)
{
	int n = 0;
	if (b->cuda) {
		argv[n++] = "nvcc";
		argv[n++] = "-Xcompiler";
		argv[n++] = "-fPIC";
		argv[n++] = b->arch;
		argv[n++] = "-std=c++17";
	} else {
		argv[n++] = "cc";
		argv[n++] = "-fPIC";
		argv[n++] = "-std=c11";
	}
	argv[n++] = b->inc;
	for (int i = 0; i < b->s->n_flags; i++)
		argv[n++] = b->s->flags[i];
	for (int i = 0; b->py && i < (int)NODUS_ARRAY_SIZE(b->py_defs); i++)
		argv[n++] = b->py_defs[i];
	if (b->py && b->s->py_params[0])
		argv[n++] = b->py_params;
	return n;
}

/* A python solution compiles nodus's adapter, not its sources: the
 * defines name its entry, style, module (embedded by .incbin, which the
 * assembler's dependency list then names) and interpreter. */
static void python_defs(struct build *b)
{
	const nodus_solution *s = b->s;
	const char *src = b->p.sources[0];
	const char *base = strrchr(s->sources[0], '/');
	base = base ? base + 1 : s->sources[0];
	snprintf(b->py_defs[0], sizeof(b->py_defs[0]), "-DNODUS_PY_ENTRY=%s", s->entry);
	snprintf(b->py_defs[1], sizeof(b->py_defs[1]), "-DNODUS_PY_STYLE=%d", s->py_style);
	snprintf(b->py_defs[2], sizeof(b->py_defs[2]), "-DNODUS_PY_SOURCE=\"%s\"", src);
	snprintf(b->py_defs[3], sizeof(b->py_defs[3]), "-DNODUS_PY_MODULE=\"%.*s\"",
		 (int)(strlen(base) - 3), base);
	snprintf(b->py_defs[4], sizeof(b->py_defs[4]), "-DNODUS_PY_LIBPYTHON=\"%s\"",
		 b->py->libpython);
	snprintf(b->py_defs[5], sizeof(b->py_defs[5]), "-DNODUS_PY_HOME=\"%s\"", b->py->home);
	snprintf(b->py_defs[6], sizeof(b->py_defs[6]), "-DNODUS_PY_PATH=\"%s\"", b->py->path);
	snprintf(b->py_defs[7], sizeof(b->py_defs[7]), "-O2");
	snprintf(b->py_defs[8], sizeof(b->py_defs[8]), "-DNODUS_PY_INIT=\"%s\"", s->py_init);
	snprintf(b->py_defs[9], sizeof(b->py_defs[9]), "-DNODUS_PY_CUDA=%d",
		 s->backend == NODUS_BACKEND_CUDA);
	snprintf(b->py_defs[10], sizeof(b->py_defs[10]), "-DNODUS_PY_EXT_HELPER=\"%s\"",
		 b->ext_helper);
	snprintf(b->py_defs[11], sizeof(b->py_defs[11]), "-DNODUS_PY_EXT_DIR=\"%s\"", b->ext_dir);
	/* the declared parameters, whose values the adapter draws by name
	 * (validated text: no quotes or backslashes) */
	snprintf(b->py_params, sizeof(b->py_params), "-DNODUS_PY_PARAMS=\"%s\"", s->py_params);
}

static void guard_of(const char *why, char *guard, size_t size)
{
	const char *g = strstr(why, "(guard ");
	if (g)
		snprintf(guard, size, "%.*s", (int)strcspn(g + 7, ")"), g + 7);
}

/* The dependency list dep_file (see build_one), judged: 0, or 2 with
 * res->log saying why and res->hack set for an attack. */
static int deps_refused(struct build *b, const char *dep_file, int may_be_missing,
			nodus_build_result *res)
{
	enum build_refusal r = nodus__build_deps_check(&b->p, dep_file, may_be_missing, &b->sealed,
						       res->log, sizeof(res->log));
	res->hack = r == BUILD_REFUSED_HACK;
	return r == BUILD_REFUSED_NO ? 0 : 2;
}

/* Dependency pass and compile of source k into obj; 0 compiled, 1 the
 * compiler failed, 2 refused (res->log says why), < 0 harness failure. */
static int build_one(struct build *b, int k, const char *src, const char *obj,
		     nodus_build_result *res, nodus_error *err)
{
	int plain_asm = strcmp(strrchr(src, '.'), ".s") == 0; /* not preprocessed */
	char pre[1100], dep[1100], asdep[1100], asopt[1200];
	snprintf(pre, sizeof(pre), "%s/pre%d.d", b->p.build_dir, k);
	snprintf(dep, sizeof(dep), "%s/dep%d.d", b->p.build_dir, k);
	snprintf(asdep, sizeof(asdep), "%s/as%d.d", b->p.build_dir, k);
	const char *argv[MAX_ARGS];
	int n, rc;
	if (!plain_asm) {
		/* what the preprocessor reads, before the compiler may quote it */
		n = base_args(b, argv);
		argv[n++] = "-M";
		argv[n++] = "-MF";
		argv[n++] = pre;
		argv[n++] = src;
		argv[n] = NULL;
		if ((rc = build_step(b, argv, err)) != 0)
			return rc < 0 ? rc : 1;
		if (deps_refused(b, pre, 0, res))
			return 2;
	}
	n = base_args(b, argv);
	argv[n++] = "-c";
	argv[n++] = "-MD";
	argv[n++] = "-MF";
	argv[n++] = dep;
	if (b->cuda) {
		snprintf(asopt, sizeof(asopt), "-Xassembler,--MD=%s", asdep);
		argv[n++] = "-Xcompiler";
	} else {
		snprintf(asopt, sizeof(asopt), "-Wa,--MD=%s", asdep);
	}
	argv[n++] = asopt;
	argv[n++] = src;
	argv[n++] = "-o";
	argv[n++] = obj;
	argv[n] = NULL;
	if ((rc = build_step(b, argv, err)) != 0)
		return rc < 0 ? rc : 1;
	if (deps_refused(b, dep, plain_asm, res) || deps_refused(b, asdep, 0, res))
		return 2;
	return 0;
}

/* Every compile, then the link into out; as build_one. */
static int build_all(struct build *b, const char *out, nodus_build_result *res, nodus_error *err)
{
	char objs[NODUS_MAX_SOURCES][1100];
	char libs[8][80];
	const char *argv[MAX_ARGS];
	int n_obj = 0, rc;
	char adapter[PATH_MAX + 32];
	for (int k = 0; k < b->s->n_sources; k++) {
		if (b->py || !is_compiled(b->s->sources[k], b->cuda))
			continue;
		snprintf(objs[n_obj], sizeof(objs[0]), "%s/obj%d.o", b->p.build_dir, k);
		if ((rc = build_one(b, k, b->p.sources[k], objs[n_obj], res, err)) != 0)
			return rc;
		n_obj++;
	}
	if (b->py) {
		snprintf(adapter, sizeof(adapter), "%s/nodus/torch_adapter.c", b->p.include_dir);
		snprintf(objs[0], sizeof(objs[0]), "%s/adapter.o", b->p.build_dir);
		if ((rc = build_one(b, 0, adapter, objs[0], res, err)) != 0)
			return rc;
		n_obj = 1;
	}
	if (n_obj == 0) {
		snprintf(res->log, sizeof(res->log),
			 "nodus: no source to compile: sources list only headers or data (a %s "
			 "solution compiles %s)",
			 b->cuda ? "cuda" : "cpu", b->cuda ? ".cu .c .cc .cpp .cxx" : ".c .s .S");
		return 2;
	}
	int n = 0;
	argv[n++] = b->cuda ? "nvcc" : "cc";
	argv[n++] = "-shared";
	if (b->cuda)
		argv[n++] = b->arch;
	argv[n++] = "-o";
	argv[n++] = out;
	for (int k = 0; k < n_obj; k++)
		argv[n++] = objs[k];
	for (int i = 0; i < b->s->n_libs && i < 8; i++) {
		snprintf(libs[i], sizeof(libs[i]), "-l%s", b->s->libs[i]);
		argv[n++] = libs[i];
	}
	argv[n] = NULL;
	rc = build_step(b, argv, err);
	return rc < 0 ? rc : rc ? 1 : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* ---- the cache ---- */

/* SHA-256 over what the build is made from before it runs: the solution's
 * build hash (sources' bytes, flags, libs, backend; the entry only for a
 * python solution, whose adapter embeds it), the sources' names
 * and which of them are compiled, the compiler and the target. The files
 * it turns out to read besides are checked through the .deps list. */
static void cache_key(const nodus_solution *s, const nodus_build_opts *o,
		      const nodus_python_info *py, char *out)
{
	nodus_buf b = NODUS_BUF_INIT;
	int cuda = s->backend == NODUS_BACKEND_CUDA;
	nodus_buf_addf(&b, "nodus-build-3\n%s\n%s\n%s\n", s->build_hash,
		       nodus_build_compiler_version(s->backend),
		       cuda ? (o->cuda_arch ? o->cuda_arch : "sm_90") : "host");
	if (py) /* the interpreter the adapter embeds */
		nodus_buf_addf(&b, "python\n%s\n%s\n%s\n%s\n%s\n%s\n", py->interpreter,
			       py->version, py->libpython, py->home, py->path, py->torch);
	if (py && py->tvm_ffi[0]) /* the headers a tvm_ffi.cpp extension compiles with */
		nodus_buf_addf(&b, "tvm_ffi\n%s\n", py->tvm_ffi);
	for (int k = 0; k < s->n_sources; k++)
		nodus_buf_addf(&b, "%zu:%s:%d\n", strlen(s->sources[k]), s->sources[k],
			       is_compiled(s->sources[k], cuda));
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

/* A refused build's record says when the compiler ran without Landlock
 * (the jail wrote so into the log). */
static void degraded_note(const char *log_path, nodus_build_result *res)
{
	char raw[4096];
	read_log(log_path, raw, sizeof(raw));
	char *note = strstr(raw, "nodus: landlock unavailable");
	size_t n = strlen(res->log);
	if (note && n + 2 < sizeof(res->log))
		snprintf(res->log + n, sizeof(res->log) - n, "\n%.*s", (int)strcspn(note, "\n"), note);
}

/* The compiler failed: the record gets its output, filtered, after what
 * nodus found about it. A file Landlock refused decides the guard and,
 * for one no solution may read, makes the refusal an attack (res->hack). */
static void failed_log(struct build *b, const char *log_path, nodus_build_result *res)
{
	static char raw[1 << 16];
	char note[1200] = "", filtered[sizeof(res->log)];
	read_log(log_path, raw, sizeof(raw));
	nodus__build_log_filter(&b->p, raw, filtered, sizeof(filtered));
	int jailed = !strstr(raw, "landlock unavailable");
	enum build_refusal r =
		nodus__build_denied(&b->p, raw, jailed ? "build_confined" : "build_outside_read",
				    note, sizeof(note), res->guard, sizeof(res->guard));
	res->hack = r == BUILD_REFUSED_HACK;
	if (r == BUILD_REFUSED_NO && jailed && strstr(raw, "Permission denied")) {
		/* refused, but not a file nodus can find again: say what holds */
		snprintf(note, sizeof(note),
			 "nodus: the build may read only the solution's listed sources, nodus's "
			 "include/ and the tool chain (guard build_confined)");
		snprintf(res->guard, sizeof(res->guard), "build_confined");
	}
	/* nodus's word first: a record keeps only the start of a long log */
	nodus_buf log = NODUS_BUF_INIT;
	nodus_buf_addf(&log, "%s%s%s", note, note[0] ? "\n" : "", filtered);
	snprintf(res->log, sizeof(res->log), "%.*s", (int)(sizeof(res->log) - 1), log.data);
	nodus_buf_release(&log);
}

/* ---- a python solution's extensions (include/nodus/torch_ext.py) ---- */

/* {cache, resolved}/{key}.ext into out; 0 or -1. */
static int ext_dir_of(const char *cache_dir, const char *key, char *out, size_t size)
{
	char real[PATH_MAX];
	if (!realpath(cache_dir, real))
		return -1;
	int n = snprintf(out, size, "%s/%s.ext", real, key);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* ext_dir when the build kept extensions there (a directory, not a
 * link), else NULL. */
static const char *ext_kept(const char *ext_dir)
{
	struct stat st;
	return lstat(ext_dir, &st) == 0 && S_ISDIR(st.st_mode) ? ext_dir : NULL;
}

/* What the CUDA driver reads and writes (exec/sandbox.c's cuda profile
 * has the same trees): the warm step uses the GPU. */
static const char *const gpu_read[] = {
	"/usr/local", "/opt", "/proc", "/sys", "/etc/nvidia", "/usr/share/nvidia",
};

/* A torch_ext.py step's argv: the build's jail (without cc's address
 * space limit on cuda: nvcc's cicc), the interpreter's trees readable,
 * with gpu the driver's trees, /dev writable and ext_dir readable, then
 * `PYTHON -I -B torch_ext.py CMD SOURCE MODULE ENTRY STYLE INIT LAST...`
 * (record: LAST is the stage it writes into; warm: the extensions'
 * directory and the calls). */
static int step_argv(struct build *b, const char *cmd, int gpu, const char *const *last,
		     const char **argv)
{
	int n = 0, cuda = b->s->backend == NODUS_BACKEND_CUDA;
	for (int k = 0; k < b->n_jail - 1; k++) { /* the last is "--" */
		if (cuda && strcmp(b->jail[k], "--as") == 0) {
			k++;
			continue;
		}
		argv[n++] = b->jail[k];
	}
	for (size_t k = 0; gpu && k < NODUS_ARRAY_SIZE(gpu_read); k++) {
		argv[n++] = "--read";
		argv[n++] = gpu_read[k];
	}
	if (gpu) {
		argv[n++] = "--write";
		argv[n++] = "/dev";
		argv[n++] = "--write"; /* the driver names its threads (exec/sandbox.c) */
		argv[n++] = "/proc/self/task";
		argv[n++] = "--read";
		argv[n++] = b->ext_dir;
	}
	snprintf(b->py_bin, sizeof(b->py_bin), "%s", b->py->interpreter);
	char *slash = strrchr(b->py_bin, '/');
	if (slash && slash != b->py_bin)
		*slash = '\0';
	argv[n++] = "--exec";
	argv[n++] = b->py_bin;
	snprintf(b->py_cfg, sizeof(b->py_cfg), "%s/../pyvenv.cfg", b->py_bin);
	argv[n++] = "--read";
	argv[n++] = b->py_cfg;
	snprintf(b->py_trees, sizeof(b->py_trees), "%s", b->py->trees);
	for (char *t = b->py_trees; *t && n + 40 < MAX_ARGS;) {
		size_t len = strcspn(t, ":");
		int final = !t[len];
		t[len] = '\0';
		argv[n++] = "--exec"; /* a venv's site-packages may hold ninja's binary */
		argv[n++] = t;
		if (final)
			break;
		t += len + 1;
	}
	argv[n++] = "--";
	argv[n++] = b->py->interpreter;
	argv[n++] = "-I";
	argv[n++] = "-B";
	argv[n++] = b->ext_helper;
	argv[n++] = cmd;
	argv[n++] = b->p.sources[0];
	const char *base = strrchr(b->s->sources[0], '/');
	base = base ? base + 1 : b->s->sources[0];
	snprintf(b->env_py[6], sizeof(b->env_py[6]), "%.*s", (int)(strlen(base) - 3), base);
	argv[n++] = b->env_py[6]; /* the module's name, the source's stem */
	argv[n++] = b->s->entry;
	snprintf(b->env_py[7], sizeof(b->env_py[7]), "%d", b->s->py_style);
	argv[n++] = b->env_py[7]; /* the style, 1 or 2 */
	argv[n++] = b->s->py_init;
	for (int k = 0; last[k]; k++)
		argv[n++] = last[k];
	argv[n] = NULL;
	return n;
}

/* The record step's environment: the build's, plus what torch's
 * extension builder reads (no bytecode, no user site, its own directory;
 * on cuda CUDA_HOME, the toolkit nvcc's path names, and the H200's arch;
 * PATH led by the interpreter's directory). Call after step_argv. */
static void record_env(struct build *b, const char *stage, const char **env)
{
	int n = 0;
	for (int k = 0; b->env[k]; k++)
		env[n++] = b->env[k];
	/* the interpreter's directory first: a virtual environment's ninja */
	snprintf(b->env_py[2], sizeof(b->env_py[2]), "PATH=%s:%s", b->py_bin, b->env_path + 5);
	env[0] = b->env_py[2];
	snprintf(b->env_py[0], sizeof(b->env_py[0]), "TORCH_EXTENSIONS_DIR=%s", stage);
	env[n++] = b->env_py[0];
	env[n++] = "PYTHONDONTWRITEBYTECODE=1";
	env[n++] = "PYTHONNOUSERSITE=1";
	env[n++] = "USER=nodus-build"; /* glog asks for it (else nscd's socket) */
	char nvcc[PATH_MAX];
	if (b->s->backend == NODUS_BACKEND_CUDA && find_program("nvcc", nvcc, sizeof(nvcc)) == 0) {
		char *slash = strrchr(nvcc, '/');
		if (slash)
			*slash = '\0';
		slash = strrchr(nvcc, '/');
		if (slash && slash != nvcc)
			*slash = '\0';
		snprintf(b->env_py[1], sizeof(b->env_py[1]), "CUDA_HOME=%s", nvcc);
		env[n++] = b->env_py[1];
		env[n++] = "TORCH_CUDA_ARCH_LIST=9.0";
		env[n++] = "TVM_FFI_CUDA_ARCH_LIST=9.0"; /* else tvm_ffi asks nvidia-smi */
	}
	env[n] = NULL;
}

/* Copies the regular file NAME of directory fd dir (never a link: the
 * step that wrote it is solution code) to the new file to; 0, 1 when it
 * is not a regular file (not kept), -1 when the copy failed. */
static int copy_file_at(int dir, const char *name, const char *to)
{
	int in = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (in < 0)
		return 1; /* a link (ELOOP), or nothing readable: not kept */
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		close(in);
		return 1; /* not a regular file: not kept */
	}
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	char buf[65536];
	ssize_t n = 0;
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (out < 0 || close(out) || n < 0)
		return -1;
	return 0;
}

/* A directory of fd dir (or a path when dir is AT_FDCWD) opened without
 * following a link, as a stream; NULL if it is not one. */
static DIR *open_dir_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (fd >= 0 && !d)
		close(fd);
	return d;
}

/* 1 for a name the record step gives a call's directory (ext_key: 32
 * hexadecimal digits). */
static int is_ext_key(const char *name)
{
	return strlen(name) == 32 && strspn(name, "0123456789abcdef") == 32;
}

/* Copies the .so files of the key directory name of top into tmp/name;
 * 0 or -1. */
static int keep_key_dir(DIR *top, const char *name, const char *tmp)
{
	char to[PATH_MAX + 400];
	DIR *d = open_dir_at(dirfd(top), name);
	struct dirent *f;
	int rc = 0, made = 0;
	while (d && rc == 0 && (f = readdir(d))) {
		size_t len = strlen(f->d_name);
		if (len < 4 || f->d_name[0] == '.' || strcmp(f->d_name + len - 3, ".so") != 0)
			continue;
		snprintf(to, sizeof(to), "%s/%s", tmp, name);
		if (!made && mkdir(to, 0755))
			rc = -1;
		made = 1;
		snprintf(to, sizeof(to), "%s/%s/%s", tmp, name, f->d_name);
		if (rc == 0 && copy_file_at(dirfd(d), f->d_name, to) < 0)
			rc = -1;
	}
	if (d)
		closedir(d);
	return rc;
}

/* Keeps, of what the record step left in stage (written by solution code:
 * anything may be a link, the stage itself too), each STAGE/KEY/NAME.so
 * that is a regular file in a real directory, opened without following
 * links and copied (new files, outside anything the step could write)
 * into a fresh directory that then replaces b->ext_dir. 0, or -1 (errno). */
static int keep_extensions(struct build *b, const char *stage)
{
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->ext_dir);
	if (!mkdtemp(tmp))
		return -1;
	chmod(tmp, 0755);
	DIR *top = open_dir_at(AT_FDCWD, stage);
	struct dirent *e;
	int rc = 0;
	while (top && rc == 0 && (e = readdir(top)))
		if (is_ext_key(e->d_name))
			rc = keep_key_dir(top, e->d_name, tmp);
	if (top)
		closedir(top);
	if (rc == 0) {
		nodus_remove_tree(b->ext_dir); /* a killed build's, or a stale one */
		rc = rename(tmp, b->ext_dir);
	}
	if (rc)
		nodus_remove_tree(tmp);
	return rc;
}

/* A python solution whose module uses torch.utils.cpp_extension: its
 * module run once, in the build's jail, by torch_ext.py's record step,
 * which builds every load_inline/load call into the build directory;
 * the extensions it made are then kept in b->ext_dir. 0 (kept, or the
 * module raised for another reason: the worker's to judge), 1 an
 * extension did not compile or the step failed (res->log), < 0 a harness
 * failure. */
static int record_extensions(struct build *b, const char *log_path, nodus_build_result *res,
			     nodus_error *err)
{
	const char *argv[MAX_ARGS], *env[24];
	char stage[1100];
	snprintf(stage, sizeof(stage), "%s/ext", b->p.build_dir);
	if (mkdir(stage, 0755))
		return NODUS_ERR(err, NODUS_EIO, "cannot create '%s': %s", stage, strerror(errno));
	const char *last[] = {stage, NULL};
	step_argv(b, "record", 0, last, argv);
	record_env(b, stage, env);
	uint64_t now = nodus_now_ns();
	double left_s = now < b->deadline_ns ? (double)(b->deadline_ns - now) * 1e-9 : 0.001;
	int rc = run_tool(argv, env, b->p.build_dir, b->log_fd, 1, left_s, err);
	if (rc < 0)
		return rc;
	if (nodus_now_ns() >= b->deadline_ns) {
		snprintf(res->log, sizeof(res->log),
			 "nodus: building the module's load_inline/load extensions ran past the "
			 "build's %.0f s (a python solution's compile timeout)",
			 (double)b->timeout_s);
		snprintf(res->guard, sizeof(res->guard), "compile_timeout");
		return 1;
	}
	if (rc == 3 || rc == 126 || rc == 127) { /* an extension failed; the jail or python did */
		failed_log(b, log_path, res);
		if (!strstr(res->log, "nodus: "))
			snprintf(res->log, sizeof(res->log),
				 "nodus: the record step of the module's extensions exited with "
				 "status %d (the build log '%s' has its output)", rc, log_path);
		return 1;
	}
	if (keep_extensions(b, stage))
		return NODUS_ERR(err, NODUS_EIO, "cannot keep the extensions of '%s' in '%s': %s",
				 b->s->name, b->ext_dir, strerror(errno));
	return 0;
}

/* A build of s in a fresh directory {cache}/{key}.{what}.XXXXXX, its paths
 * resolved and its jail prepared, into *bp. 0 with *bp NULL when a source
 * no longer resolves inside the solution (res->log and res->guard say
 * so); < 0 a harness failure. */
static int build_open(struct build **bp, const nodus_solution *s, const nodus_build_opts *o,
		      const nodus_python_info *py, const char *key, const char *what,
		      const char *ext_dir, nodus_build_result *res, nodus_error *err)
{
	*bp = NULL;
	struct build *b = calloc(1, sizeof(*b)); /* about 120 KiB of paths */
	if (!b)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory building '%s'", s->name);
	b->s = s;
	b->o = o;
	/* a python solution's adapter is C, compiled by cc on either backend
	 * (it needs no CUDA header: the stream is an opaque pointer) */
	b->cuda = s->backend == NODUS_BACKEND_CUDA && !py;
	b->py = py;
	b->log_fd = -1;
	nodus_buf_init(&b->sealed);
	int rc = resolve_paths(&b->p, s, o, s->backend == NODUS_BACKEND_CUDA ? "nvcc" : "cc", err);
	if (rc == NODUS_EINVAL) {
		/* a source turned into a link out of the suite since it was checked */
		snprintf(res->log, sizeof(res->log), "nodus: %s", err->message);
		guard_of(res->log, res->guard, sizeof(res->guard));
		rc = 0;
	}
	if (rc || res->guard[0]) {
		free(b);
		return rc;
	}
	char tmpl[1100];
	snprintf(tmpl, sizeof(tmpl), "%s/%s.%s.XXXXXX", o->cache_dir, key, what);
	char real_tmp[PATH_MAX];
	if (!mkdtemp(tmpl) || !realpath(tmpl, real_tmp) ||
	    strlen(real_tmp) >= sizeof(b->p.build_dir) - 32) {
		free(b);
		return NODUS_ERR(err, NODUS_EIO, "cannot create a build directory in '%s': %s",
				 o->cache_dir, strerror(errno));
	}
	memcpy(b->p.build_dir, real_tmp, strlen(real_tmp) + 1); /* fits: checked above */
	if (o->self_path)
		snprintf(b->self, sizeof(b->self), "%s", o->self_path);
	else if (readlink("/proc/self/exe", b->self, sizeof(b->self) - 1) < 0)
		snprintf(b->self, sizeof(b->self), "nodus");
	build_prepare(b);
	if (b->py) {
		snprintf(b->ext_dir, sizeof(b->ext_dir), "%s", ext_dir);
		snprintf(b->ext_helper, sizeof(b->ext_helper), "%s/nodus/torch_ext.py",
			 b->p.include_dir);
	}
	*bp = b;
	return 0;
}

static void build_close(struct build *b)
{
	if (b->log_fd >= 0)
		close(b->log_fd);
	nftw(b->p.build_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	nodus_buf_release(&b->sealed);
	free(b);
}

int nodus_build_solution(const nodus_solution *s, const nodus_build_opts *o,
			 nodus_build_result *res, nodus_error *err)
{
	memset(res, 0, sizeof(*res));
	if (mkdir_p(o->cache_dir))
		return NODUS_ERR(err, NODUS_EIO, "cannot create cache directory '%s': %s",
				 o->cache_dir, strerror(errno));
	const nodus_python_info *py = NULL;
	int rc;
	if (s->language == NODUS_LANG_PYTHON) {
		if (!o->python || !*o->python)
			return NODUS_ERR(err, NODUS_EINVAL, "python solution '%s' needs the target's "
					 "interpreter (target.python)", s->name);
		if ((rc = nodus__python_probe(o->python, &py, err)))
			return rc;
	}
	cache_key(s, o, py, res->key);
	char deps_path[1100], log_path[1100], tmp_deps[1100 + 16];
	snprintf(res->so_path, sizeof(res->so_path), "%s/%s.so", o->cache_dir, res->key);
	snprintf(deps_path, sizeof(deps_path), "%s/%s.deps", o->cache_dir, res->key);
	snprintf(log_path, sizeof(log_path), "%s/%s.log", o->cache_dir, res->key);
	char ext_dir[PATH_MAX];
	if (py && ext_dir_of(o->cache_dir, res->key, ext_dir, sizeof(ext_dir)))
		return NODUS_ERR(err, NODUS_EIO, "cannot resolve the cache directory '%s': %s",
				 o->cache_dir, strerror(errno));
	if (access(res->so_path, R_OK) == 0 && nodus__build_deps_current(deps_path)) {
		res->ok = 1;
		res->cache_hit = 1;
		/* written again: an adapter cached before the file existed */
		return py ? nodus__python_trees_write(res->so_path, py, ext_kept(ext_dir), err) : 0;
	}

	struct build *b = NULL;
	if ((rc = build_open(&b, s, o, py, res->key, "build", ext_dir, res, err)) || !b)
		return rc;
	if (b->py)
		python_defs(b);
	b->log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->log_fd < 0) {
		rc = NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", log_path, strerror(errno));
		goto out;
	}
	/* a python solution's build may compile its load_inline extensions
	 * (torch's take about a minute each here) */
	b->timeout_s = o->timeout_s > 0 ? o->timeout_s : 120;
	if (py && b->timeout_s < PY_BUILD_TIMEOUT_S)
		b->timeout_s = PY_BUILD_TIMEOUT_S;
	b->deadline_ns = nodus_now_ns() + (uint64_t)(b->timeout_s * 1e9);
	char out_so[1100 + 16];
	snprintf(out_so, sizeof(out_so), "%s/out.so", b->p.build_dir);
	uint64_t t0 = nodus_now_ns();
	rc = build_all(b, out_so, res, err);
	/* a module that names torch.utils.cpp_extension (or tvm_ffi, whose
	 * tvm_ffi.cpp.load_inline the record step builds the same way): only
	 * then can it call load_inline or load (by any other route its call
	 * finds no prebuilt extension in the worker: LOAD_ERROR, nothing
	 * worse) */
	if (rc == 0 && py && nodus__python_source_names(b->p.sources[0], "tvm_ffi"))
		rc = nodus__python_need_tvm_ffi(py, s->name, err);
	if (rc == 0 && py &&
	    (nodus__python_source_names(b->p.sources[0], "cpp_extension") ||
	     nodus__python_source_names(b->p.sources[0], "tvm_ffi")))
		rc = record_extensions(b, log_path, res, err);
	res->compile_s = (double)(nodus_now_ns() - t0) * 1e-9;
	if (rc < 0) {
		read_log(log_path, res->log, sizeof(res->log)); /* the compiler could not be started */
		goto out;
	}
	if (rc == 1 && !res->log[0])
		failed_log(b, log_path, res);
	if (rc == 2) {
		guard_of(res->log, res->guard, sizeof(res->guard));
		degraded_note(log_path, res);
	}
	if (rc) {
		rc = 0;
		goto out;
	}
	snprintf(tmp_deps, sizeof(tmp_deps), "%s/out.deps", b->p.build_dir);
	if ((rc = nodus__build_deps_write(tmp_deps, b->sealed.data, err)))
		goto out;
	/* the trees its worker reads, in place before the object they go with */
	if (py && (rc = nodus__python_trees_write(res->so_path, py, ext_kept(b->ext_dir), err)))
		goto out;
	if (rename(tmp_deps, deps_path) || rename(out_so, res->so_path)) {
		rc = NODUS_ERR(err, NODUS_EIO, "cannot move the build of '%s' into the cache: %s",
			       s->name, strerror(errno));
		goto out;
	}
	res->ok = 1;
out:
	build_close(b);
	return rc;
}

/* ---- a python solution's Triton kernels (the warm step) ---- */

/* ---- a python solution's Triton kernels: the warm step ---- */

/* 1 for a name Triton gives a cache entry or a file in one (base32 keys,
 * kernel and launcher files: letters, digits, '.', '_', '-'); never ".."
 * or a hidden name. */
static int is_triton_name(const char *name)
{
	return name[0] && name[0] != '.' && strlen(name) < 256 &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
		       strlen(name);
}

/* Keeps what the warm step's Triton wrote in stage (solution code: any
 * entry may be a link): each STAGE/ENTRY/FILE that is a regular file in a
 * real directory, opened without following links, copied into a fresh
 * directory renamed to triton/ENTRY, for entries triton/ lacks (an entry's
 * name is a hash of what it holds). 0, or -1 (errno). */
static int keep_triton(const char *stage, const char *triton)
{
	DIR *top = open_dir_at(AT_FDCWD, stage);
	if (!top)
		return 0; /* Triton compiled nothing */
	struct dirent *e;
	int rc = 0;
	char tmp[PATH_MAX + 32], to[PATH_MAX + 600], final[PATH_MAX + 300];
	while (rc == 0 && (e = readdir(top))) {
		if (!is_triton_name(e->d_name))
			continue;
		snprintf(final, sizeof(final), "%s/%s", triton, e->d_name);
		if (access(final, F_OK) == 0)
			continue;
		DIR *d = open_dir_at(dirfd(top), e->d_name);
		if (!d)
			continue; /* not a directory: nothing Triton writes */
		snprintf(tmp, sizeof(tmp), "%s/.keep.XXXXXX", triton);
		if (!mkdtemp(tmp)) {
			closedir(d);
			rc = -1;
			break;
		}
		chmod(tmp, 0755);
		struct dirent *f;
		while (rc == 0 && (f = readdir(d))) {
			if (!is_triton_name(f->d_name))
				continue;
			snprintf(to, sizeof(to), "%s/%s", tmp, f->d_name);
			if (copy_file_at(dirfd(d), f->d_name, to) < 0)
				rc = -1;
		}
		closedir(d);
		if (rc == 0 && rename(tmp, final) && errno != EEXIST && errno != ENOTEMPTY)
			rc = -1;
		nodus_remove_tree(tmp); /* left when another build kept the entry first */
	}
	closedir(top);
	return rc;
}

/* The warm step's environment: the record step's, Triton's cache in the
 * stage and its home in the build directory, and the orchestrator's
 * choice of GPU. */
static void warm_env(struct build *b, const char *stage, const char **env)
{
	record_env(b, stage, env);
	int n = 0;
	while (env[n])
		n++;
	snprintf(b->env_py[3], sizeof(b->env_py[3]), "TRITON_CACHE_DIR=%s/triton", stage);
	env[n++] = b->env_py[3];
	snprintf(b->env_py[4], sizeof(b->env_py[4]), "TRITON_HOME=%s", b->p.build_dir);
	env[n++] = b->env_py[4];
	static const char *const pass[] = {"CUDA_VISIBLE_DEVICES", "NODUS_CUDA_DEVICE",
					   "CUDA_DEVICE_ORDER"};
	size_t used = 0;
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(pass); k++) {
		const char *v = getenv(pass[k]);
		if (!v || used + strlen(pass[k]) + strlen(v) + 2 > sizeof(b->env_py[5]))
			continue;
		char *slot = b->env_py[5] + used;
		used += (size_t)snprintf(slot, sizeof(b->env_py[5]) - used, "%s=%s", pass[k], v) + 1;
		env[n++] = slot;
	}
	env[n] = NULL;
}

int nodus_build_uses_triton(const nodus_solution *s)
{
	if (s->language != NODUS_LANG_PYTHON || s->backend != NODUS_BACKEND_CUDA)
		return 0;
	char src[PATH_MAX + NODUS_NAME_MAX + 8];
	snprintf(src, sizeof(src), "%s/%s", s->dir[0] ? s->dir : ".", s->sources[0]);
	return nodus__python_source_names(src, "triton");
}

int nodus_build_warm(const nodus_solution *s, const nodus_build_opts *o,
		     const nodus_build_result *built, const char *calls_json,
		     nodus_build_result *res, nodus_error *err)
{
	memset(res, 0, sizeof(*res));
	res->ok = 1;
	if (!built->ok || !nodus_build_uses_triton(s))
		return 0;
	const nodus_python_info *py = NULL;
	int rc = nodus__python_probe(o->python, &py, err);
	if (rc)
		return rc;
	char ext_dir[PATH_MAX], triton[PATH_MAX + 16], marker[PATH_MAX + 120];
	if (ext_dir_of(o->cache_dir, built->key, ext_dir, sizeof(ext_dir)))
		return NODUS_ERR(err, NODUS_EIO, "cannot resolve the cache directory '%s': %s",
				 o->cache_dir, strerror(errno));
	/* one warm per solution and set of shapes */
	char hex[NODUS_SHA256_HEX];
	nodus_sha256_hex(calls_json, strlen(calls_json), hex);
	snprintf(triton, sizeof(triton), "%s/triton", ext_dir);
	snprintf(marker, sizeof(marker), "%s/.warm-%.32s", triton, hex);
	if (access(marker, F_OK) == 0) {
		res->cache_hit = 1;
		return 0;
	}
	struct build *b = NULL;
	if ((rc = build_open(&b, s, o, py, built->key, "warm", ext_dir, res, err)) || !b) {
		res->ok = !res->guard[0];
		return rc;
	}
	char log_path[1100], stage[1100];
	snprintf(log_path, sizeof(log_path), "%s/%s.warm.log", o->cache_dir, built->key);
	snprintf(stage, sizeof(stage), "%s/stage", b->p.build_dir);
	b->log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (b->log_fd < 0 || mkdir(stage, 0755)) {
		rc = NODUS_ERR(err, NODUS_EIO, "cannot prepare the warm step of '%s' ('%s'): %s",
			       s->name, log_path, strerror(errno));
		goto out;
	}
	b->timeout_s = o->timeout_s > PY_BUILD_TIMEOUT_S ? o->timeout_s : PY_BUILD_TIMEOUT_S;
	b->deadline_ns = nodus_now_ns() + (uint64_t)(b->timeout_s * 1e9);
	const char *argv[MAX_ARGS], *env[32];
	const char *last[] = {ext_dir, calls_json, NULL};
	step_argv(b, "warm", 1, last, argv);
	warm_env(b, stage, env);
	uint64_t t0 = nodus_now_ns();
	rc = run_tool(argv, env, b->p.build_dir, b->log_fd, 1, b->timeout_s, err);
	res->compile_s = (double)(nodus_now_ns() - t0) * 1e-9;
	if (rc < 0)
		goto out;
	if (nodus_now_ns() >= b->deadline_ns) {
		snprintf(res->log, sizeof(res->log),
			 "nodus: the warm step (Triton's kernels for this workload) ran past the "
			 "build's %.0f s (a python solution's compile timeout)", b->timeout_s);
		snprintf(res->guard, sizeof(res->guard), "compile_timeout");
		res->ok = 0;
		rc = 0;
		goto out;
	}
	if (rc != 0) {
		/* 3: a Triton compile error (the candidate's); 4: no GPU in the jail
		 * (nodus's: triton_warm_gpu); anything else: the step itself failed */
		read_log(log_path, res->log, sizeof(res->log));
		const char *said = strstr(res->log, "nodus: ");
		if (said && said != res->log)
			memmove(res->log, said, strlen(said) + 1);
		if (!said)
			snprintf(res->log, sizeof(res->log),
				 "nodus: the warm step (Triton's kernels for this workload) exited "
				 "with status %d (its log '%s' has its output)", rc, log_path);
		snprintf(res->guard, sizeof(res->guard), "%s", rc == 4 ? "triton_warm_gpu" : "compile");
		res->ok = 0;
		rc = 0;
		goto out;
	}
	char stage_triton[1100 + 8];
	snprintf(stage_triton, sizeof(stage_triton), "%s/triton", stage);
	if ((mkdir(ext_dir, 0755) && errno != EEXIST) || (mkdir(triton, 0755) && errno != EEXIST) ||
	    keep_triton(stage_triton, triton)) {
		rc = NODUS_ERR(err, NODUS_EIO, "cannot keep the Triton kernels of '%s' in '%s': %s",
			       s->name, triton, strerror(errno));
		goto out;
	}
	/* the worker reads ext_dir: listed (again) beside the object */
	if ((rc = nodus__python_trees_write(built->so_path, py, ext_dir, err)))
		goto out;
	int fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = NODUS_ERR(err, NODUS_EIO, "cannot write '%s': %s", marker, strerror(errno));
		goto out;
	}
	/* what was warmed, for a reader; the marker's existence is what counts */
	ssize_t wrote = write(fd, calls_json, strlen(calls_json));
	(void)wrote;
	close(fd);
out:
	build_close(b);
	return rc;
}
