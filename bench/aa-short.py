#!/usr/bin/env python3
"""The sub-10 us A/A pairs on their own: what moves their intervals.

Usage: aa-short.py RUN.db [RUN.db ...]   summarise runs of the experiment
       aa-short.py make SUITES_DIR       write its campaigns, print their paths

`make` writes two campaigns beside the CUDA suite's files (SUITES_DIR is a copy
of suites/; its cuda/ gains aa-spr4.json and aa-spr8.json), the
isolated condition only, with 4 and 8 samples per round, each holding six A/A
pairs of the short workloads:

  vector_scale_4k   vector_scale_ref    against vector_scale_ref   (one .so)
  vector_scale_4k   vector_scale_ref_aa against vector_scale_ref   (two .so)
  softmax_256x1024  softmax_warp        against softmax_warp       (one .so)
  softmax_256x1024  softmax_warp_aa     against softmax_warp       (two .so)

and the two-.so pairs again with both sides built with -cudart=shared (copies
of the solutions named ..._sh): two .so files, one CUDA runtime (libcudart.so).

Each solution .so carries its own static CUDA runtime. If the two sides of an
A/A pair launch at different speeds because they are two runtimes in one
process, the "two .so" pairs show an offset that the "one .so" pairs do not,
and the "one runtime" pairs do not either; if the offset comes from where each
.so's code lies, the "one runtime" pairs keep it.
More samples per round test whether the round median is what spreads.

Summary, per record: label, interval, rounds, the standard deviation of the
round medians of log(ref/cand) and the median of all per-sample log-ratios
(an offset between the sides), then per pair kind and samples per round.
"""
import json
import math
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402  (beside this script)

PAIRS = [
    ("vector_scale_4k", "vector_scale_ref", "vector_scale_ref"),
    ("vector_scale_4k", "vector_scale_ref_aa", "vector_scale_ref"),
    ("softmax_256x1024", "softmax_warp", "softmax_warp"),
    ("softmax_256x1024", "softmax_warp_aa", "softmax_warp"),
    ("vector_scale_4k", "vector_scale_ref_aa_sh", "vector_scale_ref_sh"),
    ("softmax_256x1024", "softmax_warp_aa_sh", "softmax_warp_sh"),
]
SHARED = "_sh"  # the solutions built against the shared CUDA runtime


def make(suites):
    base = os.path.join(suites, "cuda", "campaign.json")
    c = json.load(open(base))
    names = {p[0] for p in PAIRS}
    sols = {s for p in PAIRS for s in p[1:]}
    c["workloads"] = [w for w in c["workloads"] if os.path.basename(w)[:-5] in names]
    tasks = {json.load(open(os.path.join(suites, "cuda", w)))["task"] for w in c["workloads"]}
    c["tasks"] = [t for t in c["tasks"] if os.path.basename(t)[:-5] in tasks]
    c["solutions"] = [s for s in c["solutions"] if os.path.basename(s)[:-5] in sols]
    for rel in list(c["solutions"]):
        # a copy beside the original (its sources are found relative to it)
        # built with -cudart=shared: the runtime is libcudart.so, one per process
        src = os.path.join(suites, "cuda", rel)
        sol = json.load(open(src))
        sol["name"] += SHARED
        sol["build"]["flags"] = sol["build"].get("flags", []) + ["-cudart=shared"]
        json.dump(sol, open(src[:-5] + SHARED + ".json", "w"), indent=1)
        c["solutions"].append(rel[:-5] + SHARED + ".json")
    c["pairs"] = [{"workload": w, "candidate": a, "reference": b, "expect": "TIED"}
                  for w, a, b in PAIRS]
    c["conditions"] = [x for x in c["conditions"] if x["kind"] == "isolated"]
    for spr in (4, 8):
        c["name"] = f"aa-short-spr{spr}"
        c["judge"]["samples_per_round"] = spr
        # the campaign's relative paths stay valid beside the suite's own
        path = os.path.join(suites, "cuda", f"aa-spr{spr}.json")
        json.dump(c, open(path, "w"), indent=1)
        print(path)


def summarise(paths):
    kinds = {}
    for path in paths:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        plan = db.execute("SELECT plan_json FROM plans").fetchone()
        spr = json.loads(plan[0])["judge"]["samples_per_round"] if plan else "?"
        for rid, pid, label, lo, hi, rounds, status in db.execute(
                "SELECT r.id, r.pair_id, r.label, r.ci_lo, r.ci_hi, r.rounds, r.status"
                " FROM records r WHERE r.final = 1 ORDER BY r.id"):
            by = {}
            for rnd, role, seq, ns in db.execute(
                    "SELECT round, role, seq, ns FROM samples WHERE record_id = ?", (rid,)):
                by.setdefault(rnd, {}).setdefault(seq // 2, {})[role] = ns
            per = [[math.log(v[0] / v[1]) for v in by[r].values()
                    if 0 in v and 1 in v and v[0] > 0 and v[1] > 0] for r in sorted(by)]
            per = [p for p in per if p]
            if not per:
                print(f"{path}: {pid}: {status}, no samples")
                continue
            meds = [statistics.median(p) for p in per]
            offset = statistics.median([x for p in per for x in p])
            sd = statistics.pstdev(meds)
            cand, ref = pid.split("/")[1:3]
            kind = ("one .so" if cand == ref else
                    "two .so, one runtime" if cand.endswith(SHARED) else "two .so",
                    pid.split("/")[0], spr)
            kinds.setdefault(kind, []).append((label, sd, offset))
            lo, hi = (float("nan") if v is None else v for v in (lo, hi))
            print(f"{os.path.basename(path):12} spr {spr} {pid:58} {label or status:10} "
                  f"[{lo:.4f}, {hi:.4f}] rounds {rounds:3} round-median sd {100 * sd:5.2f}% "
                  f"offset {100 * offset:+5.2f}%")
    print("\nper kind (records, not TIED, mean round-median sd, max |offset|):")
    for kind in sorted(kinds):
        rs = kinds[kind]
        print(f"  {kind[1]:18} {kind[0]:20} spr {kind[2]}: {len(rs)} records, "
              f"{sum(1 for r in rs if r[0] != 'TIED')} not TIED, "
              f"sd {100 * statistics.fmean(r[1] for r in rs):.2f}%, "
              f"|offset| max {100 * max(abs(r[2]) for r in rs):.2f}%")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "make":
        if len(sys.argv) != 3 or not os.path.isfile(
                os.path.join(sys.argv[2], "cuda", "campaign.json")):
            print("usage: aa-short.py make SUITES_DIR (a copy of suites/)", file=sys.stderr)
            sys.exit(2)
        make(sys.argv[2])
        return
    paths = benchargs.databases(__doc__, None)
    summarise(paths)


if __name__ == "__main__":
    main()
