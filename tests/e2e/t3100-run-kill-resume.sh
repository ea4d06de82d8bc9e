#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3100-run-kill-resume: `nodus run` is SIGKILLed at 20 random points of a
# campaign (isolated and cpu-stress), resumed each time with --resume, then
# run to completion. Afterwards: every planned (pair, condition) has exactly
# one final record, no (pair, condition, attempt) appears twice, the
# database passes PRAGMA integrity_check, and no worker or stressor process
# outlived the killed orchestrators.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
n_pairs=$(small_campaign "$tmp/suites" rmsnorm matmul)
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
planned=$((n_pairs * 2))
kills=${KILLS:-20}
seed=${SEED:-$RANDOM}
echo "t3100: $planned pair-conditions, $kills kill points, RANDOM seed $seed"
RANDOM=$seed
for i in $(seq 1 "$kills"); do
	"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --resume --cache "$tmp/cache" -q &
	pid=$!
	# 0.05 .. 1.5 s: before the first record, inside compiles, workers, stressors
	sleep "$(printf '0.%02d' $((RANDOM % 100)))"
	[ $((RANDOM % 3)) = 0 ] && sleep 0.5
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	sleep 0.2 # PDEATHSIG is delivered asynchronously
	left=$(count_processes "$NODUS __")
	[ "$left" -eq 0 ] || fail "kill $i: $left worker/stressor process(es) outlived the orchestrator"
done
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --resume --cache "$tmp/cache" -q || fail "final resume exited $?"
python3 - "$tmp/r.db" "$planned" <<'PY' || fails=$((fails + 1))
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
planned = int(sys.argv[2])
ok = True
# one deciding final record per pair-condition; a final NOT_ISOLATED record
# is not deciding (a resume tries the pair again: docs/store.md), so a
# pair-condition may have those before its deciding one, or only those
finals = db.execute("SELECT pair_id, condition, SUM(status <> 'NOT_ISOLATED') FROM records"
                    " WHERE final = 1 GROUP BY pair_id, condition").fetchall()
if len(finals) != planned or any(n > 1 for _, _, n in finals):
    print(f"FAIL: {len(finals)} pair-conditions with final records, planned {planned}")
    ok = False
dups = db.execute("SELECT COUNT(*) FROM (SELECT 1 FROM records GROUP BY pair_id, condition,"
                  " attempt HAVING COUNT(*) > 1)").fetchone()[0]
if dups:
    print(f"FAIL: {dups} duplicated attempts")
    ok = False
integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
if integrity != "ok":
    print(f"FAIL: integrity_check: {integrity}")
    ok = False
orphans = db.execute("SELECT COUNT(*) FROM samples WHERE record_id NOT IN (SELECT id FROM records)").fetchone()[0]
if orphans:
    print(f"FAIL: {orphans} samples without a record")
    ok = False
total = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
print(f"t3100: {len(finals)} final records, {total} records in all, integrity {integrity}")
sys.exit(0 if ok else 1)
PY
exit $((fails > 0))
