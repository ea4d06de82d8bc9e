#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t6000-run-adversarial: every exploit of the CPU adversarial suite ends with
# the non-passing status its campaign declares (and so is never FASTER), and
# the guard that caught it is recorded. Writes the guard table rows for
# docs/guards.md to $GUARDS_OUT when that is set (scripts/guards-table.py).
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/suites/adversarial/campaign.json" 2.5
"$NODUS" plan "$tmp/suites/adversarial/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
n=0
while read -r pid cond expect outcome guard; do
	n=$((n + 1))
	[ "$outcome" = "$expect" ] || fail "$pid: expected $expect, got $outcome ($guard)"
	[ "$outcome" = FASTER ] && fail "$pid: an exploit was labelled FASTER"
	[ "$guard" = - ] && fail "$pid: no guard recorded"
done < <(final_outcomes "$tmp/r.db")
[ "$n" -ge 17 ] || fail "expected at least 17 exploits, got $n"
# a candidate tagged guard_NAME must be caught by that guard: a status alone
# (CRASH, INPUT_MUTATED) cannot tell a named guard from a plain signal death
python3 - "$tmp/r.db" "$tmp/suites/adversarial/campaign.json" <<'PY' || fails=$((fails + 1))
import json, os, sqlite3, sys
db, campaign = sys.argv[1], sys.argv[2]
root = os.path.dirname(campaign)
want = {}
for path in json.load(open(campaign))["solutions"]:
    sol = json.load(open(os.path.join(root, path)))
    for tag in sol.get("tags", []):
        if tag.startswith("guard_"):
            want[sol["name"]] = tag[len("guard_"):]
bad = 0
for pid, cand, guard in sqlite3.connect(db).execute(
        "SELECT r.pair_id, p.candidate, r.guard FROM records r JOIN pairs p"
        " ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id WHERE r.final = 1"):
    if cand in want and guard != want[cand]:
        print(f"FAIL: {pid}: expected guard {want[cand]}, got {guard}")
        bad += 1
sys.exit(1 if bad else 0)
PY
[ -n "${GUARDS_OUT:-}" ] && cp "$tmp/r.db" "$GUARDS_OUT"
[ "$fails" -eq 0 ] && echo "t6000: $n exploits caught as declared"
exit $((fails > 0))
