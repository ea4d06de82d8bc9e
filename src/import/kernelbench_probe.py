# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# kernelbench_probe.py: what `nodus import kernelbench` learns from one
# KernelBench-format problem file, by running it once with the user's
# interpreter (embedded into the nodus binary by embed-probe.cmake; run as
# `PYTHON -I -c SCRIPT PROBLEM.py RESULT.json DEVICE`).
#
# It executes the problem (its module-level code, get_init_inputs(),
# get_inputs(), Model(*init) and one forward call on DEVICE: "cuda" when
# the import is for cuda and torch sees a GPU, where KernelBench's large
# level 1 sizes take a fraction of the cpu's time, else "cpu") and writes
# one JSON object to RESULT.json, never to stdout (the problem may print):
#   {"inputs": [{"name", "dtype", "shape", "floating", "min", "max"}],
#    "outputs": [{"dtype", "shape"}], "init": [numbers, booleans, tuples as arrays],
#    "constants": [[name, int value], ...] (module-level ints, in order),
#    "var": [sizes that may vary in the judge's shape probe], "fixed_why":
#    "" or why none may, "params": [{"name", "shape", "dtype"}] (Model's
#    floating parameters and buffers as built, in torch's order: parameters,
#    then buffers; the solutions' python.params), "params_why": "" or why
#    they are not declared (params is then []), "torch": version}
# or, when the problem cannot be used, {"error": TEXT, "file": F, "line": N}
# with the file and line of the innermost frame in the problem file (else
# the innermost frame at all). It exits 0 in both cases; any other exit is
# the interpreter failing.
# ------------------------------------------------------------------------
import inspect
import json
import os
import re
import sys
import traceback

problem, result = sys.argv[1], sys.argv[2]
want_device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}$")
PARAM = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")  # torch's dotted names
DTYPES = {"float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8"}


def done(r):
    with open(result, "w") as f:
        json.dump(r, f)
    sys.exit(0)


def fail(msg, file=problem, line=0):
    done({"error": msg, "file": file or problem, "line": line or 0})


def fail_exc(what, e):
    if isinstance(e, SyntaxError) and e.filename:
        fail(f"{what}: {type(e).__name__}: {e.msg}", e.filename, e.lineno)
    frames = traceback.extract_tb(e.__traceback__)
    mine = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(problem)]
    f = (mine or frames or [None])[-1]
    last = traceback.format_exception_only(type(e), e)[-1].strip()
    fail(f"{what}: {last}", f.filename if f else problem, f.lineno if f else 0)


def line_of(obj):
    try:
        return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return 0


try:
    import torch
except Exception as e:  # the interpreter, not the problem
    fail(f"the interpreter cannot import torch ({type(e).__name__}: {e})", "", 0)

try:
    with open(problem, encoding="utf-8") as f:
        code = compile(f.read(), problem, "exec")
except SyntaxError as e:
    fail(f"{type(e).__name__}: {e.msg}", e.filename or problem, e.lineno or 0)
except (OSError, UnicodeDecodeError, ValueError) as e:
    fail(f"cannot read the problem: {e}")

torch.manual_seed(0)
ns = {"__name__": "nodus_kernelbench_problem", "__file__": problem, "__builtins__": __builtins__}
try:
    exec(code, ns)
except BaseException as e:
    fail_exc("running the problem file", e)
for name in ("Model", "get_inputs", "get_init_inputs"):
    if name not in ns:
        fail(f"defines no '{name}' (a KernelBench problem defines class Model(nn.Module), "
             "get_inputs() and get_init_inputs())")
Model = ns["Model"]
if not (isinstance(Model, type) and issubclass(Model, torch.nn.Module)):
    fail("'Model' is not a torch.nn.Module class", problem, line_of(Model))

consts = [[k, v] for k, v in ns.items() if type(v) is int and NAME.match(k) and not k.startswith("_")]

try:
    init = list(ns["get_init_inputs"]())
except BaseException as e:
    fail_exc("get_init_inputs()", e)
if len(init) > 16:
    fail(f"get_init_inputs() returned {len(init)} values, nodus's python.init takes at most 16",
         problem, line_of(ns["get_init_inputs"]))
def scalar(v):
    return type(v) in (bool, int, float)


for k, v in enumerate(init):
    if type(v) in (tuple, list) and 1 <= len(v) <= 8 and all(scalar(x) for x in v):
        pass  # a tuple: a JSON array in python.init, passed as a tuple again
    elif not scalar(v):
        fail(f"get_init_inputs() item {k}: expected a number, a boolean or a tuple of up to 8 "
             f"of them (nodus's python.init), got {type(v).__name__}", problem,
             line_of(ns["get_init_inputs"]))

try:
    inputs = list(ns["get_inputs"]())
except BaseException as e:
    fail_exc("get_inputs()", e)
gl = line_of(ns["get_inputs"])
if not 1 <= len(inputs) <= 16:
    fail(f"get_inputs() returned {len(inputs)} values, expected 1 to 16 tensors", problem, gl)


def describe(t, what, line):
    if not isinstance(t, torch.Tensor):
        fail(f"{what}: expected a tensor, got {type(t).__name__} (nodus's tasks take and give "
             "tensors only)", problem, line)
    dtype = str(t.dtype).replace("torch.", "")
    if dtype not in DTYPES:
        fail(f"{what}: dtype {dtype} is not one of nodus's ({', '.join(sorted(DTYPES))})",
             problem, line)
    if t.dim() > 8:
        fail(f"{what}: {t.dim()} dimensions, nodus's tensors have at most 8", problem, line)
    d = {"dtype": dtype, "shape": list(t.shape), "floating": t.is_floating_point()}
    if t.numel():
        d["min"], d["max"] = t.min().item(), t.max().item()
    return d


ins = [describe(t, f"get_inputs() item {k}", gl) for k, t in enumerate(inputs)]
try:
    params = [p for p in inspect.signature(Model.forward).parameters.values()][1:]
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
except (TypeError, ValueError):
    names = []
if len(names) != len(ins) or len(set(names)) != len(names) or not all(NAME.match(n) for n in names):
    names = [f"x{k}" for k in range(len(ins))]
for d, n in zip(ins, names):
    d["name"] = n

device = "cuda" if want_device == "cuda" and torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
try:
    with torch.no_grad():
        model = Model(*init).to(device)
        out = model(*[t.to(device, copy=True) for t in inputs])
except BaseException as e:
    fail_exc("Model(*get_init_inputs())(*get_inputs())", e)
fl = line_of(Model.forward)


# The reference's floating parameters and buffers, declared in the
# solutions (python.params) so that the adapter gives a candidate's the
# same values by name, then by order and shape. Only what nodus's spec
# can hold is declared; anything else and the adapter redraws by position.
def declare(model):
    out = []
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        if not t.is_floating_point():
            continue
        dtype = str(t.dtype).replace("torch.", "")
        if dtype not in ("float32", "float64", "float16", "bfloat16"):
            return [], f"{name} is {dtype}, not a dtype python.params declares"
        if not PARAM.match(name) or len(name) > 255 or t.dim() > 8:
            return [], f"{name!r} (shape {list(t.shape)}) is not a name and shape python.params holds"
        out.append({"name": name, "shape": list(t.shape), "dtype": dtype})
    text = ";".join(f"{d['name']}:{'x'.join(map(str, d['shape']))}:{d['dtype']}" for d in out)
    if len(out) > 1024 or len(text) >= 16384:
        return [], f"{len(out)} tensors, more than python.params holds (1024, 16 KiB)"
    return out, ""


params, params_why = declare(model)
outs = list(out) if isinstance(out, (tuple, list)) else [out]
if not 1 <= len(outs) <= 8:
    fail(f"forward returned {len(outs)} values, expected 1 to 8 tensors", problem, fl)
outs = [describe(t, f"forward's output {k}", fl) for k, t in enumerate(outs)]
for d in outs:
    d.pop("min", None), d.pop("max", None)


# Which sizes may vary: nodus's judge runs one smaller "shape probe" with
# every var axis v at max(1, v - 1 - v // 8) (src/run/instance.c). A size
# that is an argument of get_init_inputs() is fixed (the module is built
# for it); the others vary only if this Model accepts the probe shape and
# gives outputs of the shape that follows from it.
def shrink(v):
    return max(1, v - 1 - v // 8)


def smaller(t, d, var):
    shape = [shrink(v) if v in var else v for v in d["shape"]]
    if t.is_floating_point():
        return torch.randn(shape, dtype=t.dtype, device=device)
    lo, hi = int(d.get("min", 0)), int(d.get("max", 0))
    return torch.randint(lo, hi + 1, shape, dtype=t.dtype, device=device)


fixed = {x for v in init for x in (v if isinstance(v, (list, tuple)) else [v]) if type(x) is int}
var = sorted({v for d in ins for v in d["shape"] if v not in fixed and shrink(v) != v})
why = ""
if var:
    try:
        with torch.no_grad():
            got = model(*[smaller(t, d, var) for t, d in zip(inputs, ins)])
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        want = [[shrink(v) if v in var else v for v in d["shape"]] for d in outs]
        if [list(g.shape) if isinstance(g, torch.Tensor) else None for g in got] != want:
            why = f"its outputs on the smaller shape are not of the shapes {want}"
    except BaseException as e:
        why = traceback.format_exception_only(type(e), e)[-1].strip()
    if why:
        var = []
done({"inputs": ins, "outputs": outs, "init": init, "constants": consts, "var": var,
      "fixed_why": why, "params": params, "params_why": params_why, "torch": torch.__version__})
