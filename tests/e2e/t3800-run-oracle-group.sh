#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3800-run-oracle-group: two pairs of one reference and workload share one
# oracle (the second names the first as its group's leader, and its record
# has no oracle of its own), each with its own instances and seeds; with the
# judge's oracle_group at 1 every pair has its own oracle and no record
# names a group. Both runs end every pair OK.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/mini/campaign.json" 2.5
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/grouped.db" -q --condition isolated || fail "grouped run exited $?"
python3 - "$tmp/mini/campaign.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["judge"]["oracle_group"] = 1
json.dump(c, open(p, "w"), indent=1)
PY
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan1.json" >/dev/null || fail "plan with oracle_group 1"
"$NODUS" run "$tmp/plan1.json" --db "$tmp/alone.db" --condition isolated >"$tmp/progress.txt" ||
	fail "ungrouped run exited $?"
# progress: a line per record, [k/N] ... (elapsed[, ETA]), and a closing line per condition
grep -Eq '^  \[1/[0-9]+\] .* \([0-9]+ s, ETA [0-9]+ s\)$' "$tmp/progress.txt" ||
	fail "no [1/N] progress line with an ETA: $(head -3 "$tmp/progress.txt")"
grep -Eq '^condition isolated: [0-9]+ of [0-9]+ pair\(s\) decided in [0-9]+ s$' "$tmp/progress.txt" ||
	fail "no closing line for the condition: $(tail -3 "$tmp/progress.txt")"
python3 - "$tmp/grouped.db" "$tmp/alone.db" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
def records(path):
    rows = sqlite3.connect(path).execute(
        "SELECT pair_id, status, label, detail_json FROM records WHERE final = 1 ORDER BY id")
    return [(p, s, l, json.loads(d)) for p, s, l, d in rows]
bad = []
grouped, alone = records(sys.argv[1]), records(sys.argv[2])
if len(grouped) != 2 or len(alone) != 2:
    bad.append(f"expected 2 records per run, got {len(grouped)} and {len(alone)}")
else:
    lead, follow = grouped
    g = follow[3].get("oracle_group")
    if not g or g.get("leader") != lead[0] or g.get("pairs") != [lead[0], follow[0]]:
        bad.append(f"{follow[0]} does not name {lead[0]}'s group: {g}")
    if lead[3].get("oracle_group", {}).get("leader") != lead[0]:
        bad.append(f"{lead[0]} does not say it led the group")
    if "oracle" in follow[3].get("phases", {}) or "oracle" not in lead[3].get("phases", {}):
        bad.append("the second pair ran an oracle of its own, or the first none")
    # the second pair's seeds are its own, not the first pair's
    if follow[3].get("oracle_group", {}).get("instances", 0) <= 8:
        bad.append(f"the group's oracle job holds {g and g.get('instances')} instances, "
                   "fewer than two pairs' worth")
    for p, s, l, d in alone:
        if "oracle_group" in d or "oracle" not in d.get("phases", {}):
            bad.append(f"{p}: with oracle_group 1, a group or no oracle of its own")
    # labels are timing, and CI's 2 cores are noisy: the statuses must agree
    kinds = lambda rs: [(p, s) for p, s, _, _ in rs]
    if kinds(grouped) != kinds(alone) or any(s != "OK" for _, s in kinds(grouped)):
        bad.append(f"statuses differ or failed: {kinds(grouped)} vs {kinds(alone)}")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
PY
[ "$fails" -eq 0 ] && echo "t3800: the second pair used the first pair's oracle; with oracle_group 1 neither did"
exit $((fails > 0))
