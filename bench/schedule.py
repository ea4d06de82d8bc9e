#!/usr/bin/env python3
"""Two worker schedules compared on one plan, two runs each (written by nodus itself).

Usage: schedule.py QUIET1.db QUIET2.db OVERLAP1.db OVERLAP2.db

QUIET: nodus's schedule (no worker of nodus starts or ends while a pair is
timed). OVERLAP: the next pair's workers start as a pair's timing starts
(NODUS_EXPERIMENT_SPARES_DURING_TIMING=1, the schedule issue 4 proposed). Each
record's detail.worker_schedule is checked against the side it was given on.

Per schedule, over its two runs: campaign wall time, the fixed overhead per
pair-condition (median of wall minus timed-kernel time over cached OK records
moving < 0.2 GB, as in overhead.py), and per kernel-duration class of the A/A
pairs: the interval's reach from 1 (median and max of max|log end|), the
spread of the round statistics (standard deviation of the per-round median
log-ratio, the noise the interval is built from), the within-sample spread
(p90/p10 of the per-call times of each role), and the rounds needed. Then the
labels: pairs decided under both schedules, how many agree, and any
FASTER<->SLOWER flip. Statistics are over records of A/A pairs (each record
one item), never over timing repetitions.
"""
import json
import math
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402  (beside this script)
from overhead import SMALL_GB  # noqa: E402  (what counts as a small workload)
from retest import CLASSES, DECIDED  # noqa: E402  (duration classes, decided labels)


def quantile(values, q):
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def load(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    recs = db.execute(
        "SELECT r.id, r.pair_id, r.status, r.label, r.ci_lo, r.ci_hi, r.wall_s,"
        " r.compile_cache_hits, r.ref_ns_median, r.detail_json, r.started_at, r.finished_at,"
        " p.cand_hash = p.ref_hash, r.final FROM records r JOIN pairs p"
        " ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id ORDER BY r.id").fetchall()
    out = []
    for (rid, pid, status, label, lo, hi, wall, hits, ref_ns, detail, t0, t1, aa,
         final) in recs:
        d = json.loads(detail or "{}")
        ph = d.get("phases", {})
        samples = db.execute("SELECT round, seq, role, ns, batch FROM samples WHERE record_id = ?",
                             (rid,)).fetchall()
        out.append(dict(pair=pid, status=status, label=label, lo=lo, hi=hi, wall=wall,
                        hits=hits, ref_ns=ref_ns, t0=t0, t1=t1, aa=bool(aa), final=final,
                        schedule=d.get("worker_schedule", "quiet_timing"),
                        gb=sum(ph.get(w, {}).get("bytes", 0) for w in ("oracle", "measure")) / 1e9,
                        kern=sum(ns * b for _, _, _, ns, b in samples) * 1e-9,
                        rounds=len({s[0] for s in samples}), samples=samples))
    return out


def round_stats(samples):
    """Per round, the median of its paired log(ref/cand), as run.c's estimate()."""
    by_round = {}
    for rnd, seq, role, ns, _ in samples:
        by_round.setdefault(rnd, {}).setdefault(seq // 2, {})[role] = ns
    stats = []
    for pairs in by_round.values():
        logs = [math.log(p[0] / p[1]) for p in pairs.values() if p.get(0, 0) > 0 and p.get(1, 0) > 0]
        if logs:
            stats.append(statistics.median(logs))
    return stats


def describe(name, runs):
    recs = [r for run in runs for r in run]
    walls = [max(r["t1"] for r in run) - min(r["t0"] for r in run) for run in runs]
    small = [r["wall"] - r["kern"] for r in recs
             if r["hits"] == 2 and r["status"] == "OK" and r["gb"] < SMALL_GB]
    fixed = (f"median {statistics.median(small):.3f} s over {len(small)} records" if small
             else "no cached OK record")
    print(f"{name}: campaign wall {' and '.join(f'{w:.1f} s' for w in walls)}; "
          f"fixed overhead per pair-condition {fixed}")
    for cname, lo_ns, hi_ns in CLASSES:
        aa = [r for r in recs if r["aa"] and r["final"] and r["status"] == "OK" and r["lo"]
              and r["ref_ns"] and lo_ns <= r["ref_ns"] < hi_ns]
        if not aa:
            print(f"  {cname:<10} no A/A record")
            continue
        reach = [max(abs(math.log(r["lo"])), abs(math.log(r["hi"]))) for r in aa]
        sd = [statistics.stdev(s) for s in (round_stats(r["samples"]) for r in aa) if len(s) > 1]
        spread = []
        for r in aa:
            for role in (0, 1):
                ns = [s[3] for s in r["samples"] if s[2] == role and s[3] > 0]
                if len(ns) >= 10:
                    spread.append(quantile(ns, 0.9) / quantile(ns, 0.1) - 1)
        not_tied = sum(r["label"] != "TIED" for r in aa)
        print(f"  {cname:<10} {len(aa)} A/A records ({not_tied} not TIED): reach median "
              f"{100 * statistics.median(reach):.2f}% max {100 * max(reach):.2f}%; round sd "
              f"median {100 * statistics.median(sd):.2f}%; p90/p10 - 1 median "
              f"{100 * statistics.median(spread):.2f}% max {100 * max(spread):.2f}%; rounds "
              f"median {statistics.median(r['rounds'] for r in aa):g} "
              f"max {max(r['rounds'] for r in aa)}")


def outcomes(run):
    return {r["pair"]: (r["label"] if r["status"] == "OK" else r["status"])
            for r in run if r["final"]}


def main():
    paths = benchargs.databases(__doc__, 4)
    runs = [load(p) for p in paths]
    bad = [f"{paths[i]}: {sum(r['schedule'] != want for r in runs[i])} records of another schedule"
           for i, want in enumerate(("quiet_timing",) * 2 + ("spares_during_timing",) * 2)
           if any(r["schedule"] != want for r in runs[i])]
    for b in bad:
        print(b)
    describe("quiet (nodus)", runs[:2])
    describe("overlap (spares start during timing)", runs[2:])
    labels = [outcomes(r) for r in runs]
    both = same = flips = 0
    for q in labels[:2]:
        for o in labels[2:]:
            for pid in set(q) & set(o):
                if q[pid] in DECIDED and o[pid] in DECIDED:
                    both += 1
                    same += q[pid] == o[pid]
                    flips += {q[pid], o[pid]} == {"FASTER", "SLOWER"}
    print(f"labels, quiet run x overlap run (4 comparisons): decided in both {both}, "
          f"same {same}, FASTER<->SLOWER flips {flips}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
