#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4020-report-resolution.sh: on a store built from an SQL fixture (no
# measurement), `nodus report`
#   1. draws each condition's resolution curve from the pairs that declare
#      their true effect: grouped by its size in percent and direction, how
#      many met their expect, stayed AMBIGUOUS, went against it, failed, or
#      have no record yet (a study run in parts);
#   2. compares a preset condition (judge_preset kernelbench: verdicts, no
#      labels) with the baseline after binarizing its labels: FASTER is
#      BINARY_FASTER, SLOWER and TIED are BINARY_NOT_FASTER, AMBIGUOUS is
#      left out and said why; false fast are its BINARY_FASTER pairs whose
#      baseline is not FASTER; A/A pairs called faster are counted;
#   3. says what each condition does to effect sizes: the median of
#      log(speedup) / log(baseline speedup) over the pairs the baseline
#      decided, with an interval over tasks;
#   4. --conditions reports only the named conditions beside the baseline.
#
#   pair  effect expect  isolated    kb
#   f10   1.10   FASTER  FASTER      BINARY_FASTER
#   f10b  1.10   FASTER  AMBIGUOUS   BINARY_FASTER
#   f1    1.01   TIED    TIED        BINARY_FASTER      (false fast)
#   s5    1/1.05 SLOWER  SLOWER      BINARY_NOT_FASTER
#   s5b   1/1.05 SLOWER  FASTER      BINARY_NOT_FASTER  (a wrong label)
#   aa    1      TIED    TIED        BINARY_FASTER      (A/A; false fast)
#   crash 1.10   FASTER  CRASH       CRASH
#   later 1.10   FASTER  (no record) (no record)       (not run yet: missing,
#                                                       never "failed")
# ------------------------------------------------------------------------
set -u
NODUS=${NODUS:-nodus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
db="$tmp/s.db"
: >"$db"
"$NODUS" db migrate "$db" >/dev/null 2>&1 || { echo "FAIL: migrate"; exit 1; }
python3 - "$db" <<'PY' || { echo "FAIL: fixture"; exit 1; }
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d, t = "d" * 64, "e" * 64
rows = [("f10", 1.10, "FASTER", "FASTER", "BINARY_FASTER"),
        ("f10b", 1.10, "FASTER", "AMBIGUOUS", "BINARY_FASTER"),
        ("f1", 1.01, "TIED", "TIED", "BINARY_FASTER"),
        ("s5", 1 / 1.05, "SLOWER", "SLOWER", "BINARY_NOT_FASTER"),
        ("s5b", 1 / 1.05, "SLOWER", "FASTER", "BINARY_NOT_FASTER"),
        ("aa", 1.0, "TIED", "TIED", "BINARY_FASTER"),
        ("crash", 1.10, "FASTER", "CRASH", "CRASH"),
        ("later", 1.10, "FASTER", None, None)]
pairs = [dict(id=p, task="t%d" % (i % 3), workload="w", candidate="r" if p == "aa" else "c" + p,
              reference="r", expect=e, effect=eff) for i, (p, eff, e, _, _) in enumerate(rows)]
plan = dict(kind="plan", format=1, name="res", digest=d, pairs=pairs,
            conditions=[dict(name="isolated", kind="isolated"),
                        dict(name="kb", kind="isolated", judge_preset="kernelbench")],
            target=dict(backend="cpu", price_per_device_hour_usd=3.6))
db.execute("INSERT INTO plans VALUES (?, 'res', ?, 0)", (d, json.dumps(plan)))
db.execute("INSERT INTO targets VALUES (?, '{\"cpu\":\"x\"}', 0)", (t,))
iv = {"FASTER": (1.5, 1.4, 1.6), "SLOWER": (0.5, 0.4, 0.6), "TIED": (1.0, 0.99, 1.01),
      "AMBIGUOUS": (1.1, 0.9, 1.3)}
ins = ("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, label, "
       "verdict, speedup, ci_lo, ci_hi, rounds, looks, compile_cache_hits, device_s, "
       "charge_share, compile_s, validation_s, target_hash) "
       "VALUES (?,?,?,1,1,?,?,?,?,?,?,10,1,0,100,1,1,0.5,?)")
for p, _, _, base, kb in rows:
    if base is None:
        continue  # planned, never run
    if base == "CRASH":
        db.execute(ins, (d, p, "isolated", "CRASH", None, None, None, None, None, t))
        db.execute(ins, (d, p, "kb", "CRASH", None, None, None, None, None, t))
        continue
    db.execute(ins, (d, p, "isolated", "OK", base, None) + iv[base] + (t,))
    db.execute(ins, (d, p, "kb", "OK", None, kb, 1.2 if kb == "BINARY_FASTER" else 0.9, None, None, t))
db.commit()
PY
"$NODUS" report "$db" --format json -o "$tmp/r.json" 2>"$tmp/err" || { echo "FAIL: report: $(cat "$tmp/err")"; exit 1; }
python3 - "$tmp/r.json" <<'PY' || { echo "FAIL: the report's figures"; fails=$((fails + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in r["conditions"]}
def curve(name):
    return [(x["direction"], x["effect_pct"], x["pairs"], x["met"], x["ambiguous"], x["wrong"],
             x["failed"], x["missing"]) for x in c[name]["resolution"]]
assert curve("isolated") == [("slower", 5.0, 2, 1, 0, 1, 0, 0), ("none", 0.0, 1, 1, 0, 0, 0, 0),
                             ("faster", 1.0, 1, 1, 0, 0, 0, 0),
                             ("faster", 10.0, 4, 1, 1, 0, 1, 1)], curve("isolated")
assert curve("kb") == [("slower", 5.0, 2, 2, 0, 0, 0, 0), ("none", 0.0, 1, 0, 0, 1, 0, 0),
                       ("faster", 1.0, 1, 0, 0, 1, 0, 0), ("faster", 10.0, 4, 2, 0, 0, 1, 1)], curve("kb")
kb = c["kb"]
assert kb["judge_preset"] == "kernelbench" and c["isolated"]["judge_preset"] is None
# scored: f10 (F/F), f1 (N/F), s5 (N/N), s5b (F/N), aa (N/F); f10b AMBIGUOUS and crash left out
assert (kb["scored"], kb["agreeing"]) == (5, 2), (kb["scored"], kb["agreeing"])
left = {x["baseline"]: sorted(x["pairs"]) for x in kb["left_out"]}
assert left == {"AMBIGUOUS": ["f10b"], "CRASH": ["crash"], "MISSING": ["later"]}, left
assert sorted(f["pair"] for f in kb["false_fast"]) == ["aa", "f1", "f10b"], kb["false_fast"]
assert (kb["aa_noise"]["aa_pairs"], kb["aa_noise"]["called_faster"]) == (1, 1), kb["aa_noise"]
# effect sizes: the pairs the baseline decided (f10 1.5, s5 0.5, s5b 1.5)
# against kb's estimates (1.2, 0.9, 0.9), the median of the log ratios,
# its interval over the tasks (t0: f10, s5; t1: s5b) within their range
import math
want = sorted([math.log(1.2) / math.log(1.5), math.log(0.9) / math.log(0.5),
               math.log(0.9) / math.log(1.5)])
es = kb["effect_scale"]
assert (es["pairs"], es["tasks"]) == (3, 2), es
assert abs(es["estimate"] - want[1]) < 1e-9, (es, want)
assert want[0] - 1e-9 <= es["lo"] <= es["estimate"] <= es["hi"] <= want[2] + 1e-9, (es, want)
iso = c["isolated"]["effect_scale"]
assert (iso["pairs"], iso["estimate"]) == (3, 1.0), iso
agrees = {p["id"]: p["agrees"]["kb"] for p in r["pairs"]}
assert agrees == {"f10": True, "f10b": None, "f1": False, "s5": True, "s5b": False, "aa": False,
                  "crash": None, "later": None}, agrees
PY
"$NODUS" report "$db" >"$tmp/text" 2>"$tmp/err" || { echo "FAIL: text report"; fails=$((fails + 1)); }
grep -q "resolution (pairs declaring their true effect)" "$tmp/text" || { echo "FAIL: no resolution line"; fails=$((fails + 1)); }
grep -q -- "-5%: 1/2 (0, 1, 0)" "$tmp/text" || { echo "FAIL: the isolated curve in text: $(grep -A1 resolution "$tmp/text")"; fails=$((fails + 1)); }
grep -q -- "+10%: 1/4 (1, 0, 1, 1)" "$tmp/text" || { echo "FAIL: the pair not run is not counted apart: $(grep -A1 resolution "$tmp/text")"; fails=$((fails + 1)); }
grep -q "effect sizes against the baseline's: median log ratio 0.152 \[" "$tmp/text" || { echo "FAIL: no effect-size line: $(grep 'effect sizes' "$tmp/text")"; fails=$((fails + 1)); }
grep -q "judged by the kernelbench preset" "$tmp/text" || { echo "FAIL: the preset is not named"; fails=$((fails + 1)); }
# bench/study-paper.py draws the study's tables from the report alone
SRC=${NODUS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 "$SRC/bench/study-paper.py" "$tmp/r.json" >"$tmp/paper.md" 2>"$tmp/err" || { echo "FAIL: study-paper.py: $(cat "$tmp/err")"; fails=$((fails + 1)); }
python3 - "$tmp/paper.md" <<'PY' || { echo "FAIL: the paper's tables: $(head -20 "$tmp/paper.md")"; fails=$((fails + 1)); }
import sys
md = open(sys.argv[1]).read()
row = next(l for l in md.splitlines() if l.startswith("| kb |"))
cells = [c.strip() for c in row.strip("|").split("|")]
# condition, judge, pairs run, scored, agreement, kappa, false fast, A/A faster, effect sizes
assert cells[1:4] == ["kernelbench", "7", "5"], cells
assert cells[4].startswith("0.400 ["), cells       # 2 of 5 scored agree
assert cells[6:8] == ["3", "1 of 1"], cells
assert cells[8].startswith("0.152 ["), cells
assert "| isolated | 1/2 (1 wrong) |" in md, md     # -5%: s5 met, s5b wrong
assert "`s5b` expect SLOWER: isolated FASTER" in md.replace("`s5b`", "`s5b`"), md
PY
# HTML: the preset named; a verdict marked as differing exactly where the
# report says it does not agree (pairs[].agrees)
"$NODUS" report "$db" --format html -o "$tmp/r.html" 2>"$tmp/err" || { echo "FAIL: html report"; fails=$((fails + 1)); }
python3 - "$tmp/r.html" <<'PY' || { echo "FAIL: the HTML report"; fails=$((fails + 1)); }
import re, sys
html = open(sys.argv[1]).read()
assert "judged by the kernelbench preset" in html
rows = {}  # the pairs table comes first; later tables (false fast) name pairs too
for m in re.finditer(r"<tr><td>([a-z0-9]+)</td>(.*?)</tr>", html):
    rows.setdefault(m.group(1), m.group(2))
for pair, differs in (("f10", False), ("f1", True), ("s5", False), ("s5b", True), ("aa", True)):
    cells = re.findall(r"<td class=\"[^\"]*\"[^>]*>(.*?)</td>", rows[pair])
    kb = [c for c in cells if "BINARY_" in c]
    assert len(kb) == 1, (pair, cells)
    assert ("&ne;" in kb[0]) == differs, (pair, kb[0])
PY
# --conditions: only the named ones beside the baseline, in every format
# that compares; a name the plan lacks, an empty one, and a trace or
# dataset (every condition's records) are refused with exit 2
"$NODUS" report "$db" --conditions kb --format json -o "$tmp/only.json" 2>"$tmp/err" ||
	{ echo "FAIL: report --conditions kb: $(cat "$tmp/err")"; fails=$((fails + 1)); }
"$NODUS" report "$db" --conditions isolated --format json -o "$tmp/base.json" 2>"$tmp/err" ||
	{ echo "FAIL: report --conditions isolated: $(cat "$tmp/err")"; fails=$((fails + 1)); }
python3 - "$tmp/r.json" "$tmp/only.json" "$tmp/base.json" <<'PY' || { echo "FAIL: --conditions"; fails=$((fails + 1)); }
import json, sys
full, only, base = (json.load(open(f)) for f in sys.argv[1:])
assert [c["name"] for c in only["conditions"]] == ["isolated", "kb"], only["conditions"]
assert [c["name"] for c in base["conditions"]] == ["isolated"], base["conditions"]
assert all(set(p["labels"]) == {"isolated"} for p in base["pairs"]), base["pairs"]
# what is kept is what the whole report says of it
for name in ("isolated", "kb"):
    a = next(c for c in full["conditions"] if c["name"] == name)
    b = next(c for c in only["conditions"] if c["name"] == name)
    assert a["agreement"] == b["agreement"] and a["resolution"] == b["resolution"], name
PY
for bad in "nope" "kb,,isolated" ""; do
	"$NODUS" report "$db" --conditions "$bad" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q -- "--conditions" "$tmp/err" ||
		{ echo "FAIL: --conditions '$bad': exit $rc, $(cat "$tmp/err")"; fails=$((fails + 1)); }
done
grep -q "it has: isolated, kb" <("$NODUS" report "$db" --conditions nope 2>&1) ||
	{ echo "FAIL: an unknown condition's error lists the plan's"; fails=$((fails + 1)); }
"$NODUS" report "$db" --conditions kb --format trace >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || { echo "FAIL: --conditions with a trace"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "ok: resolution and presets in the report" || exit 1
