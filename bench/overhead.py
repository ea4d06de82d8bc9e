#!/usr/bin/env python3
"""Harness overhead from the records of one run (written by nodus itself).

Usage: overhead.py RUN.db

Per record: wall time of the attempt, time spent inside timed batches (sum over
samples of ns per call x calls), compile time, cache hits, and the data the two
workers drew and sent (detail.phases.*.bytes). Reports the overhead per
pair-condition on the critical path (wall time minus timed-kernel time, for
records whose compiles were cached), and the share of wall time (less compile
time: the target is stated with compiles cached) spent in measured kernels for
pairs whose kernels take >= 100 us, and the share of the timed rounds themselves
(the measure worker's rounds_s less its perturbation, recheck and intact-copy
checks) spent in measured kernels, and the kernel share with the records'
validation time before timing (validation_s: from the oracle's job to the
correctness gate) left out of the wall time: roughly what the timing protocol
itself leaves if validation cost nothing.

Validation (drawing inputs, moving outputs, comparing them) grows with the bytes
of the tensors; the rest of the overhead does not. The fixed overhead per
pair-condition is the median overhead of the cached OK records that moved less
than SMALL_GB (and their mean: a pair whose oracle also computed later pairs'
reference outputs carries that work in its own wall time); the validation cost per GB is the least-squares slope of overhead
against data over all cached OK records. Last line: summary.
"""
import json
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402  (beside this script)

SMALL_GB = 0.2




def main():
    (path,) = benchargs.databases(__doc__, 1)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT r.pair_id, r.condition, r.status, r.wall_s, r.compile_s,"
        " r.compile_cache_hits, r.ref_ns_median, r.validation_s,"
        " (SELECT SUM(s.ns * s.batch) FROM samples s WHERE s.record_id = r.id), r.detail_json"
        " FROM records r ORDER BY r.id").fetchall()
    fixed, points, compiles = [], [], []
    long_wall = long_kernel = long_timed = 0.0
    long_validation = 0.0
    for pid, cond, status, wall, comp, hits, ref_ns, validation, kern_ns, detail in rows:
        phases = json.loads(detail or "{}").get("phases", {})
        gb = sum(phases.get(w, {}).get("bytes", 0) for w in ("oracle", "measure")) / 1e9
        kern = (kern_ns or 0) * 1e-9
        if comp and comp > 0:
            compiles.append(comp)
        over = wall - kern
        if hits == 2:
            fixed.append(over)
            if status == "OK" and "measure" in phases:
                points.append((gb, over, pid))
        if ref_ns and ref_ns >= 100e3 and status == "OK":
            long_wall += wall - (comp or 0)
            long_kernel += kern
            long_validation += validation or 0
            m = phases.get("measure", {})
            long_timed += m.get("rounds_s", 0) - sum(
                m.get(k, 0) for k in ("perturb_s", "recheck_s", "intact_s"))
        print(f"{pid:<58} {cond:<10} {status:<20} wall {wall:7.3f} s kernels {kern:7.3f} s "
              f"overhead {over:6.3f} s compile {comp or 0:6.3f} s hits {hits} data {gb:6.3f} GB")
    if compiles:
        print(f"compile per cold build: median {statistics.median(compiles):.2f} s "
              f"over {len(compiles)} records")
    if len(points) >= 3 and len({p[0] for p in points}) > 1:
        mx = statistics.fmean(p[0] for p in points)
        my = statistics.fmean(p[1] for p in points)
        sxx = sum((p[0] - mx) ** 2 for p in points)
        slope = sum((p[0] - mx) * (p[1] - my) for p in points) / sxx
        print(f"validation: {slope:.3f} s per GB of data drawn and sent "
              f"(least-squares slope over {len(points)} cached OK records)")
    small = [p[1] for p in points if p[0] < SMALL_GB]
    if small:
        worst = max((p for p in points if p[0] < SMALL_GB), key=lambda p: p[1])
        print(f"fixed overhead per pair-condition: median {statistics.median(small):.3f} s, "
              f"mean {statistics.fmean(small):.3f} s, "
              f"max {max(small):.3f} s over {len(small)} cached OK records with < {SMALL_GB} GB "
              f"(max: {worst[2]})")
    if long_timed > 0:
        print(f"timed rounds for >=100us kernels: {long_timed:.3f} s, of which measured kernels "
              f"{100 * long_kernel / long_timed:.1f}% (the rest: flushes, events, "
              f"synchronisation, clock reads)")
    if long_wall > long_validation > 0:
        print(f"kernel share for >=100us kernels without the validation before timing (records' "
              f"validation_s, oracle's job to the correctness gate: {long_validation:.2f} of "
              f"{long_wall:.2f} s): "
              f"{100 * long_kernel / (long_wall - long_validation):.1f}%")
    med = statistics.median(fixed) if fixed else float("nan")
    share = long_kernel / long_wall if long_wall else float("nan")
    print(f"overhead per pair-condition (cached compiles): median {med:.3f} s over {len(fixed)}; "
          f"kernel share for >=100us kernels: {100 * share:.1f}%")


if __name__ == "__main__":
    main()
