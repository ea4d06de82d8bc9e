#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3920-run-devices: `nodus run --devices LIST` (issue 22) runs one
# orchestrator per entry of LIST, each a shard of the plan, all into one
# store (src/run/devices.c):
# - refused with exit 2 and the reason: a cpu plan, a bad LIST, --shard
#   beside it, a store that already holds the plan's records without
#   --resume;
# - the merge path, on the cpu (NODUS_TEST_DEVICES_ON_CPU=1: each entry an
#   orchestrator on the cpu): "0,0" gives every pair-condition exactly one
#   final record, pair p's from orchestrator p % 2 (two run ids, each on
#   its own shard), nothing lost and nothing twice; the report reads them;
#   --resume afterwards writes nothing; on two CPUs or more each
#   orchestrator's timing ran on CPUs of its own, the ones it said; GPUs of two profiles
#   (NODUS_TEST_DEVICES_DIFFER=1) are refused, the differing field named;
# - on a machine with a GPU the cuda half runs in bench/gpu-check.sh
#   devices (the H200's evidence lives in bench/results/h200).
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" vector row >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
campaign="$tmp/suites/cpu/campaign.json"
set_judge "$campaign" timeout_s 900
"$NODUS" plan "$campaign" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
refused() { # NAME WANT-IN-STDERR ARGS...
	local name=$1 want=$2
	shift 2
	"$NODUS" run "$tmp/plan.json" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2"
	grep -qF -- "$want" "$tmp/err" || fail "$name: stderr lacks '$want': $(cat "$tmp/err")"
}
refused "cpu plan" "targets cpu, not cuda" --db "$tmp/x.db" --devices 0
refused "bad list" "expected 'all' or GPU ordinals" --db "$tmp/x.db" --devices 0,x
refused "trailing comma" "ends with a comma" --db "$tmp/x.db" --devices 0,
refused "empty" "no GPU named" --db "$tmp/x.db" --devices ""
refused "with --shard" "give --devices or --shard, not both" --db "$tmp/x.db" --devices 0 --shard 0/2
[ -e "$tmp/x.db" ] && fail "a refused --devices created the store"

export NODUS_TEST_DEVICES_ON_CPU=1
"$NODUS" run "$tmp/plan.json" --db "$tmp/d.db" --devices 0,0 >"$tmp/run.out" 2>&1 ||
	fail "--devices 0,0 exited $?: $(tail -5 "$tmp/run.out")"
grep -q "^run complete on 0,0" "$tmp/run.out" || fail "no completion line: $(tail -3 "$tmp/run.out")"
[ "$(grep -c '^device 0: ' "$tmp/run.out")" -eq 1 ] || fail "the one GPU's fingerprint is not asked once"
python3 - "$tmp/d.db" "$tmp/plan.json" <<'PY' || fail "records of --devices 0,0"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
plan = json.load(open(sys.argv[2]))
pairs = [p["id"] for p in plan["pairs"]]
conds = [c["name"] for c in plan["conditions"]]
finals = {}
for pair, cond, detail in db.execute(
        "SELECT pair_id, condition, detail_json FROM records WHERE final = 1 AND status <> 'NOT_ISOLATED'"):
    assert (pair, cond) not in finals, ("twice", pair, cond)
    finals[(pair, cond)] = json.loads(detail)["run"]["id"]
missing = [(p, c) for p in pairs for c in conds if (p, c) not in finals]
assert not missing, ("lost", missing)
runs = {}
for i, p in enumerate(pairs):
    for c in conds:
        runs.setdefault(i % 2, set()).add(finals[(p, c)])
assert all(len(v) == 1 for v in runs.values()), runs
assert runs[0] != runs[1], ("one orchestrator ran both shards", runs)
PY
# each orchestrator on CPUs of its own (src/run/cpu_groups.c): on two CPUs
# or more the shards' timing workers were pinned to different CPUs, the
# ones the progress names, never both to the machine's last
if [ "$(nproc)" -ge 2 ]; then
	grep -q "^shard 0/2 on GPU 0: CPUs " "$tmp/run.out" && grep -q "^shard 1/2 on GPU 0: CPUs " "$tmp/run.out" ||
		fail "the shards' CPUs are not said: $(grep -i cpus "$tmp/run.out")"
	python3 - "$tmp/d.db" "$tmp/plan.json" "$tmp/run.out" <<'PY' || fail "two orchestrators timed on one CPU"
import json, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
pairs = [p["id"] for p in json.load(open(sys.argv[2]))["pairs"]]
said = {}
for line in open(sys.argv[3]):
    m = re.match(r"shard (\d+)/2 on GPU 0: CPUs (\S+)", line)
    if m:
        cpus = set()
        for part in m.group(2).split(","):
            a, _, b = part.partition("-")
            cpus.update(range(int(a), int(b or a) + 1))
        said[int(m.group(1))] = cpus
assert len(said) == 2 and not (said[0] & said[1]), said
used = {0: set(), 1: set()}
for pair, detail in db.execute("SELECT pair_id, detail_json FROM records WHERE final = 1"):
    cpu = json.loads(detail).get("timing", {}).get("cpu")
    if cpu is not None:
        used[pairs.index(pair) % 2].add(cpu)
assert used[0] and used[1] and not (used[0] & used[1]), used
assert used[0] <= said[0] and used[1] <= said[1], (used, said)
PY
fi
"$NODUS" report "$tmp/d.db" >"$tmp/report.txt" 2>&1 || fail "report: $(tail -3 "$tmp/report.txt")"
refused "again without --resume" "already holds records of this plan" --db "$tmp/d.db" --devices 0,0
before=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM records').fetchone()[0])" "$tmp/d.db")
"$NODUS" run "$tmp/plan.json" --db "$tmp/d.db" --devices 0,0 --resume -q || fail "--resume exited $?"
after=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM records').fetchone()[0])" "$tmp/d.db")
[ "$before" = "$after" ] || fail "--resume of a finished plan wrote records ($before -> $after)"
# GPUs of two profiles (the hook names each entry in its profile): refused
# before anything runs, the differing field named, nothing stored
NODUS_TEST_DEVICES_DIFFER=1 refused "two profiles" "GPU 1 is another profile than GPU 0 (they differ in test_visible_device)" \
	--db "$tmp/two.db" --devices 0,1
[ -e "$tmp/two.db" ] && fail "a refused --devices of two profiles created the store"
unset NODUS_TEST_DEVICES_ON_CPU
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skipped: no GPU (the cuda half: bench/gpu-check.sh devices)"
fi
[ "$fails" -eq 0 ] && echo "ok: run --devices" || exit 1
