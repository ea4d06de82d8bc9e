#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t7100-run-torch-kernelbench: KernelBench-format problems and candidates,
# imported with `nodus import`, run on the cpu (family 7: solutions in other
# languages; docs/import.md, docs/suites.md "suites/torch/kernelbench"):
#   1. a user's session: a problem and a candidate imported into a fresh
#      directory, the campaign made by --campaign, then plan, run and
#      report: the fused softmax is FASTER than the eager problem, the
#      problem against itself is OK (EQUIVALENT: issue 17);
#   2. the bundled suite's 23 pairs as its campaign declares them: labels
#      for FASTER / SLOWER / TIED / EQUIVALENT, the status for a failure
#      (FAIL: any failure), the LOAD_ERROR naming its file and line.
# Without /usr/bin/python3 importing torch it prints "skipped: no torch"
# and exits 77. Labels on a busy machine are skipped as t7000 skips them.
set -u
. "$(dirname "$0")/lib/campaign.sh"
require_torch
skips=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
kb=$tmp/suites/torch/kernelbench
busy=$(busy_cores 1)

# 1. import, plan, run, report
u=$tmp/user
"$NODUS" import kernelbench "$kb/solutions/softmax_eager.py" -o "$u" >/dev/null 2>"$tmp/err" ||
	fail "1.1 import exited $?: $(cat "$tmp/err")"
"$NODUS" import kernelbench-candidate "$kb/solutions/softmax_fused.py" --problem softmax_eager -o "$u" \
	--campaign "$u/campaign.json" --expect FASTER >/dev/null 2>"$tmp/err" ||
	fail "1.2 import candidate exited $?: $(cat "$tmp/err")"
relax_isolation "$u/campaign.json" 1000
set_judge "$u/campaign.json" max_rounds 20
"$NODUS" plan "$u/campaign.json" -o "$u/plan.json" >"$tmp/out" 2>&1 || fail "1.3 plan: $(cat "$tmp/out")"
"$NODUS" run "$u/plan.json" --db "$u/r.db" -q 2>"$tmp/err" || fail "1.4 run exited $?: $(cat "$tmp/err")"
"$NODUS" report "$u/r.db" --format json -o "$u/report.json" 2>"$tmp/err" || fail "1.5 report: $(cat "$tmp/err")"
python3 - "$u/report.json" "$busy" "$BUSY_MAX_CORES" <<'PYS'
import json, sys
r, busy, most = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3])
labels = {p["id"]: p["labels"]["isolated"] for p in r["pairs"]}
want = {"softmax_eager/softmax_fused/softmax_eager_ref": "FASTER",
        "softmax_eager/softmax_eager_ref/softmax_eager_ref": None}
if set(labels) != set(want):
    print(f"FAIL: 1.6 report pairs {sorted(labels)}"); sys.exit(1)
aa = labels["softmax_eager/softmax_eager_ref/softmax_eager_ref"]
if aa not in ("FASTER", "SLOWER", "TIED", "AMBIGUOUS"):
    print(f"FAIL: 1.7 the A/A pair: {aa}"); sys.exit(1)
got = labels["softmax_eager/softmax_fused/softmax_eager_ref"]
if got != "FASTER":
    if busy > most:
        print(f"skipped: machine busy ({busy:.2f} cores busy): 1.8 fused softmax {got}"); sys.exit(77)
    print(f"FAIL: 1.8 the fused softmax is {got}, expected FASTER"); sys.exit(1)
PYS
case $? in 0) ;; 77) skips=$((skips + 1)) ;; *) fails=$((fails + 1)) ;; esac

# 2. the bundled suite
c=$kb/campaign.json
if too_busy "$busy"; then
	echo "t7100: machine busy ($busy cores busy): every pair is timed whatever the load, to its first look"
	relax_isolation "$c" 1000
	set_judge "$c" timeout_s 900
	set_judge "$c" max_rounds 10
else
	relax_isolation "$c"
fi
"$NODUS" plan "$c" -o "$tmp/plan.json" >"$tmp/plan.out" 2>&1 || { cat "$tmp/plan.out"; echo "FAIL: plan"; exit 1; }
load_mark run
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "2.1 run exited $?"
during=$(load_since run)
too_busy "$during" && busy=$during
python3 - "$tmp/r.db" "$busy" "$BUSY_MAX_CORES" <<'PYS'
import json, sqlite3, sys
db, busy, most = sqlite3.connect(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
fails, skipped, known, n, seen_labels = [], [], [], 0, []
for pid, expect, status, label, guard, msg, dj, lo, hi in db.execute(
        "SELECT r.pair_id, p.expect, r.status, r.label, r.guard, r.message, r.detail_json,"
        " r.ci_lo, r.ci_hi"
        " FROM records r JOIN pairs p ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id"
        " WHERE r.final = 1 ORDER BY r.id"):
    n += 1
    _, cand, ref = pid.split("/")
    seen_labels.append(f"{pid}: {label if status == 'OK' else status}")
    d = json.loads(dj or "{}")
    seen = max([d.get(k, {}).get("busy_cores", 0) for k in ("isolation_before", "isolation_after")])
    if expect in ("FASTER", "SLOWER", "TIED", "EQUIVALENT"):
        if status == "NOT_ISOLATED" or (status == "TIMEOUT" and busy > most):
            skipped.append((max(busy, seen), f"{pid}: {status}, its label unchecked"))
        elif status != "OK":
            fails.append(f"{pid}: expected {expect}, got {status} ({guard}: {msg})")
        elif expect != "EQUIVALENT" and label != expect:
            if busy > most or seen > most:
                skipped.append((max(busy, seen), f"{pid}: expected {expect}, got {label}"))
            elif expect == "TIED" and cand == ref and label == "AMBIGUOUS":
                # undecided, which earns no reward: a torch A/A pair's two
                # processes on this CPU can differ by about the margin
                # (issue 17). One labelled FASTER or SLOWER fails: before
                # the workers' heap was made alike (session 12) such a
                # pair was FASTER 1.72 and this test skipped it
                known.append(f"{pid}: expected {expect}, got {label}"
                             + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else ""))
            else:
                fails.append(f"{pid}: expected {expect}, got {label}")
    elif expect == "FAIL":
        if status == "OK":
            fails.append(f"{pid}: expected a failure, got OK {label}")
    elif status != expect:
        fails.append(f"{pid}: expected {expect}, got {status} ({guard}: {msg})")
    elif cand == "linear_relu_syntax" and not (
            "SyntaxError" in msg and "linear_relu_syntax.py, line 9" in msg):
        fails.append(f"{pid}: the LOAD_ERROR does not name the file and line: {msg}")
if n != 23:
    fails.append(f"expected 23 final records, got {n}")
for s in seen_labels:
    print("  " + s)
for f in fails:
    print("FAIL: " + f)
for cores, what in skipped:
    print(f"skipped: machine busy ({cores:.2f} cores busy): {what}")
for what in known:
    print(f"skipped: a torch A/A pair across two worker processes, not TIED (issue 17): {what}")
sys.exit(1 if fails else 77 if skipped or known else 0)
PYS
case $? in 0) ;; 77) skips=$((skips + 1)) ;; *) fails=$((fails + 1)) ;; esac

[ "$fails" -eq 0 ] && echo "t7100: imported KernelBench pairs as declared ($skips kind(s) of assertion skipped)"
test_exit
