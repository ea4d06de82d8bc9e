#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t5300-slurm: `nodus slurm PLAN --db DB --array N --submit` on a real
# Slurm (slurmctld and slurmd on this machine, started here with a private
# configuration, munge and ports; Debian's slurm-wlm, which scripts/deps.sh
# installs), issue 22:
# - the array's tasks run one shard each into stores of their own, and the
#   merge job after them merges nothing while a task has not completed: a
#   task killed mid-run (scancel) leaves the merge saying which tasks to
#   submit again, and no DB;
# - submit.sh --array=1 runs that task again (it resumes its own store) and
#   a merge after it: DB then holds every pair-condition's final record
#   exactly once, nothing lost and nothing twice, with the labels of the
#   same plan run on one machine (pairs whose labels no noise can move:
#   large effects and wrong candidates);
# - refused with exit 2: no --array, a bad --array, an existing non-empty
#   output directory (left as it was).
# Skipped, saying why, without Slurm's daemons or without root.
set -u
. "$(dirname "$0")/lib/campaign.sh"
for b in slurmctld slurmd munged sbatch squeue scancel sinfo scontrol; do
	command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
	command -v "$b" >/dev/null 2>&1 || { echo "skipped: no $b (Debian's slurm-wlm and munge: scripts/deps.sh)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: Slurm's test daemons run as root here"; exit 77; }
tmp=$(mktemp -d)
sl="$tmp/slurm"
stop_slurm() {
	[ -f "$sl/slurm.conf" ] && SLURM_CONF="$sl/slurm.conf" scontrol shutdown >/dev/null 2>&1
	for f in "$sl/run/slurmctld.pid" "$sl/run/slurmd.pid" "$sl/munge/munged.pid"; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 1
	pkill -9 -f "$sl/" 2>/dev/null
}
trap 'stop_slurm; pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$sl"/{state,spool,log,munge,run}
chmod 700 "$sl/munge"
head -c 1024 /dev/urandom >"$sl/munge/munge.key"
chmod 400 "$sl/munge/munge.key"
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ports = []
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0)); ports.append(s.getsockname()[1])
print(*ports)')
host=$(hostname -s)
cat >"$sl/slurm.conf" <<CONF
ClusterName=nodus-t5300
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sl/munge/munge.socket
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/run/slurmctld.pid
SlurmdPidFile=$sl/run/slurmd.pid
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldLogFile=$sl/log/slurmctld.log
SlurmdLogFile=$sl/log/slurmd.log
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=nodus Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$sl/slurm.conf"
munged --key-file="$sl/munge/munge.key" --socket="$sl/munge/munge.socket" \
	--pid-file="$sl/munge/munged.pid" --log-file="$sl/munge/munged.log" \
	--seed-file="$sl/munge/seed" -f || { echo "FAIL: munged did not start"; exit 1; }
slurmctld -f "$sl/slurm.conf" || { echo "FAIL: slurmctld did not start: $(tail -3 "$sl/log/slurmctld.log")"; exit 1; }
slurmd -f "$sl/slurm.conf" || { echo "FAIL: slurmd did not start: $(tail -3 "$sl/log/slurmd.log")"; exit 1; }
for _ in $(seq 60); do
	sinfo -h -o %T 2>/dev/null | grep -q idle && break
	sleep 0.5
done
sinfo -h -o %T 2>/dev/null | grep -q idle ||
	{ echo "FAIL: the Slurm node never came up: $(tail -3 "$sl/log/slurmd.log")"; exit 1; }

# wait_jobs ID...: until Slurm lists none of them (5 minutes at most)
wait_jobs() {
	local ids
	ids=$(IFS=,; echo "$*")
	for _ in $(seq 600); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	fail "jobs $ids still queued or running after 5 minutes: $(squeue 2>&1 | head -5)"
	return 1
}
records() { # DB: how many records it holds (0 when there is none yet)
	python3 -c "
import sqlite3, sys
try:
    print(sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True).execute('SELECT COUNT(*) FROM records').fetchone()[0])
except Exception:
    print(0)" "$1"
}

copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
campaign="$tmp/suites/cpu/campaign.json"
python3 - "$campaign" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
# labels no noise moves: many-fold effects and wrong candidates
keep = [x for x in c["pairs"] if x["workload"].split("_")[0] in ("vector", "row", "softmax")
        and x.get("expect") in ("FASTER", "SLOWER", "FAIL")]
c["pairs"] = keep
c["conditions"] = [{"name": "isolated", "kind": "isolated"}]
c["judge"].update(min_rounds=4, max_rounds=8, look_every=2, isolation_max_busy_cores=2.5,
                  timeout_s=900)
json.dump(c, open(p, "w"), indent=1)
print(len(keep), "pairs")
PY
"$NODUS" plan "$campaign" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/single.db" -q || fail "the single-machine run exited $?"

# refusals
"$NODUS" slurm "$tmp/plan.json" --db "$tmp/x.db" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "no --array N given" "$tmp/out" || fail "no --array: exit $rc: $(cat "$tmp/out")"
"$NODUS" slurm "$tmp/plan.json" --db "$tmp/x.db" --array 0 >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "expected a number of tasks in 1..10000" "$tmp/out" || fail "--array 0: exit $rc"
mkdir -p "$tmp/busy" && echo keep >"$tmp/busy/mine"
"$NODUS" slurm "$tmp/plan.json" --db "$tmp/x.db" --array 2 -o "$tmp/busy" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "exists and is not empty" "$tmp/out" || fail "a non-empty -o: exit $rc: $(cat "$tmp/out")"
[ "$(ls "$tmp/busy")" = mine ] && [ "$(cat "$tmp/busy/mine")" = keep ] || fail "a refused -o was changed"

# the array, with task 1 killed mid-run
"$NODUS" slurm "$tmp/plan.json" --db "$tmp/arr.db" --array 3 -o "$tmp/arr" \
	--sbatch=--cpus-per-task=1 --submit >"$tmp/submit.txt" 2>&1 || fail "slurm --submit exited $?: $(cat "$tmp/submit.txt")"
job=$(sed -n 's/^nodus slurm: array job \([0-9]*\), merge job \([0-9]*\).*/\1/p' "$tmp/submit.txt")
merge=$(sed -n 's/^nodus slurm: array job \([0-9]*\), merge job \([0-9]*\).*/\2/p' "$tmp/submit.txt")
[ -n "$job" ] && [ -n "$merge" ] || { echo "FAIL: no job ids in: $(cat "$tmp/submit.txt")"; exit 1; }
for _ in $(seq 1200); do
	[ "$(records "$tmp/arr/shards/shard-1.db")" -ge 1 ] && break
	sleep 0.1
done
scancel "${job}_1"
killed_mid_run=1
[ -f "$tmp/arr/shards/shard-1.done" ] && killed_mid_run=0
wait_jobs "$job" "$merge"
if [ "$killed_mid_run" = 1 ]; then
	grep -q "tasks 1 did not complete" "$tmp/arr/logs/merge.out" ||
		fail "the merge after a killed task says: $(cat "$tmp/arr/logs/merge.out")"
	[ -e "$tmp/arr.db" ] && fail "a merge ran with a task killed"
else
	fail "task 1 completed before it could be killed (the shard is too quick for this machine)"
fi
bash "$tmp/arr/submit.sh" --array=1 >"$tmp/resubmit.txt" 2>&1 || fail "submit.sh --array=1 exited $?: $(cat "$tmp/resubmit.txt")"
job2=$(sed -n 's/^nodus slurm: array job \([0-9]*\), merge job \([0-9]*\).*/\1/p' "$tmp/resubmit.txt")
merge2=$(sed -n 's/^nodus slurm: array job \([0-9]*\), merge job \([0-9]*\).*/\2/p' "$tmp/resubmit.txt")
wait_jobs "$job2" "$merge2"
grep -q "record(s) merged" "$tmp/arr/logs/merge.out" || fail "the second merge says: $(cat "$tmp/arr/logs/merge.out")"
python3 - "$tmp/arr.db" "$tmp/single.db" "$tmp/plan.json" <<'PY' || fail "the array's merged store against the single run"
import json, sqlite3, sys
def finals(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for pair, cond, status, label in db.execute(
            "SELECT pair_id, condition, status, label FROM records WHERE final = 1 AND status <> 'NOT_ISOLATED'"):
        assert (pair, cond) not in out, ("decided twice", path, pair, cond)
        out[(pair, cond)] = (status, label)
    return out
plan = json.load(open(sys.argv[3]))
want = {(p["id"], c["name"]) for p in plan["pairs"] for c in plan["conditions"]}
arr, single = finals(sys.argv[1]), finals(sys.argv[2])
assert set(arr) == want, ("lost", sorted(want - set(arr)), "extra", sorted(set(arr) - want))
assert set(single) == want, sorted(want - set(single))
differ = {k: (arr[k], single[k]) for k in want if arr[k] != single[k]}
assert not differ, differ
print(f"{len(want)} pair-conditions, each once, labels as on one machine")
PY
[ "$fails" -eq 0 ] && echo "ok: slurm" || exit 1
