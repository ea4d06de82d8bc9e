#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t5000-db-info.sh: `nodus db info` and `nodus db migrate` as a user meets
# them: a missing or foreign file is refused with exit 2 and left alone,
# an empty file migrates to a store, counts reflect what was stored, and a
# store from a newer nodus is refused.
# ------------------------------------------------------------------------
set -u
NODUS=${NODUS:-nodus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check DESCRIPTION EXPECTED_RC ACTUAL_RC
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: expected exit $2, got $3"; fails=$((fails + 1))
	else
		echo "ok: $1"
	fi
}
grep_ok() { # grep_ok DESCRIPTION PATTERN FILE
	if grep -q -- "$2" "$3"; then echo "ok: $1"; else
		echo "FAIL: $1: '$2' not in:"; cat "$3"; fails=$((fails + 1)); fi
}

# 1.1 missing file: exit 2, clear message, nothing created
"$NODUS" db info "$tmp/none.db" >"$tmp/out" 2>"$tmp/err"; check "1.1 missing" 2 $?
grep_ok "1.1 message" "no such store" "$tmp/err"
[ ! -e "$tmp/none.db" ] && echo "ok: 1.1 not created" || { echo "FAIL: 1.1 created"; fails=$((fails + 1)); }

# 1.2 a text file is not a store
echo "hello" >"$tmp/text.db"
"$NODUS" db info "$tmp/text.db" >"$tmp/out" 2>"$tmp/err"; check "1.2 text file" 2 $?
grep_ok "1.2 message" "not a nodus store" "$tmp/err"

# 1.3 an empty file: info refuses (read-only), migrate makes it a store
: >"$tmp/s.db"
"$NODUS" db info "$tmp/s.db" >"$tmp/out" 2>"$tmp/err"; check "1.3 empty file info" 2 $?
[ ! -s "$tmp/s.db" ] && echo "ok: 1.3 untouched" || { echo "FAIL: 1.3 info wrote"; fails=$((fails + 1)); }
"$NODUS" db migrate "$tmp/s.db" >"$tmp/out" 2>"$tmp/err"; check "1.3 migrate" 0 $?
"$NODUS" db info "$tmp/s.db" >"$tmp/out" 2>"$tmp/err"; check "1.3 info" 0 $?
grep_ok "1.3 version" "^schema version: 4 " "$tmp/out"
grep_ok "1.3 no records" "^records: 0$" "$tmp/out"

# 2.1 counts after rows are stored
python3 - "$tmp/s.db" <<'PY' || fails=$((fails + 1))
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = "a" * 64
db.execute("INSERT INTO plans VALUES (?, 'demo', '{}', 0)", (d,))
db.execute("INSERT INTO pairs VALUES (?, 'w/c/r', 't', 'w', 'c', 'r', NULL, NULL, 'FASTER')", (d,))
db.execute("INSERT INTO conditions VALUES (?, 'isolated', 'isolated', NULL)", (d,))
for attempt, final in ((1, 0), (2, 1)):
    cur = db.execute("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, "
                     "status, rounds, looks, compile_cache_hits, target_hash) "
                     "VALUES (?, 'w/c/r', 'isolated', ?, ?, 'OK', 0, 0, 0, ?)",
                     (d, attempt, final, "c" * 64))
    for k in range(3):
        db.execute("INSERT INTO samples VALUES (?, 0, ?, 1, 0, 1, 0, 100, 0, 0)",
                   (cur.lastrowid, k))
db.commit()
PY
"$NODUS" db info "$tmp/s.db" >"$tmp/out" 2>"$tmp/err"; check "2.1 info" 0 $?
for line in "plans: 1" "pairs: 1" "conditions: 1" "targets: 0" "records: 2" \
	"final records: 1" "samples: 6"; do
	grep_ok "2.1 $line" "^$line\$" "$tmp/out"
done

# 2.2 a version-1 store (one final record per pair-condition, whatever its
# status; no verdict column, no serve tables) migrates to version 4 with its records, after
# which a final NOT_ISOLATED record may be followed by a deciding one, and a
# record may hold a preset's verdict (migration 3), never beside a label
cp "$tmp/s.db" "$tmp/v1.db"
python3 - "$tmp/v1.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("DROP INDEX records_one_final; "
                 "CREATE UNIQUE INDEX records_one_final ON records (plan_digest, pair_id, condition)"
                 " WHERE final = 1; ALTER TABLE records DROP COLUMN verdict; "
                 "DROP TABLE serve_submissions; DROP TABLE serve_batches; "
                 "DELETE FROM schema_version WHERE version >= 2;")
db.commit()
PY
"$NODUS" db info "$tmp/v1.db" >"$tmp/out" 2>"$tmp/err"; check "2.2 a version-1 store is refused" 2 $?
grep_ok "2.2 message" "older than this nodus" "$tmp/err"
"$NODUS" db migrate "$tmp/v1.db" >"$tmp/out" 2>"$tmp/err"; check "2.2 migrate" 0 $?
grep_ok "2.2 version" "schema version 4" "$tmp/out"
python3 - "$tmp/v1.db" <<'PY' && echo "ok: 2.2 migrated" || { echo "FAIL: 2.2 migrated store"; fails=$((fails + 1)); }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 2
d = "a" * 64
ins = ("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, rounds, "
       "looks, compile_cache_hits, target_hash) VALUES (?, 'w/c/r', 'other', ?, 1, ?, 0, 0, 0, '')")
db.execute(ins, (d, 1, "NOT_ISOLATED"))
db.execute(ins, (d, 2, "NOT_ISOLATED"))
db.execute(ins, (d, 3, "CRASH"))
try:
    db.execute(ins, (d, 4, "CRASH"))
    raise SystemExit("a second deciding final record was accepted")
except sqlite3.IntegrityError:
    pass
vins = ("INSERT INTO records (plan_digest, pair_id, condition, attempt, final, status, label, "
        "verdict, rounds, looks, compile_cache_hits, target_hash) "
        "VALUES (?, 'w/c/r', 'kb', ?, 0, 'OK', ?, ?, 0, 0, 0, '')")
db.execute(vins, (d, 1, None, "BINARY_FASTER"))
for attempt, label, verdict in ((2, "FASTER", "BINARY_FASTER"), (3, None, "FASTER")):
    try:
        db.execute(vins, (d, attempt, label, verdict))
        raise SystemExit(f"verdict {verdict!r} beside label {label!r} was accepted")
    except sqlite3.IntegrityError:
        pass
PY

# 3.1 a store from a newer nodus is refused
python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); \
db.execute('INSERT INTO schema_version VALUES (999, 0)'); db.commit()" "$tmp/s.db"
"$NODUS" db info "$tmp/s.db" >"$tmp/out" 2>"$tmp/err"; check "3.1 newer" 2 $?
grep_ok "3.1 message" "newer than this nodus" "$tmp/err"

# 4.1 usage errors
"$NODUS" db frobnicate "$tmp/s.db" >"$tmp/out" 2>"$tmp/err"; check "4.1 unknown subcommand" 2 $?
"$NODUS" db info >"$tmp/out" 2>"$tmp/err"; check "4.2 missing argument" 2 $?
"$NODUS" db --help >"$tmp/out" 2>"$tmp/err"; check "4.3 help" 0 $?
grep_ok "4.3 usage" "usage: nodus db info \[--checkpoint\] DB" "$tmp/out"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
