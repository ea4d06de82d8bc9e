#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3400-run-cpu-stress: a cpu-stress condition happens as declared: every
# record carries the declared setting and what the stressors achieved (all
# alive, a positive rate), and no stressor outlives the run. The JSON report
# of the run has the documented keys, and with the price unknown (null) the
# agreeing records per dollar are null with a reason, never a number.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/mini/campaign.json" 2.5
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
python3 - "$tmp/r.db" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, detail_json FROM records WHERE condition = 'stress-membw-1'").fetchall()
if not rows:
    print("FAIL: no stress records")
    sys.exit(1)
for pid, detail in rows:
    d = json.loads(detail)["condition_achieved"]
    if d["declared_tenants"] != 1 or d["alive"] != 1 or d["achieved_total"] <= 0 or d["load"] != "membw":
        print(f"FAIL: {pid}: condition not as declared: {d}")
        sys.exit(1)
print(f"t3400: {len(rows)} stress records, achieved {d['achieved_total']:.3g} {d['unit']}")
PY
# the JSON report carries the keys docs/report.md promises
"$NODUS" report "$tmp/r.db" --format json -o "$tmp/report.json" || fail "report exited $?"
python3 - "$tmp/report.json" <<'PY' || fails=$((fails + 1))
import json, sys
r = json.load(open(sys.argv[1]))
missing = [k for k in ("baseline", "conditions", "pairs") if k not in r]
for c in r.get("conditions", []):
    missing += [f"conditions[].{k}" for k in ("name", "pairs", "agreement", "kappa", "false_fast",
                                               "cost", "agreeing_per_usd") if k not in c]
for p in r.get("pairs", []):
    missing += [f"pairs[].{k}" for k in ("id", "task", "candidate", "reference", "labels") if k not in p]
if missing or len(r["conditions"]) != 2 or r["conditions"][1]["agreeing_per_usd"] is not None:
    print(f"FAIL: report keys missing {sorted(set(missing))} or price not unknown: {r['conditions'][1].get('agreeing_per_usd')}")
    sys.exit(1)
print("t3400: report keys present; unknown price gives agreeing_per_usd null:",
      r["conditions"][1].get("agreeing_per_usd_reason"))
PY
# the trace export: one FlashInfer-Bench Trace line per final record that is the candidate's
"$NODUS" report "$tmp/r.db" --format trace -o "$tmp/trace.jsonl" || fail "trace export exited $?"
python3 - "$tmp/trace.jsonl" "$tmp/r.db" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
# a harness failure (NOT_ISOLATED here) is no trace: left out (docs/report.md)
finals = sqlite3.connect(sys.argv[2]).execute(
    "SELECT COUNT(*) FROM records WHERE final = 1 AND status != 'NOT_ISOLATED'").fetchone()[0]
assert len(lines) == finals, (len(lines), finals)
for t in lines:
    e = t["evaluation"]
    assert set(t) == {"definition", "workload", "solution", "evaluation"}, t.keys()
    assert t["workload"]["axes"] == {"n": 4096} and set(t["workload"]["inputs"]) == {"x", "y"}, t["workload"]
    cond = t["definition"].split("@", 1)[1]  # every key names the condition
    assert t["workload"]["uuid"] == f"vec_add_4k@{cond}" and t["solution"].endswith(f"@{cond}"), t
    if e["status"] == "PASSED":
        assert "correctness" in e and e["performance"]["latency_ms"] > 0, e
    elif e["status"] != "INCORRECT_NUMERICAL":
        assert "correctness" not in e and "performance" not in e, e
print(f"t3400: {len(lines)} trace lines")
PY
# the HTML page: the label table and one interval figure per condition
"$NODUS" report "$tmp/r.db" --format html -o "$tmp/r.html" || fail "html report exited $?"
[ "$(grep -o "<svg" "$tmp/r.html" | wc -l)" -eq 2 ] || fail "html report lacks its two figures"
grep -q "vec_add_4k/vec_add_unrolled/vec_add_ref" "$tmp/r.html" || fail "html report lacks the pair table"
left=$(count_processes "$tmp/bin/nodus __")
[ "$left" -eq 0 ] || fail "$left stressor/worker process(es) left running"
exit $((fails > 0))
