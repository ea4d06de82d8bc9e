#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3200-run-faults: the fault suite (segfault, abort, exit(0) midway,
# infinite loop, unbounded allocation, fork bomb, stdout flood, a setup that
# never returns, an error return, a reference that crashes after a wrong
# candidate's first trials were judged, a reference that leaves half its output
# unwritten, the same late-crashing reference in an oracle group) - every fault ends as a record with the
# status its campaign declares, the run completes, retries are records of
# their own, and the honest pair in the same campaign is labelled as it is
# in a campaign without the faulty candidates.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/suites/faults/campaign.json" 2.5
"$NODUS" plan "$tmp/suites/faults/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
n=0
while read -r pid cond expect outcome guard; do
	n=$((n + 1))
	[ "$outcome" = "$expect" ] || fail "$pid: expected $expect, got $outcome ($guard)"
done < <(final_outcomes "$tmp/r.db")
[ "$n" -eq 13 ] || fail "expected 13 final records, got $n"
# a reference that leaves outputs unwritten is caught in the oracle's own output
final_outcomes "$tmp/r.db" | grep -q "/fault_ref_unwritten isolated INVALID_REFERENCE INVALID_REFERENCE reference_unwritten" ||
	fail "fault_ref_unwritten: not INVALID_REFERENCE (reference_unwritten)"
# oracle groups: the nine fault candidates share vector_poly_ref's oracles
# and still end as declared (above); the group of the late-crashing reference
# failed, so its first pair ran again with an oracle of its own, and no
# record took reference outputs from that failed group
python3 - "$tmp/r.db" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, detail_json FROM records WHERE final = 1 ORDER BY id").fetchall()
d = {pid: json.loads(js) for pid, js in rows}
bad = []
late = [p for p in d if p.endswith("/fault_ref_late_crash")]
failed = [p for p in late if d[p].get("oracle_group_failed")]
if len(late) != 2 or len(failed) != 1:
    bad.append(f"late-crash pairs {late}, oracle_group_failed on {failed}")
if any("oracle_group" in d[p] for p in late):
    bad.append("a late-crash pair names an oracle group")
followers = [p for p in d if d[p].get("oracle_group", {}).get("leader", p) != p]
if not any(p.endswith("/vector_poly_ref") and "/fault_" in p for p in followers):
    bad.append(f"no fault candidate took its reference outputs from a group: {followers}")
if bad:
    print("FAIL: oracle groups: " + "; ".join(bad))
    sys.exit(1)
PY
retries=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM records WHERE final = 0').fetchone()[0])" "$tmp/r.db")
[ "$retries" -gt 0 ] || fail "no retry records: TIMEOUT and CRASH are retried by the judge's policy"
[ -n "${GUARDS_FAULTS_OUT:-}" ] && cp "$tmp/r.db" "$GUARDS_FAULTS_OUT"
left=$(count_processes "$tmp/bin/nodus __")
[ "$left" -eq 0 ] || fail "$left worker process(es) left running"

# the honest pair alone, in a campaign without the faulty candidates
python3 - "$tmp/suites/faults/campaign.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["pairs"] = [x for x in c["pairs"]
              if not x["candidate"].startswith("fault_") and not x["reference"].startswith("fault_")]
json.dump(c, open(p, "w"), indent=1)
PY
"$NODUS" plan "$tmp/suites/faults/campaign.json" -o "$tmp/plan2.json" >/dev/null
"$NODUS" run "$tmp/plan2.json" --db "$tmp/r2.db" -q || fail "honest-only run exited $?"
a=$(final_outcomes "$tmp/r.db" | grep -v '/fault_' | awk '{print $1, $4}')
b=$(final_outcomes "$tmp/r2.db" | awk '{print $1, $4}')
[ "$a" = "$b" ] || fail "honest pairs differ with and without the faults: '$a' vs '$b'"
[ "$fails" -eq 0 ] && echo "t3200: $n fault pairs as declared, $retries retry records, honest pair: $b"
exit $((fails > 0))
