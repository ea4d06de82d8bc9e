#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4000-report-basic.sh: `nodus report` on a store built from an SQL
# fixture (no measurement): the JSON numbers are the hand-computed ones,
# the text and CSV forms carry them, -o writes a file, and bad usage,
# a missing store and an unknown plan exit 2.
#
# Fixture: 4 pairs over 2 tasks, isolated vs shared, price 3.6 $/h.
#   pair  isolated          shared
#   a     FASTER            FASTER     agree
#   b     TIED              FASTER     false fast
#   c     SLOWER            SLOWER     agree
#   d     CRASH (2 tries)   CRASH      left out: the baseline has no label
# agreement over a, b, c: 2/3; chance agreement (1*2 + 1*0 + 1*1)/9 = 1/3,
# so kappa (2/3 - 1/3)/(1 - 1/3) = 1/2.
# ------------------------------------------------------------------------
set -u
NODUS=${NODUS:-nodus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check DESCRIPTION EXPECTED_RC ACTUAL_RC
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: expected exit $2, got $3"; cat "$tmp/err" 2>/dev/null; fails=$((fails + 1))
	else
		echo "ok: $1"
	fi
}
grep_ok() { # grep_ok DESCRIPTION PATTERN FILE
	if grep -q -- "$2" "$3"; then echo "ok: $1"; else
		echo "FAIL: $1: '$2' not in:"; cat "$3"; fails=$((fails + 1)); fi
}

db="$tmp/s.db"
: >"$db"
"$NODUS" db migrate "$db" >/dev/null 2>"$tmp/err"; check "0.1 fixture store" 0 $?
python3 - "$db" <<'PY' || { echo "FAIL: fixture"; exit 1; }
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d, t = "d" * 64, "e" * 64
pairs = [dict(id=i, task=task, workload="w", candidate="c" + i, reference="r", expect=None)
         for i, task in (("a", "t1"), ("b", "t1"), ("c", "t2"), ("d", "t2"))]
plan = dict(kind="plan", format=1, name="fixture", digest=d, pairs=pairs,
            conditions=[dict(name="isolated", kind="isolated"),
                        dict(name="shared", kind="mps", tenants=2)],
            target=dict(backend="cpu", price_per_device_hour_usd=3.6))
db.execute("INSERT INTO plans VALUES (?, 'fixture', ?, 0)", (d, json.dumps(plan)))
db.execute("INSERT INTO targets VALUES (?, '{\"cpu\":\"x\"}', 0)", (t,))
rows = [("a", "isolated", 1, 1, "OK", "FASTER", 1.5, 1.4, 1.6),
        ("b", "isolated", 1, 1, "OK", "TIED", 1.0, 0.99, 1.01),
        ("c", "isolated", 1, 1, "OK", "SLOWER", 0.5, 0.4, 0.6),
        ("d", "isolated", 1, 0, "TIMEOUT", None, None, None, None),
        ("d", "isolated", 2, 1, "CRASH", None, None, None, None),
        ("a", "shared", 1, 1, "OK", "FASTER", 1.4, 1.3, 1.5),
        ("b", "shared", 1, 1, "OK", "FASTER", 1.2, 1.1, 1.3),
        ("c", "shared", 1, 1, "OK", "SLOWER", 0.6, 0.5, 0.7),
        ("d", "shared", 1, 1, "CRASH", None, None, None, None)]
for p, cond, att, fin, st, lab, s, lo, hi in rows:
    db.execute("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, "
               "label, speedup, ci_lo, ci_hi, rounds, looks, compile_cache_hits, device_s, "
               "charge_share, compile_s, validation_s, target_hash, detail_json, message) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,10,1,0,100,1,1,0.5,?,?,?)",
               (d, p, cond, att, fin, st, lab, s, lo, hi, t,
                # labelled with a margin of its own (as a short call is)
                '{"tie_margin": 0.05}' if (p, cond) == ("b", "shared") else None,
                # a failure's whole text, with what each format must escape
                'worker died: signal 11, "SIGSEGV" <at> &\nsecond line'
                if (p, cond) == ("d", "shared") else None))
db.commit()
PY

# 1.1 JSON: the hand-computed numbers
"$NODUS" report "$db" --format json -o "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"; check "1.1 json" 0 $?
python3 - "$tmp/r.json" <<'PY' && echo "ok: 1.1 numbers" || { echo "FAIL: 1.1 numbers"; fails=$((fails + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["baseline"] == "isolated", r["baseline"]
c = {x["name"]: x for x in r["conditions"]}["shared"]
assert abs(c["agreement"]["estimate"] - 2 / 3) < 1e-9, c["agreement"]
assert abs(c["kappa"]["estimate"] - 0.5) < 1e-9, c["kappa"]
assert c["agreement"]["lo"] <= 2 / 3 <= c["agreement"]["hi"]
assert c["scored"] == 3 and c["agreeing"] == 2, c
assert c["left_out"] == [{"baseline": "CRASH", "count": 1, "pairs": ["d"],
                          "reason": "the baseline isolated ended CRASH: no label to agree with"}], c["left_out"]
assert [f["pair"] for f in c["false_fast"]] == ["b"], c["false_fast"]
assert c["cost"]["attempts"] == 4 and c["cost"]["failures"] == 1
iso = {x["name"]: x for x in r["conditions"]}["isolated"]
assert iso["cost"]["retries"] == 1 and iso["cost"]["failures"] == 2
assert abs(c["cost"]["usd"] - 0.4) < 1e-9, c["cost"]          # 400 s at 3.6 $/h
assert abs(c["agreeing_per_usd"] - 5.0) < 1e-9, c["agreeing_per_usd"]  # 2 agreeing / $0.4
assert r["pairs"][3]["labels"] == {"isolated": "CRASH", "shared": "CRASH"}
assert r["excluded"] == []
PY

# 1.1b the whole failure message, in JSON and in the trace log
python3 - "$tmp/r.json" <<'PY' && echo "ok: 1.1b message" || { echo "FAIL: 1.1b message"; fails=$((fails + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
d = [p for p in r["pairs"] if p["id"] == "d"][0]
assert d["messages"] == {"isolated": None,
                         "shared": 'worker died: signal 11, "SIGSEGV" <at> &\nsecond line'}, d
PY
"$NODUS" report "$db" --format trace >"$tmp/trace" 2>"$tmp/err"; check "1.1c trace" 0 $?
grep_ok "1.1c trace log" '"log":"nodus CRASH: worker died: signal 11, \\"SIGSEGV\\" <at> &\\nsecond line"' "$tmp/trace"

# 1.2 text and CSV carry the same content; the report is reproducible
"$NODUS" report "$db" >"$tmp/text" 2>"$tmp/err"; check "1.2 text" 0 $?
grep_ok "1.2 false fast" "false fast (FASTER here, not in isolated): 1" "$tmp/text"
grep_ok "1.2 kappa" "kappa 0.500" "$tmp/text"
grep_ok "1.2 left out" "left out of the agreement: 1 pair(s), the baseline isolated ended CRASH: no label to agree with: d" "$tmp/text"
"$NODUS" report "$db" --format csv >"$tmp/csv" 2>"$tmp/err"; check "1.3 csv" 0 $?
python3 - "$tmp/csv" <<'PY' && echo "ok: 1.3 rows" || { echo "FAIL: 1.3 rows"; fails=$((fails + 1)); }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 8, len(rows)
d = [r for r in rows if r["pair_id"] == "d" and r["condition"] == "shared"][0]
assert d["message"] == 'worker died: signal 11, "SIGSEGV" <at> &\nsecond line', d
assert d["agrees"] == "" and d["outcome"] == "CRASH", d   # its baseline failed
PY
grep_ok "1.3 row" ",b,t1,cb,r,,shared,mps,isolated,FASTER,TIED,0,0,,1,1,1.2,1.1,1.3,0.05,,$" "$tmp/csv"
grep_ok "1.3 row, plan's margin" ",a,t1,ca,r,,shared,mps,isolated,FASTER,FASTER,1,0,,1,1,1.4,1.3,1.5,,,$" "$tmp/csv"
grep_ok "1.3 row, decided by a retry" ",d,t2,cd,r,,isolated,isolated,isolated,CRASH,CRASH,,0,,2,2,,,,,,$" "$tmp/csv"
"$NODUS" report "$db" --format json >"$tmp/again" 2>"$tmp/err"
cmp -s "$tmp/again" "$tmp/r.json" && echo "ok: 1.4 reproducible" || { echo "FAIL: 1.4 differs"; fails=$((fails + 1)); }

# 1.5 another baseline
"$NODUS" report "$db" --baseline shared --format json >"$tmp/b.json" 2>"$tmp/err"; check "1.5 baseline" 0 $?
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['baseline']=='shared'" "$tmp/b.json" \
	&& echo "ok: 1.5 named" || { echo "FAIL: 1.5"; fails=$((fails + 1)); }

# 1.6 a plan with no records: not enough data, never a perfect 1.000
python3 - "$db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = "9" * 64
plan = dict(kind="plan", format=1, name="empty", digest=d,
            pairs=[dict(id="a", task="t1", workload="w", candidate="ca", reference="r")],
            conditions=[dict(name="isolated", kind="isolated"), dict(name="shared", kind="mps")],
            target=dict(backend="cpu", price_per_device_hour_usd=3.6))
db.execute("INSERT INTO plans VALUES (?, 'empty', ?, 0)", (d, json.dumps(plan)))
db.commit()
PY
"$NODUS" report "$db" --plan "$(printf '9%.0s' $(seq 64))" >"$tmp/text" 2>"$tmp/err"; check "1.6 empty plan" 0 $?
grep_ok "1.6 not enough data" "agreement and kappa: not enough data: no compared pair has a label under the baseline isolated" "$tmp/text"
grep -q "1\.000" "$tmp/text" && { echo "FAIL: 1.6 a perfect figure for no data"; fails=$((fails + 1)); }

# 2.x errors
"$NODUS" report "$tmp/none.db" >"$tmp/out" 2>"$tmp/err"; check "2.1 missing store" 2 $?
[ ! -e "$tmp/none.db" ] && echo "ok: 2.1 not created" || { echo "FAIL: 2.1 created"; fails=$((fails + 1)); }
"$NODUS" report "$db" --plan "$(printf 'f%.0s' $(seq 64))" >"$tmp/out" 2>"$tmp/err"; check "2.2 unknown plan" 2 $?
grep_ok "2.2 message" "no plan" "$tmp/err"
"$NODUS" report "$db" --format pdf >"$tmp/out" 2>"$tmp/err"; check "2.3 bad format" 2 $?
"$NODUS" report "$db" --baseline nope >"$tmp/out" 2>"$tmp/err"; check "2.4 bad baseline" 2 $?
grep_ok "2.4 message" "baseline condition 'nope'" "$tmp/err"
"$NODUS" report "$db" --frob >"$tmp/out" 2>"$tmp/err"; check "2.5 unknown option" 2 $?
"$NODUS" report --help >"$tmp/out" 2>"$tmp/err"; check "2.6 help" 0 $?
# 2.7 -o never names the store (under any name): refused, the store intact
sum=$(sha256sum <"$db")
ln -s "$db" "$tmp/alias.db"
"$NODUS" report "$db" -o "$tmp/alias.db" >"$tmp/out" 2>"$tmp/err"; check "2.7 -o the store" 2 $?
grep_ok "2.7 message" "is the store file" "$tmp/err"
[ "$(sha256sum <"$db")" = "$sum" ] && echo "ok: 2.7 store intact" || { echo "FAIL: 2.7 store overwritten"; fails=$((fails + 1)); }

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
