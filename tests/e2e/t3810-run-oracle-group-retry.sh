#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3810-run-oracle-group-retry: an attempt retried inside an oracle group
# keeps the group's records consistent. The rmsnorm pairs form a group led
# by rmsnorm_fast; NODUS_TEST_NOT_ISOLATED_ONCE refuses the first attempt of
# the leader and of one follower (rmsnorm_equiv) at their isolation check,
# deterministically, whatever the machine's load. Each is retried and ends
# OK; the followers name their leader's record by pair and attempt, that
# record lists every one of them, each listed pair has one record naming it,
# and every record's detail.phases is complete (lib/check_records.py). The
# forced refusals say so in their records; nothing else was refused.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" rmsnorm >/dev/null
# the machine's own load refuses nothing (2 cores at most here): every
# NOT_ISOLATED below is the forced one
relax_isolation "$tmp/suites/cpu/campaign.json" 1000
# nor does it make a pair TIMEOUT (the sanitizer build on a loaded machine
# takes minutes per pair): the retries below are the forced ones alone
set_judge "$tmp/suites/cpu/campaign.json" timeout_s 900
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
lead=rmsnorm_256x1024/rmsnorm_fast/rmsnorm_ref
follower=rmsnorm_256x1024/rmsnorm_equiv/rmsnorm_ref
NODUS_TEST_NOT_ISOLATED_ONCE="$lead,$follower" "$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" \
	--condition isolated -q || fail "run exited $?"
python3 - "$tmp/r.db" "$lead" "$follower" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
db, lead, follower = sqlite3.connect(sys.argv[1]), sys.argv[2], sys.argv[3]
recs = {(p, n): (f, s, json.loads(d)) for p, n, f, s, d in db.execute(
    "SELECT pair_id, attempt, final, status, detail_json FROM records")}
bad = []
refused = sorted((p, n) for (p, n), (_, s, _) in recs.items() if s == "NOT_ISOLATED")
if refused != sorted([(lead, 1), (follower, 1)]):
    bad.append(f"refused attempts {refused}, expected the first of {lead} and {follower}")
for p in (lead, follower):
    first, again = recs.get((p, 1)), recs.get((p, 2))
    if not first or first[0] != 0 or \
            first[2].get("isolation_before", {}).get("forced_by") != "NODUS_TEST_NOT_ISOLATED_ONCE":
        bad.append(f"{p}: attempt 1 is {first and first[:2]}, not a forced refusal")
    if not again or again[:2] != (1, "OK") or "forced_by" in again[2].get("isolation_before", {}):
        bad.append(f"{p}: attempt 2 is {again and again[:2]}, expected final and OK")
g = recs.get((lead, 1), (0, 0, {}))[2].get("oracle_group", {})
if (g.get("leader"), g.get("leader_attempt")) != (lead, 1) or len(g.get("pairs", [])) < 3 or \
        follower not in g["pairs"]:
    bad.append(f"{lead} attempt 1 did not lead a group with {follower} in it: {g}")
fg = recs.get((follower, 1), (0, 0, {}))[2].get("oracle_group", {})
if (fg.get("leader"), fg.get("leader_attempt")) != (lead, 1):
    bad.append(f"{follower} attempt 1 does not name {lead} attempt 1 as its leader: {fg}")
# the group's other members ran once, final, from that oracle
for p in g.get("pairs", [])[1:]:
    if p == follower:
        continue
    r = recs.get((p, 1))
    if not r or r[0] != 1 or (r[2].get("oracle_group", {}).get("leader"),
                              r[2]["oracle_group"].get("leader_attempt")) != (lead, 1):
        bad.append(f"{p}: attempt 1 is not a final record in {lead} attempt 1's group")
finals = [(p, s) for (p, n), (f, s, _) in recs.items() if f]
if len(finals) != 6 or any(s not in ("OK", "INCORRECT_NUMERICAL") for _, s in finals):
    bad.append(f"final records {finals}")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print(f"t3810: {lead} and {follower} refused once and retried; group {g['pairs']}")
PY
python3 "$(dirname "$0")/lib/check_records.py" "$tmp/r.db" --want-followers || fails=$((fails + 1))
[ "$fails" -eq 0 ] && echo "t3810: a retried oracle group's records name each other"
exit $((fails > 0))
