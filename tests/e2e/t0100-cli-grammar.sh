#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t0100-cli-grammar.sh: every command parses its options the same way
# (getopt_long): --opt=value and --opt value, -o and --output, the same
# message and exit 2 for an unknown option or a missing value, exit 2 for
# a path the user named that cannot be written, --shard with trailing text
# refused.
# ------------------------------------------------------------------------
set -u
: "${NODUS:?}" "${NODUS_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { # expect DESCRIPTION RC PATTERN -- COMMAND...
	local what=$1 want=$2 pattern=$3
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc, expected $want: $(cat "$tmp/err")"
	[ -z "$pattern" ] || grep -q -- "$pattern" "$tmp/err" "$tmp/out" ||
		fail "$what: '$pattern' not in: $(cat "$tmp/err")"
}
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"

# 1.x an unknown option and a missing value: the same words, exit 2, everywhere
for cmd in check plan verify run calibrate report show db audit demo export slurm serve; do
	expect "1.1 $cmd --frob" 2 "nodus $cmd: unknown option '--frob'" -- "$NODUS" "$cmd" --frob
done
expect "1.1 export dataset --frob" 2 "nodus export dataset: unknown option '--frob'" -- \
	"$NODUS" export dataset x.db --frob
for opt in "report x.db --format" "run p.json --db" "plan c.json -o" "show x.db p --plan" \
	"calibrate p.json --db" "audit c.json --format" "export dataset x.db --holdout-families" \
	"slurm p.json --array" "run p.json --devices" "serve --db" "serve --db x.db --queue-max"; do
	set -- $opt
	expect "1.2 $opt" 2 "option '${*: -1}' needs a value" -- "$NODUS" "$@"
done
# 1.3 every command's -h and --help
for cmd in check plan verify run calibrate report show db audit demo export "export dataset" slurm serve; do
	expect "1.3 $cmd -h" 0 "" -- "$NODUS" $cmd -h
	grep -q "^usage: nodus $cmd" "$tmp/out" || fail "1.3 $cmd -h printed no usage"
	expect "1.3 $cmd --help" 0 "" -- "$NODUS" $cmd --help
done

# 1.4 serve refuses what it cannot serve before it listens
expect "1.4 serve no campaign" 2 "no --campaign given" -- "$NODUS" serve --db "$tmp/v.db"
expect "1.4 serve --queue-max 0" 2 "expected an integer 1..1000000, got '0'" -- \
	"$NODUS" serve --db "$tmp/v.db" --campaign c.json --queue-max 0
expect "1.4 serve --listen and --socket" 2 "not both" -- \
	"$NODUS" serve --db "$tmp/v.db" --campaign c.json --listen 127.0.0.1:0 --socket "$tmp/s"
expect "1.4 serve --listen bad" 2 "expected HOST:PORT" -- \
	"$NODUS" serve --db "$tmp/v.db" --campaign "$tmp/mini/campaign.json" --listen nohost
expect "1.4 serve a short token" 2 "16 to 255 bytes" -- \
	"$NODUS" serve --db "$tmp/v.db" --campaign "$tmp/mini/campaign.json" --token-file "$tmp/mini/campaign.json"

# 2.x --opt=value is --opt value; -o is --output
expect "2.1 plan --output=" 0 "" -- "$NODUS" plan "$tmp/mini/campaign.json" --output="$tmp/plan.json"
expect "2.2 verify" 0 "" -- "$NODUS" verify "$tmp/plan.json"
db="$tmp/s.db"
: >"$db"
"$NODUS" db migrate "$db" >/dev/null
python3 - "$db" "$tmp/plan.json" <<'PY'
import json, sqlite3, sys
plan = json.load(open(sys.argv[2]))
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO plans VALUES (?, 'mini', ?, 0)", (plan["digest"], json.dumps(plan)))
db.commit()
PY
for form in "--format=json --output=$tmp/a.json" "--format json --output $tmp/b.json" \
	"--format=json -o $tmp/c.json"; do
	expect "2.3 report $form" 0 "" -- "$NODUS" report "$db" $form
done
cmp -s "$tmp/a.json" "$tmp/b.json" && cmp -s "$tmp/a.json" "$tmp/c.json" || fail "2.3 the forms differ"
expect "2.4 report --baseline=" 0 "" -- "$NODUS" report "$db" --baseline=isolated --format=csv
expect "2.5 db info --checkpoint after the store" 0 "^checkpoint: " -- "$NODUS" db info "$db" --checkpoint

# 3.x user errors are exit 2, not 3
expect "3.1 report -o into a missing directory" 2 "cannot create" -- "$NODUS" report "$db" -o "$tmp/no/such/dir/r.json"
expect "3.2 run --shard 0/2x" 2 "--shard wants I/N" -- "$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --shard 0/2x
expect "3.3 run --shard=2/2" 2 "--shard wants I/N" -- "$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --shard=2/2
[ -e "$tmp/r.db" ] && fail "3.x a refused run created its store"
expect "3.4 db info --checkpoint on migrate" 2 "goes with info" -- "$NODUS" db migrate --checkpoint "$db"
expect "3.5 verify of a missing plan" 2 "" -- "$NODUS" verify "$tmp/none.json"
touch "$tmp/afile"
expect "3.6 plan -o under a file" 2 "is not a directory" -- "$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/afile/p.json"
expect "3.7 db merge of a missing shard" 2 "no such store" -- "$NODUS" db merge "$tmp/new.db" "$tmp/none.db"
[ -e "$tmp/new.db" ] && fail "3.7 the refused merge created its store"
# 3.8 a --cache or --out under a file: exit 2 before anything is written
expect "3.8 run --cache" 2 "not a directory" -- "$NODUS" run "$tmp/plan.json" --db "$tmp/c.db" --cache "$tmp/afile/c"
[ -e "$tmp/c.db" ] && fail "3.8 the refused run created its store"
expect "3.8 plan --cache" 2 "not a directory" -- "$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/p2.json" --cache "$tmp/afile/c"
expect "3.8 audit --cache" 2 "not a directory" -- "$NODUS" audit "$tmp/mini/campaign.json" --cache "$tmp/afile"
expect "3.8 calibrate --cache" 2 "not a directory" -- "$NODUS" calibrate "$tmp/plan.json" --db "$tmp/c.db" --cache "$tmp/afile/c"
expect "3.8 demo --out" 2 "not a directory" -- "$NODUS" demo --out "$tmp/afile/d"
[ "$fails" -eq 0 ] && echo "t0100: all ok" || echo "t0100: $fails failure(s)"
[ "$fails" -eq 0 ]
