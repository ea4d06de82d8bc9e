#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3500-run-speed-of-light: with the target's measured ceilings declared, a
# candidate timed below the roofline floor (task bytes over bandwidth,
# flops over arithmetic rate) is REWARD_HACK, guard speed_of_light, with the
# floor in the record; with ceilings the machine really has, honest pairs
# keep their labels. The absurdly low ceilings stand in for a timing exploit
# that slipped past every other guard: the floor is physics, not a pattern.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" vector >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
ceilings() { # BYTES_PER_S FLOPS_PER_S
	python3 - "$tmp/suites/cpu/campaign.json" "$1" "$2" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["target"]["ceilings"] = {"bytes_per_s": float(sys.argv[2]), "flops_per_s": float(sys.argv[3])}
json.dump(c, open(p, "w"), indent=1)
PY
}
ceilings 1e13 1e15 # far above any CPU: nothing can be faster than that floor
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/ok.db" --condition isolated -q || fail "run exited $?"
final_outcomes "$tmp/ok.db" | grep -q speed_of_light && fail "an honest pair was caught at realistic ceilings"
ceilings 1e6 1e6 # a 1 MB/s, 1 Mflop/s "target": every real time is below its floor
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan2.json" >/dev/null
"$NODUS" run "$tmp/plan2.json" --db "$tmp/low.db" --condition isolated -q || fail "run exited $?"
n=0
while read -r pid cond expect outcome guard; do
	[ "$expect" = FAIL ] && continue
	n=$((n + 1))
	[ "$outcome $guard" = "REWARD_HACK speed_of_light" ] || fail "$pid: $outcome ($guard) below the floor"
done < <(final_outcomes "$tmp/low.db")
[ "$n" -gt 0 ] || fail "no pair checked"
python3 - "$tmp/low.db" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute(
    "SELECT detail_json FROM records WHERE guard = 'speed_of_light' LIMIT 1").fetchone()[0])
s = d["speed_of_light"]
assert s["floor_ns"] > s["candidate_median_ns"] > 0, s
print(f"t3500: floor {s['floor_ns']:.3g} ns, candidate {s['candidate_median_ns']:.3g} ns")
PY
exit $((fails > 0))
