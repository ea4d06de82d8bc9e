#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t2000-plan-verify: `nodus plan` seals the mini fixture, `nodus verify`
# passes; flipping one byte of a solution source makes verify exit 1 and
# name that file; reverting makes it pass again. Also: a hand-edited plan
# fails on its digest, a missing file is named, a plan moved together with
# its campaign tree stays valid, an unreadable plan exits 2, and a campaign
# with faults is refused (exit 2, no plan written); -o a FIFO or a
# directory is refused and left as it was.
set -u
: "${NODUS:?}" "${NODUS_SRC:?}"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
cd "$tmp/mini" || exit 1

# 1. seal
out=$("$NODUS" plan campaign.json -o plan.json 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "plan: exit $rc: $out"
for frag in 'digest: ' 'pairs: 2' 'conditions: 2 (isolated, stress-membw-1)' 'price unknown'; do
	grep -qF -- "$frag" <<<"$out" || fail "plan output lacks '$frag': $out"
done
digest=$(sed -n 's/^digest: //p' <<<"$out")
grep -q "\"digest\": \"$digest\"" plan.json || fail "printed digest not in plan.json"
ls plan.json.tmp.* >/dev/null 2>&1 && fail "temporary file left behind"

# 2. verify passes
out=$("$NODUS" verify plan.json 2>&1) || fail "verify of a fresh plan: $out"

# 3. flip one byte of a solution source
src=solutions/vec_add_unrolled.c
cp "$src" "$tmp/orig.c"
python3 - "$src" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[40] ^= 0x01
open(p, 'wb').write(bytes(b))
PY
out=$("$NODUS" verify plan.json 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "verify after a flipped byte: exit $rc, expected 1"
grep -qF "$src: changed since sealing: expected sha256 " <<<"$out" || fail "verify did not name $src: $out"
[ "$(grep -c 'changed since sealing: expected' <<<"$out")" -eq 1 ] || fail "verify named other files: $out"

# 4. revert
cp "$tmp/orig.c" "$src"
out=$("$NODUS" verify plan.json 2>&1) || fail "verify after revert: $out"

# 5. missing file, edited plan
mv workloads/vec_add_4k.json "$tmp/wl.json"
out=$("$NODUS" verify plan.json 2>&1)
[ $? -eq 1 ] || fail "verify with a missing workload should exit 1"
grep -qF "workloads/vec_add_4k.json: changed since sealing" <<<"$out" || fail "missing file not named: $out"
mv "$tmp/wl.json" workloads/vec_add_4k.json
sed 's/"seed": 7/"seed": 8/' plan.json >edited.json
out=$("$NODUS" verify edited.json 2>&1)
[ $? -eq 1 ] || fail "verify of an edited plan should exit 1"
grep -qF 'edited.json: $.digest: expected' <<<"$out" || fail "edited plan not detected: $out"

# 6. the whole tree moved: still valid; a plan in a subdirectory works too
mv "$tmp/mini" "$tmp/moved"
"$NODUS" verify "$tmp/moved/plan.json" >/dev/null 2>&1 || fail "verify after moving the tree"
mkdir -p "$tmp/moved/plans"
"$NODUS" plan "$tmp/moved/campaign.json" -o "$tmp/moved/plans/p.json" >/dev/null 2>&1 || fail "plan into a subdirectory"
grep -qF '"campaign_path": "../campaign.json"' "$tmp/moved/plans/p.json" || fail "plan paths not relative to the plan"
"$NODUS" verify "$tmp/moved/plans/p.json" >/dev/null 2>&1 || fail "verify of the subdirectory plan"
cd "$tmp/moved" || exit 1

# 7. unreadable plan, bad usage, bad campaign
echo '{"kind": "plan"' >broken.json
"$NODUS" verify broken.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "verify of a broken plan should exit 2"
"$NODUS" verify no-such-plan.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "verify of a missing plan should exit 2"
"$NODUS" plan campaign.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "plan without -o should exit 2"
"$NODUS" plan --help | grep -q "usage: nodus plan" || fail "plan --help"
"$NODUS" verify --help | grep -q "usage: nodus verify" || fail "verify --help"
sed 's/"kind": "isolated"/"kind": "isolatd"/' campaign.json >bad-campaign.json
out=$("$NODUS" plan bad-campaign.json -o bad-plan.json 2>&1)
[ $? -eq 2 ] || fail "plan of a bad campaign should exit 2"
grep -qF 'bad-campaign.json:' <<<"$out" || fail "bad campaign fault not shown: $out"
[ -e bad-plan.json ] && fail "a plan was written for a bad campaign"
# verify after a campaign edit says what the edit means for the plan
cp campaign.json "$tmp/campaign.orig"
python3 - campaign.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("judge", {})["tie_margin"] = 0.03
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
out=$("$NODUS" verify plan.json 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "verify after a judge edit: exit $rc, expected 1"
grep -qF "judge.tie_margin: sealed 0.01, now 0.03" <<<"$out" || fail "verify does not say what changed: $out"
grep -qF "seal the campaign again ('nodus plan " <<<"$out" || fail "verify does not say what to do: $out"
cp "$tmp/campaign.orig" campaign.json
"$NODUS" verify plan.json >/dev/null 2>&1 || fail "verify after restoring the campaign"

# -o never names an input: the campaign (under any name), a task file, a
# source; each is refused with exit 2, left byte for byte, and no audit cache
# is made for the refused plan
ln -s campaign.json alias.json
for input in campaign.json ./campaign.json alias.json tasks/vec_add.json \
	solutions/vec_add_ref.c; do
	before=$(sha256sum "$input")
	rm -rf nodus-cache-o && mkdir -p o && rm -rf o/nodus-cache
	out=$("$NODUS" plan campaign.json -o "$input" 2>&1); rc=$?
	[ "$rc" -eq 2 ] || fail "plan -o $input: exit $rc, expected 2: $out"
	grep -q "an input of this command" <<<"$out" || fail "plan -o $input: message: $out"
	[ "$(sha256sum "$input")" = "$before" ] || fail "plan -o $input overwrote it"
done
out=$("$NODUS" audit campaign.json --static -o tasks/vec_add.json 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "audit -o a task file: exit $rc, expected 2: $out"
# every judge value is sealed, defaults included: no short-kernel margin
# declared means the short margin is the tie margin, and no most rounds for
# short pairs means max_rounds
python3 - plan.json <<'PY' || fail "judge defaults in the plan"
import json, sys
j = json.load(open(sys.argv[1]))["judge"]
assert j["tie_margin_short"] == j["tie_margin"] and j["short_kernel_ns"] == 10000, j
assert j["max_rounds_short"] == j["max_rounds"], j
PY

# -o naming something other than a regular file is refused, never renamed
# over (as root, `-o /dev/null` once left a regular file in its place): a
# FIFO stays a FIFO, nothing is written into it, exit 2 in words; so is a
# directory
mkfifo "$tmp/pipe"
out=$(timeout 60 "$NODUS" plan campaign.json -o "$tmp/pipe" 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "not a regular file" <<<"$out" || fail "plan -o a FIFO: exit $rc: $out"
[ -p "$tmp/pipe" ] || fail "plan -o a FIFO replaced it"
ls "$tmp"/pipe.tmp.* >/dev/null 2>&1 && fail "plan -o a FIFO left a temporary file"
mkdir "$tmp/adir"
out=$("$NODUS" plan campaign.json -o "$tmp/adir" 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "not a regular file" <<<"$out" || fail "plan -o a directory: exit $rc: $out"

echo "$fails failures"
[ "$fails" -eq 0 ]
