#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3670-run-judge-presets: a condition's judge_preset times a pair by
# another harness's protocol on nodus's own workers and guards, and decides
# a binary verdict (docs/protocol.md, "Presets"):
# - kernelbench: 100 timed single calls per side (round 0), the verdict
#   BINARY_FASTER iff the ratio of the sides' means, each rounded to 3
#   significant digits, is > 1 (kernelbench-p: > 1.1); flashinfer: 3 trials
#   of 50 per side (rounds 0-2), the ratio of the means of the per-trial
#   medians, > 1. Recomputed here from the stored samples.
# - a verdict is never a label: such a record has verdict, no label and no
#   interval; nodus's own condition has labels and no verdict;
# - the guards are the same: the wrong candidate fails under every preset;
# - the report compares each preset with the isolated baseline after
#   binarizing the baseline's label (FASTER: faster; SLOWER, TIED: not;
#   AMBIGUOUS: left out), lists BINARY_FASTER over a baseline that is not
#   FASTER as false fast, counts A/A pairs called faster, and refuses a
#   preset condition as --baseline;
# - a campaign without presets seals no judge_preset (old plans keep their
#   digests).
# - no honest pair is called bent by the clock cross-check under a preset
#   (single-call batches: before the worker read its clock ahead of its
#   START mark, A/A pairs were, on the 2-core machine).
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" vector >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
campaign="$tmp/suites/cpu/campaign.json"
set_judge "$campaign" timeout_s 900
"$NODUS" plan "$campaign" -o "$tmp/plain.json" >/dev/null || fail "plan without presets"
grep -q judge_preset "$tmp/plain.json" && fail "a plan without presets seals a judge_preset"
python3 - "$campaign" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["conditions"] = [{"name": "isolated", "kind": "isolated"},
                   {"name": "kb", "kind": "isolated", "judge_preset": "kernelbench"},
                   {"name": "kbp", "kind": "isolated", "judge_preset": "kernelbench-p"},
                   {"name": "fi", "kind": "isolated", "judge_preset": "flashinfer"}]
json.dump(c, open(p, "w"), indent=1)
PY
"$NODUS" plan "$campaign" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/p.db" -q || fail "run exited $?"
python3 - "$tmp/p.db" <<'PY'
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
proto = {"kb": (1, 100, "mean3", 1.0), "kbp": (1, 100, "mean3", 1.1),
         "fi": (3, 50, "medians", 1.0)}
def r3(x):
    return float(f"{x:.3g}")
seen = {}
for rid, pair, cond, status, label, verdict, speedup, lo, hi, guard, msg in db.execute(
        "SELECT id, pair_id, condition, status, label, verdict, speedup, ci_lo, ci_hi, guard, "
        "message FROM records WHERE final = 1"):
    if "wrong" in pair:
        assert status == "INCORRECT_NUMERICAL", (pair, cond, status)
        continue
    assert status == "OK", (pair, cond, status)
    if cond == "isolated":
        assert label and verdict is None, (pair, cond, label, verdict)
        continue
    assert label is None and lo is None and hi is None, (pair, cond, label, lo, hi)
    trials, calls, stat, above = proto[cond]
    side = {}
    for role in (0, 1):
        per = []
        for t in range(trials):
            ns = [x for (x,) in db.execute(
                "SELECT ns FROM samples WHERE record_id = ? AND role = ? AND round = ?",
                (rid, role, t))]
            assert len(ns) == calls, (pair, cond, role, t, len(ns))
            per.append(statistics.mean(ns) if stat == "mean3" else statistics.median(ns))
        other = db.execute("SELECT COUNT(*) FROM samples WHERE record_id = ? AND role = ? "
                           "AND round >= ?", (rid, role, trials)).fetchone()[0]
        assert other == 0, (pair, cond, role, other)
        side[role] = r3(statistics.mean(per)) if stat == "mean3" else statistics.mean(per)
    batch = db.execute("SELECT MIN(batch), MAX(batch) FROM samples WHERE record_id = ?",
                       (rid,)).fetchone()
    assert batch == (1, 1), (pair, cond, batch)
    ratio = side[0] / side[1]
    assert abs(speedup - ratio) <= 1e-9 * ratio, (pair, cond, speedup, ratio)
    want = "BINARY_FASTER" if ratio > above else "BINARY_NOT_FASTER"
    assert verdict == want, (pair, cond, verdict, want, ratio)
    seen[cond] = seen.get(cond, 0) + 1
assert all(seen.get(c, 0) >= 3 for c in proto), seen
PY
[ $? -eq 0 ] || fail "records and verdicts"
"$NODUS" report "$tmp/p.db" --format json >"$tmp/r.json" 2>"$tmp/r.err" || fail "report: $(cat "$tmp/r.err")"
python3 - "$tmp/r.json" <<'PY' || fail "the report's comparison of presets"
import json, sys
rep = json.load(open(sys.argv[1]))
conds = {c["name"]: c for c in rep["conditions"]}
binary = {"FASTER": "BINARY_FASTER", "SLOWER": "BINARY_NOT_FASTER", "TIED": "BINARY_NOT_FASTER"}
for name in ("kb", "kbp", "fi"):
    c = conds[name]
    assert c["judge_preset"] == {"kb": "kernelbench", "kbp": "kernelbench-p",
                                 "fi": "flashinfer"}[name], c["judge_preset"]
    scored = agree = aa = aa_fast = 0
    false_fast = set()
    for p in rep["pairs"]:
        base, here = p["labels"]["isolated"], p["labels"][name]
        if p["candidate"] == p["reference"]:
            aa += 1
            aa_fast += here == "BINARY_FASTER"
        if here == "BINARY_FASTER" and base in ("SLOWER", "TIED", "AMBIGUOUS"):
            false_fast.add(p["id"])
        if base not in binary:
            continue
        scored += 1
        agree += binary[base] == here
    assert (c["scored"], c["agreeing"]) == (scored, agree), (name, c["scored"], c["agreeing"], scored, agree)
    assert {f["pair"] for f in c["false_fast"]} == false_fast, (name, c["false_fast"], false_fast)
    assert all(f["label"] == "BINARY_FASTER" for f in c["false_fast"]), c["false_fast"]
    assert (c["aa_noise"]["aa_pairs"], c["aa_noise"]["called_faster"]) == (aa, aa_fast), c["aa_noise"]
    assert c["cost"]["device_s_per_attempt"] > 0, c["cost"]
assert conds["isolated"]["judge_preset"] is None
PY
"$NODUS" report "$tmp/p.db" >"$tmp/r.txt" 2>&1 || fail "text report"
grep -q 'judged by the kernelbench preset' "$tmp/r.txt" || fail "the text report does not name the preset"
"$NODUS" report "$tmp/p.db" --baseline kb >"$tmp/b.txt" 2>&1 && fail "a preset condition accepted as the baseline"
grep -q "baseline condition 'kb' is judged by the kernelbench preset" "$tmp/b.txt" ||
	fail "refusing the preset baseline says: $(cat "$tmp/b.txt")"
[ "$fails" -eq 0 ] || exit 1
echo "ok: judge presets"
