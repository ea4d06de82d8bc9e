#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3310-busy-machine: `make test` on a machine that other work keeps busy.
# Two CPU-bound processes (`yes > /dev/null`, twice) run beside the tests
# whose assertions need an idle machine (t3000, t3300, t3600, t3650); each
# must pass or skip those assertions with "skipped: machine busy (N cores
# busy)" and CTest's skip code (77), never fail. The load helper must see
# the two processes, t3000 must have noticed the load before its run, and
# t3300's pair, refused beside them, must be skipped rather than failed.
# The skipped assertions are listed. Slow (it runs four campaign tests on
# a loaded machine): ctest label `busy`, and left out of the sanitizer pass.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
hogs=()
trap 'kill -9 "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
for i in 1 2; do
	yes >/dev/null &
	hogs+=($!)
done
sleep 0.5
busy=$(busy_cores 1)
too_busy "$busy" || fail "two yes processes running, yet only $busy cores busy"
for t in t3000-run-cpu-isolated t3300-run-isolation-refused t3600-run-short-margin t3650-run-min-timed; do
	start=$(date +%s)
	bash "$(dirname "$0")/$t.sh" >"$tmp/$t.out" 2>&1
	rc=$?
	for h in "${hogs[@]}"; do kill -0 "$h" 2>/dev/null || fail "$t: a yes process ended"; done
	echo "t3310: $t exited $rc after $(($(date +%s) - start)) s"
	grep "^skipped: machine busy (" "$tmp/$t.out" | sed "s/^/  $t: /"
	case $rc in
	0) ;;
	77) grep -q "^skipped: machine busy ([0-9.]* cores busy)" "$tmp/$t.out" ||
		fail "$t: exit 77 without saying what it skipped" ;;
	*) fail "$t failed on a busy machine:"; tail -20 "$tmp/$t.out" ;;
	esac
done
grep -q "^t3000: machine busy ([0-9.]* cores busy): every pair is timed" "$tmp/t3000-run-cpu-isolated.out" ||
	fail "t3000 did not notice the load before its run"
grep -q "^skipped: machine busy (.*): the pair runs once the busy loops have ended" \
	"$tmp/t3300-run-isolation-refused.out" || fail "t3300: the refused pair was not skipped"
[ "$fails" -eq 0 ] && echo "t3310: beside two busy processes, every test passed or skipped with a reason"
exit $((fails > 0))
