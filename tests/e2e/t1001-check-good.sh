#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t1001-check-good: valid files pass `nodus check` (exit 0, "ok"): the
# fixtures, and every example of docs/formats.md, written to the path its
# "<!-- file: PATH -->" marker names (solution sources as stub files) so that
# the documented campaign is checked together with the files it names.
# Also: usage errors exit 2, --help exits 0.
set -u
: "${NODUS:?}" "${NODUS_SRC:?}"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$NODUS_SRC/tests/fixtures" || exit 1
for f in mini/campaign.json mini/tasks/*.json mini/workloads/*.json mini/solutions/*.json \
	other/tasks/*.json other/workloads/*.json other/solutions/*.json; do
	out=$("$NODUS" check "$f" 2>&1) || fail "$f: $out"
done

# Examples of docs/formats.md.
python3 - "$NODUS_SRC/docs/formats.md" "$tmp/docs" <<'PY' || fail "cannot extract the examples"
import os, re, sys, json
text = open(sys.argv[1]).read()
out = sys.argv[2]
blocks = re.findall(r'<!-- file: (\S+) -->\n```json\n(.*?)```', text, re.S)
assert len(blocks) >= 5, f"only {len(blocks)} marked examples"
for path, body in blocks:
    full = os.path.join(out, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    open(full, 'w').write(body)
    doc = json.loads(body)
    if doc.get("kind") == "solution":
        for src in doc["sources"]:
            open(os.path.join(os.path.dirname(full), src), 'w').write("/* stub */\n")
with open(os.path.join(out, "LIST"), "w") as f:
    f.write("\n".join(p for p, _ in blocks) + "\n")
PY
if [ -f "$tmp/docs/LIST" ]; then
	cd "$tmp/docs" || exit 1
	while read -r f; do
		out=$("$NODUS" check "$f" 2>&1) || fail "docs example $f: $out"
	done <LIST
	cd - >/dev/null || exit 1
fi

"$NODUS" check >/dev/null 2>&1
[ $? -eq 2 ] || fail "check without files should exit 2"
"$NODUS" check --bogus x.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "check --bogus should exit 2"
"$NODUS" check --help | grep -q "usage: nodus check" || fail "check --help"
"$NODUS" check -h >/dev/null || fail "check -h should exit 0"
echo "$fails failures"
[ "$fails" -eq 0 ]
