/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * solution.c: validating a solution file into a nodus_solution and
 * computing its content hash.
 *
 * Sources are relative to the solution file's directory: an absolute path
 * or a ".." component is a fault (a solution may not read outside its own
 * tree), so is a path that resolves (symbolic links followed) outside that
 * directory, and every source must be a regular file of at most 16 MiB.
 * Sources list every file the build reads (headers and .incbin data too):
 * the build can read no other file of the suite (docs/formats.md).
 * Compiler flags come from an allow-list (flags.c): nothing that redirects
 * the output or the tool chain, rebinds symbols (-Wl,--wrap=) or links
 * behind build.link's back.
 *
 * Content hash (hex SHA-256), the identity the compile cache and the plan
 * use: over the string "nodus-solution-1", then the backend name, the entry
 * symbol, the number of flags and each flag, the number of link libraries
 * and each, for a Python solution "python", its style, python.init and,
 * when declared, "params" and python.params (as the adapter gets them),
 * then the number of sources and each source's bytes, in declaration
 * order; every string and byte run is preceded by its length as 8 bytes
 * little-endian, every count is 8 bytes little-endian. The name, task,
 * author, tags and the sources' file names are not hashed, so two solutions
 * that differ only by name share a hash.
 * ------------------------------------------------------------------------ */
#include "spec-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static const nodus__vfield sol_fields[] = {
	{"kind", 1},   {"format", 1}, {"name", 1},  {"task", 1},  {"backend", 1},
	{"sources", 1}, {"entry", 1}, {"build", 0}, {"author", 0}, {"tags", 0},
	{"language", 0}, {"python", 0}};

static const char *const languages[] = {"native", "python"};
static const char *const py_styles[] = {"destination", "module"};

static const char *const backends[] = {"cpu", "cuda"};

static int is_c_ident(const char *s)
{
	if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* build.flags go through nodus__flag_fault (flags.c) with the backend,
 * which str_list's one-argument check cannot carry: these two wrap it. */
static const char *cpu_flag_fault(const char *f)
{
	return nodus__flag_fault(f, NODUS_BACKEND_CPU);
}

static const char *cuda_flag_fault(const char *f)
{
	return nodus__flag_fault(f, NODUS_BACKEND_CUDA);
}

static int is_lib_name(const char *s)
{
	if (!s[0] || s[0] == '-' || s[0] == '.')
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-", *s))
			return 0;
	return 1;
}

/* Validates an array of strings into out[n][size], each passing check
 * (which returns NULL or why it fails). */
static int str_list(nodus__vctx *v, const json_t *obj, const char *key, size_t max,
		    char *out, size_t size, const char *what, const char *(*check)(const char *))
{
	json_t *j = json_object_get(obj, key);
	if (!j)
		return 0;
	nodus__v_push_key(v, key);
	int n = nodus__v_array(v, j, 0, max, what);
	int kept = 0;
	for (int k = 0; k < n; k++) {
		json_t *s = json_array_get(j, (size_t)k);
		char got[96];
		nodus__v_describe(s, got, sizeof(got));
		nodus__v_push_index(v, (size_t)k);
		const char *why = !json_is_string(s)		 ? "not a string"
				  : json_string_length(s) >= size ? "too long"
								   : check(json_string_value(s));
		if (why)
			nodus__v_err(v, 0, "expected %s, got %s (%s)", what, got, why);
		else
			memcpy(out + (size_t)kept++ * size, json_string_value(s),
			       json_string_length(s) + 1);
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
	return kept;
}

static const char *check_lib(const char *s)
{
	return is_lib_name(s) ? NULL : "not a library name";
}

static const char *check_tag(const char *s)
{
	return nodus__is_name(s) ? NULL : "not a name";
}

static void sol_build(nodus__vctx *v, const json_t *j, nodus_solution *s)
{
	static const nodus__vfield f[] = {{"flags", 0}, {"link", 0}};
	if (!j)
		return;
	nodus__v_push_key(v, "build");
	if (nodus__v_object(v, j, "a build object {\"flags\", \"link\"}")) {
		nodus__v_fields(v, j, f, 2);
		s->n_flags = str_list(v, j, "flags", NODUS_MAX_FLAGS, s->flags[0],
				      sizeof(s->flags[0]), "compiler flags",
				      s->backend == NODUS_BACKEND_CUDA ? cuda_flag_fault : cpu_flag_fault);
		s->n_libs = str_list(v, j, "link", NODUS_ARRAY_SIZE(s->libs), s->libs[0],
				     sizeof(s->libs[0]), "library names", check_lib);
	}
	nodus__v_pop(v);
}

static void sol_sources(nodus__vctx *v, const json_t *j, const char *dir, nodus_solution *s)
{
	if (!j)
		return;
	nodus__v_push_key(v, "sources");
	int n = nodus__v_array(v, j, 1, NODUS_MAX_SOURCES, "source paths");
	nodus_buf bytes = NODUS_BUF_INIT;
	for (int k = 0; k < n; k++) {
		char *src = s->sources[s->n_sources];
		nodus__v_push_index(v, (size_t)k);
		if (nodus__v_relpath(v, json_array_get(j, (size_t)k), 0, src,
				     sizeof(s->sources[0])) == 1) {
			int dup = -1;
			for (int m = 0; m < s->n_sources && dup < 0; m++)
				if (strcmp(s->sources[m], src) == 0)
					dup = m;
			char full[1024], real[1024];
			if (dup >= 0)
				nodus__v_err(v, 0, "expected each source once, got \"%s\" again "
						   "(first at $.sources[%d])",
					     src, dup);
			else if (dir && nodus__path_join(full, sizeof(full), dir, src))
				nodus__v_err(v, 0, "expected a shorter path, got \"%s\"", src);
			else if (!dir)
				s->n_sources++;
			/* the file's type and size first, in the words verify uses too */
			else if (nodus__spec_read(full, NODUS__SOURCE_MAX_BYTES, &bytes, v, NULL))
				;
			else if (nodus__path_inside(dir, full, real, sizeof(real)))
				nodus__v_err(v, 0, "expected a source inside the solution's directory, "
						   "got \"%s\", a symbolic link to \"%s\" (guard "
						   "source_outside)",
					     src, real);
			else
				s->n_sources++;
		}
		nodus__v_pop(v);
	}
	nodus_buf_release(&bytes);
	nodus__v_pop(v);
}

/* python.init: the module's constructor arguments (KernelBench's
 * get_init_inputs()), at most 16 numbers, booleans or tuples of up to 8 of
 * them (arrays), module style only;
 * kept as compact JSON, which is hashed and handed to the adapter. */
static void py_init(nodus__vctx *v, const json_t *j, nodus_solution *s)
{
	snprintf(s->py_init, sizeof(s->py_init), "[]");
	if (!j)
		return;
	nodus__v_push_key(v, "init");
	if (s->py_style != NODUS_PY_MODULE)
		nodus__v_err(v, 0, "expected no init for a destination-passing solution (only a "
				   "module's constructor takes arguments)");
	int n = nodus__v_array(v, j, 0, 16, "constructor arguments");
	for (int k = 0; k < n; k++) {
		const json_t *e = json_array_get(j, (size_t)k);
		char got[96];
		nodus__v_describe(e, got, sizeof(got));
		nodus__v_push_index(v, (size_t)k);
		if (json_is_array(e)) {
			/* a tuple (a kernel size, a normalized shape): the adapter
			 * passes it as one */
			int m = nodus__v_array(v, e, 1, 8, "tuple items");
			for (int i = 0; i < m; i++) {
				const json_t *x = json_array_get(e, (size_t)i);
				nodus__v_push_index(v, (size_t)i);
				if (!json_is_number(x) && !json_is_boolean(x)) {
					nodus__v_describe(x, got, sizeof(got));
					nodus__v_err(v, 0, "expected a number or a boolean, got %s", got);
				}
				nodus__v_pop(v);
			}
		} else if (!json_is_number(e) && !json_is_boolean(e)) {
			nodus__v_err(v, 0, "expected a number, a boolean or a tuple of them (an array), "
					   "got %s", got);
		}
		nodus__v_pop(v);
	}
	char *text = n > 0 ? json_dumps(j, JSON_COMPACT) : NULL;
	if (text && strlen(text) < sizeof(s->py_init))
		snprintf(s->py_init, sizeof(s->py_init), "%s", text);
	else if (text)
		nodus__v_err(v, 0, "expected at most %zu bytes of arguments", sizeof(s->py_init) - 1);
	free(text);
	nodus__v_pop(v);
}

/* A torch parameter's or buffer's name as named_parameters() gives it:
 * dotted identifiers ("ln.weight", "layers.0.bias"). */
static int is_param_name(const char *s)
{
	if (!s[0] || s[0] == '.')
		return 0;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || (*c == '.' && c[1] && c[1] != '.')))
			return 0;
	return 1;
}

static const char *const param_dtypes[] = {"float32", "float64", "float16", "bfloat16"};

/* One entry of python.params, {"name", "shape", "dtype"}, appended to out
 * (len bytes used of size) as "name:D0xD1:dtype"; 0, or -1 after an error.
 * Names are checked unique by the caller. */
static int py_param(nodus__vctx *v, const json_t *e, char *out, size_t size, size_t *len)
{
	static const nodus__vfield f[] = {{"name", 1}, {"shape", 1}, {"dtype", 1}};
	char name[256] = "", text[512];
	size_t errs = v->n_errors;
	int dt = -1;
	if (!nodus__v_object(v, e, "a parameter {\"name\", \"shape\", \"dtype\"}"))
		return -1;
	nodus__v_fields(v, e, f, NODUS_ARRAY_SIZE(f));
	if (nodus__v_str(v, e, "name", name, sizeof(name)) == 1 && !is_param_name(name))
		nodus__v_err_key(v, "name", 0, "expected a torch parameter name (dotted identifiers, "
					       "as named_parameters() gives them), got \"%s\"", name);
	if (json_object_get(e, "dtype"))
		nodus__v_enum(v, e, "dtype", param_dtypes, NODUS_ARRAY_SIZE(param_dtypes), &dt);
	int n = snprintf(text, sizeof(text), "%s:", name);
	const json_t *shape = json_object_get(e, "shape");
	if (shape) {
		nodus__v_push_key(v, "shape");
		int m = nodus__v_array(v, shape, 0, NODUS_MAX_DIMS, "dimensions");
		for (int k = 0; k < m; k++) {
			const json_t *d = json_array_get(shape, (size_t)k);
			nodus__v_push_index(v, (size_t)k);
			if (!json_is_integer(d) || json_integer_value(d) < 0 ||
			    json_integer_value(d) > ((json_int_t)1 << 40)) {
				char got[96];
				nodus__v_describe(d, got, sizeof(got));
				nodus__v_err(v, 0, "expected a size in [0, 2^40], got %s", got);
			} else {
				n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%lld", k ? "x" : "",
					      (long long)json_integer_value(d));
			}
			nodus__v_pop(v);
		}
		nodus__v_pop(v);
	}
	if (v->n_errors != errs)
		return -1;
	snprintf(text + n, sizeof(text) - (size_t)n, ":%s", param_dtypes[dt]);
	size_t need = strlen(text) + (*len ? 1 : 0);
	if (*len + need >= size) {
		nodus__v_err(v, 0, "expected the parameters in at most %zu bytes (as "
				   "name:shape:dtype;...), got more", size - 1);
		return -1;
	}
	snprintf(out + *len, size - *len, "%s%s", *len ? ";" : "", text);
	*len += need;
	return 0;
}

/* python.params: the reference module's floating parameters and buffers
 * (name, shape, dtype, in torch's order: parameters, then buffers), which
 * `nodus import kernelbench` writes into the reference and every candidate
 * of a problem. The adapter gives each declared tensor values drawn from
 * its name and shape, and a solution's own tensor those of the declared
 * one it matches (same name and shape, else the next unmatched one of its
 * shape), so a candidate that names or orders its parameters differently
 * from the reference still gets the reference's values. Kept as compact
 * text (no quotes: it is a C string define of the adapter), hashed. */
static void py_params(nodus__vctx *v, const json_t *j, nodus_solution *s)
{
	s->py_params[0] = '\0';
	if (!j)
		return;
	nodus__v_push_key(v, "params");
	if (s->py_style != NODUS_PY_MODULE)
		nodus__v_err(v, 0, "expected no params for a destination-passing solution (only a "
				   "module has parameters)");
	int n = nodus__v_array(v, j, 0, NODUS_PY_PARAMS_N, "parameters");
	size_t len = 0;
	for (int k = 0; k < n; k++) {
		const json_t *e = json_array_get(j, (size_t)k);
		const char *name = json_string_value(json_object_get(e, "name"));
		nodus__v_push_index(v, (size_t)k);
		for (int m = 0; name && m < k; m++) {
			const char *other =
				json_string_value(json_object_get(json_array_get(j, (size_t)m), "name"));
			if (other && strcmp(other, name) == 0) {
				nodus__v_err_key(v, "name", 0, "expected each parameter name once, got "
							       "\"%s\" again (first at $.python.params[%d])",
						 name, m);
				break;
			}
		}
		py_param(v, e, s->py_params, sizeof(s->py_params), &len);
		nodus__v_pop(v);
	}
	nodus__v_pop(v);
}

/* "language" and "python": a Python solution names its call style, has
 * exactly one source, a .py module, and no build flags or libraries (the
 * adapter is built by nodus: src/run/build.c). */
static void sol_python(nodus__vctx *v, const json_t *obj, nodus_solution *s)
{
	static const nodus__vfield f[] = {{"style", 1}, {"init", 0}, {"params", 0}};
	int lang = 0;
	if (json_object_get(obj, "language") &&
	    nodus__v_enum(v, obj, "language", languages, NODUS_ARRAY_SIZE(languages), &lang) != 1)
		return;
	s->language = lang;
	const json_t *py = json_object_get(obj, "python");
	if (lang != NODUS_LANG_PYTHON) {
		if (py)
			nodus__v_err_key(v, "python", 0, "expected no python object for a native "
							 "solution (\"language\": \"python\" is missing)");
		return;
	}
	if (!py)
		nodus__v_err(v, 0, "expected a \"python\" object {\"style\": \"destination\" or "
				   "\"module\"} for a python solution, got none");
	nodus__v_push_key(v, "python");
	int style;
	if (py && nodus__v_object(v, py, "a python object {\"style\"}")) {
		nodus__v_fields(v, py, f, NODUS_ARRAY_SIZE(f));
		if (nodus__v_enum(v, py, "style", py_styles, NODUS_ARRAY_SIZE(py_styles), &style) == 1)
			s->py_style = style + 1;
		py_init(v, json_object_get(py, "init"), s);
		py_params(v, json_object_get(py, "params"), s);
	}
	nodus__v_pop(v);
	const char *src = s->n_sources == 1 ? s->sources[0] : "";
	size_t len = strlen(src);
	if (s->n_sources >= 1 && (s->n_sources != 1 || len < 4 || strcmp(src + len - 3, ".py")))
		nodus__v_err_key(v, "sources", 0, "expected one .py source for a python solution, "
						  "got %d source(s), the first \"%s\"",
				 s->n_sources, s->sources[0]);
	if (strpbrk(src, "\"\\:\n"))
		nodus__v_err_key(v, "sources", 0, "expected a python source name without quotes, "
						  "backslashes or colons, got \"%s\"", src);
	if (s->n_flags || s->n_libs)
		nodus__v_err_key(v, "build", 0, "expected no build flags or libraries for a python "
						"solution (nodus builds its adapter)");
}

static void hash_u64(EVP_MD_CTX *ctx, uint64_t x)
{
	unsigned char b[8];
	for (int k = 0; k < 8; k++)
		b[k] = (unsigned char)(x >> (8 * k));
	EVP_DigestUpdate(ctx, b, 8);
}

static void hash_bytes(EVP_MD_CTX *ctx, const void *p, size_t n)
{
	hash_u64(ctx, n);
	EVP_DigestUpdate(ctx, p, n);
}

static void hash_str(EVP_MD_CTX *ctx, const char *s)
{
	hash_bytes(ctx, s, strlen(s));
}

/* Computes into hex the SHA-256 of the validated fields and the sources'
 * bytes, the entry among them when with_entry; 0 or -1 (said in v). */
static int sol_digest(nodus__vctx *v, const nodus_solution *s, int with_entry, char *hex)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	nodus_buf bytes = NODUS_BUF_INIT;
	int rc = -1;
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		nodus__v_err(v, 0, "expected to hash the solution, got an OpenSSL failure");
		goto out;
	}
	hash_str(ctx, "nodus-solution-1");
	hash_str(ctx, backends[s->backend - 1]);
	if (with_entry)
		hash_str(ctx, s->entry);
	hash_u64(ctx, (uint64_t)s->n_flags);
	for (int k = 0; k < s->n_flags; k++)
		hash_str(ctx, s->flags[k]);
	hash_u64(ctx, (uint64_t)s->n_libs);
	for (int k = 0; k < s->n_libs; k++)
		hash_str(ctx, s->libs[k]);
	/* only a Python solution hashes its language, so the hash of every
	 * native solution is what it was before there were languages */
	if (s->language == NODUS_LANG_PYTHON) {
		hash_str(ctx, "python");
		hash_str(ctx, py_styles[s->py_style - 1]);
		hash_str(ctx, s->py_init);
		/* only when declared: a solution without python.params keeps the
		 * hash it had before there were declarations */
		if (s->py_params[0]) {
			hash_str(ctx, "params");
			hash_str(ctx, s->py_params);
		}
	}
	hash_u64(ctx, (uint64_t)s->n_sources);
	for (int k = 0; k < s->n_sources; k++) {
		char full[1024];
		nodus__path_join(full, sizeof(full), s->dir, s->sources[k]);
		nodus__v_push_key(v, "sources");
		nodus__v_push_index(v, (size_t)k);
		int read = nodus__spec_read(full, NODUS__SOURCE_MAX_BYTES, &bytes, v, NULL);
		nodus__v_pop(v);
		nodus__v_pop(v);
		if (read)
			goto out;
		hash_bytes(ctx, bytes.data, bytes.len);
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	EVP_DigestFinal_ex(ctx, md, &len);
	for (unsigned k = 0; k < len; k++)
		snprintf(hex + 2 * k, 3, "%02x", md[k]);
	rc = 0;
out:
	nodus_buf_release(&bytes);
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* s->hash, the solution's identity, and s->build_hash, its shared
 * object's: a native solution's entry is only looked up in the object, so
 * the study suite's entries of one source (FAMILY_t100, FAMILY_t101, ...)
 * are one build; a python solution's adapter embeds its entry. */
static void sol_hash(nodus__vctx *v, nodus_solution *s)
{
	if (sol_digest(v, s, 1, s->hash) == 0)
		sol_digest(v, s, s->language == NODUS_LANG_PYTHON, s->build_hash);
}

int nodus_solution_from_json(json_t *obj, const char *file, const char *text, const char *dir,
			     nodus_solution *out, nodus_diags *diags)
{
	nodus__vctx v;
	memset(out, 0, sizeof(*out));
	snprintf(out->file, sizeof(out->file), "%s", file ? file : "");
	snprintf(out->dir, sizeof(out->dir), "%s", dir ? dir : "");
	nodus__vctx_init(&v, file, text, text ? strlen(text) : 0, diags);
	if (nodus__v_header(&v, obj, "solution") < 0)
		goto out;
	out->json = json_incref(obj);
	nodus__v_fields(&v, obj, sol_fields, NODUS_ARRAY_SIZE(sol_fields));
	nodus__v_name(&v, obj, "name", out->name, sizeof(out->name));
	nodus__v_name(&v, obj, "task", out->task_name, sizeof(out->task_name));
	int b;
	if (nodus__v_enum(&v, obj, "backend", backends, 2, &b) == 1)
		out->backend = b + 1;
	if (nodus__v_str(&v, obj, "entry", out->entry, sizeof(out->entry)) == 1 &&
	    !is_c_ident(out->entry)) {
		nodus__v_err_key(&v, "entry", 0, "expected a C identifier, got \"%s\"", out->entry);
		out->entry[0] = '\0';
	}
	sol_sources(&v, json_object_get(obj, "sources"), dir, out);
	sol_build(&v, json_object_get(obj, "build"), out);
	sol_python(&v, obj, out);
	nodus__v_str(&v, obj, "author", out->author, sizeof(out->author));
	out->n_tags = str_list(&v, obj, "tags", NODUS_ARRAY_SIZE(out->tags), out->tags[0],
			       sizeof(out->tags[0]), "tag names", check_tag);
	if (!v.n_errors && dir)
		sol_hash(&v, out);
out:
	nodus__vctx_release(&v);
	return v.n_errors ? NODUS_EINVAL : 0;
}

void nodus_solution_release(nodus_solution *s)
{
	if (!s)
		return;
	json_decref(s->json);
	s->json = NULL;
}
