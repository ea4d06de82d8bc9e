#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3400-run-cpu-stress: a cpu-stress condition happens as declared: every
# record carries the declared setting and what the stressors achieved (all
# alive, a positive rate), and no stressor outlives the run.
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
left=$(count_processes "$tmp/bin/nodus __")
[ "$left" -eq 0 ] || fail "$left stressor/worker process(es) left running"
exit $((fails > 0))
