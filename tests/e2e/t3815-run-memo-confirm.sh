#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3815-run-memo-confirm: a first input_memo alarm is not final while
# max_attempts allows another attempt (docs/protocol.md, step 2). On the
# honest rmsnorm_slow pair NODUS_TEST_MEMO_ALARM_ONCE raises the alarm on
# its first attempt, deterministically: that record is REWARD_HACK
# input_memo, not final, says input_memo_confirm and that it was forced;
# the second attempt, which raises no alarm, is final and OK with a label.
# With max_attempts 1 the same forced alarm is the final record.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" rmsnorm >/dev/null
c=$tmp/suites/cpu/campaign.json
# the machine's load refuses nothing and times nothing out: the one retry
# below is the confirmation's
relax_isolation "$c" 1000
set_judge "$c" timeout_s 900
pair=rmsnorm_256x1024/rmsnorm_slow/rmsnorm_ref
"$NODUS" plan "$c" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
NODUS_TEST_MEMO_ALARM_ONCE="$pair" "$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" \
	--condition isolated -q || fail "run exited $?"
set_judge "$c" max_attempts 1
"$NODUS" plan "$c" -o "$tmp/plan1.json" >/dev/null || { echo "FAIL: plan with max_attempts 1"; exit 1; }
NODUS_TEST_MEMO_ALARM_ONCE="$pair" "$NODUS" run "$tmp/plan1.json" --db "$tmp/r1.db" \
	--condition isolated -q || fail "run with max_attempts 1 exited $?"
python3 - "$tmp/r.db" "$tmp/r1.db" "$pair" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
bad = []
pair = sys.argv[3]
recs = [(n, f, s, g, l, json.loads(d)) for n, f, s, g, l, d in sqlite3.connect(sys.argv[1]).execute(
    "SELECT attempt, final, status, guard, label, detail_json FROM records WHERE pair_id = ?"
    " ORDER BY attempt", (pair,))]
if len(recs) != 2:
    bad.append(f"{pair}: {len(recs)} records, expected the alarm and its confirmation")
else:
    (n1, f1, s1, g1, _, d1), (n2, f2, s2, g2, l2, d2) = recs
    memo1 = d1.get("timing", {}).get("input_memo", {})
    if (n1, f1, s1, g1) != (1, 0, "REWARD_HACK", "input_memo") or "input_memo_confirm" not in d1 \
            or memo1.get("forced_by") != "NODUS_TEST_MEMO_ALARM_ONCE":
        bad.append(f"{pair} attempt 1: {(n1, f1, s1, g1)}, confirm {d1.get('input_memo_confirm')},"
                   f" forced_by {memo1.get('forced_by')}: expected a forced, non-final alarm")
    if (n2, f2, s2) != (2, 1, "OK") or l2 is None or "input_memo_confirms" in d2:
        bad.append(f"{pair} attempt 2: {(n2, f2, s2, g2, l2)}: expected final, OK, labelled")
# the other pairs ran as without the hook: one final record each, after at
# most a first input_memo alarm of their own (a loaded machine's, which the
# same confirmation decides)
db = sqlite3.connect(sys.argv[1])
for p, n, finals, others in db.execute(
        "SELECT pair_id, count(*), sum(final), sum(final = 0 AND NOT (status = 'REWARD_HACK' AND"
        " guard = 'input_memo')) FROM records WHERE pair_id != ? GROUP BY pair_id", (pair,)):
    if finals != 1 or others or n > 2:
        bad.append(f"{p}: {n} records, {finals} final, {others} retried for another cause")
one = sqlite3.connect(sys.argv[2]).execute(
    "SELECT attempt, final, status, guard FROM records WHERE pair_id = ?", (pair,)).fetchall()
if one != [(1, 1, "REWARD_HACK", "input_memo")]:
    bad.append(f"max_attempts 1: {one}, expected the forced alarm final")
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("t3815: a first input_memo alarm was decided by another attempt; with one attempt it is final")
sys.exit(1 if bad else 0)
PY
exit $((fails > 0))
