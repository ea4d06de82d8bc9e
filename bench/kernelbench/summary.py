#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""summary.py: the side-by-side study's table (bench/kernelbench-side-by-side.sh summary).

    python3 summary.py OUT

Reads OUT/nodus.db (nodus's records), OUT/kb.jsonl (KernelBench's
evaluations, bench/kernelbench/kb_eval.py) and OUT/campaign.json (each pair's
expect) and prints one row per pair: its kind (self: the problem against
itself, one file; copy: against its copy renamed ModelNew; cand: one of our
candidates, bench/kernelbench/candidates), its expect, nodus's label and
interval (the latest final record of the pair under `isolated`; a status
such as INCORRECT_NUMERICAL where it was not OK), the GPU-seconds nodus
charged the pair in that record's plan (every attempt, retries and failures
counted: device_s x charge_share), KernelBench's share of faster evaluations (speedup > 1, its
fast_1, over the correct ones, then how many ran), their mean speedup, its
wall seconds per evaluation with the GPU held, and whether the two agree.

Agreement, per pair, on KernelBench's majority: "faster" when more than
half of its correct evaluations have speedup > 1, else "not faster" (an even
split is not faster). nodus FASTER and KernelBench faster agree, nodus
SLOWER and KernelBench not faster agree, the other two combinations
disagree. TIED and AMBIGUOUS decide no direction, so they are neither:
counted apart, with KernelBench's majority beside them. A pair that nodus
did not label (not OK, or not run) or that KernelBench never evaluated
correctly is counted apart too, and said. The self pairs have no
KernelBench side: KernelBench evaluates only a ModelNew file.

Then the totals: the agreement count; how often each calls an A/A pair
faster (nodus: copy and self pairs labelled FASTER; KernelBench: the
evaluations of the copies, and the copies whose majority is faster); how
often each matches a candidate's declared FASTER or SLOWER; GPU-seconds per
evaluation and per decided label (nodus: FASTER, SLOWER or TIED; every
KernelBench evaluation decides, and a majority takes REPS of them). Written
to OUT/summary.txt too.
"""
import json
import os
import sqlite3
import statistics
import sys


def kind_of(pair_id):
    problem, cand, ref = pair_id.split("/")
    if cand == ref:
        return "self"
    return "copy" if cand == f"{problem}_aa" else "cand"


def main():
    out = sys.argv[1]
    lines = []

    def say(s=""):
        lines.append(s)
        print(s)

    expect = {}  # pair id -> expect, from the campaign nodus ran
    if os.path.exists(f"{out}/campaign.json"):
        for p in json.load(open(f"{out}/campaign.json"))["pairs"]:
            expect[f"{p['workload']}/{p['candidate']}/{p['reference']}"] = p.get("expect")
    nodus = {}  # pair id -> (status, label, lo, hi, point)
    gpu = {}  # pair id -> GPU-seconds charged
    dbp = f"{out}/nodus.db"
    if os.path.exists(dbp):
        db = sqlite3.connect(dbp)
        # a later plan's record of the same pair (a second nodus call with
        # other pairs) wins, and only that plan's attempts are charged
        plan = {}
        for pid, digest, status, label, lo, hi, point in db.execute(
                "SELECT pair_id, plan_digest, status, label, ci_lo, ci_hi, speedup FROM records"
                " WHERE final = 1 AND condition = 'isolated' ORDER BY id"):
            nodus[pid] = (status, label, lo, hi, point)
            plan[pid] = digest
        for pid, digest, s in db.execute(
                "SELECT pair_id, plan_digest, SUM(IFNULL(device_s, 0) * IFNULL(charge_share, 1))"
                " FROM records WHERE condition = 'isolated' GROUP BY pair_id, plan_digest"):
            if plan.get(pid) == digest:
                gpu[pid] = s or 0.0
    kb = {}  # pair id -> evaluations
    if os.path.exists(f"{out}/kb.jsonl"):
        for line in open(f"{out}/kb.jsonl"):
            r = json.loads(line)
            # rows written before kb_eval.py named the pair: the renamed copies
            pid = r.get("pair") or f"{r['problem']}/{r['problem']}_aa/{r['problem']}_ref"
            kb.setdefault(pid, []).append(r)
            if r.get("expect") and pid not in expect:
                expect[pid] = r["expect"]

    def show(rec):
        if not rec:
            return "-"
        status, label, lo, hi, point = rec
        if status != "OK":
            return status
        return f"{label} {point:.3f} [{lo:.3f}, {hi:.3f}]" if lo is not None else label

    def order(pid):
        problem, cand, _ = pid.split("/")
        return (int(problem.split("_")[1]), ("self", "copy", "cand").index(kind_of(pid)), cand)

    say(f"{'pair (problem: candidate)':<44} {'kind':<4} {'expect':<9} {'nodus':<32} {'GPU-s':>6}  "
        f"{'KB faster':<14} {'KB mean':>7} {'s/eval':>6}  agreement")
    t = {"agree": 0, "disagree": 0, "undirected": {}, "apart": 0, "pairs": 0, "decided": 0,
         "aa_pairs": 0, "aa_fast": 0, "kb_aa_evals": 0, "kb_aa_fast": 0, "kb_aa_pairs": 0,
         "kb_aa_major": 0, "n_expect": 0, "nodus_expect": 0, "kb_expect": 0}
    n_evals = n_correct = n_fast = 0
    kb_wall = nodus_gpu = 0.0
    kb_majorities = 0
    for pid in sorted(set(nodus) | set(kb), key=order):
        problem, cand, _ = pid.split("/")
        kind = kind_of(pid)
        rec = nodus.get(pid)
        ex = expect.get(pid) or "-"
        evals = kb.get(pid, [])
        sp = [e["speedup"] for e in evals if "speedup" in e and e.get("correctness")]
        fast = sum(1 for s in sp if s > 1.0)
        wall = [e["wall_s"] for e in evals]
        n_evals += len(evals)
        n_correct += len(sp)
        n_fast += fast
        kb_wall += sum(wall)
        nodus_gpu += gpu.get(pid, 0.0)
        label = rec[1] if rec and rec[0] == "OK" else None
        if rec:
            t["pairs"] += 1
            t["decided"] += label in ("FASTER", "SLOWER", "TIED")
        if rec and kind != "cand":
            t["aa_pairs"] += 1
            t["aa_fast"] += label == "FASTER"
        major = None  # KernelBench's majority: True faster, False not faster
        if sp:
            major = fast > len(sp) / 2
            kb_majorities += 1
        if kind == "copy":
            t["kb_aa_evals"] += len(sp)
            t["kb_aa_fast"] += fast
            if sp:
                t["kb_aa_pairs"] += 1
                t["kb_aa_major"] += major
        if kind == "self":
            verdict = "- (KernelBench evaluates a ModelNew file only)"
        elif not rec or not sp:
            why = []
            if not rec:
                why.append("nodus did not run it")
            if not sp:
                last = (evals[-1].get("error") or "incorrect")[:60] if evals else ""
                why.append(f"KernelBench: no correct evaluation of {len(evals)}"
                           + (f" ({last})" if evals else ""))
            verdict = "apart: " + "; ".join(why)
            t["apart"] += 1
        elif label in ("FASTER", "SLOWER"):
            ok = (label == "FASTER") == major
            verdict = "agree" if ok else "DISAGREE"
            t["agree" if ok else "disagree"] += 1
            t[f"{kind}_directed"] = t.get(f"{kind}_directed", 0) + 1
            t[f"{kind}_agree"] = t.get(f"{kind}_agree", 0) + ok
        else:
            what = label or rec[0]
            verdict = f"apart: nodus {what}, KernelBench {'faster' if major else 'not faster'}"
            key = f"{what}, KernelBench {'faster' if major else 'not faster'}"
            t["undirected"][key] = t["undirected"].get(key, 0) + 1
        if kind == "cand" and ex in ("FASTER", "SLOWER"):
            t["n_expect"] += 1
            t["nodus_expect"] += label == ex
            t["kb_expect"] += major is not None and major == (ex == "FASTER")
        name = f"{problem.split('_')[1]}: {cand if kind == 'cand' else problem}"
        say(f"{name[:44]:<44} {kind:<4} {ex:<9} {show(rec):<32} {gpu.get(pid, 0.0):>6.1f}  "
            f"{(f'{fast} of {len(sp)} ({len(evals)})' if evals else '-'):<14} "
            f"{(f'{statistics.mean(sp):.3f}' if sp else '-'):>7} "
            f"{(f'{statistics.mean(wall):.2f}' if wall else '-'):>6}  {verdict}")
    say()
    directed = t["agree"] + t["disagree"]
    say(f"agreement: {t['agree']} of {directed} pairs where nodus called a direction "
        f"(FASTER or SLOWER) and KernelBench evaluated correctly, {t['disagree']} disagree "
        f"(candidates {t.get('cand_agree', 0)} of {t.get('cand_directed', 0)}, "
        f"A/A copies {t.get('copy_agree', 0)} of {t.get('copy_directed', 0)})")
    for k, v in sorted(t["undirected"].items()):
        say(f"  apart, nodus decided no direction: {v} x {k}")
    if t["apart"]:
        say(f"  apart, one side has no result: {t['apart']} pair(s) (the rows say why)")
    say(f"A/A pairs called faster: nodus {t['aa_fast']} of {t['aa_pairs']} (self and copy pairs); "
        f"KernelBench {t['kb_aa_fast']} of {t['kb_aa_evals']} correct evaluations of the copies, "
        f"{t['kb_aa_major']} of {t['kb_aa_pairs']} copies by majority")
    if t["n_expect"]:
        say(f"candidates declared FASTER or SLOWER: nodus's label matches {t['nodus_expect']} of "
            f"{t['n_expect']}, KernelBench's majority {t['kb_expect']} of {t['n_expect']}")
    say(f"nodus: {nodus_gpu:.1f} GPU-s in all over {t['pairs']} pairs, "
        f"{nodus_gpu / max(t['pairs'], 1):.2f} per pair, "
        f"{(nodus_gpu / t['decided']) if t['decided'] else float('nan'):.2f} per decided label "
        f"({t['decided']} FASTER, SLOWER or TIED)")
    say(f"KernelBench: {n_fast} of {n_correct} correct evaluations called faster ({n_evals} run); "
        f"{kb_wall:.1f} s in all, {kb_wall / max(n_evals, 1):.2f} per evaluation (each decides), "
        f"{kb_wall / max(kb_majorities, 1):.2f} per pair's majority ({kb_majorities} pairs)")
    with open(f"{out}/summary.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
