#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3650-run-min-timed: with the judge's min_timed_s, a pair's first look
# waits until its measured kernel time (both sides) reaches min_timed_s at
# the rate of its first min_rounds rounds, rounded up onto the look
# schedule (min_rounds + k look_every), within max_rounds: the record
# says which round that was (detail.first_look), it matches what the
# stored samples of those rounds give, no pair stops before it, and a pair
# decided without min_timed_s is held back past the round it stopped at.
# Without the field, records have no first_look and the plan's judge has
# no min_timed_s (plans sealed before it existed still load).
# Two assertions read the machine's speed, not nodus's bookkeeping, and need
# an idle one: the time reached at about the first rounds' rate, and a
# decided pair held back. Where one fails and the load measured before and
# over the runs, or by a record's own isolation checks, was too busy, it is
# skipped instead ("skipped: machine busy", CTest's skip code; lib/load.sh).
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" vector >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
campaign="$tmp/suites/cpu/campaign.json"
set_judge "$campaign" max_rounds 100
set_judge "$campaign" look_every 10
# the wall-clock watchdog is not what this test checks, and a busy machine
# stretches a pair's wall time past its default 60 s
set_judge "$campaign" timeout_s 900
# timed_s DB: a min_timed_s that holds back the plain run's quickest decided
# pair, from that run's own rate (a fixed value held none back on a slower
# machine, whose first rounds already reach it): the time of about twice
# its rounds, at least two looks more, and within 90 of max_rounds' 100.
# Without a decided pair, 0.25 s.
timed_s() {
	python3 - "$1" "$campaign" <<'PY'
import json, sqlite3, sys
db, c = sqlite3.connect(sys.argv[1]), json.load(open(sys.argv[2]))["judge"]
min_rounds, every = c.get("min_rounds", 4), c["look_every"]
best = None
for rid, rounds in db.execute("SELECT id, rounds FROM records WHERE final = 1 AND status = 'OK'"
                              " AND label IN ('FASTER', 'SLOWER') ORDER BY rounds, id"):
    first = db.execute("SELECT SUM(ns * batch) FROM samples WHERE record_id = ? AND round < ?",
                       (rid, min_rounds)).fetchone()[0]
    if first:
        best = (rounds, first / min_rounds)
        break
if best is None:
    print(0.25)
else:
    rounds, rate = best
    want = min(max(2 * rounds, rounds + 2 * every), 90)
    print(f"{want * rate / 1e9:.4g}")
PY
}
busy=$(busy_cores 1)
load_mark run
for case in plain timed; do
	[ "$case" = timed ] && set_judge "$campaign" min_timed_s "$(timed_s "$tmp/plain.db")"
	"$NODUS" plan "$campaign" -o "$tmp/plan-$case.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
	"$NODUS" run "$tmp/plan-$case.json" --db "$tmp/$case.db" --condition isolated -q ||
		fail "$case: run exited $?"
done
busy=$(max_cores "$busy" "$(load_since run)")
python3 - "$tmp/plan-plain.json" "$tmp/plan-timed.json" "$tmp/plain.db" "$tmp/timed.db" "$busy" \
	"$BUSY_MAX_CORES" <<'PY'

import json, math, sqlite3, sys
plain_plan, timed_plan = (json.load(open(p)) for p in sys.argv[1:3])
assert "min_timed_s" not in plain_plan["judge"], "min_timed_s sealed though not declared"
timed_s = timed_plan["judge"]["min_timed_s"]
assert 0 < timed_s <= 3600, timed_plan["judge"].get("min_timed_s")
min_rounds = timed_plan["judge"]["min_rounds"]
every = timed_plan["judge"]["look_every"]

def records(path):
    db = sqlite3.connect(path)
    out = {}
    for rid, pid, label, rounds, detail in db.execute(
            "SELECT id, pair_id, label, rounds, detail_json FROM records"
            " WHERE final = 1 AND status = 'OK'"):
        first = db.execute("SELECT SUM(ns * batch) FROM samples WHERE record_id = ?"
                           " AND round < ?", (rid, min_rounds)).fetchone()[0]
        total = db.execute("SELECT SUM(ns * batch) FROM samples WHERE record_id = ?",
                           (rid,)).fetchone()[0]
        out[pid] = (label, rounds, json.loads(detail), first, total)
    return out

plain, timed = records(sys.argv[3]), records(sys.argv[4])
assert len(timed) >= 3, len(timed)
# the most busy cores the runs saw: measured around them, and by each
# record's own isolation checks
busy = max([float(sys.argv[5])] + [r[2].get(k, {}).get("busy_cores", 0)
                                   for run in (plain, timed) for r in run.values()
                                   for k in ("isolation_before", "isolation_after")])
idle = busy <= float(sys.argv[6])
skipped = []
held = 0
for pid, (label, rounds, d, first_ns, total_ns) in timed.items():
    most = d["max_rounds"]
    need = math.ceil(timed_s * 1e9 / (first_ns / min_rounds))
    if need > min_rounds:  # onto the schedule's grid, min_rounds + k * look_every
        need = min_rounds + math.ceil((need - min_rounds) / every) * every
    want = max(min_rounds, min(most, need))
    assert abs(d["first_look"] - want) <= 1, (pid, d["first_look"], want)
    assert rounds >= d["first_look"], (pid, "stopped before its first look", rounds, d)
    if d["first_look"] < most:  # the time was reached, at about the first rounds' rate
        if total_ns < timed_s * 1e9 * 0.5:
            assert not idle, (pid, total_ns)
            skipped.append(f"{pid}: {total_ns / 1e9:.3f} s timed, below half of min_timed_s")
    p = plain.get(pid)
    # decided without the field in fewer rounds than its first look with it
    if p and p[0] in ("FASTER", "SLOWER") and p[1] < d["first_look"]:
        held += 1
for pid, (label, rounds, d, _, _) in plain.items():
    assert "first_look" not in d, (pid, d)
# timed_s sets min_timed_s from the plain run's quickest decided pair; one
# that took 85 rounds or more (of 100) leaves no room to hold it back
quick = min([p[1] for p in plain.values() if p[0] in ("FASTER", "SLOWER")], default=None)
if held < 1:
    assert not (idle and quick is not None and quick < 85), \
        "no pair decided without min_timed_s was held back by it"
    skipped.append("a pair decided without min_timed_s is held back by it (none was"
                   + ("" if quick is not None and quick < 85 else
                      f"; the quickest decided pair took {quick} rounds: no room") + ")")
print(f"t3650: {len(timed)} records with their first look where min_timed_s puts it; "
      f"{held} decided pair(s) held back")
for what in skipped:
    print(f"skipped: machine busy ({busy:.2f} cores busy): {what}")
sys.exit(77 if skipped else 0)
PY
rc=$?
case $rc in 0) ;; 77) skips=$((skips + 1)) ;; *) fail "records" ;; esac
test_exit
