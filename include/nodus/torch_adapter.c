/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * torch_adapter.c: the C solution that runs a Python (torch) module.
 *
 * A solution whose file says "language": "python" is built by nodus from
 * this file, not from its sources: the build compiles it with the
 * solution's Python module embedded (.incbin of the listed .py source, so
 * the assembler's dependency list names it and the content hash covers
 * it) and with the interpreter the target names (its libpython, home and
 * module path, found by `src/run/python.c`'s probe). The shared object it
 * makes implements include/nodus/solution.h like any C solution, so the
 * worker loads, guards and times it exactly as it does one: one timing
 * protocol and one set of guards for every language.
 *
 * It lives under include/ because the build's jail may read that tree and
 * lists every file of it the build read, with its hash, beside the cached
 * object: a change to this file rebuilds every Python solution.
 *
 * Defined by the build (-D):
 *   NODUS_PY_ENTRY      the solution's entry, a C identifier; the object
 *                       exports ENTRY and ENTRY_load under that name
 *   NODUS_PY_STYLE      1: destination passing, ENTRY(*inputs, *outputs);
 *                       2: a torch.nn.Module class, ENTRY()(*inputs)
 *                       returns the outputs (one tensor or a tuple)
 *   NODUS_PY_SOURCE     path of the module's source, embedded at build time
 *   NODUS_PY_MODULE     the module's name (the source's stem)
 *   NODUS_PY_LIBPYTHON  the interpreter's shared library
 *   NODUS_PY_HOME       its sys.prefix (PYTHONHOME)
 *   NODUS_PY_PATH       its sys.path, entries separated by ':'
 *   NODUS_PY_INIT       a module's constructor arguments, a JSON array of
 *                       numbers, booleans and tuples of them (python.init; "[]")
 *   NODUS_PY_PARAMS     the reference's declared floating parameters and
 *                       buffers (python.params), "name:D0xD1:dtype" joined
 *                       by ';' in torch's order (optional, default "": none;
 *                       see redraw below for what it changes)
 *   NODUS_PY_EXT_HELPER path of include/nodus/torch_ext.py, embedded: the
 *                       extension shim and the key of a load_inline call
 *   NODUS_PY_EXT_DIR    the prebuilt extensions, {cache}/{KEY}.ext (optional,
 *                       default "": none)
 *   NODUS_PY_CUDA       1 on the cuda backend (optional, default 0): the
 *                       tensors are cuda tensors of the harness's device
 *                       and every call runs on the harness's stream
 *
 * Life cycle, as the worker drives it (worker.c, load_solution):
 *   1. dlopen: nothing runs (no constructor);
 *   2. ENTRY_load(msg, size), under the load filter and Landlock, before the
 *      census: loads libpython (RTLD_GLOBAL: extension modules take their
 *      Py* symbols from the global scope), starts the interpreter without
 *      signal handlers or site, imports torch with one thread and no
 *      oneDNN (it writes code at run time, which lockdown forbids),
 *      executes the module and resolves the entry (for a module class,
 *      constructs it once with NODUS_PY_INIT's arguments, after
 *      torch.manual_seed, and redraws its floating parameters and
 *      buffers, by name against NODUS_PY_PARAMS when the solution declares
 *      the reference's, else by position: see redraw below); a failure
 *      fills msg with the Python error and is LOAD_ERROR. A second call does nothing. Module code
 *      runs here, at import, under the same rules as a C solution's ELF
 *      constructors;
 *   3. ENTRY(call), after lockdown: wraps every input and output zero-copy
 *      as a tensor (DLPack capsules, read by torch's from_dlpack), calls
 *      the module and, for a module that returns its outputs, copies them
 *      into the harness's outputs, or, while the worker times
 *      (ENTRY_defer), leaves them for the worker to copy after the timed
 *      region (ENTRY_deferred; docs/formats.md, "By-value outputs"). Any
 *      Python exception is a nonzero return (RUNTIME_ERROR); ENTRY_error
 *      returns its text.
 * ENTRY_params, after a module's ENTRY_load, returns its floating
 * parameters and buffers as its constructor made them, in the form of
 * NODUS_PY_PARAMS: the audit checks a reference's declaration against it.
 *
 * On cuda (NODUS_PY_CUDA) ENTRY_load also asks the driver which device the
 * worker's context is on, sets torch's device to it and warms torch's
 * runtime there (a small matmul: cuBLAS is loaded now, not after
 * lockdown); ENTRY wraps the buffers as kDLCUDA tensors of that device and
 * runs the call inside torch.cuda.stream(ExternalStream(call->stream)),
 * the one stream the harness's events bracket, as a cuda C solution must
 * enqueue its work on call->stream. Work the module puts on another
 * stream is outside the events: the stream/host-gap check's business.
 *
 * On cuda, a module that names triton gets Triton's cache pointed at
 * NODUS_PY_EXT_DIR/triton, read only, before it runs: the kernels the
 * build's warm step compiled for the workload's shapes (torch_ext.py's
 * install_triton_cache); a call compiled for anything else raises.
 *
 * torch.utils.cpp_extension.load_inline and load are replaced before the
 * module runs by a shim (torch_ext.py's install_prebuilt) that imports the
 * extension the build made from NODUS_PY_EXT_DIR/KEY/NAME.so (KEY: a hash
 * of the call's arguments, torch_ext.py's ext_key) and never starts a
 * compiler; without it the call is a LOAD_ERROR saying so.
 *
 * The interpreter holds the GIL on the worker's only thread for the whole
 * life of the process; nothing here is thread-safe, nothing needs to be.
 * No Python header is used: the few functions of the stable ABI this file
 * calls are looked up in libpython by name, so one adapter builds for any
 * CPython 3.8 or later without its development files.
 * ------------------------------------------------------------------------ */
#define _GNU_SOURCE /* setenv, RTLD_* */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodus/solution.h"

#if !defined(NODUS_PY_ENTRY) || !defined(NODUS_PY_STYLE) || !defined(NODUS_PY_SOURCE) ||     \
	!defined(NODUS_PY_MODULE) || !defined(NODUS_PY_LIBPYTHON) || !defined(NODUS_PY_HOME) || \
	!defined(NODUS_PY_PATH) || !defined(NODUS_PY_INIT) || !defined(NODUS_PY_EXT_HELPER)
#error "torch_adapter.c is built by nodus for a Python solution (src/run/build.c)"
#endif

#ifndef NODUS_PY_CUDA
#define NODUS_PY_CUDA 0
#endif
#ifndef NODUS_PY_PARAMS
#define NODUS_PY_PARAMS "" /* python.params: none declared, redrawn by position */
#endif
#ifndef NODUS_PY_EXT_DIR
#define NODUS_PY_EXT_DIR "" /* where prebuilt load_inline extensions are: none */
#endif

#define NODUS__STR2(x) #x
#define NODUS__STR(x) NODUS__STR2(x)
#define NODUS__CAT2(a, b) a##b
#define NODUS__CAT(a, b) NODUS__CAT2(a, b)
#define ENTRY_NAME NODUS__STR(NODUS_PY_ENTRY)

/* The module's source, embedded (its bytes, then one NUL). */
__asm__(".section .rodata\n"
	".balign 16\n"
	"nodus_py_source_begin:\n"
	".incbin \"" NODUS_PY_SOURCE "\"\n"
	".byte 0\n"
	".previous\n");
extern const char nodus_py_source_begin[] __asm__("nodus_py_source_begin");

/* include/nodus/torch_ext.py, embedded: ext_key and install_prebuilt (the
 * build's record step runs the same file, so a call's key is computed by
 * one function on both sides), and PARAM_SEED. */
__asm__(".section .rodata\n"
	".balign 16\n"
	"nodus_py_ext_begin:\n"
	".incbin \"" NODUS_PY_EXT_HELPER "\"\n"
	".byte 0\n"
	".previous\n");
extern const char nodus_py_ext_begin[] __asm__("nodus_py_ext_begin");

/* ---- DLPack (v0.6 layout, what torch 1.10 to 2.x read from a capsule) ---- */

typedef struct {
	int32_t device_type; /* kDLCPU = 1, kDLCUDA = 2 */
	int32_t device_id;
} dl_device;

typedef struct {
	uint8_t code; /* kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4 */
	uint8_t bits;
	uint16_t lanes;
} dl_dtype;

typedef struct dl_managed {
	struct {
		void *data;
		dl_device device;
		int32_t ndim;
		dl_dtype dtype;
		int64_t *shape;
		int64_t *strides;
		uint64_t byte_offset;
	} t;
	void *manager_ctx;
	void (*deleter)(struct dl_managed *self);
	int64_t shape[NODUS_MAX_DIMS];   /* storage for t.shape */
	int64_t strides[NODUS_MAX_DIMS]; /* storage for t.strides (row-major) */
} dl_managed;

/* ---- the part of CPython's stable ABI used here ---- */

typedef struct py_object py_object;
typedef intptr_t py_ssize;

struct py_api {
	void (*Py_InitializeEx)(int);
	int (*Py_IsInitialized)(void);
	py_object *(*PyImport_ImportModule)(const char *);
	py_object *(*PyObject_GetAttrString)(py_object *, const char *);
	py_object *(*PyObject_CallObject)(py_object *, py_object *);
	py_object *(*PyTuple_New)(py_ssize);
	int (*PyTuple_SetItem)(py_object *, py_ssize, py_object *);
	py_object *(*PyList_New)(py_ssize);
	int (*PyList_SetItem)(py_object *, py_ssize, py_object *);
	py_object *(*PyCapsule_New)(void *, const char *, void (*)(py_object *));
	void *(*PyCapsule_GetPointer)(py_object *, const char *);
	int (*PyCapsule_IsValid)(py_object *, const char *);
	py_object *(*PyUnicode_FromString)(const char *);
	const char *(*PyUnicode_AsUTF8AndSize)(py_object *, py_ssize *);
	py_object *(*PyLong_FromLong)(long);
	py_object *(*PyLong_FromVoidPtr)(void *);
	void *(*PyLong_AsVoidPtr)(py_object *);
	py_ssize (*PyTuple_Size)(py_object *);
	py_object *(*PyTuple_GetItem)(py_object *, py_ssize);
	py_object *(*PyErr_Occurred)(void);
	void (*PyErr_Fetch)(py_object **, py_object **, py_object **);
	void (*PyErr_NormalizeException)(py_object **, py_object **, py_object **);
	void (*PyErr_Clear)(void);
	py_object *(*PyObject_Str)(py_object *);
	py_object *(*PyDict_New)(void);
	int (*PyDict_SetItemString)(py_object *, const char *, py_object *);
	py_object *(*PyDict_GetItemString)(py_object *, const char *);
	void (*Py_DecRef)(py_object *);
	void (*Py_IncRef)(py_object *);
	int *Py_NoSiteFlag; /* data; NULL where the interpreter no longer has it */
};

/* One adapter's state (an object loaded twice is one state). */
static struct {
	int loaded;               /* ENTRY_load succeeded */
	struct py_api py;         /* resolved from libpython */
	py_object *call;          /* the bootstrap's call(inputs, outputs, stream), owned */
	int device;               /* cuda: the harness's device ordinal; -1 on cpu */
	char last_error[1024];    /* the last failed call's exception (ENTRY_error) */
	char *own_params;         /* a module's floating tensors as built (ENTRY_params), or NULL */
	/* outputs returned by value while the worker times (ENTRY_defer): the
	 * harness copies them after the timed region (ENTRY_deferred); the
	 * results stay alive until the first call after that, so that no
	 * Python runs between the two (a deallocation can run a callback) */
	int defer;                /* the worker is timing: return, do not copy */
	int taken;                /* the worker took the list: release at the next call */
	py_object *keep[NODUS_DEFER_MAX]; /* the calls' results, owned */
	int n_keep;
	nodus_deferred_copy pend[NODUS_DEFER_MAX];
	int n_pend;
} A;

/* The adapter's Python half: how the module is loaded and called. It runs
 * with the GIL held, in a dictionary of its own. A module's call with
 * defer set returns (result, pointer...) instead of copying: the outputs'
 * storage, for the harness to copy after the timed region, when each is a
 * plain contiguous tensor of the harness's device that overlaps no input
 * (an input returned as the output would be copied for free); anything
 * else is copied here, inside the call, as without defer. The checks use
 * torch's C type's own methods, taken before the module ran. */
static const char bootstrap[] =
	"import sys, types, warnings\n"
	"sys.dont_write_bytecode = True\n"
	/* a warning is shown with its source line, which linecache opens the
	 * file to read: fatal after lockdown, for a solution that did nothing
	 * wrong. A worker's stderr is /dev/null: warnings are dropped. */
	"def nodus_no_warning(message, category, filename, lineno, file=None, line=None):\n"
	"    pass\n"
	"warnings.showwarning = nodus_no_warning\n"
	"class NodusError(Exception):\n"
	"    pass\n"
	/* "Type: text (at file:line in function)", the innermost frame of the
	 * module's own file, else the innermost; nothing is read from disk
	 * (after lockdown an open is fatal) */
	"def describe(e, path):\n"
	"    last = mine = None\n"
	"    t = e.__traceback__\n"
	"    while t is not None:\n"
	"        c = t.tb_frame.f_code\n"
	"        if c.co_filename != '<string>':\n" /* not this bootstrap's */
	"            last = (c.co_filename, t.tb_lineno, c.co_name)\n"
	"        if c.co_filename == path:\n"
	"            mine = last\n"
	"        t = t.tb_next\n"
	"    at = mine or last\n"
	"    where = f' (at {at[0]}:{at[1]} in {at[2]})' if at else ''\n"
	"    return f'{type(e).__name__}: {e}{where}'\n"
	/* A module's floating parameters and buffers, redrawn once it is
	 * built (torch's own init would leave a LayerNorm at weight 1, bias 0:
	 * the identity that hides a wrong affine formula), so that a reference
	 * and a candidate, each in its own process, get the same values.
	 * params is NODUS_PY_PARAMS, the reference's tensors declared in the
	 * solution (python.params, "name:D0xD1:dtype;...", in torch's order).
	 * With a declaration, a declared tensor's values are drawn from its
	 * name and shape (a hash that does not depend on the process, unlike
	 * Python's str hash); a solution's own tensor takes the values of the
	 * declared one of the same name and shape, else of the first declared
	 * one of its shape not yet taken, in order (a candidate that calls
	 * self.ln.weight self.weight, or declares the bias first), else (a
	 * tensor the reference lacks) its own name's and shape's. Name matches
	 * are taken first, over the whole module, so that an order match never
	 * takes a declared tensor another one has by name. Without a
	 * declaration (hand-written tasks) the values depend only on each
	 * tensor's position (parameters, then buffers, in torch's order,
	 * integer ones counted) and shape, as before declarations existed:
	 * existing suites keep their values and labels. Either way 1-D tensors
	 * (scales, shifts) get magnitudes in [0.5, 1.5) of either sign (those
	 * whose name, the declared one when matched, ends in running_var:
	 * positive); others normal / sqrt(fan_in). */
	"def draw(t, name, seed):\n"
	"    import torch\n"
	"    g = torch.Generator().manual_seed(seed & 0x7fffffffffffffff)\n"
	"    if t.dim() <= 1:\n"
	"        v = torch.rand(t.shape, generator=g, dtype=torch.float64) + 0.5\n"
	"        if not name.endswith('running_var'):\n"
	"            v = v * (torch.randint(0, 2, t.shape, generator=g) * 2 - 1)\n"
	"    else:\n"
	"        v = torch.randn(t.shape, generator=g, dtype=torch.float64) / "
	"max(1, t[0].numel()) ** 0.5\n"
	"    t.copy_(v.to(t.dtype))\n"
	"def name_seed(name, shape):\n"
	"    import hashlib\n"
	"    key = f'{PARAM_SEED}:{name}:{\"x\".join(map(str, shape))}'.encode()\n"
	"    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), 'little')\n"
	"def declared(params):\n"
	"    out = []\n"
	"    for e in params.split(';') if params else []:\n"
	"        name, dims, _ = e.split(':')\n"
	"        out.append((name, tuple(int(d) for d in dims.split('x')) if dims else ()))\n"
	"    return out\n"
	/* the module's own floating tensors as the declaration writes them
	 * (ENTRY_params: the audit compares them with the reference's
	 * python.params) */
	"def own_params(model):\n"
	"    named = list(model.named_parameters()) + list(model.named_buffers())\n"
	"    return ';'.join(f'{n}:{\"x\".join(map(str, t.shape))}:'\n"
	"                    f'{str(t.dtype).replace(\"torch.\", \"\")}'\n"
	"                    for n, t in named if t.is_floating_point())\n"
	"def redraw(model, params):\n"
	"    named = list(model.named_parameters()) + list(model.named_buffers())\n"
	"    decl = declared(params)\n"
	"    if not decl:\n"
	"        for k, (name, t) in enumerate(named):\n"
	"            if t.is_floating_point():\n"
	"                draw(t, name, hash((PARAM_SEED, k, tuple(t.shape))))\n"
	"        return\n"
	"    own = [(name, t) for name, t in named if t.is_floating_point()]\n"
	"    by_name = {d: i for i, d in enumerate(decl)}\n"
	"    taken, match = set(), {}\n"
	"    for j, (name, t) in enumerate(own):\n"
	"        i = by_name.get((name, tuple(t.shape)))\n"
	"        if i is not None:\n"
	"            match[j] = i\n"
	"            taken.add(i)\n"
	"    for j, (name, t) in enumerate(own):\n"
	"        if j in match:\n"
	"            continue\n"
	"        for i, (_, shape) in enumerate(decl):\n"
	"            if i not in taken and shape == tuple(t.shape):\n"
	"                match[j] = i\n"
	"                taken.add(i)\n"
	"                break\n"
	"    for j, (name, t) in enumerate(own):\n"
	"        if j in match:\n"
	"            name = decl[match[j]][0]\n"
	"        draw(t, name, name_seed(name, tuple(t.shape)))\n"
	"def nodus_load(path_list, name, path, source, entry, style, init, params, device, ext_dir):\n"
	"    try:\n"
	"        call = load(path_list, name, path, source, entry, style, init, params, device, "
	"ext_dir)\n"
	"    except BaseException as e:\n"
	"        raise NodusError(describe(e, path)) from None\n"
	"    def checked(ins, outs, stream, defer):\n"
	"        try:\n"
	"            return call(ins, outs, stream, defer)\n"
	"        except BaseException as e:\n"
	"            raise NodusError(describe(e, path)) from None\n"
	"    return checked\n"
	/* cuda: a call runs on the harness's stream (ExternalStream, made
	 * once per stream), so the harness's events bracket its work */
	"def on_stream(torch, streams, s, f, *args):\n"
	"    if not s:\n"
	"        return f(*args)\n"
	"    x = streams.get(s)\n"
	"    if x is None:\n"
	"        x = streams[s] = torch.cuda.ExternalStream(s)\n"
	"    with torch.cuda.stream(x):\n"
	"        return f(*args)\n"
	"def load(path_list, name, path, source, entry, style, init, params, device, ext_dir):\n"
	"    sys.path[:] = [p for p in path_list.split(':') if p]\n"
	"    import torch\n"
	"    import torch.utils.dlpack\n"
	/* OMP_NUM_THREADS=1 makes it 1 already; set_num_threads would build
	 * a thread pool (pthreadpool) even for one thread */
	"    if torch.get_num_threads() != 1:\n"
	"        torch.set_num_threads(1)\n"
	/* once per process: a second call aborts (two adapters in one process
	 * would share the interpreter) */
	"    if not getattr(torch, '_nodus_configured', False):\n"
	"        torch.set_num_interop_threads(1)\n"
	"        torch._nodus_configured = True\n"
	"    torch.set_grad_enabled(False)\n"
	"    torch.backends.mkldnn.enabled = False\n"
	"    from_dlpack = torch.utils.dlpack.from_dlpack\n"
	"    TB = torch._C.TensorBase if hasattr(torch._C, 'TensorBase') else torch._C._TensorBase\n"
	"    plain, dptr, contig = torch.Tensor, TB.data_ptr, TB.is_contiguous\n"
	"    esize, numel, on_cuda = TB.element_size, TB.numel, TB.is_cuda.__get__\n"
	"    nbytes = lambda t: esize(t) * numel(t)\n"
	/* the lazy initialisations of a first call (cpu capability, the
	 * dispatcher's kernels of common ops) happen here, before lockdown */
	"    w = torch.arange(64, dtype=torch.float32)\n"
	"    (w * 2 + 1).sum(); torch.empty_like(w).copy_(w); w.view(8, 8).sum(dim=1)\n"
	/* cuda: torch's runtime, its context on the harness's device and the
	 * libraries it loads at a first use (cuBLAS at a first matmul), all
	 * before lockdown */
	"    if device >= 0:\n"
	"        torch.cuda.set_device(device)\n"
	"        w = torch.arange(64, dtype=torch.float32, device='cuda').view(8, 8)\n"
	"        (w @ w).sum(); (w * 2 + 1).sum(dim=1); torch.empty_like(w).copy_(w)\n"
	"        torch.cuda.synchronize()\n"
	"    streams = {}\n"
	"    install_prebuilt(torch, ext_dir)\n"
	/* Triton (cuda): kernels from the build's warm step only, never a
	 * compile (torch_ext.py); a module without Triton imports nothing */
	"    if device >= 0 and uses_triton(source):\n"
	"        triton_env()\n"
	"        try:\n"
	"            import triton\n"
	"        except ImportError:\n"
	"            pass\n" /* the module's own import says so */
	"        else:\n"
	"            install_triton_cache(ext_dir + '/triton' if ext_dir else '')\n"
	"    mod = types.ModuleType(name)\n"
	"    mod.__file__ = path\n"
	"    sys.modules[name] = mod\n"
	/* the source by its path for inspect (Triton's @jit reads it) and
	 * tracebacks: the worker may not read the file itself */
	"    import linecache\n"
	"    linecache.cache[path] = (len(source), None, source.splitlines(True), path)\n"
	"    exec(compile(source, path, 'exec'), mod.__dict__)\n"
	"    if not hasattr(mod, entry):\n"
	"        raise AttributeError(f'{path}: module defines no {entry!r}')\n"
	"    obj = getattr(mod, entry)\n"
	"    if style == 2:\n"
	"        if not (isinstance(obj, type) and issubclass(obj, torch.nn.Module)):\n"
	"            raise TypeError(f'{path}: {entry!r} is not a torch.nn.Module class "
	"(style module)')\n"
	"        torch.manual_seed(PARAM_SEED)\n"
	"        import json\n"
	"        model = obj(*[tuple(a) if isinstance(a, list) else a for a in json.loads(init)])\n"
	"        global OWN_PARAMS\n"
	"        OWN_PARAMS = own_params(model)\n"
	"        redraw(model, params)\n"
	/* its parameters and buffers where the inputs are: a module is built
	 * on the cpu (KernelBench's harness moves it with .cuda() too) */
	"        if device >= 0:\n"
	"            model = model.to('cuda')\n"
	"        def call(ins, outs, stream, defer):\n"
	"            xs = [from_dlpack(c) for c in ins]\n"
	"            os_ = [from_dlpack(c) for c in outs]\n"
	"            r = on_stream(torch, streams, stream, model, *xs)\n"
	"            if isinstance(r, torch.Tensor):\n"
	"                r = (r,)\n"
	"            if not isinstance(r, (tuple, list)) or len(r) != len(os_):\n"
	"                raise TypeError(f'{entry}.forward returned {type(r).__name__}, "
	"expected {len(os_)} tensor(s)')\n"
	"            for k, (o, v) in enumerate(zip(os_, r)):\n"
	"                if not isinstance(v, torch.Tensor) or v.shape != o.shape or "
	"v.dtype != o.dtype:\n"
	"                    raise TypeError(f'{entry}.forward: output {k}: expected a "
	"{o.dtype} tensor of shape {tuple(o.shape)}, got ' + (f'{v.dtype} '"
	"f'{tuple(v.shape)}' if isinstance(v, torch.Tensor) else type(v).__name__))\n"
	"            if defer:\n"
	"                spans = [(dptr(x), dptr(x) + nbytes(x)) for x in xs]\n"
	"                ptrs = []\n"
	"                for v in r:\n"
	"                    a = dptr(v)\n"
	"                    b = a + nbytes(v)\n"
	"                    ok = type(v) is plain and contig(v) and on_cuda(v) == (device >= 0)\n"
	"                    for lo, hi in spans:\n"
	"                        if a < hi and lo < b:\n"
	"                            ok = False\n"
	"                    if not ok:\n"
	"                        ptrs = None\n"
	"                        break\n"
	"                    ptrs.append(a)\n"
	"                if ptrs is not None:\n"
	"                    return (tuple(r),) + tuple(ptrs)\n"
	"            for o, v in zip(os_, r):\n"
	"                on_stream(torch, streams, stream, o.copy_, v)\n"
	"        return call\n"
	"    if not callable(obj) or isinstance(obj, type):\n"
	"        raise TypeError(f'{path}: {entry!r} is not a function (style destination)')\n"
	"    def call(ins, outs, stream, defer):\n"
	"        args = [from_dlpack(c) for c in ins] + [from_dlpack(c) for c in outs]\n"
	"        on_stream(torch, streams, stream, obj, *args)\n"
	"    return call\n";

/* ---- errors ---- */

/* The pending Python exception as "Type: text" into msg, then cleared. */
static void py_error(char *msg, size_t size, const char *what)
{
	struct py_api *p = &A.py;
	py_object *type = NULL, *value = NULL, *tb = NULL;
	if (!p->PyErr_Occurred || !p->PyErr_Occurred()) {
		snprintf(msg, size, "%s", what);
		return;
	}
	p->PyErr_Fetch(&type, &value, &tb);
	p->PyErr_NormalizeException(&type, &value, &tb);
	const char *tname = "exception", *text = "";
	py_object *tn = type ? p->PyObject_GetAttrString(type, "__name__") : NULL;
	py_object *vs = value ? p->PyObject_Str(value) : NULL;
	py_ssize len = 0;
	if (tn)
		tname = p->PyUnicode_AsUTF8AndSize(tn, &len);
	if (vs)
		text = p->PyUnicode_AsUTF8AndSize(vs, &len);
	if (tname && strcmp(tname, "NodusError") == 0) /* the bootstrap's, located */
		snprintf(msg, size, "%s: python: %s", what, text ? text : "");
	else
		snprintf(msg, size, "%s: python: %s: %s", what, tname ? tname : "exception",
			 text ? text : "");
	p->PyErr_Clear();
	if (tn)
		p->Py_DecRef(tn);
	if (vs)
		p->Py_DecRef(vs);
	if (type)
		p->Py_DecRef(type);
	if (value)
		p->Py_DecRef(value);
	if (tb)
		p->Py_DecRef(tb);
}

/* ---- loading ---- */

/* Resolves every function of struct py_api in lib; 0, or -1 naming the
 * missing one in msg. */
static int resolve_api(void *lib, char *msg, size_t size)
{
	struct py_api *p = &A.py;
#define NODUS__PY_SYM(name)                                                                   \
	do {                                                                                  \
		*(void **)&p->name = dlsym(lib, #name);                                       \
		if (!p->name) {                                                               \
			snprintf(msg, size, "%s does not define %s (a CPython 3.8 or later "   \
				 "shared library is expected)", NODUS_PY_LIBPYTHON, #name);     \
			return -1;                                                            \
		}                                                                             \
	} while (0)
	NODUS__PY_SYM(Py_InitializeEx);
	NODUS__PY_SYM(Py_IsInitialized);
	NODUS__PY_SYM(PyImport_ImportModule);
	NODUS__PY_SYM(PyObject_GetAttrString);
	NODUS__PY_SYM(PyObject_CallObject);
	NODUS__PY_SYM(PyTuple_New);
	NODUS__PY_SYM(PyTuple_SetItem);
	NODUS__PY_SYM(PyList_New);
	NODUS__PY_SYM(PyList_SetItem);
	NODUS__PY_SYM(PyCapsule_New);
	NODUS__PY_SYM(PyCapsule_GetPointer);
	NODUS__PY_SYM(PyCapsule_IsValid);
	NODUS__PY_SYM(PyUnicode_FromString);
	NODUS__PY_SYM(PyUnicode_AsUTF8AndSize);
	NODUS__PY_SYM(PyLong_FromLong);
	NODUS__PY_SYM(PyLong_FromVoidPtr);
	NODUS__PY_SYM(PyLong_AsVoidPtr);
	NODUS__PY_SYM(PyTuple_Size);
	NODUS__PY_SYM(PyTuple_GetItem);
	NODUS__PY_SYM(PyErr_Occurred);
	NODUS__PY_SYM(PyErr_Fetch);
	NODUS__PY_SYM(PyErr_NormalizeException);
	NODUS__PY_SYM(PyErr_Clear);
	NODUS__PY_SYM(PyObject_Str);
	NODUS__PY_SYM(PyDict_New);
	NODUS__PY_SYM(PyDict_SetItemString);
	NODUS__PY_SYM(PyDict_GetItemString);
	NODUS__PY_SYM(Py_DecRef);
	NODUS__PY_SYM(Py_IncRef);
#undef NODUS__PY_SYM
	p->Py_NoSiteFlag = dlsym(lib, "Py_NoSiteFlag");
	return 0;
}

/* Starts the interpreter (once per process: a second adapter finds it
 * running). The environment is set before libpython and torch read it. */
static int start_interpreter(char *msg, size_t size)
{
	setenv("PYTHONHOME", NODUS_PY_HOME, 1);
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
	setenv("PYTHONNOUSERSITE", "1", 1);
	unsetenv("PYTHONPATH");
	unsetenv("PYTHONSTARTUP");
	/* no thread pools: the worker may not create threads */
	setenv("OMP_NUM_THREADS", "1", 1);
	setenv("MKL_NUM_THREADS", "1", 1);
	setenv("OPENBLAS_NUM_THREADS", "1", 1);
	setenv("TORCH_CPP_LOG_LEVEL", "ERROR", 1);
#if defined(__x86_64__)
	/* ATen picks its kernels by CPU capability, which it learns from
	 * cpuinfo, which reads /proc/cpuinfo: Landlock refuses that, and ATen
	 * would fall back to its scalar kernels. CPUID says the same, here,
	 * in ATen's own terms (ATen/native/DispatchStub.cpp). */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("fma"))
		setenv("ATEN_CPU_CAPABILITY", "avx512", 0);
	else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		setenv("ATEN_CPU_CAPABILITY", "avx2", 0);
#endif
	/* glog's constructor asks for the user's name, and without USER it
	 * asks glibc, whose nscd client makes a socket (killed by the filter) */
	setenv("USER", "nodus-worker", 0);
	void *lib = dlopen(NODUS_PY_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		snprintf(msg, size, "cannot load the interpreter '%s': %s", NODUS_PY_LIBPYTHON,
			 dlerror());
		return -1;
	}
	if (resolve_api(lib, msg, size))
		return -1;
	if (!A.py.Py_IsInitialized()) {
		if (A.py.Py_NoSiteFlag)
			*A.py.Py_NoSiteFlag = 1; /* sys.path comes from the probe */
		A.py.Py_InitializeEx(0);     /* 0: no signal handlers */
	}
	return 0;
}

/* A new tuple of n items (references stolen); NULL when any is NULL. */
static py_object *tuple_of(py_object **items, int n)
{
	struct py_api *p = &A.py;
	py_object *t = NULL;
	for (int k = 0; k < n; k++)
		if (!items[k])
			goto fail;
	if (!(t = p->PyTuple_New(n)))
		goto fail;
	for (int k = 0; k < n; k++)
		p->PyTuple_SetItem(t, k, items[k]);
	return t;
fail:
	for (int k = 0; k < n; k++)
		if (items[k])
			p->Py_DecRef(items[k]);
	return NULL;
}

/* Keeps a copy of the bootstrap's OWN_PARAMS (a module's floating
 * parameters and buffers as built, "name:D0xD1:dtype;..."), when it set
 * one, for ENTRY_params. */
static void own_params_keep(py_object *globals)
{
	py_object *v = A.py.PyDict_GetItemString(globals, "OWN_PARAMS"); /* borrowed */
	py_ssize len = 0;
	const char *text = v ? A.py.PyUnicode_AsUTF8AndSize(v, &len) : NULL;
	if (!text) {
		A.py.PyErr_Clear();
		return;
	}
	if ((A.own_params = malloc((size_t)len + 1)))
		memcpy(A.own_params, text, (size_t)len + 1);
}

/* Runs the bootstrap, then nodus_load; keeps the call function. */
static int load_module(char *msg, size_t size)
{
	struct py_api *p = &A.py;
	int rc = -1;
	py_object *builtins = NULL, *exec = NULL, *globals = NULL, *args = NULL, *r = NULL;
	py_object *load = NULL;
	if (!(builtins = p->PyImport_ImportModule("builtins")) ||
	    !(exec = p->PyObject_GetAttrString(builtins, "exec")) || !(globals = p->PyDict_New()) ||
	    p->PyDict_SetItemString(globals, "__builtins__", builtins))
		goto out;
	p->Py_IncRef(globals);
	/* the extension helper first: the bootstrap uses its names */
	p->Py_IncRef(globals);
	py_object *hargs[] = {p->PyUnicode_FromString(nodus_py_ext_begin), globals};
	if (!(args = tuple_of(hargs, 2)) || !(r = p->PyObject_CallObject(exec, args)))
		goto out;
	p->Py_DecRef(r);
	p->Py_DecRef(args);
	args = NULL;
	py_object *eargs[] = {p->PyUnicode_FromString(bootstrap), globals};
	if (!(args = tuple_of(eargs, 2)) || !(r = p->PyObject_CallObject(exec, args)))
		goto out;
	p->Py_DecRef(r);
	p->Py_DecRef(args);
	args = NULL;
	load = p->PyDict_GetItemString(globals, "nodus_load"); /* borrowed */
	py_object *largs[] = {p->PyUnicode_FromString(NODUS_PY_PATH),
			      p->PyUnicode_FromString(NODUS_PY_MODULE),
			      p->PyUnicode_FromString(NODUS_PY_SOURCE),
			      p->PyUnicode_FromString(nodus_py_source_begin),
			      p->PyUnicode_FromString(ENTRY_NAME), p->PyLong_FromLong(NODUS_PY_STYLE),
			      p->PyUnicode_FromString(NODUS_PY_INIT),
			      p->PyUnicode_FromString(NODUS_PY_PARAMS), p->PyLong_FromLong(A.device),
			      p->PyUnicode_FromString(NODUS_PY_EXT_DIR)};
	if (!load || !(args = tuple_of(largs, 10)) || !(A.call = p->PyObject_CallObject(load, args)))
		goto out;
	own_params_keep(globals);
	rc = 0;
out:
	if (rc)
		py_error(msg, size, "loading " NODUS_PY_SOURCE);
	if (args)
		p->Py_DecRef(args);
	if (globals)
		p->Py_DecRef(globals);
	if (exec)
		p->Py_DecRef(exec);
	if (builtins)
		p->Py_DecRef(builtins);
	return rc;
}

/* cuda: the device of the context the worker made current (the backend
 * opened it before loading), asked of the driver already in the process;
 * -1 on cpu. 0, or -1 with msg. */
static int cuda_device(char *msg, size_t size)
{
	A.device = -1;
	if (!NODUS_PY_CUDA)
		return 0;
	void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int (*ctx_get_device)(int *) = NULL;
	if (cu)
		*(void **)&ctx_get_device = dlsym(cu, "cuCtxGetDevice");
	int dev = -1;
	if (!ctx_get_device || ctx_get_device(&dev) != 0 || dev < 0) {
		snprintf(msg, size, "cuda: no current CUDA context in the worker (libcuda.so.1 %s)",
			 cu ? "loaded" : "not loaded");
		return -1;
	}
	A.device = dev;
	return 0;
}

/* Loads the interpreter and the module (see the life cycle above):
 * 0, or -1 with msg (msg_bytes at most, NUL-terminated) saying why. */
int NODUS__CAT(NODUS_PY_ENTRY, _load)(char *msg, int64_t msg_bytes)
{
	size_t size = msg_bytes > 0 ? (size_t)msg_bytes : 0;
	char scratch[8];
	if (!size) {
		msg = scratch;
		size = sizeof(scratch);
	}
	if (A.loaded)
		return 0;
	if (cuda_device(msg, size) || start_interpreter(msg, size) || load_module(msg, size))
		return -1;
	A.loaded = 1;
	return 0;
}

/* ---- calls ---- */

static void dl_delete(dl_managed *m)
{
	free(m);
}

static void capsule_free(py_object *capsule)
{
	/* torch renames a capsule it consumed ("used_dltensor") and owns it */
	if (A.py.PyCapsule_IsValid(capsule, "dltensor"))
		dl_delete(A.py.PyCapsule_GetPointer(capsule, "dltensor"));
	else
		A.py.PyErr_Clear();
}

static const dl_dtype dtypes[] = {
	[NODUS_DTYPE_FLOAT32] = {2, 32, 1}, [NODUS_DTYPE_FLOAT64] = {2, 64, 1},
	[NODUS_DTYPE_FLOAT16] = {2, 16, 1}, [NODUS_DTYPE_BFLOAT16] = {4, 16, 1},
	[NODUS_DTYPE_INT32] = {0, 32, 1},   [NODUS_DTYPE_INT64] = {0, 64, 1},
	[NODUS_DTYPE_UINT8] = {1, 8, 1},
};

/* A "dltensor" capsule viewing t (no copy); NULL on failure. */
static py_object *capsule_of(const nodus_tensor *t, int cuda)
{
	if (t->dtype <= 0 || t->dtype >= (int32_t)(sizeof(dtypes) / sizeof(dtypes[0])) ||
	    t->ndim < 0 || t->ndim > NODUS_MAX_DIMS)
		return NULL;
	dl_managed *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->t.data = t->data;
	m->t.device.device_type = cuda ? 2 : 1;
	m->t.device.device_id = cuda ? A.device : 0;
	m->t.ndim = t->ndim;
	m->t.dtype = dtypes[t->dtype];
	m->t.shape = m->shape;
	m->t.strides = m->strides;
	int64_t stride = 1;
	for (int d = t->ndim - 1; d >= 0; d--) {
		m->shape[d] = t->shape[d];
		m->strides[d] = stride;
		stride *= t->shape[d];
	}
	m->deleter = dl_delete;
	py_object *c = A.py.PyCapsule_New(m, "dltensor", capsule_free);
	if (!c)
		free(m);
	return c;
}

/* A list of capsules for n tensors; NULL on failure. */
static py_object *capsules(const nodus_tensor *ts, int n, int cuda)
{
	py_object *list = A.py.PyList_New(n);
	for (int k = 0; list && k < n; k++) {
		py_object *c = capsule_of(&ts[k], cuda);
		if (!c) {
			A.py.Py_DecRef(list);
			return NULL;
		}
		A.py.PyList_SetItem(list, k, c);
	}
	return list;
}

/* The entry (solution.h): 0, or 1 after a Python exception (printed to
 * stderr), 2 when the object was never loaded. */
int NODUS_PY_ENTRY(const nodus_call *call)
{
	if (!A.loaded || !A.call)
		return 2;
	if (A.taken) { /* the last batch's results, copied: inside this call's time */
		for (int k = 0; k < A.n_keep; k++)
			A.py.Py_DecRef(A.keep[k]);
		A.n_keep = A.n_pend = A.taken = 0;
	}
	int cuda = NODUS_PY_CUDA && call->stream != NULL;
	int defer = A.defer && A.n_keep < NODUS_DEFER_MAX &&
		    A.n_pend + (int)call->n_outputs <= NODUS_DEFER_MAX;
	py_object *items[] = {capsules(call->inputs, call->n_inputs, cuda),
			      capsules(call->outputs, call->n_outputs, cuda),
			      A.py.PyLong_FromVoidPtr(cuda ? call->stream : NULL),
			      A.py.PyLong_FromLong(defer)};
	py_object *args = tuple_of(items, 4);
	py_object *r = args ? A.py.PyObject_CallObject(A.call, args) : NULL;
	if (args)
		A.py.Py_DecRef(args);
	py_ssize got = r && defer ? A.py.PyTuple_Size(r) : -1; /* None when copied */
	if (got < 0 && r && defer)
		A.py.PyErr_Clear(); /* PyTuple_Size(None) says it is no tuple */
	if (got == 1 + (py_ssize)call->n_outputs) {
		/* (result, pointer...): kept; the harness copies after timing */
		A.keep[A.n_keep++] = r;
		for (uint32_t k = 0; k < call->n_outputs; k++) {
			nodus_deferred_copy *d = &A.pend[A.n_pend++];
			d->src = A.py.PyLong_AsVoidPtr(A.py.PyTuple_GetItem(r, 1 + k));
			d->dst = call->outputs[k].data;
			d->bytes = call->outputs[k].nbytes;
		}
		return 0;
	}
	if (r) {
		A.py.Py_DecRef(r);
		return 0;
	}
	py_error(A.last_error, sizeof(A.last_error), ENTRY_NAME);
	return 1;
}

/* 1 when the worker should call the entry before lockdown, once per
 * shape (worker.c, prelock_calls): a module that names triton, on cuda,
 * whose kernels Triton loads (files, its launchers' dlopen) at their
 * first call. */
int NODUS__CAT(NODUS_PY_ENTRY, _prelock)(void)
{
	return NODUS_PY_CUDA && A.loaded && strstr(nodus_py_source_begin, "triton") != NULL;
}

/* Timing starts (on 1) or ends (on 0): while on, a module's outputs
 * returned by value are left for the harness to copy (solution.h). */
void NODUS__CAT(NODUS_PY_ENTRY, _defer)(int on)
{
	A.defer = on;
}

/* The copies the harness owes since the last time it asked: at most max
 * into d; their results stay alive until the next call. No Python runs. */
int NODUS__CAT(NODUS_PY_ENTRY, _deferred)(nodus_deferred_copy *d, int max)
{
	int n = A.n_pend < max ? A.n_pend : max;
	memcpy(d, A.pend, (size_t)n * sizeof(*d));
	A.taken = 1;
	return n;
}

/* A module solution's floating parameters and buffers as its constructor
 * made them (before the redraw, which changes values only), in torch's
 * order (named_parameters(), then named_buffers()), as python.params
 * writes them: "name:D0xD1:dtype" joined by ';' ("" for none). NULL before
 * ENTRY_load succeeded and for a destination-passing solution. The audit
 * compares it with a reference's declaration (docs/audit.md, "params");
 * the string is the adapter's, valid for the life of the process. */
const char *NODUS__CAT(NODUS_PY_ENTRY, _params)(void)
{
	return A.loaded ? A.own_params : NULL;
}

/* The exception of the last failed call (solution.h, ENTRY_error). */
const char *NODUS__CAT(NODUS_PY_ENTRY, _error)(void)
{
	return A.last_error;
}
