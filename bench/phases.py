#!/usr/bin/env python3
"""Where each attempt's wall time went, from the records of one run.

Usage: phases.py RUN.db

nodus stores in each record's detail.phases the seconds the orchestrator
spent in each step of the attempt (isolation checks, build, oracle, measure,
their process exits, output comparisons) and, per worker, the seconds the
worker spent drawing inputs, uploading them, checksumming, calling
solutions, sending outputs, sizing the batch, filling the timing copies,
running the rounds (perturbations, rechecks, the final copy check inside).
Prints one line per record with the largest items, then the campaign's
totals per item, largest first.
"""
import json
import os
import sqlite3
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402  (beside this script)


def flatten(phases):
    flat = {}
    for key, value in phases.items():
        if isinstance(value, dict):
            for k, v in value.items():
                flat[f"{key}.{k}"] = v
        else:
            flat[key] = value
    return flat




def main():
    (path,) = benchargs.databases(__doc__, 1)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT pair_id, condition, status, wall_s, detail_json FROM records"
                      " ORDER BY id").fetchall()
    totals = defaultdict(float)
    wall_total = 0.0
    for pair, cond, status, wall, detail in rows:
        phases = json.loads(detail or "{}").get("phases")
        if not phases:
            continue
        flat = {k: v for k, v in flatten(phases).items() if not k.endswith("bytes")}
        wall_total += wall
        for k, v in flat.items():
            totals[k] += v
        top = sorted(flat.items(), key=lambda kv: -kv[1])[:6]
        print(f"{pair:<58} {cond:<10} {status:<20} wall {wall:7.3f} s  " +
              "  ".join(f"{k} {v:.3f}" for k, v in top))
    print()
    print(f"totals over {len(rows)} records, wall {wall_total:.2f} s "
          "(worker items are inside oracle_s + measure_s: the measure worker runs its trials "
          "while the oracle works; rounds_s holds perturb_s, recheck_s, intact_s)")
    for k, v in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<28} {v:9.3f} s  {100 * v / wall_total if wall_total else 0:5.1f}% of wall")
    # detail.startup: each worker's start-up before its job (outside the
    # record's wall time when it was started ahead as a spare)
    steps = defaultdict(list)
    for *_, detail in rows:
        for who in json.loads(detail or "{}").get("startup", {}).values():
            for k, v in (who.items() if isinstance(who, dict) else ()):
                if k.endswith("_s") and isinstance(v, (int, float)) and v >= 0:
                    steps[k].append(v)
    if steps:
        print("worker start-ups (before the job), median and max over "
              f"{max(len(v) for v in steps.values())} workers:")
        for k, v in steps.items():
            print(f"  {k:<28} median {statistics.median(v):.3f} s  max {max(v):.3f} s")


if __name__ == "__main__":
    main()
