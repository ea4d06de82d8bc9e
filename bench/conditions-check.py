#!/usr/bin/env python3
"""Did each condition of a run happen as declared? Reads a record store nodus wrote.

Usage: conditions-check.py STUDY.db

Per record, from what nodus stored beside the declared setting:
- isolated: NVML saw no other compute or MPS process before and after the pair;
- cpu-stress: every declared stressor alive with a positive achieved rate;
- timeslice: every declared co-tenant process was alive with a positive achieved rate,
  and NVML listed at least tenants + 1 compute processes in some round;
- mps: the same for the MPS clients, with an MPS daemon recorded, and NVML listed at least
  tenants + 1 MPS clients (or compute processes) in some round;
- streams: the in-process loads ran (streams_ok) with a positive achieved rate;
- replay: each record is charged 1/(tenants + 1), and the condition's records overlap in
  time (the shards really ran side by side).
Prints a table per condition (what was declared beside what was achieved), one line per
failed check and a summary; exit 1 if any check failed.
"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402  (beside this script)




def main():
    (path,) = benchargs.databases(__doc__, 1)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    kinds = dict(db.execute("SELECT name, kind FROM conditions"))
    params = {n: json.loads(p or "{}") for n, p in db.execute("SELECT name, params_json FROM conditions")}
    rows = db.execute("SELECT pair_id, condition, status, charge_share, started_at, finished_at,"
                      " detail_json FROM records WHERE final = 1").fetchall()
    bad, checked = [], 0
    spans, seen = {}, {}
    for pid, cond, status, share, t0, t1, detail in rows:
        d = json.loads(detail or "{}")
        kind, tenants = kinds.get(cond), params.get(cond, {}).get("tenants", 0)
        rounds = d.get("nvml_rounds", [])
        max_compute = max([r.get("compute_procs", -1) for r in rounds] or [-1])
        max_mps = max([r.get("mps_procs", -1) for r in rounds] or [-1])
        checked += 1
        a = d.get("condition_achieved", {})
        t = d.get("timing", {})
        row = seen.setdefault(cond, dict(records=0, alive=[], rate=[], compute=[], mps=[], streams=[]))
        row["records"] += 1
        if "alive" in a:
            row["alive"].append(a["alive"])
            row["rate"].append(a.get("achieved_total", 0))
        row["compute"].append(max_compute)
        row["mps"].append(max_mps)
        if "streams_achieved_rate" in t:
            row["streams"].append(t["streams_achieved_rate"])
        where = f"{pid} [{cond}]"
        if kind == "isolated":
            for when in ("isolation_before", "isolation_after"):
                iso = d.get(when, {})
                if status != "NOT_ISOLATED" and iso.get("other_processes", 0) != 0:
                    bad.append(f"{where}: {when} saw {iso.get('other_processes')} other processes")
        elif kind in ("timeslice", "mps", "cpu-stress"):
            a = d.get("condition_achieved", {})
            if a.get("alive") != tenants or a.get("started") != tenants:
                bad.append(f"{where}: {a.get('alive')} of {tenants} co-tenants alive")
            if not a.get("achieved_total", 0) > 0:
                bad.append(f"{where}: co-tenants achieved nothing")
            if kind == "timeslice" and rounds and max_compute < tenants + 1:
                bad.append(f"{where}: NVML saw at most {max_compute} compute processes")
            if kind == "mps":
                if "mps" not in d:
                    bad.append(f"{where}: no MPS daemon recorded")
                if rounds and max(max_mps, max_compute) < tenants + 1:
                    bad.append(f"{where}: NVML saw at most {max_mps} MPS clients")
        elif kind == "streams":
            t = d.get("timing", {})
            if status == "OK" and not (t.get("streams_ok") and t.get("streams_achieved_rate", 0) > 0):
                bad.append(f"{where}: stream loads did not run ({t.get('streams_ok')})")
        elif kind == "replay":
            if abs(share - 1.0 / (tenants + 1)) > 1e-9:
                bad.append(f"{where}: charged {share}, expected 1/{tenants + 1}")
            spans.setdefault(cond, []).append((t0, t1))
    for cond, s in spans.items():
        s.sort()
        overlap = sum(1 for a, b in zip(s, s[1:]) if b[0] < a[1])
        if overlap == 0 and len(s) > 1:
            bad.append(f"[{cond}]: no two records overlap in time: the shards did not run together")
    print(f"{'condition':<20} {'kind':<10} {'declared':>8} {'records':>7} {'alive min':>9} "
          f"{'co-tenant rate median':>22} {'NVML compute max':>16} {'NVML MPS max':>12} {'overlaps':>8}")
    for cond, row in seen.items():
        kind, tenants = kinds.get(cond), params.get(cond, {}).get("tenants", 0)
        rates = sorted(row["rate"] or row["streams"])
        rate = f"{rates[len(rates) // 2] / 1e9:.1f} G/s" if rates else "-"
        s = sorted(spans.get(cond, []))
        overlap = sum(1 for x, y in zip(s, s[1:]) if y[0] < x[1]) if s else "-"
        print(f"{cond:<20} {kind:<10} {tenants:>8} {row['records']:>7} "
              f"{min(row['alive']) if row['alive'] else '-':>9} {rate:>22} "
              f"{max(row['compute']):>16} {max(row['mps']):>12} {overlap:>8}")
    for b in bad:
        print("FAIL:", b)
    print(f"conditions as declared: {checked} records checked, {len(bad)} problems"
          f" -> {'PASS' if not bad else 'FAIL'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
