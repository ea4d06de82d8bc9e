#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t5200-store-lock-readonly.sh: the store under careless use.
#   1.x two `nodus run` of one plan on one store: the second is refused at
#       once (exit 2) naming the first's pid; so is a shard beside it; a
#       killed run leaves no lock behind (--resume continues).
#   2.x a finished run leaves the main file whole: copied without its -wal
#       (even though a reader kept the store open during the run) it holds
#       every record; the lock files are gone.
#   3.x readers (db info, report) create no file beside a store, read a
#       store another process has open through its -wal (mode=ro), refuse
#       a -wal without its -shm, and read a store in a directory they
#       cannot write (as an unprivileged user; as root, through setpriv).
#   4.x db info --checkpoint folds a writer's WAL into the main file.
#   5.x a final NOT_ISOLATED record (no retries left) is tried again by
#       --resume, and the later record decides the pair in the report.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" rmsnorm >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
run() { "$NODUS" run "$tmp/plan.json" --cache "$tmp/cache" -q "$@"; }
files() { (cd "$1" && ls -A | sort | tr '\n' ' '); }
records() { # records DB: count of records, read from the main file alone
	python3 -c "import sqlite3,sys; print(sqlite3.connect('file:'+sys.argv[1]+'?immutable=1', uri=True).execute('SELECT COUNT(*) FROM records').fetchone()[0])" "$1"
}

# 0.1 a run with a condition the plan lacks stores nothing, not even its plan
mkdir "$tmp/z"
run --db "$tmp/z/r.db" --condition isolatd 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] || fail "0.1 --condition typo: exit $rc, expected 2"
grep -q "no condition named 'isolatd' (it has 'isolated', 'cpu-stress-membw-2')" "$tmp/err" ||
	fail "0.1 message: $(cat "$tmp/err")"
[ -z "$(files "$tmp/z")" ] || fail "0.1 files were created: $(files "$tmp/z")"
echo "ok: 0.x nothing stored before the arguments are valid"

# 1.1 a second run of the same plan on the same store is refused at once
mkdir "$tmp/a"
"$NODUS" run "$tmp/plan.json" --cache "$tmp/cache" -q --db "$tmp/a/r.db" --condition isolated &
first=$!
for _ in $(seq 1 200); do ls "$tmp/a"/r.db.run-*.lock >/dev/null 2>&1 && break; sleep 0.05; done
start=$(date +%s)
run --db "$tmp/a/r.db" --condition isolated --resume 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] || fail "1.1 second run: exit $rc, expected 2"
grep -q "already being run by pid $first" "$tmp/err" || fail "1.1 message lacks pid $first: $(cat "$tmp/err")"
grep -q -- "--resume" "$tmp/err" || fail "1.1 message does not say what to do: $(cat "$tmp/err")"
[ $(($(date +%s) - start)) -le 5 ] || fail "1.1 the refusal waited"
# 1.2 a shard of the same plan beside a whole-plan run is refused too
run --db "$tmp/a/r.db" --condition isolated --resume --shard 0/2 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] || fail "1.2 shard beside a run: exit $rc, expected 2"
# 1.3 a killed run leaves no lock: --resume continues and completes
kill -9 "$first"; wait "$first" 2>/dev/null
run --db "$tmp/a/r.db" --resume || fail "1.3 resume after a kill exited $?"
[ -z "$(ls "$tmp/a"/*.lock 2>/dev/null)" ] || fail "1.3 lock files left: $(files "$tmp/a")"
# 1.4 a replay condition's orchestrators are shards of the run that holds
# the lock: they run under it
python3 - "$tmp/suites/cpu/campaign.json" "$tmp/suites/cpu/replay-campaign.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["conditions"] = [{"name": "isolated", "kind": "isolated"},
                   {"name": "replay-1", "kind": "replay", "tenants": 1}]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
"$NODUS" plan "$tmp/suites/cpu/replay-campaign.json" -o "$tmp/replay.json" >/dev/null || fail "1.4 plan"
"$NODUS" run "$tmp/replay.json" --db "$tmp/a/replay.db" --cache "$tmp/cache" -q --condition replay-1 2>"$tmp/err" ||
	fail "1.4 replay exited $?: $(cat "$tmp/err")"
[ "$(records "$tmp/a/replay.db")" = 6 ] || fail "1.4 replay wrote $(records "$tmp/a/replay.db") records, expected 6"
[ -z "$(ls "$tmp/a"/*.lock 2>/dev/null)" ] || fail "1.4 lock files left: $(files "$tmp/a")"
echo "ok: 1.x run lock"

# 2.1 a reader keeps the store open during a whole run: the main file,
# copied alone, still holds every record
mkdir "$tmp/b"
run --db "$tmp/b/r.db" --condition isolated || fail "2.1 first condition exited $?"
python3 - "$tmp/b/r.db" "$tmp/b/held" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("SELECT COUNT(*) FROM records").fetchone()
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PY
holder=$!
for _ in $(seq 1 100); do [ -e "$tmp/b/held" ] && break; sleep 0.05; done
run --db "$tmp/b/r.db" --resume || fail "2.1 resume exited $?"
cp "$tmp/b/r.db" "$tmp/copy.db"
rm -f "$tmp/b/held"; wait "$holder"
# every record the store holds, through its WAL if it has one: 12 final
# ones, and one more for each retried attempt (a first input_memo alarm on
# a loaded machine is retried to be confirmed)
want=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM records').fetchone()[0])" "$tmp/b/r.db")
final=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM records WHERE final = 1').fetchone()[0])" "$tmp/b/r.db")
[ "$final" = 12 ] || fail "2.1 the store holds $final final records, expected 12"
[ "$(records "$tmp/copy.db")" = "$want" ] || fail "2.1 the copied main file holds $(records "$tmp/copy.db") records, the store $want"
[ -z "$(ls "$tmp/b"/*.lock 2>/dev/null)" ] || fail "2.2 lock files left: $(files "$tmp/b")"
echo "ok: 2.x checkpoint at the end of a run"

# 3.1 readers create nothing beside a closed store
mkdir "$tmp/c"
cp "$tmp/copy.db" "$tmp/c/r.db"
before=$(files "$tmp/c")
"$NODUS" db info "$tmp/c/r.db" >"$tmp/out" || fail "3.1 db info exited $?"
grep -q "^records: $want$" "$tmp/out" || fail "3.1 db info (expected records: $want): $(cat "$tmp/out")"
"$NODUS" report "$tmp/c/r.db" --format json >"$tmp/out" || fail "3.1 report exited $?"
"$NODUS" report "$tmp/c/r.db" --format trace >"$tmp/out" || fail "3.1 trace exited $?"
[ "$(files "$tmp/c")" = "$before" ] || fail "3.1 readers created files: $before -> $(files "$tmp/c")"
# 3.2 a store another process writes: read through its -wal, nothing created
python3 - "$tmp/c/r.db" "$tmp/c/held" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("INSERT INTO plans VALUES (?, 'in-the-wal', '{}', 0)", ("f" * 64,))
db.commit()
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PY
holder=$!
for _ in $(seq 1 100); do [ -e "$tmp/c/held" ] && break; sleep 0.05; done
before=$(files "$tmp/c")
"$NODUS" db info "$tmp/c/r.db" >"$tmp/out" || fail "3.2 db info exited $?"
grep -q "^plans: 2$" "$tmp/out" || fail "3.2 db info did not read the WAL: $(cat "$tmp/out")"
[ "$(files "$tmp/c")" = "$before" ] || fail "3.2 db info created files: $before -> $(files "$tmp/c")"
# 3.3 a copy with its -wal but without its -shm is refused, saying what to do
mkdir "$tmp/d"
cp "$tmp/c/r.db" "$tmp/c/r.db-wal" "$tmp/d/"
"$NODUS" db info "$tmp/d/r.db" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] || fail "3.3 -wal without -shm: exit $rc, expected 2"
grep -q "r.db-wal exists without .*r.db-shm.*--checkpoint" "$tmp/err" || fail "3.3 message: $(cat "$tmp/err")"
[ "$(files "$tmp/d")" = "r.db r.db-wal " ] || fail "3.3 created files: $(files "$tmp/d")"
# 4.1 db info --checkpoint folds the writer's WAL into the main file
"$NODUS" db info --checkpoint "$tmp/c/r.db" >"$tmp/out" || fail "4.1 --checkpoint exited $?"
grep -q "^checkpoint: " "$tmp/out" || fail "4.1 no checkpoint line: $(cat "$tmp/out")"
cp "$tmp/c/r.db" "$tmp/copy2.db"
python3 -c "import sqlite3,sys; n=sqlite3.connect('file:'+sys.argv[1]+'?immutable=1', uri=True).execute('SELECT COUNT(*) FROM plans').fetchone()[0]; sys.exit(n != 2)" "$tmp/copy2.db" ||
	fail "4.1 the main file lacks the WAL's plan after --checkpoint"
rm -f "$tmp/c/held"; wait "$holder"
echo "ok: 3.x readers, 4.x checkpoint"

# 3.4 a directory the reader cannot write (root ignores permissions: the
# reader then runs as nobody)
mkdir "$tmp/ro"
cp "$tmp/copy.db" "$tmp/ro/r.db"
chmod 755 "$tmp" "$tmp/bin"
chmod 555 "$tmp/ro"
chmod 444 "$tmp/ro/r.db"
as=()
if [ "$(id -u)" = 0 ]; then as=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
if "${as[@]}" test -w "$tmp/ro"; then
	echo "skipped: 3.4 cannot make a directory this user cannot write"
else
	"${as[@]}" "$NODUS" db info "$tmp/ro/r.db" >"$tmp/out" 2>&1 || fail "3.4 db info on a read-only directory exited $?: $(cat "$tmp/out")"
	grep -q "^records: $want$" "$tmp/out" || fail "3.4 db info (expected records: $want): $(cat "$tmp/out")"
	"${as[@]}" "$NODUS" report "$tmp/ro/r.db" >"$tmp/out" 2>&1 || fail "3.4 report on a read-only directory exited $?: $(cat "$tmp/out")"
	[ "$(files "$tmp/ro")" = "r.db " ] || fail "3.4 files created: $(files "$tmp/ro")"
	echo "ok: 3.4 read-only directory"
fi
chmod 755 "$tmp/ro"

# 5.1 one attempt allowed, the first refused as not isolated: final
# NOT_ISOLATED; --resume tries it again and the report takes the new record
python3 - "$tmp/suites/cpu/campaign.json" "$tmp/suites/cpu/once-campaign.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["judge"]["max_attempts"] = 1
c["conditions"] = [{"name": "isolated", "kind": "isolated"}]
c["pairs"] = c["pairs"][:1]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
"$NODUS" plan "$tmp/suites/cpu/once-campaign.json" -o "$tmp/once.json" >/dev/null || fail "5.1 plan"
pair=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['pairs'][0]['id'])" "$tmp/once.json")
NODUS_TEST_NOT_ISOLATED_ONCE="$pair" "$NODUS" run "$tmp/once.json" --db "$tmp/once.db" --cache "$tmp/cache" -q ||
	fail "5.1 first run exited $?"
"$NODUS" report "$tmp/once.db" --format json -o "$tmp/once1.json" || fail "5.1 report"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); l=r['pairs'][0]['labels']['isolated']; sys.exit(l != 'NOT_ISOLATED')" "$tmp/once1.json" ||
	fail "5.1 the first run did not end NOT_ISOLATED"
"$NODUS" run "$tmp/once.json" --db "$tmp/once.db" --cache "$tmp/cache" -q --resume || fail "5.2 resume exited $?"
python3 - "$tmp/once.db" <<'PY' || fail "5.2 records after --resume"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT attempt, final, status FROM records ORDER BY attempt").fetchall()
assert [r[:2] for r in rows] == [(1, 1), (2, 1)] and rows[0][2] == "NOT_ISOLATED", rows
PY
"$NODUS" report "$tmp/once.db" --format json -o "$tmp/once2.json" || fail "5.2 report"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); l=r['pairs'][0]['labels']['isolated']; sys.exit(l in ('NOT_ISOLATED', 'MISSING'))" "$tmp/once2.json" ||
	fail "5.2 the report still shows the superseded NOT_ISOLATED record"
echo "ok: 5.x --resume retries NOT_ISOLATED"
[ "$fails" -eq 0 ] && echo "t5200: all ok" || echo "t5200: $fails failure(s)"
[ "$fails" -eq 0 ]
