#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-candidates.py: each candidate of bench/kernelbench/candidates against its
KernelBench problem, outside nodus, by nodus's rule of correctness.

    python3 check-candidates.py LEVEL1 [CANDIDATE.py...]

LEVEL1 is a KernelBench checkout's KernelBench/level1. A candidate's problem is
the number after the `p` of its name (p12_... is problem 12). Model and ModelNew
are built from get_init_inputs() and their floating parameters set alike by
position (nodus redraws them by position and shape, docs/formats.md), the
inputs have get_inputs()'s shapes and nodus's draws (normal(0, 1), then the
variants scale_3, scale_0.01 and negate), and an output passes when every
element is within atol 1e-4 + rtol 1e-4 x |ref| (the importer's float32
tolerance, matched_ratio 1). On a machine without CUDA the candidates that
need it (load_inline, Triton) are skipped, and said. Exit 1 when one fails.
A quick check before device time, not a substitute for the judge.
"""
import importlib.util
import os
import re
import sys

import torch

ATOL = RTOL = 1e-4
VARIANTS = (("normal", 1.0), ("scale_3", 3.0), ("scale_0.01", 0.01), ("negate", -1.0))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)  # a file, not exec(): Triton's @jit reads its source
    return m


def needs_cuda(path):
    src = open(path).read()
    return bool(re.search(r"^\s*(import triton|from torch\.utils\.cpp_extension import)", src,
                          re.M))


def check(level1, path, dev):
    n = int(re.match(r"p(\d+)_", os.path.basename(path)).group(1))
    prob = [f for f in os.listdir(level1) if f.startswith(f"{n}_") and f.endswith(".py")]
    if len(prob) != 1:
        return f"no level 1 problem {n}", False
    pm = load(os.path.join(level1, prob[0]), f"kb_problem_{n}")
    cm = load(path, os.path.basename(path)[:-3])
    init = [tuple(a) if isinstance(a, list) else a for a in pm.get_init_inputs()]
    torch.manual_seed(0)
    ref, cand = pm.Model(*init), cm.ModelNew(*init)
    rp = [t for t in list(ref.parameters()) + list(ref.buffers()) if t.is_floating_point()]
    cp = [t for t in list(cand.parameters()) + list(cand.buffers()) if t.is_floating_point()]
    if [t.shape for t in rp] != [t.shape for t in cp]:
        return "parameters differ in order or shape from the reference's", False
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for a, b in zip(rp, cp):  # not torch's defaults: a LayerNorm's 1 and 0 hide the affine
            v = torch.randn(a.shape, generator=g) / max(1, a[0].numel()) ** 0.5
            a.copy_(v)
            b.copy_(v)
    ref, cand = ref.to(dev), cand.to(dev)
    shapes = [x.shape for x in pm.get_inputs()]
    torch.set_grad_enabled(False)
    notes = []
    ok = True
    for vname, s in VARIANTS:
        xs = [(torch.randn(sh, generator=g) * s).to(dev) for sh in shapes]
        r, c = ref(*xs), cand(*[x.clone() for x in xs])
        if c.shape != r.shape or c.dtype != r.dtype:
            return f"{vname}: output {tuple(c.shape)} {c.dtype}, expected {tuple(r.shape)} {r.dtype}", False
        err = (c.double() - r.double()).abs()
        bad = int((err > ATOL + RTOL * r.double().abs()).sum())
        ok = ok and bad == 0
        notes.append(f"{vname} max err {err.max().item():.2e}" + (f" ({bad} outside)" if bad else ""))
    return ", ".join(notes), ok


def main():
    if len(sys.argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    level1 = sys.argv[1]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "candidates")
    files = sys.argv[2:] or sorted(os.path.join(here, f) for f in os.listdir(here)
                                   if re.match(r"p\d+_.*\.py$", f))
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    failed = 0
    for f in files:
        name = os.path.basename(f)
        if dev == "cpu" and needs_cuda(f):
            print(f"skip {name}: needs CUDA (load_inline or Triton)")
            continue
        try:
            what, ok = check(level1, f, dev)
        except Exception as e:  # the candidate's own error is the result
            what, ok = f"{type(e).__name__}: {e}", False
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {what}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
