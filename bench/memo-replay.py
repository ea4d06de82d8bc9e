#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""memo-replay: the input_memo rule, replayed on stores nodus wrote.

For every record whose detail holds an input_memo test with a gap, it
recomputes draw_gap as src/run/sample_guards.c does (one call's input bytes
at 5 TB/s on cuda, 50 GB/s on cpu, over the candidate's median ns per call
on its fresh samples) and says which records the test flags with the 2% gap
alone and which with the gap that grows with draw_gap. Stores written before
draw_gap was kept in the record are read the same way, so a change to the
rule can be judged on evidence already gathered (docs/protocol.md, step 2).

usage: bench/memo-replay.py [--suites DIR] STORE.db...
Task definitions (input shapes) come from the suites' tasks/*.json."""
import argparse
import glob
import json
import math
import os
import sqlite3
import statistics
import sys

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int32": 4,
               "int64": 8, "int8": 1, "uint8": 1, "bool": 1}
ROLE_CANDIDATE = 1
SAMPLE_FRESH = 4
MEMO_GAP, MEMO_T, MEMO_Z = 0.02, 5.0, 2.5


def load_tasks(suites):
    tasks = {}
    for path in sorted(glob.glob(os.path.join(suites, "**", "tasks", "*.json"), recursive=True)):
        with open(path) as f:
            t = json.load(f)
        tasks.setdefault(t["name"], t)
    return tasks


def input_bytes(task, axes):
    total = 0
    for inp in task["inputs"]:
        n = 1
        for dim in inp.get("shape") or []:
            if isinstance(dim, str):
                n *= axes.get(dim, task["axes"].get(dim, {}).get("value", 1))
            else:
                n *= dim
        total += n * DTYPE_BYTES[inp["dtype"]]
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default=os.path.join(os.path.dirname(__file__), "..", "suites"))
    ap.add_argument("stores", nargs="+")
    args = ap.parse_args()
    tasks = load_tasks(args.suites)
    n = flagged_old = flagged_new = 0
    print(f"{'store':28} {'pair':58} {'status':12} {'gap':>7} {'t':>6} {'z':>5} "
          f"{'draw_gap':>8} {'2%':>3} {'new':>3}")
    for store in args.stores:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        plans = {d: json.loads(p) for d, p in db.execute("SELECT digest, plan_json FROM plans")}
        for rid, digest, pid, status, detail in db.execute(
                "SELECT id, plan_digest, pair_id, status, detail_json FROM records ORDER BY id"):
            memo = (json.loads(detail or "{}").get("timing") or {}).get("input_memo")
            if not memo or "gap" not in memo:
                continue
            plan = plans[digest]
            pair = next(p for p in plan["pairs"] if p["id"] == pid)
            if pair["task"] not in tasks:
                print(f"memo-replay: {store}: task {pair['task']} not in {args.suites}",
                      file=sys.stderr)
                continue
            cuda = plan["target"].get("backend") == "cuda"
            draw_ns = input_bytes(tasks[pair["task"]], pair["axes"]) / (5e12 if cuda else 50e9) * 1e9
            fresh = [ns for ns, flags, role in db.execute(
                "SELECT ns, flags, role FROM samples WHERE record_id = ?", (rid,))
                if role == ROLE_CANDIDATE and flags & SAMPLE_FRESH and ns > 0]
            draw_gap = draw_ns / statistics.median(fresh) if fresh else math.inf
            t = memo["t"] if memo["t"] is not None else math.inf  # null: no spread at all
            evidence = t > MEMO_T and memo["z"] > MEMO_Z
            old = evidence and memo["gap"] > MEMO_GAP
            new = evidence and memo["gap"] > max(MEMO_GAP, draw_gap)
            n += 1
            flagged_old += old
            flagged_new += new
            print(f"{os.path.relpath(store)[-28:]:28} {pid[:58]:58} {status[:12]:12} "
                  f"{memo['gap']:7.3f} {t:6.1f} {memo['z']:5.1f} {draw_gap:8.3f} "
                  f"{'yes' if old else '-':>3} {'yes' if new else '-':>3}")
    print(f"{n} records: {flagged_old} flagged by the 2% gap alone, {flagged_new} by the gap "
          f"that grows with draw_gap")


if __name__ == "__main__":
    main()
