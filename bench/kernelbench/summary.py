#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""summary.py: the side-by-side study's table (bench/kernelbench-side-by-side.sh summary).

    python3 summary.py OUT

Reads OUT/nodus.db (nodus's records) and OUT/kb.jsonl (KernelBench's
evaluations, bench/kernelbench/kb_eval.py) and prints, per problem:
nodus's label and interval for the problem against itself (one file) and
against its renamed copy, the GPU-seconds nodus charged the two pairs (every
attempt, retries and failures counted: device_s x charge_share); how many of
KernelBench's evaluations of the renamed copy it called faster (speedup > 1,
its fast_1), the range of its speedups, and its wall seconds per evaluation
with the GPU held. Then the totals: how often each calls an A/A pair faster,
and GPU-seconds per evaluation and per decided label (nodus: FASTER, SLOWER
or TIED; KernelBench decides every evaluation). Written to OUT/summary.txt
too.
"""
import json
import os
import sqlite3
import statistics
import sys


def main():
    out = sys.argv[1]
    lines = []

    def say(s=""):
        lines.append(s)
        print(s)

    nodus = {}  # problem -> {"self": record, "copy": record, "gpu_s": float}
    dbp = f"{out}/nodus.db"
    if os.path.exists(dbp):
        db = sqlite3.connect(dbp)
        for pid, status, label, lo, hi, point in db.execute(
                "SELECT pair_id, status, label, ci_lo, ci_hi, speedup FROM records"
                " WHERE final = 1 AND condition = 'isolated'"):
            problem, cand, _ = pid.split("/")
            kind = "copy" if cand.endswith("_aa") else "self"
            nodus.setdefault(problem, {"gpu_s": 0.0})[kind] = (status, label, lo, hi, point)
        for pid, s in db.execute("SELECT pair_id, SUM(IFNULL(device_s, 0) * IFNULL(charge_share, 1))"
                                 " FROM records WHERE condition = 'isolated' GROUP BY pair_id"):
            nodus.setdefault(pid.split("/")[0], {"gpu_s": 0.0})["gpu_s"] += s or 0.0
    kb = {}
    if os.path.exists(f"{out}/kb.jsonl"):
        for line in open(f"{out}/kb.jsonl"):
            r = json.loads(line)
            kb.setdefault(r["problem"], []).append(r)

    def show(rec):
        if not rec:
            return "-"
        status, label, lo, hi, point = rec
        if status != "OK":
            return status
        return f"{label} {point:.3f} [{lo:.3f}, {hi:.3f}]" if lo is not None else label

    say(f"{'problem':<40} {'nodus: self (one file)':<30} {'nodus: renamed copy':<30} "
        f"{'GPU-s':>6}   {'KernelBench: faster':<20} {'speedups':<14} {'s/eval':>6}")
    n_evals = n_fast = n_correct = 0
    kb_wall = 0.0
    nodus_gpu = 0.0
    n_pairs = n_decided = n_nodus_fast = 0
    for problem in sorted(set(nodus) | set(kb), key=lambda p: int(p.split("_")[1])):
        nd = nodus.get(problem, {"gpu_s": 0.0})
        evals = kb.get(problem, [])
        sp = [e["speedup"] for e in evals if "speedup" in e and e.get("correctness")]
        fast = sum(1 for s in sp if s > 1.0)
        wall = [e["wall_s"] for e in evals]
        n_evals += len(evals)
        n_fast += fast
        n_correct += len(sp)
        kb_wall += sum(wall)
        nodus_gpu += nd["gpu_s"]
        for kind in ("self", "copy"):
            rec = nd.get(kind)
            if rec:
                n_pairs += 1
                n_decided += rec[0] == "OK" and rec[1] in ("FASTER", "SLOWER", "TIED")
                n_nodus_fast += rec[0] == "OK" and rec[1] == "FASTER"
        say(f"{problem:<40} {show(nd.get('self')):<30} {show(nd.get('copy')):<30} "
            f"{nd['gpu_s']:>6.1f}   {f'{fast} of {len(sp)} correct':<20} "
            f"{(f'{min(sp):.3f}-{max(sp):.3f}' if sp else '-'):<14} "
            f"{(statistics.mean(wall) if wall else 0):>6.2f}")
    say()
    say(f"nodus: {n_nodus_fast} of {n_pairs} A/A pairs called FASTER, {n_decided} decided; "
        f"{nodus_gpu:.1f} GPU-s in all, {nodus_gpu / max(n_pairs, 1):.2f} per pair, "
        f"{(nodus_gpu / n_decided) if n_decided else float('nan'):.2f} per decided label")
    say(f"KernelBench: {n_fast} of {n_correct} correct evaluations called faster "
        f"({n_evals} run); {kb_wall:.1f} s in all, {kb_wall / max(n_evals, 1):.2f} per evaluation "
        f"(each decides)")
    with open(f"{out}/summary.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
