#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t5100-db-merge: a campaign run as two shards on "two machines" (two
# stores) merges into one store that holds every planned record exactly
# once with its samples; merging a shard again copies nothing; the merged
# store reports like a store written in one run; a shard that is not a
# nodus store is refused (exit 2) and changes nothing.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/mini/campaign.json" 2.5
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/a.db" --shard 0/2 -q || fail "shard 0 exited $?"
"$NODUS" run "$tmp/plan.json" --db "$tmp/b.db" --shard 1/2 -q || fail "shard 1 exited $?"
out=$("$NODUS" db merge "$tmp/all.db" "$tmp/a.db" "$tmp/b.db") || fail "merge exited $?: $out"
again=$("$NODUS" db merge "$tmp/all.db" "$tmp/b.db") || fail "second merge exited $?"
grep -q "0 record(s) merged" <<<"$again" || fail "merging a shard twice copied records: $again"
echo "not a store" >"$tmp/junk.db"
"$NODUS" db merge "$tmp/all.db" "$tmp/junk.db" >/dev/null 2>&1
[ $? -eq 2 ] || fail "merging a non-store did not exit 2"
# a store merged into itself, under any name, is refused at once (it waited
# 30 s for its own lock)
ln -s "$tmp/all.db" "$tmp/alias.db"
for self in "$tmp/all.db" "$tmp/./all.db" "$tmp/alias.db"; do
	start=$(date +%s)
	"$NODUS" db merge "$tmp/all.db" "$self" >/dev/null 2>"$tmp/err"; rc=$?
	[ "$rc" -eq 2 ] || fail "merging $self into all.db: exit $rc, expected 2"
	grep -q "is the store .* itself" "$tmp/err" || fail "merging $self into itself: $(cat "$tmp/err")"
	[ $(($(date +%s) - start)) -le 5 ] || fail "merging $self into itself waited"
done
python3 - "$tmp" <<'PY' || fails=$((fails + 1))
import sqlite3, sys
t = sys.argv[1]
count = lambda db, q: sqlite3.connect(f"{t}/{db}").execute(q).fetchone()[0]
finals = count("all.db", "SELECT COUNT(*) FROM records WHERE final = 1")
dup = count("all.db", "SELECT COUNT(*) FROM (SELECT 1 FROM records GROUP BY pair_id, condition, attempt HAVING COUNT(*) > 1)")
samples = count("all.db", "SELECT COUNT(*) FROM samples")
shard_samples = count("a.db", "SELECT COUNT(*) FROM samples") + count("b.db", "SELECT COUNT(*) FROM samples")
orphans = count("all.db", "SELECT COUNT(*) FROM samples WHERE record_id NOT IN (SELECT id FROM records)")
assert finals == 4 and dup == 0, (finals, dup)          # 2 pairs x 2 conditions
assert samples == shard_samples and orphans == 0, (samples, shard_samples, orphans)
print(f"t5100: {finals} final records, {samples} samples merged from two shards")
PY
"$NODUS" report "$tmp/all.db" --format json -o "$tmp/r.json" || fail "report of the merged store exited $?"
exit $((fails > 0))
