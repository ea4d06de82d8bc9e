#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4060-export-dataset.sh: `nodus export dataset DB --holdout-families FILE
# -o DIR` (docs/export.md). Checks that the split by family follows FILE
# exactly, that every final record is one row (none lost, none in both
# splits), that a row is trusted exactly where its label agrees with its
# isolated recheck as the report computes agreement, that the manifest's
# digest is FILE's sha256, that every JSONL line parses (python3's json);
# and that bad input is refused with one line and exit 2: an unknown family
# (at FILE:LINE), a family twice, a missing or foreign DB, a plan without
# final records, a DIR that is not empty (left as it was).
#
# Five pairs of three tasks (families) of suites/cpu run for real under
# isolated, isolated-recheck (the baseline run again) and cpu-stress; then
# final records are rewritten in the store so that every case of `trusted`
# is there whatever the machine measured:
#
#   pair                 isolated         isolated-recheck   stress
#   vector_poly_fast     FASTER           FASTER             FASTER        all trusted
#   vector_poly_wrong    INCORRECT_NUM.   INCORRECT_NUM.     (deleted)     no label; a missing row
#   row_sum_equiv        TIED             AMBIGUOUS          FASTER        recheck disagrees
#   softmax_fast         CRASH            FASTER             FASTER        no baseline label
#   softmax_slow         SLOWER           SLOWER             SLOWER*       * another target: excluded
# and softmax_slow/isolated is marked as `nodus db merge` marks a record copied
# from a shard: its provenance names the shard.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
python3 - "$tmp/suites/cpu/campaign.json" <<'PY' || { echo "FAIL: campaign"; exit 1; }
import json, sys
p = sys.argv[1]
c = json.load(open(p))
keep = {("vector_poly_16384", "vector_poly_fast"), ("vector_poly_16384", "vector_poly_wrong"),
        ("row_sum_512x2048", "row_sum_equiv"), ("softmax_128x1024", "softmax_fast"),
        ("softmax_128x1024", "softmax_slow")}
c["pairs"] = [x for x in c["pairs"] if (x["workload"], x["candidate"]) in keep]
assert len(c["pairs"]) == 5, c["pairs"]
# the isolated records are rewritten below: the isolation check is not what is tested
c["judge"].update(min_rounds=4, max_rounds=8, look_every=2, isolation_max_busy_cores=64)
c["conditions"] = [{"name": "isolated", "kind": "isolated"},
                   {"name": "isolated-recheck", "kind": "isolated"},
                   {"name": "stress", "kind": "cpu-stress", "tenants": 1, "load": "membw",
                    "duty_cycle": 0.5}]
json.dump(c, open(p, "w"), indent=1)
PY
"$NODUS" plan "$tmp/suites/cpu/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
python3 - "$tmp/r.db" <<'PY' || { echo "FAIL: rewriting records"; exit 1; }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# a test's own copy: records are append-only, so the guards go first
for t in ("records_no_update", "records_no_delete", "samples_no_delete"):
    db.execute(f"DROP TRIGGER {t}")
def final(workload, cand, cond, status, label=None, sp=None, lo=None, hi=None, target=None):
    pair = f"{workload}/{cand}/{cand.rsplit('_', 1)[0]}_ref"
    n = db.execute("UPDATE records SET status = ?, label = ?, speedup = ?, ci_lo = ?, ci_hi = ?, "
                   "guard = '', message = ?, target_hash = IFNULL(?, target_hash) "
                   "WHERE final = 1 AND pair_id = ? AND condition = ?",
                   (status, label, sp, lo, hi, None if status == "OK" else "rewritten by t4060",
                    target, pair, cond)).rowcount
    assert n == 1, (pair, cond, n)
F = ("OK", "FASTER", 1.5, 1.3, 1.7)
for cond in ("isolated", "isolated-recheck", "stress"):
    final("vector_poly_16384", "vector_poly_fast", cond, *F)
for cond in ("isolated", "isolated-recheck"):
    final("vector_poly_16384", "vector_poly_wrong", cond, "INCORRECT_NUMERICAL")
pair = "vector_poly_16384/vector_poly_wrong/vector_poly_ref"
ids = [i for (i,) in db.execute("SELECT id FROM records WHERE pair_id = ? AND condition = 'stress'",
                                (pair,))]
for i in ids:
    db.execute("DELETE FROM samples WHERE record_id = ?", (i,))
    db.execute("DELETE FROM records WHERE id = ?", (i,))
final("row_sum_512x2048", "row_sum_equiv", "isolated", "OK", "TIED", 1.0, 0.99, 1.01)
final("row_sum_512x2048", "row_sum_equiv", "isolated-recheck", "OK", "AMBIGUOUS", 1.02, 0.9, 1.1)
final("row_sum_512x2048", "row_sum_equiv", "stress", *F)
final("softmax_128x1024", "softmax_fast", "isolated", "CRASH")
final("softmax_128x1024", "softmax_fast", "isolated-recheck", *F)
final("softmax_128x1024", "softmax_fast", "stress", *F)
S = ("OK", "SLOWER", 0.5, 0.45, 0.55)
final("softmax_128x1024", "softmax_slow", "isolated", *S)
final("softmax_128x1024", "softmax_slow", "isolated-recheck", *S)
final("softmax_128x1024", "softmax_slow", "stress", *S, target="ab" * 32)
# as `nodus db merge` marks a record it copied from a shard
import json
rid, detail = db.execute("SELECT id, detail_json FROM records WHERE final = 1 AND condition = "
                         "'isolated' AND pair_id LIKE 'softmax_128x1024/softmax_slow/%'").fetchone()
detail = json.loads(detail)
detail["merged"] = {"from": "shard-1.db", "attempt": 1, "final": True, "content": "cd" * 32}
db.execute("UPDATE records SET detail_json = ? WHERE id = ?", (json.dumps(detail), rid))
db.commit()
PY

# 1.1 the export, and what nodus says it wrote
printf '# held-out families, one a line\n\n  softmax   # the softmax kernels\n' >"$tmp/holdout.txt"
"$NODUS" export dataset "$tmp/r.db" --holdout-families "$tmp/holdout.txt" -o "$tmp/ex" \
	>"$tmp/out" 2>"$tmp/err" || fail "1.1 export exited $?: $(cat "$tmp/err")"
grep -q "export $tmp/ex: 8 row(s) in train.jsonl, 6 in heldout.jsonl (1 of 3 families held out), 5 trusted; 1 pair-condition(s) without a final record" "$tmp/out" ||
	fail "1.1 summary: $(cat "$tmp/out")"
ls "$tmp" | grep -q "ex.tmp-" && fail "1.1 a temporary directory was left beside the export"
"$NODUS" report "$tmp/r.db" --format json -o "$tmp/report.json" || fail "1.1 report exited $?"

# 1.2 the rows against the store, FILE and the report
python3 - "$tmp/ex" "$tmp/r.db" "$tmp/holdout.txt" "$tmp/report.json" "$tmp/plan.json" <<'PY' && echo "ok: 1.2 rows" || fail "1.2 rows"
import hashlib, json, sqlite3, sys
ex, db, holdout, report = sys.argv[1], sqlite3.connect(sys.argv[2]), sys.argv[3], sys.argv[4]
judge = json.load(open(sys.argv[5]))["judge"]
rows = {}
for split in ("train", "heldout"):
    with open(f"{ex}/{split}.jsonl") as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)  # every line is one JSON object
            except ValueError as e:
                sys.exit(f"{split}.jsonl:{n}: {e}")
            assert isinstance(r, dict) and r["split"] == split, (split, n)
            key = (r["pair_id"], r["condition"])
            assert key not in rows, f"{key} twice (in {rows.get(key, {}).get('split')} and {split})"
            rows[key] = r
man = json.load(open(f"{ex}/manifest.json"))
# the split follows FILE exactly: its names, and only its names, are held out
names = [l.split("#")[0].strip() for l in open(holdout)]
names = [n for n in names if n]
assert names == ["softmax"] and man["holdout"]["families"] == names, man["holdout"]
assert man["holdout"]["sha256"] == hashlib.sha256(open(holdout, "rb").read()).hexdigest()
for r in rows.values():
    assert (r["split"] == "heldout") == (r["family"] in names), r
tasks = {p: t for p, t in db.execute("SELECT pair_id, task FROM pairs")}
assert all(r["family"] == r["task"] == tasks[p] for (p, _), r in rows.items())
assert sorted(man["families"]["train"] + man["families"]["heldout"]) == sorted(set(tasks.values()))
# no record lost: one row per final record, with the store's figures
finals = db.execute("SELECT pair_id, condition, status, label, attempt, target_hash, plan_digest "
                    "FROM records WHERE final = 1").fetchall()
assert sorted(rows) == sorted((f[0], f[1]) for f in finals), (sorted(rows), finals)
for p, cond, status, label, attempt, target, digest in finals:
    r = rows[(p, cond)]
    assert (r["status"], r["label"]) == (status, label), (p, cond, r["status"], r["label"])
    pv = r["provenance"]
    assert (pv["attempt"], pv["target_hash"], pv["plan_digest"]) == (attempt, target, digest), pv
    assert pv["judge"] == judge, pv["judge"]
    assert all(k in r for k in ("device_s", "compile_s", "validation_s", "wall_s", "rounds"))
assert man["counts"]["rows"] == man["counts"]["final_records"] == len(finals) == 14, man["counts"]
assert man["counts"]["train"]["rows"] + man["counts"]["heldout"]["rows"] == len(rows)
assert man["missing"] == [{"pair": "vector_poly_16384/vector_poly_wrong/vector_poly_ref",
                           "condition": "stress"}], man["missing"]
assert set(man["row_schema"]) == set(next(iter(rows.values()))), "row_schema names every field"
for s in ("train", "heldout"):
    data = open(f"{ex}/{s}.jsonl", "rb").read()
    assert man["files"][f"{s}.jsonl"]["sha256"] == hashlib.sha256(data).hexdigest(), s
# a merged record names its shard; the others were measured here
merged = {k: r["provenance"]["merged"] for k, r in rows.items() if r["provenance"]["merged"]}
assert list(merged) == [("softmax_128x1024/softmax_slow/softmax_ref", "isolated")], merged
assert next(iter(merged.values()))["from"] == "shard-1.db", merged
# every row names the run that wrote it (detail.run: id and host)
for k, r in rows.items():
    run = r["provenance"]["run"]
    assert run and run["id"] and run["host"], (k, run)
# trusted only where the label agrees with its isolated recheck, as the report sees it
# (labels and excluded of `nodus report --format json`, the rule written out here again):
# another condition is held against the baseline, the baseline against the later isolated ones
rep = json.load(open(report))
base = rep["baseline"]
isolated = [c["name"] for c in rep["conditions"] if c["kind"] == "isolated"]
assert isolated[0] == base == "isolated" and man["rechecks"] == isolated[1:]
excl = {(e["pair"], e["condition"]) for e in rep["excluded"]}
LABELS = ("FASTER", "SLOWER", "TIED", "AMBIGUOUS")
for p in rep["pairs"]:
    out = p["labels"]
    for cond in out:
        if (p["id"], cond) not in rows:
            continue
        r = rows[(p["id"], cond)]
        def agrees(a, b):  # b held against a: compared, a a label, equal
            other = b if b != base else a
            return (p["id"], other) not in excl and out[a] in LABELS and out[a] == out[b]
        if cond != base:
            want = agrees(base, cond)
        else:
            checks = [rc for rc in isolated[1:] if out[rc] in LABELS and (p["id"], rc) not in excl]
            want = bool(checks) and all(agrees(base, rc) for rc in checks)
        want = want and out[cond] in ("FASTER", "SLOWER", "TIED")
        assert r["trusted"] is want, (p["id"], cond, r["trusted"], r["trusted_why"], out)
        assert (r["trusted_why"] is None) == want, r["trusted_why"]
# and the constructed cases, by name
trusted = sorted((p.split("/")[1], c) for (p, c), r in rows.items() if r["trusted"])
assert trusted == [("softmax_slow", "isolated"), ("softmax_slow", "isolated-recheck"),
                   ("vector_poly_fast", "isolated"), ("vector_poly_fast", "isolated-recheck"),
                   ("vector_poly_fast", "stress")], trusted
why = {(p.split("/")[1], c): r["trusted_why"] for (p, c), r in rows.items()}
assert "disagrees with its isolated recheck 'isolated-recheck': AMBIGUOUS" in why[("row_sum_equiv", "isolated")]
assert "disagrees with its isolated recheck 'isolated': TIED" in why[("row_sum_equiv", "stress")]
assert why[("row_sum_equiv", "isolated-recheck")].startswith("AMBIGUOUS")
assert "'isolated' ended CRASH" in why[("softmax_fast", "stress")], why[("softmax_fast", "stress")]
assert "different targets" in why[("softmax_slow", "stress")], why[("softmax_slow", "stress")]
assert why[("vector_poly_wrong", "isolated")].startswith("status INCORRECT_NUMERICAL")
print(f"t4060: {len(rows)} rows, {len(trusted)} trusted, split {man['families']}")
PY

# 1.3 the same store and FILE give the same files, byte for byte
"$NODUS" export dataset "$tmp/r.db" --holdout-families "$tmp/holdout.txt" -o "$tmp/ex2" >/dev/null 2>&1 ||
	fail "1.3 second export exited $?"
digest=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["digest"])' "$tmp/plan.json")
"$NODUS" export dataset "$tmp/r.db" --plan "$digest" --holdout-families="$tmp/holdout.txt" \
	--output "$tmp/ex4" >/dev/null 2>&1 || fail "1.3 export --plan exited $?"
for f in train.jsonl heldout.jsonl; do
	cmp -s "$tmp/ex/$f" "$tmp/ex2/$f" || fail "1.3 $f differs between two exports"
	cmp -s "$tmp/ex/$f" "$tmp/ex4/$f" || fail "1.3 $f differs with --plan"
done
# an empty FILE holds out nothing; an existing empty DIR is filled
: >"$tmp/none.txt"
mkdir "$tmp/ex3"
"$NODUS" export dataset "$tmp/r.db" --holdout-families "$tmp/none.txt" -o "$tmp/ex3" >"$tmp/out" 2>&1 &&
	grep -q "14 row(s) in train.jsonl, 0 in heldout.jsonl" "$tmp/out" && [ ! -s "$tmp/ex3/heldout.jsonl" ] ||
	fail "1.3 empty FILE: $(cat "$tmp/out")"

# 2.x refused, one line on stderr (plus the pointer to --help for usage), exit 2
refused() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 want=$2
	shift 2
	"$NODUS" export dataset "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" "$tmp/err" && [ "$(grep -vc "see 'nodus" "$tmp/err")" = 1 ] ||
		fail "$name: exit $rc, stderr: $(cat "$tmp/err")"
}
printf 'vector_poly\n# a comment\nsoftmx\n' >"$tmp/typo.txt"
refused "2.1 unknown family" "$tmp/typo.txt:3:1: unknown family 'softmx'" \
	"$tmp/r.db" --holdout-families "$tmp/typo.txt" -o "$tmp/d1"
[ -e "$tmp/d1" ] && fail "2.1 the directory was created"
printf 'softmax\n  softmax\n' >"$tmp/twice.txt"
refused "2.2 a family twice" "$tmp/twice.txt:2:3: family 'softmax' is listed twice" \
	"$tmp/r.db" --holdout-families "$tmp/twice.txt" -o "$tmp/d2"
refused "2.3 no FILE" "$tmp/nope.txt: cannot read" "$tmp/r.db" --holdout-families "$tmp/nope.txt" -o "$tmp/d3"
refused "2.4 no DB" "no such store" "$tmp/nope.db" --holdout-families "$tmp/holdout.txt" -o "$tmp/d4"
refused "2.5 not a store" "not a nodus store" "$tmp/holdout.txt" --holdout-families "$tmp/holdout.txt" -o "$tmp/d5"
refused "2.6 no -o" "missing -o DIR" "$tmp/r.db" --holdout-families "$tmp/holdout.txt"
refused "2.7 no FILE option" "missing --holdout-families" "$tmp/r.db" -o "$tmp/d7"
refused "2.4b unknown plan" "$(printf 'f%.0s' $(seq 64))" "$tmp/r.db" \
	--plan "$(printf 'f%.0s' $(seq 64))" --holdout-families "$tmp/holdout.txt" -o "$tmp/d4b"
sums() { (cd "$tmp/ex" && sha256sum train.jsonl heldout.jsonl manifest.json); }
before=$(sums)
refused "2.8 over an export" "is not empty" "$tmp/r.db" --holdout-families "$tmp/holdout.txt" -o "$tmp/ex"
[ "$(sums)" = "$before" ] || fail "2.8 the existing export changed"
cp "$tmp/r.db" "$tmp/empty.db"
python3 - "$tmp/empty.db" <<'PY' || fail "2.9 emptying the store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM samples")
db.execute("DELETE FROM records")
db.commit()
PY
refused "2.9 no final record" "has no final record" "$tmp/empty.db" --holdout-families "$tmp/holdout.txt" -o "$tmp/d9"
ls "$tmp" | grep -q "tmp-" && fail "2.x a temporary directory was left"
"$NODUS" export --help | grep -q "nodus export dataset DB" || fail "3.1 export --help"
"$NODUS" export dataset --help | grep -q -- "--holdout-families FILE" || fail "3.2 export dataset --help"
"$NODUS" export nonsense >/dev/null 2>&1
[ $? = 2 ] || fail "3.3 an unknown subcommand"
[ "$fails" -eq 0 ] && echo "ok: t4060" || { echo "$fails check(s) failed"; exit 1; }
