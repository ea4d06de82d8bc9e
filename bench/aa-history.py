#!/usr/bin/env python3
"""Every isolated A/A record stored under a results folder, per pair.

Usage: aa-history.py RESULTS_DIR     e.g. bench/results/h200

Opens each RESULTS_DIR/*/databases.tar.gz (the databases the GPU check
wrote), takes the final, labelled records of the `isolated` condition
whose candidate runs the reference's code (the same solution, or a copy
named like it: _aa, _sh), and prints per pair: records, how many were not
TIED, the range of the point estimates (the geometric middle of the
interval, as a log-ratio in %), the largest reach of an interval from 1,
and the records behind the extremes. This is the record docs/protocol.md
sets the sub-10 us tie margin from.
"""
import math
import os
import sqlite3
import sys
import tarfile
import tempfile


def is_aa(cand, ref):
    base = cand
    for suffix in ("_sh", "_aa"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base == ref or base == ref.removesuffix("_sh")


def records(results):
    for name in sorted(os.listdir(results)):
        archive = os.path.join(results, name, "databases.tar.gz")
        if not os.path.isfile(archive):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            with tarfile.open(archive) as tar:
                # the "data" filter where this Python has it (3.11.4 and later)
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(tmp, filter="data")
                else:
                    tar.extractall(tmp)
            for root, _, files in os.walk(tmp):
                for f in sorted(files):
                    if not f.endswith(".db"):
                        continue
                    db = sqlite3.connect(os.path.join(root, f))
                    try:
                        rows = db.execute(
                            "SELECT pair_id, label, ci_lo, ci_hi, ref_ns_median FROM records"
                            " WHERE final = 1 AND label IS NOT NULL"
                            " AND condition = 'isolated'").fetchall()
                    except sqlite3.Error as e:
                        print(f"{name}/{f}: {e}", file=sys.stderr)
                        continue
                    finally:
                        db.close()
                    for pid, label, lo, hi, ref_ns in rows:
                        workload, cand, ref = pid.split("/")
                        if is_aa(cand, ref) and lo and hi:
                            yield f"{name}/{f}", workload, label, lo, hi, ref_ns


def main():
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(args) != 1 or not os.path.isdir(args[0]):
        print("usage: aa-history.py RESULTS_DIR\n(--help says more)", file=sys.stderr)
        return 2
    by = {}
    for where, workload, label, lo, hi, ref_ns in records(args[0]):
        by.setdefault(workload, []).append((where, label, lo, hi, ref_ns))
    if not by:
        print(f"aa-history.py: no A/A records under {args[0]}", file=sys.stderr)
        return 1
    print(f"{'workload':22} {'ref/call':>9} {'records':>7} {'not TIED':>8} "
          f"{'point estimate, %':>20} {'reach max, %':>12}  extremes")
    for workload in sorted(by, key=lambda w: min(r[4] or 0 for r in by[w])):
        rs = by[workload]
        points = [(100 * math.log(math.sqrt(r[2] * r[3])), r[0]) for r in rs]
        reach = max(((100 * max(abs(math.log(r[2])), abs(math.log(r[3]))), r[0]) for r in rs))
        low, high = min(points), max(points)
        ref_us = sorted(r[4] for r in rs if r[4])[len(rs) // 2] / 1000
        print(f"{workload:22} {ref_us:7.1f}us {len(rs):7} "
              f"{sum(1 for r in rs if r[1] != 'TIED'):8} "
              f"{low[0]:+9.2f} .. {high[0]:+6.2f} {reach[0]:12.2f}  "
              f"low {low[1]}, high {high[1]}, reach {reach[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
