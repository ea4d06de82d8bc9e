# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# torch_ext.py: torch.utils.cpp_extension's load_inline and load, built
# ahead at build time and imported at run time (docs/formats.md, "Python
# solutions").
#
# One file, two users, so that the key of a call is computed by one
# function (ext_key) on both sides:
#   - the build (src/run/build.c) runs it as a program, inside the build's
#     jail: `PYTHON -I -B torch_ext.py record SOURCE MODULE ENTRY STYLE INIT
#     EXT_DIR`. It installs a *recording* load_inline/load that call the
#     real ones with build_directory EXT_DIR/KEY, executes the solution's
#     module (and, for a module solution, constructs its entry class once
#     with INIT), and exits 3 when an extension failed to compile, after
#     printing "nodus: ..." and torch's message (ninja's, the compiler's
#     output); anything else the module does is its own business (the
#     worker will load it again and judge it). Exit 0 otherwise.
#   - the torch adapter (include/nodus/torch_adapter.c) embeds it (.incbin)
#     and executes it in its bootstrap's namespace; install_prebuilt then
#     replaces torch.utils.cpp_extension by a module whose load_inline and
#     load import EXT_DIR/KEY/NAME.so and never start a process (a worker
#     may not). A call whose arguments differ from the build's has another
#     key, and raises "no prebuilt extension for this call".
# The key covers the call's name, sources, functions, extra flags and
# include paths and with_cuda; not build_directory, verbose or anything
# else that does not change what is built.
#
# tvm_ffi.cpp.load_inline (apache-tvm-ffi: FlashInfer-Bench's tvm-ffi
# binding, docs/import.md) is the same mechanism under another name: the
# record step records it when the module names tvm_ffi (its .so is
# EXT_DIR/KEY/NAME.so too, the key marked tvm_ffi so that it never meets a
# torch call's), and the worker's tvm_ffi.cpp is a stand-in whose
# load_inline loads that file with tvm_ffi.load_module. Both sides set
# TVM_FFI_DISABLE_TORCH_C_DLPACK before tvm_ffi is imported: else its
# import JIT-compiles an addon for torch (a process, into ~/.cache); torch
# tensors then reach tvm_ffi through torch.utils.dlpack.to_dlpack,
# zero-copy, with torch's current stream (what torch 1.13 needs anyway).
#
# Triton (cuda only) compiles a kernel at its first call, for that call's
# specialisation (dtypes, 16-byte alignment, integers equal to 1), and
# runs ptxas and a C compiler (its launcher) to do it: processes, which
# a worker may not start. So:
#   - the warm step (build.c, nodus_build_warm), once per solution and
#     workload, in the build's jail with the GPU: `PYTHON -I -B
#     torch_ext.py warm SOURCE MODULE ENTRY STYLE INIT EXT_DIR CALLS`
#     executes the module, builds a module solution once, and calls the
#     entry on fresh tensors of every shape in CALLS (the workload's and
#     the shape probe's) with TRITON_CACHE_DIR in its stage; nodus keeps
#     what Triton wrote there in EXT_DIR/triton. A Triton compile error
#     exits 3 ("nodus: ..." and Triton's text); anything else the module
#     does is the worker's to judge (exit 0).
#   - the worker's bootstrap calls install_triton_cache before the module
#     runs: Triton's cache manager becomes one that reads EXT_DIR/triton
#     and never writes, creates or compiles; a call the warm step did not
#     make raises, saying so.
# Both sides set TRITON_MOCK_PTX_VERSION to TRITON_PTXAS_KEY (the build's
# environment, the adapter's start): Triton puts ptxas's version into
# every kernel's key and asks ptxas for it, a process; the cache is one
# solution's, and the target's fingerprint names Triton's version.
# ------------------------------------------------------------------------
import sys
import types

# the seed of torch.manual_seed before a module's construction (the
# adapter's bootstrap uses it too: this file runs in its namespace)
PARAM_SEED = 20261202

# the apache-tvm-ffi nodus is tested with (scripts/deps.sh,
# docs/dependencies.md), named where an interpreter lacks tvm_ffi
TVM_FFI_VERSION = '0.1.15.post2'


def ext_key(name, kw, binding='torch'):
    """The key of one load_inline/load call: its directory under EXT_DIR.
    binding is 'torch' (torch.utils.cpp_extension) or 'tvm_ffi'
    (tvm_ffi.cpp); a torch call's key is what it was before tvm_ffi."""
    import hashlib

    def norm(v):
        if v is None:
            return []
        return [v] if isinstance(v, str) else list(v)

    parts = [name] + [k + '=' + repr(norm(kw.get(k))) for k in (
        'cpp_sources', 'cuda_sources', 'sources', 'functions', 'extra_cflags',
        'extra_cuda_cflags', 'extra_ldflags', 'extra_include_paths')]
    parts.append('with_cuda=' + repr(kw.get('with_cuda')))
    if binding != 'torch':
        parts.append('binding=' + binding)
    return hashlib.sha256('\0'.join(parts).encode()).hexdigest()[:32]


def ext_name(name, how):
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f'{how}(name={name!r}): expected a Python identifier as the '
                         'extension\'s name')
    return name


def install_prebuilt(torch, ext_dir):
    """The worker's torch.utils.cpp_extension and tvm_ffi.cpp: prebuilt
    extensions only. Not the real modules: importing torch's looks for nvcc
    with `which`, a process (killed by the load filter)."""
    import importlib.machinery
    import importlib.util
    import os
    ce = types.ModuleType('torch.utils.cpp_extension')

    def prebuilt(name, kw, how, binding='torch'):
        ext_name(name, how)
        key = ext_key(name, kw, binding)
        so = f'{ext_dir}/{key}/{name}.so' if ext_dir else ''
        if not so or not os.path.exists(so):
            raise RuntimeError(
                f'{how}(name={name!r}): no prebuilt extension for this call (key {key}): '
                'a worker may not run a compiler, and the build ran the module with other '
                'arguments to this call (or never reached it); the arguments must not '
                'depend on anything known only at run time (docs/formats.md, "Python '
                'solutions")')
        if binding == 'tvm_ffi':
            import tvm_ffi
            return tvm_ffi.load_module(so)
        loader = importlib.machinery.ExtensionFileLoader(name, so)
        spec = importlib.util.spec_from_file_location(name, so, loader=loader)
        m = importlib.util.module_from_spec(spec)
        loader.exec_module(m)
        return m

    def load_inline(name, cpp_sources, cuda_sources=None, functions=None, **kw):
        kw.update(cpp_sources=cpp_sources, cuda_sources=cuda_sources, functions=functions)
        return prebuilt(name, kw, 'load_inline')

    def load(name, sources, **kw):
        kw.update(sources=sources)
        return prebuilt(name, kw, 'load')

    ce.load_inline = load_inline
    ce.load = load
    sys.modules['torch.utils.cpp_extension'] = ce
    torch.utils.cpp_extension = ce

    # tvm_ffi.cpp, before tvm_ffi is imported (its __init__'s `from . import
    # cpp` finds this one): only load_inline, prebuilt; the real one's build
    # and load would run ninja. Nothing of tvm_ffi is imported here: a
    # module without it pays nothing.
    os.environ['TVM_FFI_DISABLE_TORCH_C_DLPACK'] = '1'
    tc = types.ModuleType('tvm_ffi.cpp')

    def tvm_load_inline(name, *, cpp_sources=None, cuda_sources=None, functions=None, **kw):
        kw.update(cpp_sources=cpp_sources, cuda_sources=cuda_sources, functions=functions)
        return prebuilt(name, kw, 'tvm_ffi.cpp.load_inline', 'tvm_ffi')

    def tvm_unbuilt(*args, **kw):
        raise RuntimeError('tvm_ffi.cpp: only load_inline is built at build time (its '
                           'sources are the call\'s arguments); build and load compile '
                           'files, which a worker may not (docs/formats.md, "load_inline '
                           'and load")')

    tc.load_inline = tvm_load_inline
    tc.build = tc.build_inline = tc.load = tvm_unbuilt
    sys.modules['tvm_ffi.cpp'] = tc
    if 'tvm_ffi' in sys.modules:  # imported already: its attribute too
        sys.modules['tvm_ffi'].cpp = tc


def install_recording(ext_dir, failures, tvm=False):
    """The build's: the real load_inline/load, each call built into
    ext_dir/KEY (whatever build_directory the call named). A failure is
    appended to failures, then raised as torch raised it. With tvm (the
    module names tvm_ffi), tvm_ffi.cpp.load_inline too, the same way."""
    import os
    import torch.utils.cpp_extension as real
    real_inline, real_load = real.load_inline, real.load

    def build(name, kw, how, fn, binding='torch'):
        ext_name(name, how)
        d = os.path.join(ext_dir, ext_key(name, kw, binding))
        os.makedirs(d, exist_ok=True)
        args = {k: v for k, v in kw.items() if k != 'build_directory'}
        try:
            return fn(name, build_directory=d, **args)
        except Exception as e:
            failures.append((f'{how}(name={name!r})', e))
            raise

    def load_inline(name, cpp_sources, cuda_sources=None, functions=None, **kw):
        kw.update(cpp_sources=cpp_sources, cuda_sources=cuda_sources, functions=functions)
        return build(name, kw, 'load_inline', real_inline)

    def load(name, sources, **kw):
        kw.update(sources=sources)
        return build(name, kw, 'load', real_load)

    real.load_inline = load_inline
    real.load = load
    if not tvm:
        return
    os.environ['TVM_FFI_DISABLE_TORCH_C_DLPACK'] = '1'  # see the file comment
    try:
        import tvm_ffi.cpp as tc
    except ImportError as e:
        # nodus plan refuses this interpreter already; said again for a
        # build without a plan
        print(f'nodus: target.python {sys.executable!r} cannot import tvm_ffi '
              f'({type(e).__name__}: {e}), which the module names: install it with '
              f'`{sys.executable} -m pip install apache-tvm-ffi=={TVM_FFI_VERSION}`',
              file=sys.stderr)
        return
    tvm_inline = tc.load_inline

    def tvm_load_inline(name, *, cpp_sources=None, cuda_sources=None, functions=None, **kw):
        kw.update(cpp_sources=cpp_sources, cuda_sources=cuda_sources, functions=functions)
        return build(name, kw, 'tvm_ffi.cpp.load_inline', tvm_inline, 'tvm_ffi')

    tc.load_inline = tvm_load_inline


def new_module(path, name):
    """The solution's module, registered under its name, not yet executed,
    and its source (the record and warm steps execute it as the worker
    does)."""
    with open(path, encoding='utf-8') as f:
        source = f.read()
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    return mod, source


def construct(torch, cls, init):
    """A module solution's instance, built as the worker builds it: after
    torch.manual_seed(PARAM_SEED), with python.init's arguments (lists are
    tuples)."""
    import json
    torch.manual_seed(PARAM_SEED)
    return cls(*[tuple(a) if isinstance(a, list) else a for a in json.loads(init)])


def record(args):
    """The build's record step (see the file comment); the exit status."""
    if len(args) != 7 or args[0] != 'record':
        print('nodus: usage: torch_ext.py record SOURCE MODULE ENTRY STYLE INIT EXT_DIR',
              file=sys.stderr)
        return 2
    path, name, entry, style, init, ext_dir = args[1:]
    import torch
    failures = []
    mod, source = new_module(path, name)
    install_recording(ext_dir, failures, 'tvm_ffi' in source)
    try:
        exec(compile(source, path, 'exec'), mod.__dict__)
        obj = getattr(mod, entry, None)
        if style == '2' and isinstance(obj, type):
            construct(torch, obj, init)
    except BaseException as e:  # the worker judges the module; only builds matter here
        if not failures:
            print(f'nodus: note: the module raised at build time (the worker will load it '
                  f'again): {type(e).__name__}: {e}', file=sys.stderr)
    for call, e in failures:
        first = (str(e).splitlines() or [''])[0].split(': [')[0][:200]
        print(f'nodus: {call} did not compile at build time: {type(e).__name__}: {first}',
              file=sys.stderr)
        print(str(e), file=sys.stderr)
    return 3 if failures else 0


# TRITON_MOCK_PTX_VERSION in the warm step and in the worker (see above)
TRITON_PTXAS_KEY = 'nodus-warm-1'

DTYPES = ('float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64', 'uint8')


def uses_triton(source):
    return 'triton' in source


def triton_env():
    """What Triton reads from the environment, set the same way in the warm
    step and in the worker, after CUDA is up: the ptxas key, and where
    libcuda is (else Triton asks `ldconfig -p`, a process)."""
    import os
    os.environ['TRITON_MOCK_PTX_VERSION'] = TRITON_PTXAS_KEY
    try:
        with open('/proc/self/maps', encoding='utf-8', errors='replace') as f:
            for line in f:
                p = line.split()[-1]
                if p.endswith('/libcuda.so.1') or '/libcuda.so.' in p:
                    os.environ.setdefault('TRITON_LIBCUDA_PATH', os.path.dirname(p))
                    break
    except OSError:
        pass


def install_triton_cache(cache_dir):
    """The worker's Triton cache (see the file comment): cache_dir, read
    only. Triton's own manager creates its directory, and a miss compiles;
    in a worker both are fatal (no mkdir, no process), so a miss raises."""
    import json
    import os
    import triton
    from triton.runtime import cache as tc

    def missing(key, filename):
        raise RuntimeError(
            f'Triton: {filename} (cache key {key}) was not compiled at build time: the '
            'build warms Triton\'s cache by calling the solution once per workload with '
            'that workload\'s shapes and dtypes, and this call was compiled for another '
            'specialisation (a kernel, constexpr or argument chosen from values known only '
            'at run time?); a worker may not run ptxas or a compiler (docs/formats.md, '
            '"Python solutions")')

    class WarmCache(tc.FileCacheManager):
        def __init__(self, key, override=False, dump=False):  # no makedirs
            self.key = key
            self.cache_dir = os.path.join(cache_dir, key)
            self.lock_path = os.path.join(self.cache_dir, 'lock')

        def get_file(self, filename):
            p = os.path.join(self.cache_dir, filename)
            if not os.path.exists(p):
                missing(self.key, filename)
            return p

        def get_group(self, filename):
            # the group names its files by the warm step's absolute paths
            # (its stage): found again here by name
            grp = os.path.join(self.cache_dir, f'__grp__{filename}')
            if not os.path.exists(grp):
                missing(self.key, filename)
            with open(grp, encoding='utf-8') as f:
                children = json.load(f).get('child_paths') or {}
            found = {}
            for child, path in children.items():
                q = os.path.join(self.cache_dir, os.path.basename(path))
                if os.path.exists(q):
                    found[child] = q
            return found

        def put(self, data, filename, binary=True):
            missing(self.key, filename)

        def put_group(self, filename, group):
            missing(self.key, filename)

    # The key of Triton's compiled C modules (its launchers, cuda_utils)
    # holds platform_key(), which asks platform.architecture(), which runs
    # `file` on the interpreter: a process. The warm step's value instead.
    try:
        with open(os.path.join(cache_dir, 'nodus', 'platform-key'), encoding='utf-8') as f:
            key = f.read().strip()
        import triton.runtime.build as tb
        tb.platform_key = lambda: key
    except (OSError, ImportError):
        pass  # nothing warmed: every call misses, saying so
    # Triton 3.x reads its manager from TRITON_CACHE_MANAGER ("module:Class",
    # imported: found in sys.modules), newer ones also from knobs
    holder = types.ModuleType('nodus_triton_cache')
    holder.WarmCache = WarmCache
    sys.modules['nodus_triton_cache'] = holder
    os.environ['TRITON_CACHE_MANAGER'] = 'nodus_triton_cache:WarmCache'
    knobs = getattr(triton, 'knobs', None)
    if knobs is not None and hasattr(knobs, 'cache'):
        knobs.cache.manager_class = WarmCache


def record_platform_key():
    """The warm step's platform_key(), for the worker (install_triton_cache):
    TRITON_CACHE_DIR/nodus/platform-key, kept with the kernels."""
    import os
    try:
        import triton.runtime.build as tb
    except ImportError:
        return
    d = os.path.join(os.environ['TRITON_CACHE_DIR'], 'nodus')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'platform-key'), 'w', encoding='utf-8') as f:
        f.write(tb.platform_key())


def warm_tensor(torch, dtype, shape, device):
    if dtype not in DTYPES:
        raise ValueError(f'warm: unknown dtype {dtype!r}')
    t = getattr(torch, dtype)
    if t.is_floating_point:
        return torch.randn(shape, device=device).to(t)
    return torch.zeros(shape, dtype=t, device=device)  # a valid index anywhere


def warm(args):
    """The warm step (see the file comment); the exit status."""
    if len(args) != 8 or args[0] != 'warm':
        print('nodus: usage: torch_ext.py warm SOURCE MODULE ENTRY STYLE INIT EXT_DIR CALLS',
              file=sys.stderr)
        return 2
    path, name, entry, style, init, ext_dir, calls = args[1:]
    import json
    import os
    try:
        import torch
        device = int(os.environ.get('NODUS_CUDA_DEVICE') or 0)
        torch.cuda.set_device(device)
        torch.zeros(1, device='cuda').sum().item()
        triton_env()
    except BaseException as e:
        print(f'nodus: the warm step could not use the GPU: {type(e).__name__}: {e}',
              file=sys.stderr)
        return 4
    install_prebuilt(torch, ext_dir if os.path.isdir(ext_dir) else '')
    torch.set_grad_enabled(False)
    mod, source = new_module(path, name)
    try:
        exec(compile(source, path, 'exec'), mod.__dict__)
        obj = getattr(mod, entry)
        if style == '2':
            obj = construct(torch, obj, init).to('cuda')
        for call in json.loads(calls)['calls']:
            ins = [warm_tensor(torch, d, s, 'cuda') for d, s in call['inputs']]
            outs = [warm_tensor(torch, d, s, 'cuda') for d, s in call['outputs']]
            if style == '2':
                obj(*ins)
            else:
                obj(*ins, *outs)
        torch.cuda.synchronize()
        record_platform_key()
    except BaseException as e:
        if type(e).__module__.startswith('triton'):  # CompilationError, PTXASError ...
            print(f'nodus: a Triton kernel did not compile at build time: '
                  f'{type(e).__name__}: {str(e)[:4000]}', file=sys.stderr)
            return 3
        print(f'nodus: note: the module raised in the warm step (the worker will load it '
              f'again and judge it): {type(e).__name__}: {e}', file=sys.stderr)
    return 0


if __name__ == '__main__':
    if sys.argv[1:2] == ['warm']:
        sys.exit(warm(sys.argv[1:]))
    sys.exit(record(sys.argv[1:]))
