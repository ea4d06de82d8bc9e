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
import sys
from collections import defaultdict


def flatten(phases):
    flat = {}
    for key, value in phases.items():
        if isinstance(value, dict):
            for k, v in value.items():
                flat[f"{key}.{k}"] = v
        else:
            flat[key] = value
    return flat



def databases(count):
    """The DB paths of the command line; --help prints this file's help."""
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        sys.exit(0)
    if len(args) != count:
        print(f"usage: {__doc__.strip().splitlines()[2].split(': ', 1)[-1]}\n"
              f"(--help says more)", file=sys.stderr)
        sys.exit(2)
    for path in args:
        if not os.path.isfile(path):
            print(f"{os.path.basename(sys.argv[0])}: {path}: no such database", file=sys.stderr)
            sys.exit(2)
    return args


def main():
    (path,) = databases(1)
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
          "(worker items are inside oracle_s / measure_s; rounds_s holds perturb_s, recheck_s, intact_s)")
    for k, v in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<28} {v:9.3f} s  {100 * v / wall_total if wall_total else 0:5.1f}% of wall")


if __name__ == "__main__":
    main()
