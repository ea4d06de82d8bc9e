#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pairs.py: the side-by-side study's campaign (bench/kernelbench-side-by-side.sh nodus).

    python3 pairs.py SUITE LEVEL1 OUT PYTHON [PROBLEM_NUMBER...]

SUITE holds the imported problems (tasks/, workloads/, solutions/ as `nodus
import kernelbench` wrote them). For each problem chosen (the numbers given,
or 1, 40 and 88, then the others of at most 1 GiB of tensors, up to 8) it
writes SUITE/solutions/NAME_aa.py, the problem with its class renamed
ModelNew (the file KernelBench evaluates as a candidate), and its solution
JSON; then OUT/campaign.json with two pairs per problem, the problem against
itself (one file) and the renamed copy against the problem, under
`isolated` on cuda with PYTHON, the judge of suites/torch-cuda; and
OUT/kb-pairs.json, the renamed copies for kb_eval.py.
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


def main():
    suite, level1, out, python = sys.argv[1:5]
    want = [int(x) for x in sys.argv[5:]]
    problems = {}  # number -> (name, source file, bytes)
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
        chosen += [n for n in sorted(problems) if n not in chosen and problems[n][2] <= CAP]
        chosen = chosen[:MOST]
    here = os.path.dirname(os.path.abspath(__file__))
    judge = json.load(open(os.path.join(here, "../../suites/torch-cuda/campaign.json")))["judge"]
    c = {"kind": "campaign", "format": 1, "name": "kernelbench-level1-aa",
         "tasks": [], "workloads": [], "solutions": [], "pairs": [], "judge": judge,
         "conditions": [{"name": "isolated", "kind": "isolated"}],
         "target": {"backend": os.environ.get("BACKEND", "cuda"),
                    "profile": os.environ.get("PROFILE", "NVIDIA H200 full GPU"),
                    "price_per_device_hour_usd": 3.5, "python": python}}
    kb = []
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
                   "candidate": f"{suite}/solutions/{aa_src}", "tensor_bytes": nbytes})
    json.dump(c, open(f"{out}/campaign.json", "w"), indent=2)
    json.dump(kb, open(f"{out}/kb-pairs.json", "w"), indent=2)
    print(f"pairs.py: {len(chosen)} problems ({', '.join(str(n) for n in chosen)}), "
          f"{len(c['pairs'])} pairs")


if __name__ == "__main__":
    main()
