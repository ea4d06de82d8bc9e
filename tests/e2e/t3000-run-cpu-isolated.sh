#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3000-run-cpu-isolated: the bundled CPU campaign under `isolated` gives
# the labels its construction promises: every >= 2x candidate FASTER, every
# slower one SLOWER, every wrong one (the wrong-affine layernorm and rmsnorm
# included) a failure status, every A/A pair TIED, and no honest candidate
# rejected by any guard (false-rejection rate 0).
set -u
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
[ "$fails" -eq 0 ] && echo "t3000: $n pairs as constructed"
exit $((fails > 0))
