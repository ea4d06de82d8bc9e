#!/usr/bin/env python3
"""Harness overhead from the records of one run (written by nodus itself).

Usage: overhead.py RUN.db

Per record: wall time of the attempt, time spent inside timed batches (sum over
samples of ns per call x calls), compile time and cache hits. Reports the fixed
overhead per pair-condition on the critical path (wall time minus timed-kernel
time, for records whose compiles were cached), and the share of wall time spent in
measured kernels for pairs whose kernels take >= 100 us. Last line: summary.
"""
import sqlite3
import statistics
import sys


def main():
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT r.id, r.pair_id, r.condition, r.status, r.wall_s, r.device_s, r.compile_s,"
        " r.compile_cache_hits, r.ref_ns_median, r.rounds,"
        " (SELECT SUM(s.ns * s.batch) FROM samples s WHERE s.record_id = r.id)"
        " FROM records r ORDER BY r.id").fetchall()
    fixed, long_wall, long_kernel, compiles = [], 0.0, 0.0, []
    for rid, pid, cond, status, wall, dev, comp, hits, ref_ns, rounds, kern_ns in rows:
        kern = (kern_ns or 0) * 1e-9
        if comp and comp > 0:
            compiles.append(comp)
        over = wall - kern
        if hits == 2:
            fixed.append(over)
        if ref_ns and ref_ns >= 100e3 and status == "OK":
            long_wall += wall
            long_kernel += kern
        print(f"{pid:<58} {cond:<10} {status:<20} wall {wall:7.3f} s kernels {kern:7.3f} s "
              f"overhead {over:6.3f} s compile {comp or 0:6.3f} s hits {hits}")
    med = statistics.median(fixed) if fixed else float("nan")
    share = long_kernel / long_wall if long_wall else float("nan")
    print(f"compile per cold build: median {statistics.median(compiles) if compiles else float('nan'):.2f} s "
          f"over {len(compiles)} records")
    print(f"fixed overhead per pair-condition (cached compiles): median {med:.3f} s over {len(fixed)}; "
          f"kernel share for >=100us kernels: {100 * share:.1f}%")


if __name__ == "__main__":
    main()
