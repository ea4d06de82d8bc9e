#!/usr/bin/env python3
"""Test-retest of two independent `nodus run`s of one plan (two databases).

Usage: retest.py RUN1.db RUN2.db

Over pairs (final records only; timing repetitions are never items), per condition:
pairs decided in both runs (FASTER/SLOWER/TIED), share with the same label,
FASTER<->SLOWER flips, A/A pairs not TIED, and the declared truth ("expect") checks:
every FASTER-by-construction pair FASTER, every FAIL pair a failure status.
The last line is a one-line summary. Exit 1 when a requirement is not met.
"""
import math
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402  (beside this script)

DECIDED = {"FASTER", "SLOWER", "TIED"}


def load(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT r.pair_id, r.condition, r.status, r.label, r.speedup, r.ci_lo, r.ci_hi,"
        " p.cand_hash, p.ref_hash, p.expect, r.ref_ns_median FROM records r JOIN pairs p"
        " ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id WHERE r.final = 1").fetchall()
    out = {}
    for pid, cond, status, label, sp, lo, hi, cand, ref, expect, ref_ns in rows:
        out[(pid, cond)] = dict(outcome=label if status == "OK" else status, speedup=sp, lo=lo,
                                hi=hi, aa=cand == ref, expect=expect, ref_ns=ref_ns)
    return out


CLASSES = (("< 10 us", 0, 10e3), ("10-100 us", 10e3, 100e3), ("> 100 us", 100e3, float("inf")))


def noise_floor(runs):
    """A/A noise floor per kernel-duration class: for every A/A record, how far
    its interval reaches from 1 (the largest |log| of its ends; a tie margin
    below this cannot call the pair TIED), and how far apart the two runs'
    estimates are (|log(s1/s2)|, the part no within-run interval sees)."""
    print("A/A noise floor per kernel-duration class (reference time per call):")
    for name, lo_ns, hi_ns in CLASSES:
        reach, between, pairs = [], [], set()
        keys = set(runs[0]) & set(runs[1])
        for k in keys:
            rs = [run[k] for run in runs]
            if not rs[0]["aa"] or any(r["speedup"] is None or r["ref_ns"] is None for r in rs):
                continue
            if not lo_ns <= rs[0]["ref_ns"] < hi_ns:
                continue
            pairs.add(k[0])
            reach += [max(abs(math.log(r["lo"])), abs(math.log(r["hi"]))) for r in rs]
            between.append(abs(math.log(rs[0]["speedup"] / rs[1]["speedup"])))
        if not pairs:
            print(f"  {name:<10} no A/A pair")
            continue
        print(f"  {name:<10} {len(pairs)} A/A pair(s), {len(reach)} records: interval reach from 1 "
              f"max {100 * max(reach):.2f}% median {100 * statistics.median(reach):.2f}%; "
              f"run-to-run |log ratio| max {100 * max(between):.2f}%")




def main():
    first, second = benchargs.databases(__doc__, 2)
    a, b = load(first), load(second)
    keys = sorted(set(a) & set(b))
    ok = True
    both = same = flips = 0
    problems = []
    for k in keys:
        x, y = a[k], b[k]
        if x["outcome"] in DECIDED and y["outcome"] in DECIDED:
            both += 1
            same += x["outcome"] == y["outcome"]
            if {x["outcome"], y["outcome"]} == {"FASTER", "SLOWER"}:
                flips += 1
                problems.append(f"FLIP {k[0]} [{k[1]}]: {x['outcome']} vs {y['outcome']}")
        for run, r in (("run1", x), ("run2", y)):
            if r["aa"] and r["outcome"] != "TIED":
                problems.append(f"A/A not TIED in {run}: {k[0]} [{k[1]}] {r['outcome']}")
            if r["expect"] == "FASTER" and r["outcome"] != "FASTER":
                problems.append(f"expected FASTER in {run}: {k[0]} [{k[1]}] {r['outcome']}")
            if r["expect"] == "FAIL" and r["outcome"] in DECIDED | {"AMBIGUOUS"}:
                problems.append(f"expected a failure in {run}: {k[0]} [{k[1]}] {r['outcome']}")
    print(f"pairs in both runs: {len(keys)}; only in run1: {len(set(a) - set(b))}; "
          f"only in run2: {len(set(b) - set(a))}")
    for k in keys:
        x, y = a[k], b[k]
        fmt = lambda r: (f"{r['outcome']:<10} {r['speedup']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}]"
                         if r["speedup"] is not None else f"{r['outcome']:<10}")
        print(f"  {k[0]:<58} {k[1]:<10} {fmt(x):<40} {fmt(y)}")
    noise_floor((a, b))
    for p in problems:
        print(p)
    share = same / both if both else float("nan")
    if both and share < 0.99:
        ok = False
    if flips or problems:
        ok = False
    print(f"decided in both: {both}, same label: {same} ({100 * share:.1f}%), "
          f"FASTER<->SLOWER flips: {flips}, other problems: {len(problems) - flips}"
          f" -> {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
