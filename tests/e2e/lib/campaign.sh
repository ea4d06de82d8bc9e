# SPDX-License-Identifier: MIT
# Shared helpers of the end-to-end run tests (sourced, not run).
#
# copy_suites DIR: copies suites/ to DIR so a test may adjust a campaign's
# judge without touching the source tree. relax_isolation CAMPAIGN [CORES]:
# raises isolation_max_busy_cores, because CI runs the test runner itself
# beside the measured pairs on a 2-core machine (the isolation check is
# tested on its own in t3300). final_outcomes DB: prints
# "pair_id condition expect outcome guard" per final record. require_torch:
# sets PY to Debian's /usr/bin/python3, or ends the test with "skipped: no
# torch" (exit 77) when it cannot import torch. The load helpers
# (busy_cores, skip_busy, test_exit...) are lib/load.sh's.
: "${NODUS:?}" "${NODUS_SRC:?}"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
. "$(dirname "${BASH_SOURCE[0]}")/load.sh"
require_torch() {
	PY=/usr/bin/python3
	if ! "$PY" -I -c 'import torch' 2>/dev/null; then
		echo "skipped: no torch ($PY cannot import torch; Debian's python3-torch provides it)"
		exit 77
	fi
}
copy_suites() {
	cp -r "$NODUS_SRC/suites" "$1/suites"
}
relax_isolation() {
	python3 - "$1" "${2:-1.5}" <<'PY'
import json, sys
p, cores = sys.argv[1], float(sys.argv[2])
c = json.load(open(p))
c.setdefault("judge", {})["isolation_max_busy_cores"] = cores
json.dump(c, open(p, "w"), indent=1)
PY
}
set_judge() { # CAMPAIGN KEY JSON-VALUE
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c.setdefault("judge", {})[sys.argv[2]] = json.loads(sys.argv[3])
json.dump(c, open(p, "w"), indent=1)
PY
}
# expect_constructed DB BUSY N [AGAIN_DB]: every final record of DB ends
# OK with its pair's expect, or AMBIGUOUS (EQUIVALENT: any label); and
# there are N of them. A label against the expect fails unless BUSY cores
# (lib/load.sh) were too many for a timing label to be trusted (then
# "skipped: machine busy"). AGAIN_DB, where given, holds the pairs that
# against_construction named, run again in new processes: such a pair is
# judged by that record. A construction fault repeats; an offset between
# one pair of processes does not (docs/statistics.md, "Between processes":
# on the 2-core machine cold calls of a few dozen elements were up to 18%
# apart in one pair of processes). The study samples' check (t3900, t3910).
expect_constructed() {
	local pid cond expect outcome guard n
	while read -r pid cond expect outcome guard; do
		if [ -n "${4:-}" ] && [ -n "$(final_outcomes "$4" | grep "^$pid ")" ]; then
			echo "first: $pid $outcome (expect $expect), run again in new processes:"
			read -r pid cond expect outcome guard < <(final_outcomes "$4" | grep "^$pid ")
		fi
		case $outcome in
		FASTER | SLOWER | TIED | AMBIGUOUS)
			if [ "$outcome" = "$expect" ] || [ "$outcome" = AMBIGUOUS ] || [ "$expect" = EQUIVALENT ]; then
				echo "ok: $pid $outcome (expect $expect)"
			elif too_busy "$2"; then
				skip_busy "$2" "$pid labelled $outcome, expect $expect"
			else
				fail "$pid: $outcome, expect $expect"
			fi
			;;
		*) fail "$pid: $outcome ($guard), expect $expect" ;;
		esac
	done < <(final_outcomes "$1")
	n=$(final_outcomes "$1" | wc -l)
	[ "$n" -eq "$3" ] || fail "$n final records, expected $3"
}
# against_construction DB: the pairs of DB's final records whose label is
# decisive and not their expect (EQUIVALENT: none), one per line
against_construction() {
	final_outcomes "$1" | awk '$4 ~ /^(FASTER|SLOWER|TIED)$/ && $4 != $3 && $3 != "EQUIVALENT" { print $1 }'
}
# rerun_against CAMPAIGN DB: the pairs of DB labelled against their
# construction (against_construction), planned again from CAMPAIGN alone and
# run under isolated in new processes into $tmp/again.db; sets `again` to
# that store ("" when there was nothing to run again) and raises `busy` by
# the load during the run (lib/load.sh). The study samples' (t3900, t3910).
rerun_against() {
	local pairs
	again=""
	pairs=$(against_construction "$2")
	[ -n "$pairs" ] || return 0
	only_pairs "$1" $pairs || fail "keep the pairs to run again"
	"$NODUS" plan "$1" -o "$tmp/again.json" >/dev/null 2>&1 || fail "plan of the pairs to run again"
	load_mark rerun
	"$NODUS" run "$tmp/again.json" --db "$tmp/again.db" --condition isolated -q || fail "run again exited $?"
	busy=$(max_cores "$busy" "$(load_since rerun)")
	again=$tmp/again.db
}
# only_pairs CAMPAIGN PAIR...: keeps only the named pairs (workload/candidate/reference)
only_pairs() {
	python3 - "$@" <<'PY'
import json, sys
p, keep = sys.argv[1], set(sys.argv[2:])
c = json.load(open(p))
c["pairs"] = [x for x in c["pairs"] if f'{x["workload"]}/{x["candidate"]}/{x["reference"]}' in keep]
assert len(c["pairs"]) == len(keep), "a pair to keep is not in the campaign"
json.dump(c, open(p, "w"), indent=1)
PY
}
final_outcomes() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for pid, cond, expect, status, label, guard in db.execute(
        "SELECT r.pair_id, r.condition, IFNULL(p.expect, '-'), r.status, r.label, r.guard"
        " FROM records r JOIN pairs p ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id"
        " WHERE r.final = 1 ORDER BY r.id"):
    print(pid, cond, expect, label if status == "OK" else status, guard or "-")
PY
}
# small_campaign SUITES TASK... : keeps only the pairs of the named tasks in
# suites/cpu/campaign.json and shortens the timing, for tests that run the
# campaign many times.
small_campaign() {
	python3 - "$@" <<'PY'
import json, sys
suites, tasks = sys.argv[1], set(sys.argv[2:])
p = f"{suites}/cpu/campaign.json"
c = json.load(open(p))
c["pairs"] = [x for x in c["pairs"] if x["workload"].split("_")[0] in tasks]
c["judge"].update(min_rounds=4, max_rounds=8, look_every=2)
json.dump(c, open(p, "w"), indent=1)
print(len(c["pairs"]))
PY
}
# private_nodus DIR: a copy of the nodus binary under DIR/bin, so that its
# workers and stressors can be told apart from any other nodus on the
# machine; prints the copy's path.
private_nodus() {
	mkdir -p "$1/bin"
	cp "$NODUS" "$1/bin/nodus"
	[ -f "$(dirname "$NODUS")/libnodus_cuda.so" ] && cp "$(dirname "$NODUS")/libnodus_cuda.so" "$1/bin/"
	cp -r "$NODUS_SRC/include" "$1/include"
	echo "$1/bin/nodus"
}
# count_processes PATTERN: live processes whose command line matches.
count_processes() {
	pgrep -f -- "$1" | grep -vc "^$$\$" || true
}
