#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3660-run-process-sd: with the judge's process_sd, every look's interval
# is the rounds' own widened for an offset between the two sides'
# processes (docs/statistics.md, "Between processes"): each record keeps the
# rounds' interval (detail.process_sd.rounds_lo, rounds_hi) and stores the
# widened one, each half-width on the log scale at least z(0.975) * sd
# wider in quadrature (the per-look confidence is at least the campaign's),
# and its label is the label rule applied to the widened interval with the
# record's tie margin. Without the field the plan's judge has no
# process_sd (plans sealed before it existed still load) and records have
# no detail.process_sd. With a process_sd so large (0.5) that no speedup
# within a record's rounds interval could be labelled, the pair stops
# AMBIGUOUS at that look (detail.process_sd.undecidable), and only then:
# the rule is checked on every record against its own rounds interval, at
# the look's confidence. The judge's "tasks" give one task its own margin
# and process_sd (sealed; that task's records keep them, the others the
# judge's). The report names process_sd where declared, and its
# aa_noise.rms_log_estimate is the rms of the A/A pairs' log estimates.
# Nothing here reads the machine's speed.
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
# the judge's "tasks": the first task judged with its own margin and
# offset, every other with the judge's (none declared: 0)
task1=$(python3 - "$campaign" <<'PY'
import json, os, sys
c = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
wl = c["pairs"][0]["workload"]
for w in c["workloads"]:
    o = json.load(open(os.path.join(d, w)))
    if o["name"] == wl:
        print(o["task"])
PY
)
for case in plain task sd wide; do
	[ "$case" = task ] && set_judge "$campaign" tasks "{\"$task1\": {\"process_sd\": 0.05, \"tie_margin\": 0.3}}"
	[ "$case" = sd ] && { set_judge "$campaign" tasks '{}'; set_judge "$campaign" process_sd 0.05; }
	[ "$case" = wide ] && set_judge "$campaign" process_sd 0.5
	"$NODUS" plan "$campaign" -o "$tmp/plan-$case.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
	"$NODUS" run "$tmp/plan-$case.json" --db "$tmp/$case.db" --condition isolated -q ||
		fail "$case: run exited $?"
done
# the report says when intervals were widened, and by what
"$NODUS" report "$tmp/sd.db" >"$tmp/sd.txt" 2>&1 || fail "report sd: exit $?"
"$NODUS" report "$tmp/plain.db" >"$tmp/plain.txt" 2>&1 || fail "report plain: exit $?"
grep -q "intervals widened for the offset between two processes: judge process_sd 0.05" "$tmp/sd.txt" ||
	fail "the text report does not say process_sd widened the intervals: $(head -4 "$tmp/sd.txt")"
grep -q "intervals widened" "$tmp/plain.txt" && fail "the text report names a process_sd never declared"
"$NODUS" report "$tmp/sd.db" --format json 2>/dev/null |
	python3 -c "import json,sys; assert json.load(sys.stdin)['plan']['process_sd'] == 0.05" ||
	fail "the JSON report's plan.process_sd is not 0.05"
"$NODUS" report "$tmp/task.db" >"$tmp/task.txt" 2>&1 || fail "report task: exit $?"
grep -q "task $task1 judged with its own tie_margin 0.3 process_sd 0.05" "$tmp/task.txt" ||
	fail "the text report does not name the task's own judge: $(head -5 "$tmp/task.txt")"
grep -q "judged with its own" "$tmp/plain.txt" && fail "the text report names a task judge never declared"
python3 - "$tmp/plan-task.json" "$tmp/task.db" "$task1" "$campaign" <<'PY' || fail "the judge's tasks"
import json, os, sqlite3, sys
plan = json.load(open(sys.argv[1]))
task = sys.argv[3]
assert plan["judge"]["tasks"] == {task: {"process_sd": 0.05, "tie_margin": 0.3}}, plan["judge"].get("tasks")
assert "process_sd" not in plan["judge"], plan["judge"]
d = os.path.dirname(sys.argv[4])
wl_task = {o["name"]: o["task"] for o in (json.load(open(os.path.join(d, w)))
                                          for w in json.load(open(sys.argv[4]))["workloads"])}
mine = other = 0
for pid, status, detail in sqlite3.connect(sys.argv[2]).execute(
        "SELECT pair_id, status, detail_json FROM records WHERE final = 1"):
    d = json.loads(detail or "{}")
    if status != "OK" or "tie_margin" not in d:
        continue
    t = wl_task[pid.split("/")[0]]
    if t == task:
        mine += 1
        assert d["tie_margin"] == 0.3, (pid, d["tie_margin"])
        assert d.get("process_sd", {}).get("sd") == 0.05, (pid, d.get("process_sd"))
    else:
        other += 1
        assert d["tie_margin"] != 0.3 and "process_sd" not in d, (pid, d)
assert mine >= 1, f"no OK record of task {task}"
print(f"task judge: {mine} records of {task} with its own margin and offset, {other} others with the judge's")
PY
# the A/A pairs' estimates, whose truth is 1: their rms log in the report
"$NODUS" report "$tmp/plain.db" --format json 2>/dev/null | python3 -c '
import json, math, sys
rep = json.load(sys.stdin)
aa = [p for p in rep["pairs"] if p["candidate"] == p["reference"]]
seen = 0
for c in rep["conditions"]:
    est = [p["speedups"][c["name"]]["estimate"] for p in aa if p["speedups"].get(c["name"])]
    got = c["aa_noise"]
    assert got["with_estimate"] == len(est), (got, est)
    if not est:
        assert got["rms_log_estimate"] is None, got
        continue
    seen += 1
    want = math.sqrt(sum(math.log(e) ** 2 for e in est) / len(est))
    assert abs(got["rms_log_estimate"] - want) <= 1e-12 + 1e-6 * want, (got, want)
assert seen >= 1, "no condition with an A/A estimate"
' || fail "aa_noise.rms_log_estimate is not the rms of the A/A pairs' log estimates"
grep -q "their estimates' rms log" "$tmp/plain.txt" || fail "the text report lacks the A/A rms"
python3 - "$tmp/plan-plain.json" "$tmp/plan-sd.json" "$tmp/plain.db" "$tmp/sd.db" \
	"$tmp/plan-wide.json" "$tmp/wide.db" <<'PY' ||
import json, math, sqlite3, statistics, sys
plain_plan, sd_plan = (json.load(open(p)) for p in sys.argv[1:3])
bad = 0
def check(ok, what):
    global bad
    if not ok:
        print("FAIL:", what)
        bad += 1
check("process_sd" not in plain_plan["judge"], "process_sd sealed though not declared")
check(sd_plan["judge"].get("process_sd") == 0.05, f"sealed process_sd: {sd_plan['judge'].get('process_sd')}")
Z975 = 1.959963984540054

def label(lo, hi, d):
    up, down = 1 + d, 1 / (1 + d)
    if lo >= down and hi <= up:
        return "TIED"
    if lo > up:
        return "FASTER"
    if hi < down:
        return "SLOWER"
    return "AMBIGUOUS"

for path, widened in ((sys.argv[3], False), (sys.argv[4], True)):
    db = sqlite3.connect(path)
    n = 0
    for pid, status, lab, est, lo, hi, detail in db.execute(
            "SELECT pair_id, status, label, speedup, ci_lo, ci_hi, detail_json FROM records"
            " WHERE final = 1"):
        d = json.loads(detail or "{}")
        ps = d.get("process_sd")
        if not widened:
            check(ps is None, f"{pid}: detail.process_sd without the field: {ps}")
            continue
        if status != "OK" or lo is None:
            continue
        n += 1
        if not check(isinstance(ps, dict) and ps.get("sd") == 0.05, f"{pid}: detail.process_sd {ps}"):
            continue
        rlo, rhi = ps["rounds_lo"], ps["rounds_hi"]
        m = math.log(est)
        z = Z975 * 0.05
        check(lo <= rlo and hi >= rhi, f"{pid}: [{lo}, {hi}] narrower than the rounds' [{rlo}, {rhi}]")
        check(m - math.log(lo) >= math.hypot(m - math.log(rlo), z) * (1 - 1e-9),
              f"{pid}: lower half-width {m - math.log(lo):.4f} below the rounds' in quadrature with {z:.4f}")
        check(math.log(hi) - m >= math.hypot(math.log(rhi) - m, z) * (1 - 1e-9),
              f"{pid}: upper half-width {math.log(hi) - m:.4f} below the rounds' in quadrature with {z:.4f}")
        want = label(lo, hi, d["tie_margin"])
        check(lab == want, f"{pid}: label {lab}, the rule on the widened interval gives {want}")
    if widened:
        check(n >= 3, f"only {n} OK records with an interval under process_sd")

# process_sd 0.5: stopped AMBIGUOUS exactly when no speedup in the rounds'
# interval could be labelled at the look's confidence
wide = json.load(open(sys.argv[5]))["judge"]
db = sqlite3.connect(sys.argv[6])
stopped = 0
for pid, status, lab, rounds, detail in db.execute(
        "SELECT pair_id, status, label, rounds, detail_json FROM records WHERE final = 1"):
    d = json.loads(detail or "{}")
    ps = d.get("process_sd")
    if status != "OK" or not ps:
        continue
    first, most, every = wide["min_rounds"], d["max_rounds"], wide["look_every"]
    looks = len(set(range(first, most + 1, every)) | {most})
    conf = 1 - (1 - wide["confidence"]) / looks
    zs = statistics.NormalDist().inv_cdf(0.5 + conf / 2) * 0.5
    band = math.log1p(d["tie_margin"])
    rule = zs > band and math.log(ps["rounds_hi"]) <= band + zs and math.log(ps["rounds_lo"]) >= -band - zs
    if ps["undecidable"]:
        stopped += 1
        check(lab == "AMBIGUOUS" and rule, f"{pid}: undecidable with label {lab}, rule {rule}, {ps}")
        check(rounds < most, f"{pid}: undecidable only at its last round {rounds}")
    elif lab == "AMBIGUOUS":
        check(rounds >= most or not rule, f"{pid}: AMBIGUOUS at round {rounds} of {most}, undecidable by the rule, not stopped")
check(stopped >= 2, f"only {stopped} records stopped as undecidable under process_sd 0.5")
sys.exit(1 if bad else 0)
PY
	fails=$((fails + 1))
test_exit
