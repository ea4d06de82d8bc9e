#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4100-show-pair.sh: `nodus show DB PAIR` on a store built from an SQL
# fixture: every attempt of the pair, oldest first, with its whole message
# (every line of it) and its detail; --condition keeps one condition; a
# part of an id that names one pair is enough; an unknown or ambiguous
# pair, an unknown condition, a missing store and bad usage exit 2; the
# store gets no file beside it.
# ------------------------------------------------------------------------
set -u
NODUS=${NODUS:-nodus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

db="$tmp/s.db"
: >"$db"
"$NODUS" db migrate "$db" >/dev/null || { echo "FAIL: fixture store"; exit 1; }
python3 - "$db" <<'PY' || { echo "FAIL: fixture"; exit 1; }
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = "d" * 64
pairs = [dict(id=i, task="t1", workload="w", candidate="c" + i, reference="r", expect=None)
         for i in ("w/crash_me/r", "w/fine/r")]
plan = dict(kind="plan", format=1, name="fixture", digest=d, pairs=pairs,
            conditions=[dict(name="isolated", kind="isolated"), dict(name="shared", kind="mps")],
            target=dict(backend="cpu", price_per_device_hour_usd=None))
db.execute("INSERT INTO plans VALUES (?, 'fixture', ?, 0)", (d, json.dumps(plan)))
rows = [("w/crash_me/r", "isolated", 1, 0, "TIMEOUT", None, "watchdog: 10 s without a frame", None),
        ("w/crash_me/r", "isolated", 2, 1, "CRASH", None,
         "worker died: signal 11 (SIGSEGV)\nat the candidate's third call", '{"strays_killed": 1}'),
        ("w/crash_me/r", "shared", 1, 1, "COMPILE_ERROR", None,
         "cand.c:3:1: error: expected ';'\ncand.c:9:5: error: unknown type name 'flaot'", None),
        ("w/fine/r", "isolated", 1, 1, "OK", "TIED", None, '{"tie_margin": 0.01}'),
        # a final NOT_ISOLATED record that a resumed run tried again
        ("w/fine/r", "shared", 1, 1, "NOT_ISOLATED", None, "other load", None),
        ("w/fine/r", "shared", 2, 1, "OK", "FASTER", None, None)]
for p, cond, att, fin, st, lab, msg, detail in rows:
    db.execute("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, "
               "label, speedup, ci_lo, ci_hi, rounds, looks, compile_cache_hits, device_s, "
               "charge_share, compile_s, validation_s, target_hash, message, detail_json) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,10,1,0,100,1,1,0.5,'',?,?)",
               (d, p, cond, att, fin, st, lab, 1.0 if lab else None, 0.99 if lab else None,
                1.01 if lab else None, msg, detail))
db.commit()
PY
before=$(ls -A "$tmp" | grep "^s\.db" | tr "\n" " ")

# 1.1 every attempt, oldest first, each message whole
"$NODUS" show "$db" w/crash_me/r >"$tmp/out" 2>"$tmp/err" || fail "1.1 exit $?: $(cat "$tmp/err")"
python3 - "$tmp/out" <<'PY' || fail "1.1 output: $(cat "$tmp/out")"
import sys
t = open(sys.argv[1]).read()
order = [t.index(s) for s in ("attempt 1 under isolated: TIMEOUT",
                              "attempt 2 under isolated (final): CRASH",
                              "attempt 1 under shared (final): COMPILE_ERROR")]
assert order == sorted(order), order
assert "    worker died: signal 11 (SIGSEGV)\n    at the candidate's third call\n" in t
assert "    cand.c:3:1: error: expected ';'\n    cand.c:9:5: error: unknown type name 'flaot'\n" in t
assert '"strays_killed": 1' in t
assert "w/fine/r" not in t.split("\n", 1)[1]
PY
# 1.2 --condition keeps one condition; --opt=value is the same
"$NODUS" show "$db" crash_me --condition=shared >"$tmp/out" 2>"$tmp/err" || fail "1.2 exit $?: $(cat "$tmp/err")"
grep -q "COMPILE_ERROR" "$tmp/out" || fail "1.2 no shared attempt"
grep -q "under isolated" "$tmp/out" && fail "1.2 isolated attempts shown"
# 1.3 an OK attempt shows its label and interval
"$NODUS" show "$db" fine >"$tmp/out" || fail "1.3 exit $?"
grep -q "attempt 1 under isolated (final): OK TIED" "$tmp/out" || fail "1.3 label: $(cat "$tmp/out")"
grep -q "speedup: 1 \[0.99, 1.01\]" "$tmp/out" || fail "1.3 interval: $(cat "$tmp/out")"
# 1.4 a final NOT_ISOLATED record tried again says it does not decide
"$NODUS" show "$db" fine --condition shared >"$tmp/out" || fail "1.4 exit $?"
grep -q "attempt 1 under shared (final, then tried again: it does not decide): NOT_ISOLATED" "$tmp/out" ||
	fail "1.4 superseded: $(cat "$tmp/out")"
grep -q "attempt 2 under shared (final): OK FASTER" "$tmp/out" || fail "1.4 deciding: $(cat "$tmp/out")"
# 2.x refusals, exit 2
"$NODUS" show "$db" nope >/dev/null 2>"$tmp/err"; [ $? = 2 ] || fail "2.1 unknown pair"
grep -q "has no pair 'nope'" "$tmp/err" || fail "2.1 message: $(cat "$tmp/err")"
"$NODUS" show "$db" w/ >/dev/null 2>"$tmp/err"; [ $? = 2 ] || fail "2.2 ambiguous pair"
grep -q "part of 2 pair ids" "$tmp/err" || fail "2.2 message: $(cat "$tmp/err")"
"$NODUS" show "$db" fine --condition nope >/dev/null 2>&1; [ $? = 2 ] || fail "2.3 unknown condition"
"$NODUS" show "$tmp/none.db" fine >/dev/null 2>&1; [ $? = 2 ] || fail "2.4 missing store"
[ -e "$tmp/none.db" ] && fail "2.4 store created"
"$NODUS" show "$db" >/dev/null 2>&1; [ $? = 2 ] || fail "2.5 no pair"
"$NODUS" show "$db" fine --frob >/dev/null 2>&1; [ $? = 2 ] || fail "2.6 unknown option"
"$NODUS" show --help | grep -q "usage: nodus show DB PAIR" || fail "2.7 help"
# 3.1 nothing created beside the store
[ "$(ls -A "$tmp" | grep "^s\.db" | tr "\n" " ")" = "$before" ] || fail "3.1 files created: $(ls -A "$tmp")"
[ "$fails" -eq 0 ] && echo "t4100: all ok" || echo "t4100: $fails failure(s)"
[ "$fails" -eq 0 ]
