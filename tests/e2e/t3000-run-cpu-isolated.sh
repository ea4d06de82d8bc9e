#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3000-run-cpu-isolated: the bundled CPU campaign under `isolated` gives
# the labels its construction promises: every >= 2x candidate FASTER, every
# slower one SLOWER, every wrong one (the wrong-affine layernorm and rmsnorm
# included) a failure status, every A/A pair TIED, and no honest candidate
# rejected by any guard (false-rejection rate 0).
set -u
unset NODUS_EXPERIMENT_SPARES_DURING_TIMING # the records must say quiet_timing
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
relax_isolation "$tmp/suites/cpu/campaign.json"
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --condition isolated -q || fail "run exited $?"
n=0
while read -r pid cond expect outcome guard; do
	n=$((n + 1))
	case "$expect" in
	FASTER | SLOWER | TIED)
		[ "$outcome" = "$expect" ] || fail "$pid: expected $expect, got $outcome ($guard)" ;;
	EQUIVALENT)
		case "$outcome" in TIED | AMBIGUOUS) ;; *) fail "$pid: equivalent candidate got $outcome ($guard)" ;; esac ;;
	FAIL)
		case "$outcome" in FASTER | SLOWER | TIED | AMBIGUOUS) fail "$pid: wrong candidate labelled $outcome" ;; esac ;;
	esac
done < <(final_outcomes "$tmp/r.db")
[ "$n" -eq 37 ] || fail "expected 37 final records, got $n"
grep -q affine_wrong < <(final_outcomes "$tmp/r.db" | grep -v OK) || fail "no wrong-affine pair recorded"
# every timed record says where its wall time went (bench/phases.py and
# bench/overhead.py read this): the documented keys, the per-worker items,
# parts inside their wholes, and the whole inside the record's wall time.
# A pair whose reference outputs an earlier pair's oracle computed (an
# oracle group: same reference and workload) has no oracle of its own and
# names that pair, whose record lists it; the campaign has such pairs.
python3 - "$tmp/r.db" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, wall_s, detail_json FROM records WHERE status = 'OK'").fetchall()
top = ["build_s", "oracle_start_s", "oracle_s", "measure_start_s", "trials_s", "quiesce_s",
       "measure_s", "isolation_after_s", "compare_s", "round_nvml_s", "round_decide_s"]
worker = ["load_s", "fingerprint_s", "setup_s", "draw_s", "upload_s", "checksum_s", "call_s",
          "send_s", "size_s", "copies_s", "rounds_s", "perturb_s", "recheck_s", "intact_s", "bytes",
          "alloc_s", "job_s", "device_draw_s"]
bad = []
groups = {pid: json.loads(detail).get("oracle_group") for pid, detail in sqlite3.connect(
    sys.argv[1]).execute("SELECT pair_id, detail_json FROM records WHERE final = 1")}
followers = 0
for pid, wall, detail in rows:
    ph = json.loads(detail).get("phases", {})
    group = groups[pid]
    own_oracle = not group or group["leader"] == pid
    if not own_oracle:
        followers += 1
        lead = groups.get(group["leader"])
        if not lead or lead["leader"] != group["leader"] or pid not in lead["pairs"]:
            bad.append(f"{pid}: its oracle group's leader {group['leader']} does not list it")
        if "oracle" in ph or "oracle_s" in ph or "oracle" in json.loads(detail).get("startup", {}):
            bad.append(f"{pid}: an oracle of its own, yet in {group['leader']}'s group")
        continue
    missing = [k for k in top if k not in ph] + [f"{w}.{k}" for w in ("oracle", "measure")
                                                 for k in worker if k not in ph.get(w, {})]
    if missing:
        bad.append(f"{pid}: no {', '.join(missing)}")
        continue
    m = ph["measure"]
    if m["perturb_s"] + m["recheck_s"] + m["intact_s"] > m["rounds_s"] + 1e-6:
        bad.append(f"{pid}: rounds_s {m['rounds_s']} smaller than its parts")
    spent = sum(ph[k] for k in ("build_s", "oracle_start_s", "oracle_s", "measure_start_s",
                                "measure_s"))
    inside = ph["trials_s"] + ph["quiesce_s"] + ph["isolation_after_s"]
    if spent > wall + 1e-3 or inside > ph["measure_s"] + 1e-6:
        bad.append(f"{pid}: phases {spent:.3f} s do not fit in wall {wall:.3f} s")
    if m["bytes"] <= 0 or ph["oracle"]["bytes"] <= 0:
        bad.append(f"{pid}: no bytes counted")
    # what each worker's start-up cost, and under which schedule it ran
    d = json.loads(detail)
    for who in ("oracle", "measure"):
        st = d.get("startup", {}).get(who, {})
        if set(st) != {"exec_s", "open_s", "context_s", "setup_s", "fingerprint_s"} or \
                not 0 <= st["exec_s"] < 60 or not 0 <= st["open_s"] < 60:
            bad.append(f"{pid}: detail.startup.{who} is {st}")
    if d.get("worker_schedule") != "quiet_timing":
        bad.append(f"{pid}: worker_schedule {d.get('worker_schedule')}")
if not followers:
    bad.append("no pair took its reference outputs from an oracle group")
if not rows or bad:
    print("FAIL: detail.phases: " + ("; ".join(bad[:5]) if bad else "no OK records"))
    sys.exit(1)
PY
# a misspelt experiment switch is refused before anything runs, never ignored
NODUS_EXPERIMENT_SPARES_DURING_TIMING=yes "$NODUS" run "$tmp/plan.json" --db "$tmp/x.db" -q 2>"$tmp/x.err"
[ $? -eq 2 ] && grep -q "NODUS_EXPERIMENT_SPARES_DURING_TIMING is 'yes': expected 1" "$tmp/x.err" &&
	[ ! -e "$tmp/x.db" ] || fail "a bad NODUS_EXPERIMENT_SPARES_DURING_TIMING was not refused"
# the bench scripts read such a database: each runs on it, says --help,
# and refuses a wrong command line with exit 2
bench="$(dirname "$0")/../../bench"
python3 "$bench/phases.py" "$tmp/r.db" | grep -q "^worker start-ups" || fail "phases.py: no start-up summary"
python3 "$bench/overhead.py" "$tmp/r.db" | grep -q "^fixed overhead per pair-condition" || fail "overhead.py: no fixed overhead"
python3 "$bench/aa-short.py" "$tmp/r.db" | grep -qE "one \.so +spr 5: .* records" || fail "aa-short.py: no per-kind summary"
python3 "$bench/retest.py" "$tmp/r.db" "$tmp/r.db" | tail -1 | grep -q -- "-> PASS" || fail "retest.py: a run against itself does not pass"
# schedule.py checks each database's schedule: run 3 and 4 must be the overlap runs
python3 "$bench/schedule.py" "$tmp/r.db" "$tmp/r.db" "$tmp/r.db" "$tmp/r.db" >"$tmp/schedule.txt" 2>"$tmp/schedule.err"
[ $? -eq 1 ] && grep -q "records of another schedule" "$tmp/schedule.txt" || fail "schedule.py: quiet records taken for overlap runs"
[ -s "$tmp/schedule.err" ] && fail "schedule.py: $(tail -1 "$tmp/schedule.err")"
grep -q "^labels, quiet run x overlap run" "$tmp/schedule.txt" || fail "schedule.py: no label comparison"
for script in phases overhead retest schedule conditions-check aa-short; do
	python3 "$bench/$script.py" --help >"$tmp/help.txt" && grep -q "^Usage: $script.py" "$tmp/help.txt" || fail "$script.py --help"
	python3 "$bench/$script.py" 2>/dev/null
	[ $? -eq 2 ] || fail "$script.py without arguments: exit not 2"
done
[ "$fails" -eq 0 ] && echo "t3000: $n pairs as constructed"
exit $((fails > 0))
