#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t5100-db-merge: a campaign run as two shards on "two machines" (two
# stores) merges into one store that holds every planned record exactly
# once with its samples; merging the shards again copies nothing; the
# merged store reports like a store written in one run; a shard that is not
# a nodus store is refused (exit 2) and changes nothing. Overlapping shards
# (some records in both, same content) merge those records once. A second,
# separate run of shard 0 (other measurements of the same pair-conditions,
# two machines given the same shard) loses nothing: it is refused (exit 1,
# every record named, the store unchanged), then kept with --keep-both as
# new attempts that do not decide, with their provenance; the report still
# gives the same one label per pair-condition, and `nodus show` says which
# attempt decides.
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
grep -q "a.db: [1-9][0-9]* record(s) merged, 0 identical (already present), 0 kept" <<<"$out" ||
	fail "first merge: $out"
# 1. identical shards merged twice: the second time adds nothing
again=$("$NODUS" db merge "$tmp/all.db" "$tmp/a.db" "$tmp/b.db") || fail "second merge exited $?"
[ "$(grep -c "0 record(s) merged, [1-9][0-9]* identical (already present), 0 kept" <<<"$again")" -eq 2 ] ||
	fail "merging the shards twice copied records: $again"
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
# 2. overlapping shards: over.db holds shards 0 and 1; merged after shard
# 0, only shard 1's records are new
cp "$tmp/a.db" "$tmp/over.db"
"$NODUS" db merge "$tmp/over.db" "$tmp/b.db" >/dev/null || fail "building over.db exited $?"
lap=$("$NODUS" db merge "$tmp/lap.db" "$tmp/a.db" "$tmp/over.db") || fail "overlapping merge exited $?: $lap"
python3 - "$tmp" "$lap" <<'PY' || fails=$((fails + 1))
import re, sqlite3, sys
t, lap = sys.argv[1], sys.argv[2]
count = lambda db, q: sqlite3.connect(f"{t}/{db}").execute(q).fetchone()[0]
finals = count("all.db", "SELECT COUNT(*) FROM records WHERE final = 1")
dup = count("all.db", "SELECT COUNT(*) FROM (SELECT 1 FROM records GROUP BY pair_id, condition, attempt HAVING COUNT(*) > 1)")
samples = count("all.db", "SELECT COUNT(*) FROM samples")
shard_samples = count("a.db", "SELECT COUNT(*) FROM samples") + count("b.db", "SELECT COUNT(*) FROM samples")
orphans = count("all.db", "SELECT COUNT(*) FROM samples WHERE record_id NOT IN (SELECT id FROM records)")
assert finals == 4 and dup == 0, (finals, dup)          # 2 pairs x 2 conditions
assert samples == shard_samples and orphans == 0, (samples, shard_samples, orphans)
a, b = count("a.db", "SELECT COUNT(*) FROM records"), count("b.db", "SELECT COUNT(*) FROM records")
want = f"over.db: {b} record(s) merged, {a} identical (already present), 0 kept as new attempts"
assert want in lap, (want, lap)
assert count("lap.db", "SELECT COUNT(*) FROM records") == a + b
assert count("lap.db", "SELECT COUNT(*) FROM samples") == samples
print(f"t5100: {finals} final records, {samples} samples merged from two shards; overlap merged once")
PY
"$NODUS" report "$tmp/all.db" --format json -o "$tmp/r.json" || fail "report of the merged store exited $?"
# 3. a second, separate run of shard 0
"$NODUS" run "$tmp/plan.json" --db "$tmp/a2.db" --shard 0/2 -q || fail "second run of shard 0 exited $?"
cp "$tmp/all.db" "$tmp/before.db"
"$NODUS" db merge "$tmp/all.db" "$tmp/a2.db" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 1 ] || fail "merging a second run exited $rc, expected 1: $(cat "$tmp/out" "$tmp/err")"
grep -q "a2.db: refused, nothing merged" "$tmp/err" || fail "refusal not said: $(cat "$tmp/err")"
named=$(grep -c "differs:" "$tmp/err")
cmp -s "$tmp/all.db" "$tmp/before.db" || python3 - "$tmp" <<'PY' || fail "a refused merge changed all.db"
import sqlite3, sys
q = lambda db: sqlite3.connect(f"{sys.argv[1]}/{db}").execute("SELECT COUNT(*) FROM records").fetchone()[0]
assert q("all.db") == q("before.db")
PY
"$NODUS" db merge --keep-both "$tmp/all.db" "$tmp/a2.db" >"$tmp/kept" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 0 ] || fail "merge --keep-both exited $rc: $(cat "$tmp/kept" "$tmp/err")"
grep -q "kept as attempt [0-9]*, not final (.*); attempt [0-9]* decides" "$tmp/kept" ||
	fail "--keep-both did not say which attempt decides: $(cat "$tmp/kept")"
"$NODUS" db merge --keep-both "$tmp/all.db" "$tmp/a2.db" >"$tmp/again" || fail "second --keep-both exited $?"
grep -q "0 record(s) merged, [1-9][0-9]* identical (already present), 0 kept" "$tmp/again" ||
	fail "merging the second run twice copied records: $(cat "$tmp/again")"
pair=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT pair_id FROM records WHERE final = 1 LIMIT 1").fetchone()[0])' "$tmp/a2.db")
"$NODUS" show "$tmp/all.db" "$pair" >"$tmp/show" || fail "show exited $?"
grep -q "merged from .*a2.db (attempt [0-9]*, final there): another measurement of this pair-condition; it does not decide" "$tmp/show" ||
	fail "show does not say a kept record does not decide: $(cat "$tmp/show")"
"$NODUS" report "$tmp/all.db" --format json -o "$tmp/r2.json" || fail "report after --keep-both exited $?"
python3 - "$tmp" "$named" "$NODUS_SRC/tests/e2e/lib" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
t, named = sys.argv[1], int(sys.argv[2])
q = lambda db, sql: sqlite3.connect(f"{t}/{db}").execute(sql).fetchall()
per_pc = "SELECT pair_id, condition, COUNT(*) FROM records GROUP BY pair_id, condition"
before = {(p, c): n for p, c, n in q("before.db", per_pc)}
second = {(p, c): n for p, c, n in q("a2.db", per_pc)}
after = {(p, c): n for p, c, n in q("all.db", per_pc)}
# none lost: every record of the second run is there beside the first's
assert set(after) == set(before), (after, before)
for pc, n in after.items():
    assert n == before[pc] + second.get(pc, 0), (pc, n, before[pc], second.get(pc))
assert named == sum(second.values()), (named, second)   # every one named when refused
# the decision rule: the record the store held first still decides
fin = ("SELECT pair_id, condition, attempt, started_at FROM records "
       "WHERE final = 1 AND status <> 'NOT_ISOLATED' ORDER BY 1, 2")
assert q("all.db", fin) == q("before.db", fin), (q("all.db", fin), q("before.db", fin))
# kept records: not final, with where they came from and the run that made them
kept = q("all.db", "SELECT final, json_extract(detail_json, '$.merged.from'), "
         "json_extract(detail_json, '$.run.id'), json_extract(detail_json, '$.run.host') "
         "FROM records WHERE json_extract(detail_json, '$.merged') IS NOT NULL")
assert len(kept) == sum(second.values()), kept
runs = lambda db: {r for (r,) in q(db, "SELECT DISTINCT json_extract(detail_json, '$.run.id') FROM records")}
second_run = runs("a2.db")
assert len(second_run) == 1 and not (second_run & runs("before.db")), (runs("before.db"), second_run)
for final, src, run, host in kept:
    assert final == 0 and src.endswith("/a2.db") and {run} == second_run and host, (final, src, run, host)
# samples came along
n = lambda db: q(db, "SELECT COUNT(*) FROM samples")[0][0]
assert n("all.db") == n("before.db") + n("a2.db"), (n("all.db"), n("before.db"), n("a2.db"))
# the report: one label per pair-condition, the same as before, decided by
# the same attempt, and saying the pair-condition has another record
r1, r2 = json.load(open(f"{t}/r.json")), json.load(open(f"{t}/r2.json"))
l1 = {p["id"]: p["labels"] for p in r1["pairs"]}
l2 = {p["id"]: p["labels"] for p in r2["pairs"]}
assert l1 == l2 and len(l2) == 2 and all(len(v) == 2 for v in l2.values()), (l1, l2)
for p in r2["pairs"]:
    for cond, d in p["decided_by"].items():
        want = before[(p["id"], cond)] + second.get((p["id"], cond), 0)
        assert d["attempts"] == want, (p["id"], cond, d, want)
        decider = [a for pp, cc, a, _ in q("before.db", fin) if (pp, cc) == (p["id"], cond)]
        assert [d["attempt"]] == decider, (p["id"], cond, d, decider)
print(f"t5100: second run of shard 0 refused, then kept as {len(kept)} attempts; labels {l2}")
PY
exit $((fails > 0))
