#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4050-report-dataset.sh: `nodus report --format dataset` writes a
# FlashInfer-Bench dataset that the format's own data layer loads
# (flashinfer-bench 0.1.2's pydantic models and TraceSet.from_path, from
# the venv scripts/deps.sh makes; skipped without it): every final record
# is a trace or a harness failure, never both or neither; every trace's
# keys name its condition and its best pick stays inside one condition; the
# definitions, solutions and workloads the traces name exist. The
# single-file trace follows the same rule; bad usage is refused.
#
# The mini campaign runs for real (isolated and cpu-stress), then two final
# records are rewritten in the store so that both kinds of failure are
# there whatever the machine did: vec_add_ref/isolated a NOT_ISOLATED
# (the harness's), vec_add_unrolled/stress a LOAD_ERROR of stage load (the
# candidate's: a RUNTIME_ERROR trace).
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
FIB_PY=/opt/nodus-fib/bin/python
if ! "$FIB_PY" -c 'import importlib.metadata as m; m.version("flashinfer-bench")' 2>/dev/null; then
	echo "skipped: flashinfer-bench not installed (scripts/deps.sh)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
NODUS=$(private_nodus "$tmp")
relax_isolation "$tmp/mini/campaign.json" 64 # the isolated records are rewritten below
"$NODUS" plan "$tmp/mini/campaign.json" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q || fail "run exited $?"
python3 - "$tmp/r.db" <<'PY' || { echo "FAIL: rewriting records"; exit 1; }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# a test's own copy: records are append-only, so the guard against updates goes first
db.execute("DROP TRIGGER records_no_update")
def final(pair, cond, status, guard, message):
    n = db.execute("UPDATE records SET status = ?, label = NULL, guard = ?, message = ? "
                   "WHERE final = 1 AND pair_id = ? AND condition = ?",
                   (status, guard, message, pair, cond)).rowcount
    assert n == 1, (pair, cond, n)
final("vec_add_4k/vec_add_ref/vec_add_ref", "isolated", "NOT_ISOLATED", "isolation_before",
      "other load on the machine before the pair was timed")
final("vec_add_4k/vec_add_unrolled/vec_add_ref", "stress-membw-1", "LOAD_ERROR", "",
      "load: SyntaxError: invalid syntax (line 3)")
db.commit()
PY

# 1.1 the dataset, and what nodus says it wrote
"$NODUS" report "$tmp/r.db" --format dataset --plan-file "$tmp/plan.json" -o "$tmp/ds" \
	>"$tmp/out" 2>"$tmp/err" || fail "1.1 dataset exited $?: $(cat "$tmp/err")"
grep -q "2 definition(s), 4 solution(s), 2 workload(s), 3 trace(s), 1 harness failure(s)" "$tmp/out" ||
	fail "1.1 summary: $(cat "$tmp/out")"
ls "$tmp" | grep -q "ds.tmp-" && fail "1.1 a temporary directory was left beside the dataset"

# 1.2 loaded by FlashInfer-Bench's own data layer, checked against the store
"$FIB_PY" - "$tmp/ds" "$tmp/r.db" <<'PY' && echo "ok: 1.2 TraceSet" || fail "1.2 TraceSet"
import importlib.util, json, sqlite3, sys, types
# flashinfer_bench/__init__.py imports flashinfer and tvm-ffi: load only its data layer
spec = importlib.util.find_spec("flashinfer_bench")
pkg = types.ModuleType("flashinfer_bench")
pkg.__path__ = list(spec.submodule_search_locations)
sys.modules["flashinfer_bench"] = pkg
from flashinfer_bench.data import EvaluationStatus, TraceSet

root, db = sys.argv[1], sqlite3.connect(sys.argv[2])
ts = TraceSet.from_path(root)
conds = [c for (c,) in db.execute("SELECT name FROM conditions")]
assert sorted(ts.definitions) == sorted(f"vec_add@{c}" for c in conds), list(ts.definitions)
traces = [t for ts_ in ts.traces.values() for t in ts_]
fails = [json.loads(l) for l in open(f"{root}/nodus/harness-failures.jsonl")]
finals = db.execute("SELECT r.pair_id, r.condition, r.status, p.workload, p.candidate "
                    "FROM records r JOIN pairs p ON p.plan_digest = r.plan_digest AND "
                    "p.pair_id = r.pair_id WHERE r.final = 1").fetchall()
# every final record is a trace or a harness failure, exactly once
want_traces = sorted((f"{c}@{cond}", f"{w}@{cond}") for _, cond, st, w, c in finals
                     if st not in ("NOT_ISOLATED", "INVALID_REFERENCE"))
got_traces = sorted((t.solution, t.workload.uuid) for t in traces)
assert got_traces == want_traces, (got_traces, want_traces)
want_fails = sorted((p, cond, st) for p, cond, st, _, _ in finals
                    if st in ("NOT_ISOLATED", "INVALID_REFERENCE"))
assert sorted((f["pair"], f["condition"], f["status"]) for f in fails) == want_fails, fails
assert len(traces) + len(fails) == len(finals) == 4, (len(traces), len(fails), len(finals))
assert fails[0]["guard"] == "isolation_before" and "other load" in fails[0]["message"], fails
for t in traces:
    cond = t.definition.split("@", 1)[1]
    # the keys name the condition, and the definition, solution and workload exist
    assert t.workload.uuid.endswith(f"@{cond}") and t.solution.endswith(f"@{cond}"), t
    sol = ts.get_solution(t.solution)
    assert sol is not None and sol.definition == t.definition, t.solution
    assert any(w.workload.uuid == t.workload.uuid for w in ts.workloads[t.definition]), t
    if t.evaluation.correctness is not None:
        assert t.evaluation.correctness.extra["nodus_condition"] == cond, t
    # the candidate's own failure stays a trace, nodus's status in the log
    if t.solution == "vec_add_unrolled@stress-membw-1":
        assert t.evaluation.status == EvaluationStatus.RUNTIME_ERROR, t.evaluation
        assert t.evaluation.log.startswith("nodus LOAD_ERROR: load: SyntaxError"), t.evaluation.log
# the best pick of a definition is one of its own condition's traces
for name in ts.definitions:
    best = ts.get_best_trace(name)
    cond = name.split("@", 1)[1]
    assert best is None or best.workload.uuid.endswith(f"@{cond}"), (name, best)
assert ts.get_best_trace("vec_add@isolated").solution == "vec_add_unrolled@isolated"
assert all(s.sources and s.spec.language.value == "cpp" for v in ts.solutions.values() for s in v)
print(f"t4050: {len(ts.definitions)} definitions, {len(ts._solution_by_name)} solutions, "
      f"{len(traces)} traces, {len(fails)} harness failure(s)")
PY

# 1.3 the single-file trace: the same lines, the harness failure left out and counted
"$NODUS" report "$tmp/r.db" --format trace -o "$tmp/trace.jsonl" 2>"$tmp/err" || fail "1.3 trace exited $?"
grep -q "1 final record(s) are harness failures" "$tmp/err" || fail "1.3 stderr: $(cat "$tmp/err")"
cat "$tmp"/ds/traces/*/*.jsonl | sort >"$tmp/ds-lines"
sort "$tmp/trace.jsonl" | cmp -s - "$tmp/ds-lines" || fail "1.3 the trace file and the dataset's traces differ"

# 2.x refused
"$NODUS" report "$tmp/r.db" --format dataset -o "$tmp/d2" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "missing --plan-file" "$tmp/err" || fail "2.1 no --plan-file: $(cat "$tmp/err")"
"$NODUS" report "$tmp/r.db" --format dataset --plan-file "$tmp/plan.json" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "missing -o DIR" "$tmp/err" || fail "2.2 no -o: $(cat "$tmp/err")"
"$NODUS" report "$tmp/r.db" --plan-file "$tmp/plan.json" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] || fail "2.3 --plan-file with the text format accepted"
sums() { (cd "$tmp/ds" && find . -type f | sort | xargs sha256sum); }
before=$(sums)
"$NODUS" report "$tmp/r.db" --format dataset --plan-file "$tmp/plan.json" -o "$tmp/ds" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "is not empty" "$tmp/err" || fail "2.4 over a dataset: $(cat "$tmp/err")"
[ "$(sums)" = "$before" ] || fail "2.4 the existing dataset changed"
"$NODUS" report "$tmp/r.db" --format dataset --plan-file "$tmp/plan.json" \
	--plan "$(printf 'f%.0s' $(seq 64))" -o "$tmp/d3" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/d3" ] || fail "2.5 --plan naming another plan: $(cat "$tmp/err")"
echo "/* changed */" >>"$tmp/mini/solutions/vec_add_unrolled.c"
"$NODUS" report "$tmp/r.db" --format dataset --plan-file "$tmp/plan.json" -o "$tmp/d4" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && grep -q "vec_add_unrolled.c" "$tmp/err" && [ ! -e "$tmp/d4" ] ||
	fail "2.6 a changed source: $(cat "$tmp/err")"
ls "$tmp" | grep -q "tmp-" && fail "2.x a temporary directory was left"
[ "$fails" -eq 0 ] && echo "ok: 2.x refused" || { echo "$fails check(s) failed"; exit 1; }
