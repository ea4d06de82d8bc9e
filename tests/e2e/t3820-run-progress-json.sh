#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3820-run-progress-json: `nodus run --progress=json` says what the run
# does as one JSON object per line, for programs (an RL loop, a farm's
# scheduler; issue 19): every line parses; a condition_start, one record
# per stored record (k of n, final, status, label only when OK, the
# interval), a condition_end, a closing run_complete whose counts match
# the store; nothing else is on stdout; a record whose message holds bytes
# that are not UTF-8 (a compiler's echo of the candidate's source) keeps
# its line. --progress=none prints nothing, a
# form nodus does not have is refused (exit 2) in words.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
# a candidate whose compile error carries a byte that is not UTF-8 (its
# own source line, echoed by the compiler): its record still has its line
printf '/* a compile error with a raw byte */\n#error "\xff\xfe bad"\n' >"$tmp/mini/solutions/vec_add_bad.c"
python3 - "$tmp/mini" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/solutions/vec_add_unrolled.json"))
s.update(name="vec_add_bad", sources=["vec_add_bad.c"], entry="vec_add_bad")
json.dump(s, open(f"{d}/solutions/vec_add_bad.json", "w"))
c = json.load(open(f"{d}/campaign.json"))
c["solutions"].append("solutions/vec_add_bad.json")
c["pairs"].append({"workload": "vec_add_4k", "candidate": "vec_add_bad", "reference": "vec_add_ref",
                   "expect": "COMPILE_ERROR"})
json.dump(c, open(f"{d}/campaign.json", "w"))
PY
relax_isolation "$tmp/mini/campaign.json" 1000
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --condition isolated --progress=json >"$tmp/out.jsonl" ||
	fail "run exited $?"
python3 - "$tmp/out.jsonl" "$tmp/r.db" <<'PY' || fail "the JSON lines"
import json, sqlite3, sys
lines = open(sys.argv[1]).read().splitlines()
events = [json.loads(l) for l in lines]  # every line is one JSON object
kinds = [e["event"] for e in events]
assert kinds[0] == "condition_start" and kinds[-1] == "run_complete", kinds
assert kinds[-2] == "condition_end", kinds
records = [e for e in events if e["event"] == "record"]
db = sqlite3.connect(sys.argv[2])
stored = db.execute("SELECT COUNT(*), SUM(final) FROM records").fetchone()
assert len(records) == stored[0], (len(records), stored)
n = events[0]["pairs"]
assert all(r["n"] == n and r["condition"] == "isolated" for r in records), records
ks = [r["k"] for r in records]
assert ks == sorted(ks) and ks[-1] == n, ks
for r in records:
    if r["status"] == "OK":
        assert r["label"] in ("FASTER", "SLOWER", "TIED", "AMBIGUOUS"), r
        if r["speedup"] is not None:  # null: no finite interval
            assert r["ci_lo"] <= r["speedup"] <= r["ci_hi"], r
    else:
        assert r["label"] is None and r["speedup"] is None, r
    assert isinstance(r["final"], bool) and r["elapsed_s"] >= 0, r
bad = [r for r in records if r["pair"].startswith("vec_add_4k/vec_add_bad/")]
assert bad and bad[-1]["status"] == "COMPILE_ERROR" and "bad" in bad[-1]["message"], bad
assert len(bad[-1]["message"]) <= 2048, len(bad[-1]["message"])
end, done = events[-2], events[-1]
assert end["decided"] == n == stored[1], (end, stored)
assert done["records"] == stored[0] and done["pair_conditions"] == n, (done, stored)
PY
"$NODUS" run "$tmp/plan.json" --db "$tmp/none.db" --condition isolated --progress=none >"$tmp/none.txt" ||
	fail "--progress=none exited $?"
[ -s "$tmp/none.txt" ] && fail "--progress=none printed: $(head -2 "$tmp/none.txt")"
"$NODUS" run "$tmp/plan.json" --db "$tmp/x.db" --progress=xml >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "progress: expected text, json or none, got 'xml'" "$tmp/err" ||
	fail "--progress=xml: $(cat "$tmp/err")"
[ -e "$tmp/x.db" ] && fail "a refused --progress created the store"
test_exit
