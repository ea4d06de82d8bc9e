#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4010-report-expect.sh: `nodus report` checks each pair's declared
# `expect` (issue 25) against every condition's outcome, on a store built
# from an SQL fixture (no measurement), and every format says the same:
#   1. JSON: pairs[].expect_mismatch per condition (true, false, or null
#      when there is nothing to check), conditions[].expect_checked and
#      expect_mismatches, the top-level expect_mismatches;
#   2. text: the contradicting outcomes marked "!", one summary line with
#      the count and a line per such pair, the deciding attempt (#2/2);
#   3. CSV: the expect_mismatch column (1, 0, empty), attempt, attempts;
#   4. HTML: the contradicting outcomes marked, the wrong baseline's
#      expect cell marked, the deciding attempt;
# and the pairs whose outcomes meet their expect are marked nowhere.
#
# Fixture: 8 pairs, isolated (baseline) vs shared.
#   pair     expect      isolated            shared      contradicts
#   good     FASTER      FASTER              FASTER      -
#   wrong    FASTER      SLOWER              SLOWER      both (declared wrongly on purpose)
#   tied     TIED        TIED                FASTER      shared only
#   equiv    EQUIVALENT  AMBIGUOUS           FASTER      -
#   fail     FAIL        TIMEOUT, CRASH (2)  CRASH       -
#   ok       OK          SLOWER              TIED        -
#   none     (none)      FASTER              FASTER      nothing to check
#   missing  SLOWER      SLOWER              (no record) nothing to check under shared
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
py_ok() { # py_ok DESCRIPTION (script on stdin, arguments after)
	local what=$1; shift
	if python3 - "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

db="$tmp/s.db"
: >"$db"
"$NODUS" db migrate "$db" >/dev/null 2>"$tmp/err"; check "0.1 fixture store" 0 $?
python3 - "$db" <<'PY' || { echo "FAIL: fixture"; exit 1; }
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d, t = "d" * 64, "e" * 64
expects = [("good", "FASTER"), ("wrong", "FASTER"), ("tied", "TIED"), ("equiv", "EQUIVALENT"),
           ("fail", "FAIL"), ("ok", "OK"), ("none", None), ("missing", "SLOWER")]
pairs = [dict(id=i, task="t1" if n < 4 else "t2", workload="w", candidate="c" + i, reference="r",
              expect=e) for n, (i, e) in enumerate(expects)]
plan = dict(kind="plan", format=1, name="expect", digest=d, pairs=pairs,
            conditions=[dict(name="isolated", kind="isolated"),
                        dict(name="shared", kind="mps", tenants=2)],
            target=dict(backend="cpu", price_per_device_hour_usd=3.6))
db.execute("INSERT INTO plans VALUES (?, 'expect', ?, 0)", (d, json.dumps(plan)))
db.execute("INSERT INTO targets VALUES (?, '{\"cpu\":\"x\"}', 0)", (t,))
F, S, T, A = (("OK", x) for x in ("FASTER", "SLOWER", "TIED", "AMBIGUOUS"))
rows = [("good", "isolated", 1, 1, F), ("good", "shared", 1, 1, F),
        ("wrong", "isolated", 1, 1, S), ("wrong", "shared", 1, 1, S),
        ("tied", "isolated", 1, 1, T), ("tied", "shared", 1, 1, F),
        ("equiv", "isolated", 1, 1, A), ("equiv", "shared", 1, 1, F),
        ("fail", "isolated", 1, 0, ("TIMEOUT", None)), ("fail", "isolated", 2, 1, ("CRASH", None)),
        ("fail", "shared", 1, 1, ("CRASH", None)),
        ("ok", "isolated", 1, 1, S), ("ok", "shared", 1, 1, T),
        ("none", "isolated", 1, 1, F), ("none", "shared", 1, 1, F),
        ("missing", "isolated", 1, 1, S)]
iv = {"FASTER": (1.5, 1.4, 1.6), "SLOWER": (0.5, 0.4, 0.6), "TIED": (1.0, 0.99, 1.01),
      "AMBIGUOUS": (1.1, 0.9, 1.3), None: (None, None, None)}
for p, cond, att, fin, (st, lab) in rows:
    db.execute("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, "
               "label, speedup, ci_lo, ci_hi, rounds, looks, compile_cache_hits, device_s, "
               "charge_share, compile_s, validation_s, target_hash) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,10,1,0,100,1,1,0.5,?)",
               (d, p, cond, att, fin, st, lab) + iv[lab] + (t,))
db.commit()
PY

# what every format must say: pair -> {condition: contradicts (None: not checked)}
cat >"$tmp/want.json" <<'EOF'
{"good":    {"isolated": false, "shared": false},
 "wrong":   {"isolated": true,  "shared": true},
 "tied":    {"isolated": false, "shared": true},
 "equiv":   {"isolated": false, "shared": false},
 "fail":    {"isolated": false, "shared": false},
 "ok":      {"isolated": false, "shared": false},
 "none":    {"isolated": null,  "shared": null},
 "missing": {"isolated": false, "shared": null}}
EOF

# 1. JSON
"$NODUS" report "$db" --format json -o "$tmp/r.json" 2>"$tmp/err"; check "1.0 json" 0 $?
py_ok "1.1 json marks" "$tmp/r.json" "$tmp/want.json" <<'PY'
import json, sys
r, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = {p["id"]: p["expect_mismatch"] for p in r["pairs"]}
assert got == want, got
assert r["expect_mismatches"] == 2, r["expect_mismatches"]
c = {x["name"]: x for x in r["conditions"]}
assert (c["isolated"]["expect_checked"], c["isolated"]["expect_mismatches"]) == (7, 1), c["isolated"]
assert (c["shared"]["expect_checked"], c["shared"]["expect_mismatches"]) == (6, 2), c["shared"]
fail = [p for p in r["pairs"] if p["id"] == "fail"][0]
assert fail["decided_by"]["isolated"] == {"attempt": 2, "attempts": 2}, fail["decided_by"]
PY

# 2. text: the summary, the marks on exactly the contradicting outcomes
"$NODUS" report "$db" >"$tmp/text" 2>"$tmp/err"; check "2.0 text" 0 $?
py_ok "2.1 text marks" "$tmp/text" "$tmp/want.json" <<'PY'
import json, re, sys
text, want = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
summary = ("\n2 pair(s) contradict their expect (7 of 8 pairs declare one):\n"
           "  wrong: expect FASTER; isolated SLOWER, shared SLOWER\n"
           "  tied: expect TIED; shared FASTER\n")
assert summary in text, text
assert "!OUTCOME: contradicts the pair's expect" in text, text
lines = text.split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("pair "))
w = max(4, max(len(p) for p in want))  # the pair column, then 2 + 10 for expect
for line in lines[head + 1:head + 1 + len(want)]:
    pid = line.split()[0]
    # the pair's cells, in condition order: "!" opens a contradicting one
    cells = re.findall(r"(!?)(?:FASTER|SLOWER|TIED|AMBIGUOUS|CRASH|MISSING)\b", line[w + 12:])
    marks = [m == "!" for m in cells]
    assert marks == [bool(want[pid][k]) for k in ("isolated", "shared")], (pid, line)
fail = next(l for l in lines if l.startswith("fail "))
assert "CRASH #2/2" in fail, fail
assert "#A/N: decided by attempt A" in text, text
assert "  contradict their expect: 1 of 7 pairs that declare one\n" in text, text
assert "  contradict their expect: 2 of 6 pairs that declare one\n" in text, text
PY

# 3. CSV: one expect_mismatch per pair x condition, the deciding attempt
"$NODUS" report "$db" --format csv >"$tmp/csv" 2>"$tmp/err"; check "3.0 csv" 0 $?
py_ok "3.1 csv column" "$tmp/csv" "$tmp/want.json" <<'PY'
import csv, json, sys
rows, want = list(csv.DictReader(open(sys.argv[1], newline=""))), json.load(open(sys.argv[2]))
assert len(rows) == 16, len(rows)
code = {True: "1", False: "0", None: ""}
for r in rows:
    assert r["expect_mismatch"] == code[want[r["pair_id"]][r["condition"]]], r
fail = [r for r in rows if (r["pair_id"], r["condition"]) == ("fail", "isolated")][0]
assert (fail["attempt"], fail["attempts"]) == ("2", "2"), fail
miss = [r for r in rows if (r["pair_id"], r["condition"]) == ("missing", "shared")][0]
assert (miss["outcome"], miss["attempt"], miss["attempts"]) == ("MISSING", "", "0"), miss
PY

# 4. HTML: the contradicting outcomes marked, and only those
"$NODUS" report "$db" --format html -o "$tmp/r.html" 2>"$tmp/err"; check "4.0 html" 0 $?
py_ok "4.1 html marks" "$tmp/r.html" "$tmp/want.json" <<'PY'
import json, re, sys
page, want = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
assert '<p class="m">2 pair(s) contradict their expect' in page
labels = page[page.index("<h2>Labels by pair</h2>"):]
labels = labels[:labels.index("</table>")]
rows = {}
for row in re.findall(r"<tr><td>(.*?)</tr>", labels):
    pid = row.split("</td>")[0]
    if pid in want:
        rows[pid] = row
assert sorted(rows) == sorted(want), sorted(rows)
for pid, row in rows.items():
    cells = re.findall(r'<td class="[fstax](?: d)?"[^>]*>(.*?)</td>', row)
    marks = ["&#10007;" in cell for cell in cells]
    assert marks == [bool(want[pid][k]) for k in ("isolated", "shared")], (pid, row)
    # the expect cell: marked when the baseline contradicts it
    baseline_missed = '<td class="m" title="the baseline is ' in row
    assert baseline_missed == bool(want[pid]["isolated"]), (pid, row)
assert '<td class="m" title="the baseline is SLOWER, not as declared">&ne; FASTER</td>' in rows["wrong"]
assert "CRASH <span class=\"n\">attempt 2 of 2</span>" in rows["fail"], rows["fail"]
PY

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
