# SPDX-License-Identifier: MIT
# ---------------------------------------------------------------------------
# torch_half.py: the study suite's KernelBench-format half (issue 25):
# suites/study/torch-cuda and suites/study/torch-cpu, written by generate.py
# (which imports this file; run that, not this).
#
# A family is a task and one KernelBench-format problem file, FAMILY.py:
# `class Model`, `get_inputs()`, `get_init_inputs()`, written for nodus (none
# is KernelBench's). Two kinds of pair:
#
# - Near-ties, by construction. The family's Model repeats its unit of work
#   `steps` times (an idempotent op, so the output does not depend on it), and
#   both sides of a pair are that one Model from that one file, built with
#   another `steps` (python.init): the same Python, the same kernels, only a
#   trip count differs. The truth is the work ratio, effect = steps(reference)
#   / steps(candidate), as in the C halves; a fixed per-call cost (Python's,
#   the launch queue's) only pulls the measured ratio towards 1.
# - Other code: a `ModelNew` in FAMILY_how.py, KernelBench's candidate shape
#   (eager against fused, a manual formula against the library's, cuBLAS's
#   TF32 switch, cuDNN's autotuner, a host-synchronised and a split
#   candidate). These declare the expected direction where it is clear by
#   construction and EQUIVALENT where it is not; they carry no effect.
#
# torch.compile is not among them (yet): Inductor compiles in subprocesses
# and writes a cache of its own, which the worker's limits (its process count,
# the files it may write: docs/sandbox.md) were not made for; it has not been
# tried in a worker.
#
# Deterministic output, standard library only; tests/e2e/t1400 regenerates it
# and compares with the committed files.
# ---------------------------------------------------------------------------
import os
import shutil

LEVELS = [1, 2, 3, 5, 10]  # near-tie sizes, per cent of the reference's work
BASE = 100                 # steps of a near-tie's medium call

# The judges: the torch suites' own (suites/torch-cuda, suites/torch/kernelbench).
# On cuda process_sd is declared, as `nodus import kernelbench-candidate` does:
# two processes' host-bound torch calls differ by an offset no round removes
# (docs/statistics.md, "Between processes").
HALVES = {
    "torch-cuda": {"backend": "cuda",
                   "judge": {"tie_margin": 0.01, "process_sd": 0.03, "samples_per_round": 4,
                             "min_sample_ns": 1000000, "tie_margin_short": 0.085,
                             "max_rounds_short": 80},
                   "target": {"backend": "cuda", "profile": "NVIDIA H200 full GPU",
                              "price_per_device_hour_usd": 3.5, "python": "/usr/bin/python3"}},
    "torch-cpu": {"backend": "cpu",
                  "judge": {"tie_margin": 0.08, "tie_margin_short": 0.08, "min_rounds": 10,
                            "max_rounds": 80, "look_every": 10, "samples_per_round": 5},
                  "target": {"backend": "cpu", "profile": "x86-64 CPU, 2 cores",
                             "price_per_device_hour_usd": 0.1, "python": "/usr/bin/python3"}},
}

X_INIT = {"dist": "normal", "mean": 0, "std": 1}
VARIANTS = ["scale_3", "scale_0.01", "negate"]


def tensor_in(name, shape, variants=True):
    d = {"name": name, "dtype": "float32", "shape": shape, "init": dict(X_INIT)}
    if variants:
        d["variants"] = list(VARIANTS)
    return d


def param(name, shape):
    return {"name": name, "shape": shape, "dtype": "float32"}


# ---- the families ----------------------------------------------------------
# name: the task; cls: launch, memory, compute (near-tie families) or profile;
# axes: per half; const: the axes the constructor takes (a module's weights
# have their shape, so the judge's instances never vary them); inputs,
# out_shape over the axes; init: get_init_inputs();
# model: the problem's Model (source lines of its class body); new: the
# ModelNew candidates {how: (class body, expect per half, what)}; params: the
# module's floating parameters (redrawn by nodus, matched by name).

def near_tie_model(op):
    return ("    def __init__(self, steps):\n"
            "        super().__init__()\n"
            "        self.steps = steps\n\n"
            "    def forward(self, x):\n"
            "        for _ in range(self.steps):\n"
            "            x = %s\n"
            "        return x\n" % op)


FAMILIES = [
    {"name": "t_relu_launch", "cls": "launch",
     "desc": "ReLU applied `steps` times to a small tensor: one launch each, launch-bound on the GPU",
     "axes": {"torch-cuda": {"rows": 64, "cols": 1024}, "torch-cpu": {"rows": 16, "cols": 64}},
     "inputs": [tensor_in("x", ["rows", "cols"])], "out_shape": ["rows", "cols"],
     "model": near_tie_model("torch.relu(x)"), "init": [BASE],
     "new": {
         "sync": ("    def __init__(self, steps):\n"
                  "        super().__init__()\n"
                  "        self.steps = steps\n\n"
                  "    def forward(self, x):\n"
                  "        for i in range(self.steps):\n"
                  "            x = torch.relu(x)\n"
                  "            if x.is_cuda and i % 10 == 9:\n"
                  "                torch.cuda.synchronize()  # the host waits for the queue\n"
                  "        return x\n",
                  {"torch-cuda": "EQUIVALENT", "torch-cpu": "EQUIVALENT"},
                  "the same chain, with the host synchronising every tenth launch"),
     },
     "aa_extra": [1]},
    {"name": "t_abs_memory", "cls": "memory",
     "desc": "abs applied `steps` times to a large tensor: memory-bound",
     "axes": {"torch-cuda": {"rows": 4096, "cols": 4096}, "torch-cpu": {"rows": 256, "cols": 1024}},
     "inputs": [tensor_in("x", ["rows", "cols"])], "out_shape": ["rows", "cols"],
     "model": near_tie_model("torch.abs(x)"), "init": [BASE],
     "new": {
         "split": ("    def __init__(self, steps):\n"
                   "        super().__init__()\n"
                   "        self.steps = steps\n\n"
                   "    def forward(self, x):\n"
                   "        h = x.shape[0] // 2\n"
                   "        a, b = x[:h], x[h:]\n"
                   "        for _ in range(self.steps):\n"
                   "            a = torch.abs(a)\n"
                   "            b = torch.abs(b)\n"
                   "        return torch.cat([a, b])\n",
                   {"torch-cuda": "EQUIVALENT", "torch-cpu": "EQUIVALENT"},
                   "the chain on each half of the rows, twice the launches, then a copy"),
     },
     "aa_extra": [10]},
    {"name": "t_mm_compute", "cls": "compute",
     "desc": "the same matrix product computed `steps` times (the last kept): compute-bound",
     "axes": {"torch-cuda": {"n": 1024}, "torch-cpu": {"n": 96}},
     "inputs": [tensor_in("x", ["n", "n"]), tensor_in("w", ["n", "n"], variants=False)],
     "out_shape": ["n", "n"],
     "model": ("    def __init__(self, steps):\n"
               "        super().__init__()\n"
               "        self.steps = steps\n\n"
               "    def forward(self, x, w):\n"
               "        y = None\n"
               "        for _ in range(self.steps):\n"
               "            y = torch.mm(x, w)\n"
               "        return y\n"),
     "init": [BASE], "new": {}, "aa_extra": [1], "tol": 1e-4},
    {"name": "t_gelu", "cls": "profile",
     "desc": "tanh-approximate GELU written out in eager ops (about eight kernels) against torch's fused one",
     "axes": {"torch-cuda": {"rows": 4096, "cols": 4096}, "torch-cpu": {"rows": 256, "cols": 1024}},
     "inputs": [tensor_in("x", ["rows", "cols"])], "out_shape": ["rows", "cols"],
     "model": ("    def __init__(self):\n"
               "        super().__init__()\n\n"
               "    def forward(self, x):\n"
               "        return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))\n"),
     "init": [],
     "new": {
         "fused": ("    def __init__(self):\n"
                   "        super().__init__()\n\n"
                   "    def forward(self, x):\n"
                   "        return F.gelu(x, approximate=\"tanh\")\n",
                   {"torch-cuda": "FASTER", "torch-cpu": "FASTER"},
                   "torch's fused tanh GELU: one pass over the data instead of about eight"),
     }, "reverse": ["fused"], "tol": 1e-4},
    {"name": "t_softmax", "cls": "profile",
     "desc": "row softmax written out (max, subtract, exp, sum, divide) against torch.softmax",
     "axes": {"torch-cuda": {"rows": 4096, "cols": 1024}, "torch-cpu": {"rows": 256, "cols": 1024}},
     "inputs": [tensor_in("x", ["rows", "cols"])], "out_shape": ["rows", "cols"],
     "model": ("    def __init__(self):\n"
               "        super().__init__()\n\n"
               "    def forward(self, x):\n"
               "        e = torch.exp(x - x.max(dim=1, keepdim=True).values)\n"
               "        return e / e.sum(dim=1, keepdim=True)\n"),
     "init": [],
     "new": {
         "fused": ("    def __init__(self):\n"
                   "        super().__init__()\n\n"
                   "    def forward(self, x):\n"
                   "        return torch.softmax(x, dim=1)\n",
                   {"torch-cuda": "FASTER", "torch-cpu": "FASTER"},
                   "torch.softmax: one kernel instead of five"),
     }, "reverse": ["fused"], "tol": 1e-5},
    {"name": "t_layernorm", "cls": "profile",
     "desc": "nn.LayerNorm with its weight and bias (redrawn by nodus) against the formula written out",
     "axes": {"torch-cuda": {"rows": 4096, "features": 1024}, "torch-cpu": {"rows": 256, "features": 1024}},
     "inputs": [tensor_in("x", ["rows", "features"])], "out_shape": ["rows", "features"],
     "model": ("    def __init__(self, features):\n"
               "        super().__init__()\n"
               "        self.norm = nn.LayerNorm(features)\n\n"
               "    def forward(self, x):\n"
               "        return self.norm(x)\n"),
     "init": ["features"], "const": ["features"], "params": [param("norm.weight", ["features"]), param("norm.bias", ["features"])],
     "new": {
         "manual": ("    def __init__(self, features):\n"
                    "        super().__init__()\n"
                    "        self.norm = nn.LayerNorm(features)  # its parameters, redrawn\n\n"
                    "    def forward(self, x):\n"
                    "        mu = x.mean(dim=-1, keepdim=True)\n"
                    "        var = ((x - mu) * (x - mu)).mean(dim=-1, keepdim=True)\n"
                    "        return (x - mu) / torch.sqrt(var + self.norm.eps) * self.norm.weight + self.norm.bias\n",
                    {"torch-cuda": "SLOWER", "torch-cpu": "SLOWER"},
                    "the formula in eager ops (about nine kernels) instead of one"),
     }, "reverse": ["manual"], "tol": 1e-4},
    {"name": "t_linear_relu", "cls": "profile",
     "desc": "nn.Linear then ReLU against one addmm with the ReLU in place",
     "axes": {"torch-cuda": {"batch": 4096, "in_features": 1024, "out_features": 1024},
              "torch-cpu": {"batch": 128, "in_features": 256, "out_features": 128}},
     "inputs": [tensor_in("x", ["batch", "in_features"])], "out_shape": ["batch", "out_features"],
     "model": ("    def __init__(self, in_features, out_features):\n"
               "        super().__init__()\n"
               "        self.lin = nn.Linear(in_features, out_features)\n\n"
               "    def forward(self, x):\n"
               "        return torch.relu(self.lin(x))\n"),
     "init": ["in_features", "out_features"], "const": ["in_features", "out_features"],
     "params": [param("lin.weight", ["out_features", "in_features"]), param("lin.bias", ["out_features"])],
     "new": {
         "addmm": ("    def __init__(self, in_features, out_features):\n"
                   "        super().__init__()\n"
                   "        self.lin = nn.Linear(in_features, out_features)\n\n"
                   "    def forward(self, x):\n"
                   "        return torch.addmm(self.lin.bias, x, self.lin.weight.t()).relu_()\n",
                   {"torch-cuda": "EQUIVALENT", "torch-cpu": "EQUIVALENT"},
                   "the bias added by the product itself, the ReLU in place: one allocation fewer"),
     }, "reverse": ["addmm"], "tol": 1e-4},
    {"name": "t_tf32", "cls": "profile",
     "desc": "a float32 matrix product, with cuBLAS's TF32 tensor cores off (torch's default) and on",
     "axes": {"torch-cuda": {"n": 2048}, "torch-cpu": {"n": 96}},
     "inputs": [tensor_in("x", ["n", "n"]), tensor_in("w", ["n", "n"], variants=False)],
     "out_shape": ["n", "n"],
     "model": ("    def __init__(self):\n"
               "        super().__init__()\n"
               "        torch.backends.cuda.matmul.allow_tf32 = False\n\n"
               "    def forward(self, x, w):\n"
               "        return torch.mm(x, w)\n"),
     "init": [],
     "new": {
         "on": ("    def __init__(self):\n"
                "        super().__init__()\n"
                "        torch.backends.cuda.matmul.allow_tf32 = True  # 10-bit mantissas in the product\n\n"
                "    def forward(self, x, w):\n"
                "        return torch.mm(x, w)\n",
                # on the cpu the switch does nothing: the same product
                {"torch-cuda": "FASTER", "torch-cpu": "EQUIVALENT"},
                "TF32 tensor cores: several times the throughput, about 1e-3 relative error"),
     },
     # the tolerance TF32 needs over 2048 products of N(0, 1) values: the error
     # of each output is about sqrt(2048) x 2^-11 x |x w| ~ 0.03, 0.2 at the tail
     "tol": {"atol": 0.25, "rtol": 0.01}},
    {"name": "t_cudnn", "cls": "profile",
     "desc": "a 3x3 convolution (TF32 off) with cuDNN's autotuner off (torch's default) and on",
     "axes": {"torch-cuda": {"batch": 16, "channels": 32, "h": 64, "w": 64},
              "torch-cpu": {"batch": 2, "channels": 8, "h": 16, "w": 16}},
     "inputs": [tensor_in("x", ["batch", "channels", "h", "w"])], "out_shape": ["batch", "channels", "h", "w"],
     "model": ("    def __init__(self, channels):\n"
               "        super().__init__()\n"
               "        torch.backends.cudnn.allow_tf32 = False\n"
               "        torch.backends.cudnn.benchmark = False\n"
               "        self.conv = nn.Conv2d(channels, channels, 3, padding=1)\n\n"
               "    def forward(self, x):\n"
               "        return self.conv(x)\n"),
     "init": ["channels"], "const": ["channels"],
     "params": [param("conv.weight", ["channels", "channels", 3, 3]), param("conv.bias", ["channels"])],
     "new": {
         "benchmark": ("    def __init__(self, channels):\n"
                       "        super().__init__()\n"
                       "        torch.backends.cudnn.allow_tf32 = False\n"
                       "        torch.backends.cudnn.benchmark = True  # times the algorithms at the first call\n"
                       "        self.conv = nn.Conv2d(channels, channels, 3, padding=1)\n\n"
                       "    def forward(self, x):\n"
                       "        return self.conv(x)\n",
                       {"torch-cuda": "EQUIVALENT", "torch-cpu": "EQUIVALENT"},
                       "cuDNN picks its algorithm by timing them (in the trials, never a timed call)"),
     }, "tol": 1e-3},
]


def verdict(effect, margin):
    if effect > 1 + margin:
        return "FASTER"
    if effect < 1 / (1 + margin):
        return "SLOWER"
    return "TIED"


def resolve(v, axes):
    """An init entry: a number, or the name of an axis (its workload value)."""
    if isinstance(v, str):
        if v in axes:
            return axes[v]
        raise ValueError(v)
    return v


def problem_source(fam, half):
    axes = fam["axes"][half]
    lines = ["# SPDX-License-Identifier: MIT",
             "# suites/study/%s, family %s (%s): %s." % (half, fam["name"], fam["cls"], fam["desc"]),
             "# A KernelBench-format problem written for nodus (not copied from KernelBench).",
             "# Generated by suites/study/generate.py (torch_half.py): edit the generator, not this file.",
             "import torch", "import torch.nn as nn", "", "", "class Model(nn.Module):",
             fam["model"].rstrip("\n"), "", ""]
    for a in sorted(axes):
        lines.append("%s = %d" % (a, axes[a]))
    lines += ["", "", "def get_inputs():"]
    shapes = ["torch.randn(%s)" % ", ".join(s if isinstance(s, str) else str(s) for s in i["shape"])
              for i in fam["inputs"]]
    lines.append("    return [%s]" % ", ".join(shapes))
    lines += ["", "", "def get_init_inputs():",
              "    return [%s]" % ", ".join(str(v) for v in fam["init"]), ""]
    return "\n".join(lines)


def new_source(fam, half, how, body, what):
    return "\n".join([
        "# SPDX-License-Identifier: MIT",
        "# suites/study/%s, family %s: ModelNew %s: %s." % (half, fam["name"], how, what),
        "# Generated by suites/study/generate.py (torch_half.py): edit the generator, not this file.",
        "import torch", "import torch.nn as nn", "import torch.nn.functional as F  # noqa: F401", "", "",
        "class ModelNew(nn.Module):", body.rstrip("\n"), ""])


def task_json(fam, half):
    tol = fam.get("tol", 1e-6)
    if not isinstance(tol, dict):
        tol = {"atol": tol, "rtol": tol}
    return {"kind": "task", "format": 1, "name": fam["name"],
            "description": "study suite (KernelBench format), %s family: %s" % (fam["cls"], fam["desc"]),
            "axes": {a: ({"type": "const", "value": v} if a in fam.get("const", []) else {"type": "var"})
                     for a, v in sorted(fam["axes"][half].items())},
            "inputs": fam["inputs"],
            "outputs": [{"name": "y", "dtype": "float32", "shape": fam["out_shape"]}],
            "tolerance": tol}


def solution_json(fam, half, name, source, entry, init, tags):
    py = {"style": "module"}
    if init:
        py["init"] = init
    if fam.get("params"):
        axes = fam["axes"][half]
        py["params"] = [dict(p, shape=[resolve(s, axes) for s in p["shape"]]) for p in fam["params"]]
    return {"kind": "solution", "format": 1, "name": name, "task": fam["name"],
            "backend": HALVES[half]["backend"], "language": "python", "python": py,
            "sources": [source], "entry": entry, "author": "nodus", "tags": tags}


def family_files(fam, half):
    """(solutions {name: json}, sources {file: text}, pairs)."""
    n = fam["name"]
    axes = fam["axes"][half]
    init = [resolve(v, axes) for v in fam["init"]]
    margin = HALVES[half]["judge"]["tie_margin"]
    sols, srcs, pairs = {}, {n + ".py": problem_source(fam, half)}, []
    w = n + "_w"

    def model(steps=None):
        name = "%s_ref" % n if steps is None else "%s_s%d" % (n, steps)
        if name not in sols:
            tags = ["study", "kernelbench", fam["cls"]]
            sols[name] = solution_json(fam, half, name, n + ".py", "Model",
                                       init if steps is None else [steps], tags)
        return name

    def pair(cand, ref, expect, effect=None):
        p = {"workload": w, "candidate": cand, "reference": ref, "expect": expect}
        if effect is not None:
            p["effect"] = round(effect, 6)
        pairs.append(p)

    near = fam["cls"] in ("launch", "memory", "compute")
    if near:
        for j, pct in enumerate(LEVELS):
            more = BASE + pct
            if j % 2 == 0:  # the candidate does less work than the reference
                e = more / BASE
                pair(model(BASE), model(more), verdict(e, margin), e)
                e = BASE / more
                pair(model(more), model(BASE), verdict(e, margin), e)
            else:
                e = BASE / more
                pair(model(more), model(BASE), verdict(e, margin), e)
                e = more / BASE
                pair(model(BASE), model(more), verdict(e, margin), e)
        pair(model(BASE), model(BASE), "TIED", 1.0)
        for steps in fam.get("aa_extra", []):
            pair(model(steps), model(steps), "TIED", 1.0)
        ref = model(BASE)
    else:
        ref = model()
        pair(ref, ref, "TIED", 1.0)
    for how in sorted(fam["new"]):
        body, expect, what = fam["new"][how]
        name = "%s_%s" % (n, how)
        srcs[name + ".py"] = new_source(fam, half, how, body, what)
        sols[name] = solution_json(fam, half, name, name + ".py", "ModelNew", init,
                                   ["study", "kernelbench", fam["cls"], "candidate"])
        pair(name, ref, expect[half])
        if how in fam.get("reverse", []):
            back = {"FASTER": "SLOWER", "SLOWER": "FASTER"}.get(expect[half], expect[half])
            pair(ref, name, back)
    return sols, srcs, pairs


def campaign(half, sols, pairs, seed, sharing, presets, preset_sharing):
    """The conditions are the C halves' (generate.py): isolated, the sharing
    ones, the recheck, the presets, then each sharing one under each preset."""
    # the cuda sharing kinds have no cpu meaning; replay runs anywhere
    shared = sharing if HALVES[half]["backend"] == "cuda" else [c for c in sharing if c["kind"] == "replay"]
    conds = [{"name": "isolated", "kind": "isolated"}] + shared + \
        [{"name": "isolated-recheck", "kind": "isolated"}] + presets + preset_sharing(shared)
    judge = dict(seed=seed, **HALVES[half]["judge"])
    # TF32's error needs a tolerance bfloat16 rounding also passes: the
    # pair asks what cuBLAS's switch buys, not whether a kernel is exact
    audit = {"waive": [{"task": "t_tf32", "check": "loose_tolerance",
                        "reason": "the tolerance TF32 products need (atol 0.25, rtol 0.01 over 2048 "
                                  "N(0, 1) products); the family measures cuBLAS's TF32 switch, "
                                  "not a kernel's accuracy"}]}
    return {"kind": "campaign", "format": 1, "name": "study-" + half,
            "tasks": ["tasks/%s.json" % f["name"] for f in FAMILIES],
            "workloads": ["workloads/%s_w.json" % f["name"] for f in FAMILIES],
            "solutions": sols, "pairs": pairs, "judge": judge, "conditions": conds,
            "audit": audit, "target": HALVES[half]["target"]}


def generate(out, dump, seed, sharing, presets, preset_sharing):
    """Writes OUT/torch-cuda and OUT/torch-cpu whole; dump(path, obj) writes JSON."""
    for half in HALVES:
        root = os.path.join(out, half)
        shutil.rmtree(root, ignore_errors=True)
        all_sols, all_pairs = [], []
        for fam in FAMILIES:
            n = fam["name"]
            dump(os.path.join(root, "tasks", n + ".json"), task_json(fam, half))
            dump(os.path.join(root, "workloads", n + "_w.json"),
                 {"kind": "workload", "format": 1, "name": n + "_w", "task": n,
                  "axes": {a: v for a, v in fam["axes"][half].items() if a not in fam.get("const", [])}})
            sols, srcs, pairs = family_files(fam, half)
            for name in sorted(sols):
                dump(os.path.join(root, "solutions", n, name + ".json"), sols[name])
                all_sols.append("solutions/%s/%s.json" % (n, name))
            for f in sorted(srcs):
                with open(os.path.join(root, "solutions", n, f), "w") as fh:
                    fh.write(srcs[f])
            all_pairs += pairs
        dump(os.path.join(root, "campaign.json"),
             campaign(half, all_sols, all_pairs, seed, sharing, presets, preset_sharing))
