#!/usr/bin/env python3
"""Test-retest of two independent `nodus run`s of one plan (two databases).

Usage: retest.py RUN1.db RUN2.db

Over pairs (final records only; timing repetitions are never items), per condition:
pairs decided in both runs (FASTER/SLOWER/TIED), share with the same label,
FASTER<->SLOWER flips, A/A pairs not TIED, and the declared truth ("expect") checks:
every FASTER-by-construction pair FASTER, every FAIL pair a failure status.
The last line is a one-line summary. Exit 1 when a requirement is not met.
"""
import sqlite3
import sys

DECIDED = {"FASTER", "SLOWER", "TIED"}


def load(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT r.pair_id, r.condition, r.status, r.label, r.speedup, r.ci_lo, r.ci_hi,"
        " p.cand_hash, p.ref_hash, p.expect FROM records r JOIN pairs p"
        " ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id WHERE r.final = 1").fetchall()
    out = {}
    for pid, cond, status, label, sp, lo, hi, cand, ref, expect in rows:
        out[(pid, cond)] = dict(outcome=label if status == "OK" else status, speedup=sp, lo=lo,
                                hi=hi, aa=cand == ref, expect=expect)
    return out


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
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
