#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3600-run-short-margin: a pair whose reference call is shorter than the
# judge's short_kernel_ns is labelled with tie_margin_short, any other with
# tie_margin; the record says which margin it used, and its label is the one
# that margin gives its interval. Run once with every pair "short" and once
# with none; the long margin is absurdly tight (0.01%), so the A/A pairs
# TIED under the short margin must visibly come out AMBIGUOUS.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" vector >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
campaign="$tmp/suites/cpu/campaign.json"
set_judge "$campaign" tie_margin 0.0001
set_judge "$campaign" tie_margin_short 0.05
for case in short long; do
	if [ $case = short ]; then set_judge "$campaign" short_kernel_ns 10000000000; want=0.05
	else set_judge "$campaign" short_kernel_ns 0; want=0.0001; fi
	"$NODUS" plan "$campaign" -o "$tmp/plan-$case.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
	"$NODUS" run "$tmp/plan-$case.json" --db "$tmp/$case.db" --condition isolated -q ||
		fail "$case: run exited $?"
	python3 - "$tmp/$case.db" "$want" <<'PY' || fail "$case: margins or labels"
import json, sqlite3, sys
db, want = sqlite3.connect(sys.argv[1]), float(sys.argv[2])
n = 0
for pid, label, lo, hi, detail in db.execute(
        "SELECT pair_id, label, ci_lo, ci_hi, detail_json FROM records"
        " WHERE final = 1 AND status = 'OK'"):
    used = json.loads(detail)["tie_margin"]
    assert abs(used - want) < 1e-12, (pid, used, want)
    up, down = 1 + used, 1 / (1 + used)
    expect = ("TIED" if lo >= down and hi <= up else "FASTER" if lo > up
              else "SLOWER" if hi < down else "AMBIGUOUS")
    assert label == expect, (pid, label, expect, lo, hi)
    n += 1
assert n >= 3, n
print(f"t3600: {n} records labelled with margin {want}")
PY
done
# the tight margin must have changed something, or the test proves nothing
a=$(final_outcomes "$tmp/short.db" | awk '{print $4}' | tr '\n' ' ')
b=$(final_outcomes "$tmp/long.db" | awk '{print $4}' | tr '\n' ' ')
[ "$a" != "$b" ] || fail "the margins changed no label: $a"
echo "t3600: short: $a"
echo "t3600: long:  $b"
exit $((fails > 0))
