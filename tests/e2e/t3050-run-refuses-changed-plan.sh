#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3050-run-refuses-changed-plan: `nodus run` refuses a plan whose files
# changed since sealing (exit 1, naming the file) and writes no record; a
# second run into a store that already holds the plan's records is refused
# without --resume (exit 2), and accepted with it.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/mini/campaign.json" 2.5
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
src="$tmp/mini/solutions/vec_add_unrolled.c"
cp "$src" "$tmp/orig.c"
echo "/* one more line */" >>"$src"
out=$("$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "run of a changed plan exited $rc, expected 1: $out"
grep -q "vec_add_unrolled.c" <<<"$out" || fail "the changed file is not named: $out"
[ -e "$tmp/r.db" ] && [ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM sqlite_master WHERE name=\"records\"').fetchone()[0])" "$tmp/r.db")" != 0 ] &&
	[ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM records').fetchone()[0])" "$tmp/r.db")" != 0 ] &&
	fail "records were written for a plan that does not verify"
cp "$tmp/orig.c" "$src"
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q --condition isolated || fail "run of the restored plan exited $?"
out=$("$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "a second run without --resume exited $rc, expected 2: $out"
grep -q -- "--resume" <<<"$out" || fail "the refusal does not point to --resume: $out"
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q --resume || fail "run --resume exited $?"
[ "$fails" -eq 0 ] && echo "t3050: changed plans refused, records never mixed"
exit $((fails > 0))
