#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3700-run-identity-inputs: issue 7's regression cases. Layernorm and
# rmsnorm candidates with a wrong affine step (weight dropped, bias
# dropped, bias added before scaling) agree exactly with the reference
# when weight is all ones and bias all zeros: on the *_naive workloads,
# which reproduce that naive judge on purpose (constant inputs, audit
# waivers in the campaign), they end OK. On the *_default workloads, with
# the tasks' own inputs (weight near 1 but never 1, bias near 0 but never
# 0), every one of them is INCORRECT_NUMERICAL. The (1 + weight) candidates
# double xhat when weight is 1, so they fail under both judges.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
campaign="$tmp/suites/identity/cpu/campaign.json"
"$NODUS" plan "$campaign" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --condition isolated -q || fail "run exited $?"
n=0 naive_ok=0 default_fail=0
while read -r pid cond expect outcome guard; do
	IFS=/ read -r workload candidate _ <<<"$pid"
	n=$((n + 1))
	want=FAIL
	case "$workload:$candidate" in *_naive:*_drop_weight | *_naive:*_drop_bias | *_naive:*_bias_first) want=OK ;; esac
	[ "$expect" = "$want" ] || fail "$pid: the campaign expects $expect, the suite promises $want"
	case "$workload:$candidate" in
	*_naive:*_one_plus)
		[ "$outcome" = INCORRECT_NUMERICAL ] ||
			fail "$pid ($cond): (1 + w) doubles xhat at w = 1, expected INCORRECT_NUMERICAL, got $outcome ($guard)" ;;
	*_naive:*_drop_weight | *_naive:*_drop_bias | *_naive:*_bias_first)
		case "$outcome" in
		FASTER | SLOWER | TIED | AMBIGUOUS) naive_ok=$((naive_ok + 1)) ;;
		*) fail "$pid ($cond): exact under w = 1, b = 0, expected OK, got $outcome ($guard)" ;;
		esac ;;
	*_default:*)
		if [ "$outcome" = INCORRECT_NUMERICAL ]; then
			default_fail=$((default_fail + 1))
		else
			fail "$pid ($cond): wrong affine step, expected INCORRECT_NUMERICAL, got $outcome ($guard)"
		fi ;;
	*) fail "$pid ($cond): unexpected pair in the identity campaign" ;;
	esac
done < <(final_outcomes "$tmp/r.db")
[ "$n" -ge 12 ] || fail "expected at least 12 final records, checked $n"
[ "$fails" -eq 0 ] &&
	echo "t3700: $n pairs: $naive_ok wrong candidates pass the naive judge (the (1 + w) ones fail it), all $default_fail fail the default one"
exit $((fails > 0))
