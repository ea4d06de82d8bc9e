#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t7000-run-torch-cpu: python solutions run with torch on the cpu
# (suites/torch; family 7: solutions in other languages). They are built
# from nodus's torch adapter and loaded, guarded and timed by the C worker
# like any C solution, so their records carry the C path's labels and
# guards:
#   1. row_sum in torch, destination-passing, is FASTER than the naive C
#      reference and the C reference SLOWER than it; the torch reference
#      against itself is TIED; a KernelBench-style nn.Module candidate
#      (forward returns the output) is correct against the torch reference
#      (any label: it pays for its allocation), and so is one that warns on
#      every call (showing a warning would read a file);
#   1c. a module's output returned by value is copied by the worker after
#      the timed region, not inside it: the measure worker of row_sum_module
#      settled copies (detail.phases.measure.settled > 0) and the
#      destination-passing torch reference none (its timer's settled 0);
#   1b. parameters are redrawn: a LayerNorm module written out is correct
#      against nn.LayerNorm, one that drops its weight and bias (exact at
#      torch's initial 1 and 0) is INCORRECT_NUMERICAL, the A/A pair TIED;
#   2. the guards: zeros are REWARD_HACK constant_output, the mean for the
#      sum INCORRECT_NUMERICAL, a write into the input INPUT_MUTATED
#      input_read_only, an exception RUNTIME_ERROR, a module that does not
#      parse LOAD_ERROR naming its file and line, a file written at import
#      (under the load filter) and a thread started in the entry (after
#      lockdown) REWARD_HACK syscall_filter, and the file does not exist; a
#      module that recomputes only the rows that changed since it last saw
#      an input address REWARD_HACK input_memo, confirmed by a second
#      attempt (the first alarm is never final);
#   3. the target's fingerprint names the interpreter, Python's and torch's
#      versions;
#   4. the judge audit runs a torch reference in its sandbox;
#   5. `nodus plan` refuses an interpreter that cannot import torch, in words.
# Without an interpreter that imports torch (Debian's python3-torch) it
# prints "skipped: no torch" and exits 77. Labels of item 1 on a busy
# machine are skipped as t3000 skips them (lib/load.sh).
set -u
. "$(dirname "$0")/lib/campaign.sh"
require_torch
tmp=$(mktemp -d)
mark=/tmp/nodus-torch-import-write
rm -f "$mark"
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
c=$tmp/suites/torch/campaign.json
busy=$(busy_cores 1)
if too_busy "$busy"; then
	echo "t7000: machine busy ($busy cores busy): every pair is timed whatever the load, to its first look"
	relax_isolation "$c" 1000
	set_judge "$c" timeout_s 900
	set_judge "$c" max_rounds 10
else
	relax_isolation "$c"
fi
"$NODUS" plan "$c" -o "$tmp/plan.json" >"$tmp/plan.out" 2>&1 || { cat "$tmp/plan.out"; echo "FAIL: plan"; exit 1; }
load_mark run
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
during=$(load_since run)
too_busy "$during" && busy=$during

# 1 and 2: every final record as the campaign declares it
python3 - "$tmp/r.db" "$busy" "$BUSY_MAX_CORES" <<'PY'
import json, sqlite3, sys
db, busy, most = sqlite3.connect(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
guards = {"row_sum_torch_zeros": "constant_output", "row_sum_torch_mutate": "input_read_only",
          "row_sum_torch_import_write": "syscall_filter", "row_sum_torch_thread": "syscall_filter",
          "layernorm_module_memo": "input_memo"}
fails, skipped, known, n = [], [], [], 0
for pid, expect, status, label, guard, msg, dj, lo, hi in db.execute(
        "SELECT r.pair_id, p.expect, r.status, r.label, r.guard, r.message, r.detail_json,"
        " r.ci_lo, r.ci_hi"
        " FROM records r JOIN pairs p ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id"
        " WHERE r.final = 1 ORDER BY r.id"):
    n += 1
    cand = pid.split("/")[1]
    d = json.loads(dj or "{}")
    if cand == "row_sum_module" and status == "OK":
        ph = d.get("phases", {})
        m, t = ph.get("measure", {}).get("settled", 0), ph.get("timer", {}).get("settled", 0)
        if not m > 0 or t != 0:
            fails.append(f"{pid}: by-value outputs copied after timing: measure settled {m} "
                         f"(expected > 0), timer (destination-passing) {t} (expected 0)")
    seen = max([d.get(k, {}).get("busy_cores", 0) for k in ("isolation_before", "isolation_after")])
    if expect in ("FASTER", "SLOWER", "TIED", "EQUIVALENT"):
        if status == "NOT_ISOLATED" or (status == "TIMEOUT" and busy > most):
            skipped.append((max(busy, seen), f"{pid}: {status}, its label unchecked"))
        elif status != "OK":
            fails.append(f"{pid}: expected {expect}, got {status} ({guard}: {msg})")
        elif expect != "EQUIVALENT" and label != expect:
            if busy > most or seen > most:
                skipped.append((max(busy, seen), f"{pid}: expected {expect}, got {label}"))
            elif expect == "TIED" and pid.split("/")[1] == pid.split("/")[2] and label == "AMBIGUOUS":
                # undecided, which earns no reward: a torch A/A pair's two
                # processes on this CPU can differ by about the margin
                # (issue 17). One labelled FASTER or SLOWER fails: before
                # the workers' heap was made alike (session 12) such a
                # pair was FASTER 1.72 and this test skipped it
                known.append(f"{pid}: expected {expect}, got {label}"
                             + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else ""))
            else:
                fails.append(f"{pid}: expected {expect}, got {label}")
        continue
    if status != expect:
        fails.append(f"{pid}: expected {expect}, got {status} ({guard}: {msg})")
    elif cand in guards and guard != guards[cand]:
        fails.append(f"{pid}: expected guard {guards[cand]}, got {guard} ({msg})")
    elif guard == "input_memo" and d.get("input_memo_confirms") is None:
        # a first input_memo alarm is never final: another attempt confirms it
        fails.append(f"{pid}: a final input_memo record that confirms no earlier alarm")
    elif cand == "row_sum_torch_syntax" and not (
            "SyntaxError" in msg and "row_sum_torch_syntax.py, line 4" in msg):
        fails.append(f"{pid}: the LOAD_ERROR does not name the file and line: {msg}")
if n != 16:
    fails.append(f"expected 16 final records, got {n}")
for f in fails:
    print("FAIL: " + f)
for cores, what in skipped:
    print(f"skipped: machine busy ({cores:.2f} cores busy): {what}")
for what in known:
    print(f"skipped: a torch A/A pair across two worker processes, not TIED (issue 17): {what}")
sys.exit(1 if fails else 77 if skipped or known else 0)
PY
case $? in 0) ;; 77) skips=$((skips + 1)) ;; *) fails=$((fails + 1)) ;; esac
[ -e "$mark" ] && fail "the module's import wrote $mark"

# 3: the target names the interpreter and the versions
python3 - "$tmp/r.db" "$PY" <<'PY' || fail "the target fingerprint lacks python"
import json, sqlite3, sys
import subprocess
want = subprocess.run([sys.argv[2], "-I", "-c", "import sys, torch; print(sys.version.split()[0], torch.__version__)"],
                      capture_output=True, text=True).stdout.split()
fps = [json.loads(f) for (f,) in sqlite3.connect(sys.argv[1]).execute("SELECT fingerprint_json FROM targets")]
got = [fp.get("python") for fp in fps]
ok = got and all(g == {"interpreter": sys.argv[2], "version": want[0], "torch": want[1]} for g in got)
if not ok:
    print(f"FAIL: fingerprint python {got}, expected {sys.argv[2]} {want}")
sys.exit(0 if ok else 1)
PY

# 4: the audit calls a torch reference (the torch pairs first)
python3 - "$c" "$tmp/audit.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["pairs"] = [p for p in c["pairs"] if p["reference"] == "row_sum_torch"]
c["tasks"], c["workloads"] = c["tasks"][:1], c["workloads"][:1]
c["solutions"] = [s for s in c["solutions"] if "layernorm" not in s]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
cp "$tmp/audit.json" "$c.audit.json"
"$NODUS" audit "$c.audit.json" --cache "$tmp/acache" >"$tmp/audit.out" 2>&1 ||
	fail "audit of the torch reference: $(cat "$tmp/audit.out")"
grep -q "reference row_sum_torch; calls: ran" "$tmp/audit.out" ||
	fail "the audit did not call the torch reference: $(cat "$tmp/audit.out")"

# 5: an interpreter without torch is refused by plan, in words
printf '#!/bin/sh\nexec %s -I -c "import sys; sys.modules[\\"torch\\"] = None; exec(sys.argv[-1])" "$@"\n' "$PY" >"$tmp/notorch"
chmod +x "$tmp/notorch"
python3 - "$c" "$tmp/notorch" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["target"]["python"] = sys.argv[2]
json.dump(c, open(sys.argv[1] + ".notorch.json", "w"), indent=1)
PY
"$NODUS" plan "$c.notorch.json" -o "$tmp/p2.json" >"$tmp/p2.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "plan with an interpreter without torch exited $rc, expected 2"
grep -q "target.python '$tmp/notorch' cannot import torch" "$tmp/p2.out" ||
	fail "plan's message: $(cat "$tmp/p2.out")"
[ -e "$tmp/p2.json" ] && fail "a plan was written for an interpreter without torch"

[ "$fails" -eq 0 ] && echo "t7000: 16 torch pairs as declared ($skips kind(s) of assertion skipped)"
test_exit
