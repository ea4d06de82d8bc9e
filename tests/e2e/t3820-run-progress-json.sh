#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3820-run-progress-json: `nodus run --progress=json` says what the run
# does as one JSON object per line, for programs (an RL loop, a farm's
# scheduler; issue 19): every line parses; a condition_start, one record
# per stored record (k of n, final, status, label only when OK, the
# interval), a condition_end, a closing run_complete whose counts match
# the store; nothing else is on stdout. --progress=none prints nothing, a
# form nodus does not have is refused (exit 2) in words.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
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
        assert r["ci_lo"] <= r["speedup"] <= r["ci_hi"], r
    else:
        assert r["label"] is None and r["speedup"] is None, r
    assert isinstance(r["final"], bool) and r["elapsed_s"] >= 0, r
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
