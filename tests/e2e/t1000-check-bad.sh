#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t1000-check-bad: `nodus check` rejects every malformed file of tests/bad/.
#
# Each tests/bad/NAME.json has a NAME.expect whose lines are fragments the
# output must contain (typically FILE:LINE:COLUMN: $.path: expected ...).
# For every file: exit status 2, no crash (status < 128), every fragment
# present. Then files generated here: a 10 MB deeply nested document (not
# committed), and several bad files in one call (all reported, exit 2).
# Env: NODUS = the binary, NODUS_SRC = the source root.
set -u
: "${NODUS:?}" "${NODUS_SRC:?}"
fails=0
cases=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# check_case FILE EXPECT_FILE: runs nodus check FILE in the current directory.
check_case() {
	local f=$1 expect=$2 out rc frag
	out=$("$NODUS" check "$f" 2>&1)
	rc=$?
	cases=$((cases + 1))
	if [ "$rc" -ge 128 ]; then
		fail "$f: crashed (status $rc)"
		return
	fi
	[ "$rc" -eq 2 ] || fail "$f: exit $rc, expected 2"
	while IFS= read -r frag || [ -n "$frag" ]; do
		[ -n "$frag" ] || continue
		grep -qF -- "$frag" <<<"$out" || fail "$f: missing '$frag'; output was: $out"
	done <"$expect"
}

# 1. The committed corpus.
cd "$NODUS_SRC/tests/bad" || exit 1
for f in *.json; do
	n=${f%.json}
	if [ ! -f "$n.expect" ]; then
		fail "$f has no $n.expect"
		continue
	fi
	check_case "$f" "$n.expect"
done
[ "$cases" -ge 45 ] || fail "only $cases bad files, expected at least 45"

# 2. Generated: 10 MB of nested arrays, and 10 MB of nested objects.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
head -c 10485760 /dev/zero | tr '\0' '[' >bad-deep.json
echo 'bad-deep.json:1:2049: $: expected JSON nested at most 2048 deep' >bad-deep.expect
check_case bad-deep.json bad-deep.expect
python3 -c 'import sys; sys.stdout.write("{\"a\":" * 2000000)' >bad-deep-obj.json
echo '$: expected JSON nested at most 2048 deep' >bad-deep-obj.expect
check_case bad-deep-obj.json bad-deep-obj.expect
[ "$(stat -c %s bad-deep.json)" -eq 10485760 ] || fail "generated file has the wrong size"

# 3. Several files in one call: each file's faults are reported, exit 2.
cp "$NODUS_SRC/tests/bad/bad-dtype.json" "$NODUS_SRC/tests/bad/bad-empty.json" .
cp "$NODUS_SRC/tests/fixtures/mini/tasks/vec_add.json" good.json
out=$("$NODUS" check bad-dtype.json good.json bad-empty.json 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "multi-file check: exit $rc, expected 2"
for frag in 'bad-dtype.json:9:18:' 'good.json: ok' 'bad-empty.json:1:1:'; do
	grep -qF -- "$frag" <<<"$out" || fail "multi-file check: missing '$frag' in: $out"
done

echo "$cases bad files checked, $fails failures"
[ "$fails" -eq 0 ]
