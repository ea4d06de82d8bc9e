#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t6000-run-adversarial: every exploit of the CPU adversarial suite ends with
# the non-passing status its campaign declares (and so is never FASTER), and
# the guard that caught it is recorded. Writes the guard table rows for
# docs/guards.md to $GUARDS_OUT when that is set (scripts/guards-table.py).
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/suites/adversarial/campaign.json" 2.5
"$NODUS" plan "$tmp/suites/adversarial/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
n=0
while read -r pid cond expect outcome guard; do
	n=$((n + 1))
	if [ "$expect" = TIED ]; then
		# an exploit whose gain the protocol removed: correct, and no faster
		# than honest work (a copy of the reference's code may still land a
		# few percent off: code placement alone moves a cpu kernel)
		case "$outcome" in TIED | SLOWER | AMBIGUOUS) ;; *) fail "$pid: expected no gain (TIED), got $outcome ($guard)" ;; esac
	else
		[ "$outcome" = "$expect" ] || fail "$pid: expected $expect, got $outcome ($guard)"
	fi
	[ "$outcome" = FASTER ] && fail "$pid: an exploit was labelled FASTER"
	# an exploit whose gain the protocol removed is TIED with no guard
	[ "$guard" = - ] && [ "$expect" != TIED ] && fail "$pid: no guard recorded"
done < <(final_outcomes "$tmp/r.db")
[ "$n" -ge 17 ] || fail "expected at least 17 exploits, got $n"
[ -n "${GUARDS_OUT:-}" ] && cp "$tmp/r.db" "$GUARDS_OUT"
[ "$fails" -eq 0 ] && echo "t6000: $n exploits caught as declared"
exit $((fails > 0))
