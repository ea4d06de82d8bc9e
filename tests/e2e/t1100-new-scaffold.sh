#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t1100-new-scaffold.sh: docs/tutorial.md as a script. `nodus new task`,
# two `nodus new solution`s and `nodus new campaign` write files that
# `nodus check` accepts; with the TODO loop written, the campaign seals,
# runs (isolated) and reports labels. nodus new never overwrites a file,
# refuses a name that is not a C identifier, and a solution of a task
# that does not exist.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
NODUS=$(private_nodus "$tmp")
d="$tmp/mine"
"$NODUS" new task saxpy --dir "$d" >"$tmp/out" || fail "1.1 new task exited $?"
"$NODUS" new solution saxpy_ref --task saxpy --dir "$d" >>"$tmp/out" || fail "1.2 new solution exited $?"
"$NODUS" new solution saxpy_fast --task saxpy --dir "$d" >>"$tmp/out" || fail "1.3 new solution exited $?"
"$NODUS" new campaign mine --reference saxpy_ref --candidate saxpy_fast --dir "$d" >>"$tmp/out" ||
	fail "1.4 new campaign exited $?"
for f in tasks/saxpy.json workloads/saxpy_65536.json solutions/saxpy_ref.json \
	solutions/saxpy_ref.c solutions/saxpy_fast.json solutions/saxpy_fast.c mine.json; do
	grep -q "^wrote $d/$f$" "$tmp/out" || fail "1.x $f not reported written"
done
"$NODUS" check "$d/mine.json" >/dev/null 2>"$tmp/err" || fail "1.5 check: $(cat "$tmp/err")"
grep -q "TODO: compute y here" "$d/solutions/saxpy_ref.c" || fail "1.6 no TODO in the C template"
# 2.x the tutorial's edit: write the loop, then seal, run and report
sed -i 's|y\[i\] = 0; /\* TODO: compute y here \*/|y[i] = 2.0f * x[i] + 1.0f;|' \
	"$d/solutions/saxpy_ref.c" "$d/solutions/saxpy_fast.c"
relax_isolation "$d/mine.json" 2.5
"$NODUS" plan "$d/mine.json" -o "$d/plan.json" >/dev/null 2>"$tmp/err" || fail "2.1 plan: $(cat "$tmp/err")"
"$NODUS" run "$d/plan.json" --db "$d/records.db" --condition isolated -q 2>"$tmp/err" ||
	fail "2.2 run: $(cat "$tmp/err")"
"$NODUS" report "$d/records.db" --format json -o "$d/report.json" || fail "2.3 report exited $?"
python3 - "$d/report.json" <<'PY' || fail "2.4 labels"
import json, sys
r = json.load(open(sys.argv[1]))
labels = {p["id"]: p["labels"]["isolated"] for p in r["pairs"]}
assert len(labels) == 2, labels
# both compute y = 2x + 1: labels, not failures (NOT_ISOLATED only if the machine is busy)
assert all(l in ("FASTER", "SLOWER", "TIED", "AMBIGUOUS", "NOT_ISOLATED") for l in labels.values()), labels
PY
# 3.x refusals
before=$(sha256sum "$d/tasks/saxpy.json")
"$NODUS" new task saxpy --dir "$d" >/dev/null 2>"$tmp/err"; [ $? = 2 ] || fail "3.1 overwrite: not exit 2"
grep -q "never overwrites" "$tmp/err" || fail "3.1 message: $(cat "$tmp/err")"
[ "$(sha256sum "$d/tasks/saxpy.json")" = "$before" ] || fail "3.1 the task was overwritten"
"$NODUS" new task 'bad-name' --dir "$d" >/dev/null 2>&1; [ $? = 2 ] || fail "3.2 bad name"
"$NODUS" new solution s --task nope --dir "$d" >/dev/null 2>&1; [ $? = 2 ] || fail "3.3 no task"
"$NODUS" new campaign c --dir "$d" >/dev/null 2>&1; [ $? = 2 ] || fail "3.4 no reference"
"$NODUS" new thing x >/dev/null 2>&1; [ $? = 2 ] || fail "3.5 unknown kind"
[ "$fails" -eq 0 ] && echo "t1100: all ok"
[ "$fails" -eq 0 ]
