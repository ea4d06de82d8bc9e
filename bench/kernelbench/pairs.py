#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pairs.py: the side-by-side study's campaign (bench/kernelbench-side-by-side.sh nodus).

    python3 pairs.py SUITE LEVEL1 OUT PYTHON [PROBLEM_NUMBER...]

SUITE holds the imported problems (tasks/, workloads/, solutions/ as `nodus
import kernelbench` wrote them). For each problem chosen (the numbers given,
or 1, 40 and 88, then the problems our candidates are for, then the others
of at most 1 GiB of tensors, up to 8) it writes SUITE/solutions/NAME_aa.py,
the problem with its class renamed ModelNew (the file KernelBench evaluates
as a candidate), and its solution JSON; then OUT/campaign.json with two
pairs per problem, the problem against itself (one file) and the renamed
copy against the problem, under `isolated` on cuda with PYTHON, the judge of
suites/torch-cuda.

Our candidates (KB_CANDIDATES, default bench/kernelbench/candidates: files
pN_WHAT.py, a ModelNew for level 1 problem N, each with a line `# expect:
LABEL` or `# expect: -`) of the chosen problems go to OUT/candidates.tsv,
one line each: the file, the problem, the candidate's name, its expect (`-`
for none); the shell script imports them into the campaign (`nodus import
kernelbench-candidate --campaign`), since the importer is what a user runs.
A candidate that needs CUDA (load_inline, Triton) is left out when BACKEND
is not cuda, and said. OUT/kb-pairs.json lists, for kb_eval.py, the renamed
copies and the candidates, each with the nodus pair it sits beside, its
expect and the backend KernelBench must load it with (`triton` for a Triton
file: KernelBench imports those from a file, others it exec()s).
"""
import json
import os
import re
import sys

DTYPE_BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "int64": 8,
               "uint8": 1}
DEFAULT = [1, 40, 88]
MOST = 8
CAP = 1 << 30


def tensor_bytes(task, workload):
    axes = workload["axes"]
    total = 0
    for t in task["inputs"] + task["outputs"]:
        n = 1
        for d in t["shape"] or []:  # null: a scalar
            n *= d if isinstance(d, int) else axes.get(d, task["axes"].get(d, {}).get("value", 1))
        total += n * DTYPE_BYTES[t["dtype"]]
    return total


def kb_name(path):
    """nodus's name for a file (src/import/kernelbench.c, nodus__kb_name)."""
    base = os.path.basename(path)
    base = base[:-3] if base.endswith(".py") else base
    name = ("kb_" if not base or base[0].isdigit() else "") + re.sub(r"[^A-Za-z0-9_]", "_", base)
    return name[:56]


def candidates(where):
    """Our candidates: number -> [(file, expect or None, needs cuda, kb backend)]."""
    found = {}
    if not where or not os.path.isdir(where):
        return found
    for f in sorted(os.listdir(where)):
        m = re.match(r"p(\d+)_.*\.py$", f)
        if not m:
            continue
        path = os.path.abspath(os.path.join(where, f))
        text = open(path).read()
        e = re.search(r"^# expect: (\S+)", text, re.M)
        expect = e.group(1) if e and e.group(1) != "-" else None
        triton = re.search(r"^\s*import triton", text, re.M) is not None
        cuda = triton or "cpp_extension" in text
        found.setdefault(int(m.group(1)), []).append(
            (path, expect, cuda, "triton" if triton else "cuda"))
    return found


def main():
    suite, level1, out, python = sys.argv[1:5]
    want = [int(x) for x in sys.argv[5:]]
    here = os.path.dirname(os.path.abspath(__file__))
    ours = candidates(os.environ.get("KB_CANDIDATES", os.path.join(here, "candidates")))
    backend = os.environ.get("BACKEND", "cuda")
    problems = {}  # number -> (name, source file, bytes, reference solution)
    for f in sorted(os.listdir(f"{suite}/solutions")):
        if not f.endswith("_ref.json"):
            continue
        ref = json.load(open(f"{suite}/solutions/{f}"))
        name = ref["task"]
        m = re.match(r"kb_(\d+)_", name)
        if not m:
            continue
        task = json.load(open(f"{suite}/tasks/{name}.json"))
        wl = json.load(open(f"{suite}/workloads/{name}.json"))
        problems[int(m.group(1))] = (name, ref["sources"][0], tensor_bytes(task, wl), ref)
    if want:
        missing = [n for n in want if n not in problems]
        if missing:
            print(f"pairs.py: problems {missing} were not imported (OUT/import.tsv says why): "
                  "left out", file=sys.stderr)
        chosen = [n for n in want if n in problems]
    else:
        chosen = [n for n in DEFAULT if n in problems and problems[n][2] <= CAP]
        chosen += [n for n in sorted(ours) if n not in chosen and n in problems
                   and problems[n][2] <= CAP]
        chosen += [n for n in sorted(problems) if n not in chosen and problems[n][2] <= CAP]
        chosen = chosen[:MOST]
    judge = json.load(open(os.path.join(here, "../../suites/torch-cuda/campaign.json")))["judge"]
    c = {"kind": "campaign", "format": 1, "name": "kernelbench-level1-side-by-side",
         "tasks": [], "workloads": [], "solutions": [], "pairs": [], "judge": judge,
         "conditions": [{"name": "isolated", "kind": "isolated"}],
         "target": {"backend": backend,
                    "profile": os.environ.get("PROFILE", "NVIDIA H200 full GPU"),
                    "price_per_device_hour_usd": 3.5, "python": python}}
    kb = []
    tsv = []  # our candidates, for the shell script's import
    rel = os.path.relpath(suite, out)
    for n in chosen:
        name, src, nbytes, ref = problems[n]
        text = open(f"{suite}/solutions/{src}").read()
        aa_src = src[:-3] + "_aa.py"
        with open(f"{suite}/solutions/{aa_src}", "w") as f:
            f.write(re.sub(r"\bModel\b", "ModelNew", text))
        aa = dict(ref, name=f"{name}_aa", sources=[aa_src], entry="ModelNew",
                  tags=["candidate", "kernelbench", "aa"])
        with open(f"{suite}/solutions/{name}_aa.json", "w") as f:
            json.dump(aa, f, indent=2)
        c["tasks"].append(f"{rel}/tasks/{name}.json")
        c["workloads"].append(f"{rel}/workloads/{name}.json")
        c["solutions"] += [f"{rel}/solutions/{name}_ref.json", f"{rel}/solutions/{name}_aa.json"]
        c["pairs"] += [{"workload": name, "candidate": f"{name}_ref", "reference": f"{name}_ref",
                        "expect": "TIED"},
                       {"workload": name, "candidate": f"{name}_aa", "reference": f"{name}_ref"}]
        kb.append({"problem": name, "reference": f"{suite}/solutions/{src}",
                   "candidate": f"{suite}/solutions/{aa_src}", "tensor_bytes": nbytes,
                   "pair": f"{name}/{name}_aa/{name}_ref", "expect": None, "backend": "cuda"})
        for path, expect, cuda, kb_backend in ours.get(n, []):
            cand = kb_name(path)
            if cuda and backend != "cuda":
                print(f"pairs.py: {os.path.basename(path)} needs CUDA (load_inline or Triton): "
                      f"left out on {backend}", file=sys.stderr)
                continue
            tsv.append(f"{path}\t{name}\t{cand}\t{expect or '-'}\n")
            kb.append({"problem": name, "reference": f"{suite}/solutions/{src}",
                       "candidate": path, "tensor_bytes": nbytes,
                       "pair": f"{name}/{cand}/{name}_ref", "expect": expect,
                       "backend": kb_backend})
    for n in sorted(set(ours) - set(chosen)):
        print(f"pairs.py: the candidates of problem {n} are left out: the problem is not "
              f"among those chosen", file=sys.stderr)
    json.dump(c, open(f"{out}/campaign.json", "w"), indent=2)
    json.dump(kb, open(f"{out}/kb-pairs.json", "w"), indent=2)
    with open(f"{out}/candidates.tsv", "w") as f:
        f.writelines(tsv)
    print(f"pairs.py: {len(chosen)} problems ({', '.join(str(n) for n in chosen)}), "
          f"{len(c['pairs'])} A/A pairs, {len(tsv)} candidates (OUT/candidates.tsv)")


if __name__ == "__main__":
    main()
