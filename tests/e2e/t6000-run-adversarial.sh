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
load_mark run
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
busy=$(load_since run)
n=0
while read -r pid cond expect outcome guard; do
	n=$((n + 1))
	# a busy machine makes workers miss their watchdog (the campaign's 20 s)
	# and makes the orchestrator read its frames late, which takes the clock
	# cross-check's power (never its false-alarm rate): those outcomes say
	# nothing about the guard, so they are skipped, visibly
	if too_busy "$busy" && [ "$outcome" = TIMEOUT ] && [ "$expect" != TIMEOUT ]; then
		skip_busy "$busy" "$pid (a TIMEOUT on a busy machine)"
		continue
	fi
	if too_busy "$busy" && [ "${pid#*/adv_clock_bend/}" != "$pid" ] && [ "$outcome" != "$expect" ]; then
		skip_busy "$busy" "$pid caught by the clock cross-check (got $outcome)"
		continue
	fi
	if [ "$expect" = TIED ]; then
		# an exploit whose gain the protocol removed: correct, and no faster
		# than honest work (a copy of the reference's code may still land a
		# few percent off: code placement alone moves a cpu kernel)
		case "$outcome" in TIED | SLOWER | AMBIGUOUS) ;; *) fail "$pid: expected no gain (TIED), got $outcome ($guard)" ;; esac
	elif [ "${pid#*/adv_memo_}" != "$pid" ] && [ "$expect" = INCORRECT_NUMERICAL ] &&
		[ "$outcome $guard" = "REWARD_HACK input_memo" ]; then
		# a memoizer that skips its work where it sees new inputs is wrong
		# where a check lands and fast where the memoization test looks:
		# either guard may end it first (once in a test-fast run, session 22)
		echo "note: $pid ended by input_memo before a check found it wrong"
	else
		[ "$outcome" = "$expect" ] || fail "$pid: expected $expect, got $outcome ($guard)"
	fi
	[ "$outcome" = FASTER ] && fail "$pid: an exploit was labelled FASTER"
	# an exploit whose gain the protocol removed is TIED with no guard
	[ "$guard" = - ] && [ "$expect" != TIED ] && fail "$pid: no guard recorded"
done < <(final_outcomes "$tmp/r.db")
[ "$n" -ge 17 ] || fail "expected at least 17 exploits, got $n"
# wrong results that passed before (issue 17, class 3): each caught by its own guard.
# |w| for w fails on the negate trial (variant 4), the only one that draws w < 0; a
# dithered constant fails because it does not move with the reference between instances.
python3 - "$tmp/r.db" <<'PY' || fail "class 3 exploits not caught as they should be"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT pair_id, status, guard, message FROM records WHERE final = 1").fetchall()
want = {"adv_abs_weight": ("INCORRECT_NUMERICAL", "tolerance", "variant 4"),
        "adv_abs_square_over_abs": ("INCORRECT_NUMERICAL", "tolerance", "variant 4"),
        "adv_abs_max_neg": ("INCORRECT_NUMERICAL", "tolerance", "variant 4"),
        "adv_dither_address": ("REWARD_HACK", "input_independent_output", "does not follow its inputs"),
        "adv_dither_counter": ("REWARD_HACK", "input_independent_output", "does not follow its inputs"),
        "adv_dither_hash": ("REWARD_HACK", "input_independent_output", "does not follow its inputs")}
seen = set()
for pid, status, guard, message in rows:
    cand = pid.split("/")[1]
    if cand in want:
        seen.add(cand)
        st, g, text = want[cand]
        if (status, guard) != (st, g) or text not in (message or ""):
            print(f"FAIL: {pid}: {status} {guard}: {message}")
            sys.exit(1)
missing = set(want) - seen
if missing:
    print("FAIL: no record for", sorted(missing))
    sys.exit(1)
PY
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
[ "$fails" -eq 0 ] && echo "t6000: $n exploits caught as declared (less $skips skipped)"
test_exit
