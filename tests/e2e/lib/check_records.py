#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_records.py DB [--want-followers]: the structural checks of a run's
records, shared by the end-to-end run tests (t3000, t3810). Prints one
"FAIL: ..." line and exits 1 when any fails.

- detail.phases: every timed (OK) record says where its wall time went
  (bench/phases.py and bench/overhead.py read this): the documented keys,
  the per-worker items (oracle, measure, timer), parts inside their wholes and the whole inside the
  record's wall time, and what each worker's start-up cost (a follower's
  record the same, less its oracle's).
- detail.oracle_group, on every record (any status, any attempt): a
  follower (a pair whose reference outputs an earlier pair's oracle
  computed) names the record of its leader by pair and attempt; that
  record leads the same group, with the follower in its list; every pair
  a leader lists has exactly one record that names that leader's attempt;
  and a follower has no oracle of its own. A leader can be retried (say
  NOT_ISOLATED): its final record is then another attempt, which need not
  lead anything.
--want-followers: the run must hold at least one follower.
"""
import json
import sqlite3
import sys

TOP = ["build_s", "oracle_start_s", "oracle_s", "measure_start_s", "timer_start_s", "trials_s",
       "quiesce_s",
       "measure_s", "isolation_after_s", "compare_s", "round_nvml_s", "round_decide_s"]
WORKER = ["load_s", "fingerprint_s", "setup_s", "draw_s", "upload_s", "checksum_s", "call_s",
          "send_s", "size_s", "copies_s", "rounds_s", "perturb_s", "recheck_s", "intact_s",
          "bytes", "alloc_s", "job_s", "device_draw_s"]


def check_phases(rid, d, wall, own_oracle, bad):
    """A follower's record has the same keys, less its oracle's."""
    ph = d.get("phases", {})
    workers = ("oracle", "measure", "timer") if own_oracle else ("measure", "timer")
    top = TOP if own_oracle else [k for k in TOP if k not in ("oracle_start_s", "oracle_s")]
    missing = [k for k in top if k not in ph] + [f"{w}.{k}" for w in workers
                                                 for k in WORKER if k not in ph.get(w, {})]
    if missing:
        bad.append(f"{rid}: no {', '.join(missing)}")
        return
    for who in ("measure", "timer"):
        m = ph[who]
        if m["perturb_s"] + m["recheck_s"] + m["intact_s"] > m["rounds_s"] + 1e-6:
            bad.append(f"{rid}: {who}.rounds_s {m['rounds_s']} smaller than its parts")
    # a follower was built while its leader formed the group, outside its own wall time
    # the timer is started at the gate, inside the measure worker's
    # conversation: timer_start_s is part of measure_s, not beside it
    spent = sum(ph.get(k, 0) for k in ("build_s", "oracle_start_s", "oracle_s",
                                       "measure_start_s", "measure_s")
                if own_oracle or k != "build_s")
    inside = ph["trials_s"] + ph["quiesce_s"] + ph["isolation_after_s"] + ph["timer_start_s"]
    if spent > wall + 1e-3 or inside > ph["measure_s"] + 1e-6:
        bad.append(f"{rid}: phases {spent:.3f} s do not fit in wall {wall:.3f} s")
    if any(ph[w]["bytes"] <= 0 for w in workers):
        bad.append(f"{rid}: no bytes counted")
    # what each worker's start-up cost, and under which schedule it ran
    for who in workers:
        st = d.get("startup", {}).get(who, {})
        if set(st) != {"exec_s", "open_s", "context_s", "setup_s", "fingerprint_s",
                       "rss_bytes"} or \
                not 0 <= st["exec_s"] < 60 or not 0 <= st["open_s"] < 60 or \
                not 0 < st["rss_bytes"] < 1 << 40:
            bad.append(f"{rid}: detail.startup.{who} is {st}")
    if d.get("worker_schedule") != "quiet_timing":
        bad.append(f"{rid}: worker_schedule {d.get('worker_schedule')}")


def main():
    args = sys.argv[1:]
    want_followers = "--want-followers" in args
    args = [a for a in args if a != "--want-followers"]
    if len(args) != 1:
        print("Usage: check_records.py DB [--want-followers]", file=sys.stderr)
        sys.exit(2)
    rows = sqlite3.connect(args[0]).execute(
        "SELECT pair_id, condition, attempt, status, wall_s, detail_json FROM records").fetchall()
    recs = {(p, c, n): (s, w, json.loads(d or "{}")) for p, c, n, s, w, d in rows}
    bad = []
    followers = timed = 0
    named = {}  # (leader, condition, leader attempt) -> records that name it as their leader
    for (pid, cond, n), (status, wall, d) in recs.items():
        rid = f"{pid} [{cond}] attempt {n}"
        g = d.get("oracle_group")
        if g and (g.get("leader") != pid or g.get("leader_attempt") != n):
            followers += 1
            lead_key = (g.get("leader"), cond, g.get("leader_attempt"))
            named.setdefault(lead_key, []).append(pid)
            lead = recs.get(lead_key)
            lg = lead and lead[2].get("oracle_group")
            if not lg or (lg.get("leader"), lg.get("leader_attempt")) != lead_key[::2] or \
                    lg.get("pairs") != g.get("pairs") or pid not in lg.get("pairs", []):
                bad.append(f"{rid}: its oracle group's leader {g.get('leader')} attempt "
                           f"{g.get('leader_attempt')} does not list it")
            if "oracle" in d.get("phases", {}) or "oracle_s" in d.get("phases", {}) or \
                    "oracle" in d.get("startup", {}):
                bad.append(f"{rid}: an oracle of its own, yet in {g.get('leader')}'s group")
            elif status == "OK":
                timed += 1
                check_phases(rid, d, wall, False, bad)
            continue
        if g and (not g.get("pairs") or g["pairs"][0] != pid):
            bad.append(f"{rid}: leads a group that does not list it first: {g}")
        if status == "OK":
            timed += 1
            check_phases(rid, d, wall, True, bad)
    # every pair a leader lists ran once from that leader's oracle
    for (pid, cond, n), (_, _, d) in recs.items():
        g = d.get("oracle_group")
        if g and g.get("leader") == pid and g.get("leader_attempt") == n:
            got = sorted(named.get((pid, cond, n), []))
            if got != sorted(g["pairs"][1:]):
                bad.append(f"{pid} [{cond}] attempt {n}: leads {g['pairs'][1:]}, "
                           f"but {got} name it as their leader")
    if want_followers and not followers:
        bad.append("no pair took its reference outputs from an oracle group")
    if not timed or bad:
        print("FAIL: detail.phases: " + ("; ".join(bad[:5]) if bad else "no OK records"))
        sys.exit(1)
    print(f"check_records: {len(recs)} records, {timed} timed, {followers} in another's "
          "oracle group")


main()
