#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t1320-import-flashinfer-tvmffi.sh: FlashInfer-Bench C++ solutions with the
# tvm-ffi binding (its default; docs/import.md), imported, built and run on
# the cpu. Their modules compile the sources with tvm_ffi.cpp.load_inline,
# which nodus's build runs once (include/nodus/torch_ext.py's record step)
# and the worker only loads (docs/formats.md, "load_inline and load"). The
# dataset is written here: tests/fixtures/flashinfer's rmsnorm_h64, its
# first workload, and
#   ffi_ok      the fixture's cpp_ffi.json (a header of its own);
#   ffi_nobind  the same sources with no binding named (tvm-ffi, the default);
#   ffi_wrong   y scaled by 1.5;
#   ffi_broken  a call of a function that does not exist;
#   ffi_returning  value-returning: y allocated in C++ (Tensor::FromNDAlloc)
#               and returned, which tvm_ffi gives back as torch's;
#   ffi_late    a python solution whose tvm_ffi.cpp.load_inline source
#               depends on the time of import.
#   1. the import takes them all (exit 0);
#   2. plan with an interpreter that cannot import tvm_ffi refuses the
#      campaign in words naming the interpreter and the pip command (exit 2);
#   3. with /opt/nodus-fib's interpreter (scripts/deps.sh): ffi_ok and
#      ffi_nobind and ffi_returning OK with a label, ffi_wrong INCORRECT_NUMERICAL,
#      ffi_broken COMPILE_ERROR with the compiler's line, ffi_late
#      LOAD_ERROR "no prebuilt extension"; the cache keeps
#      {KEY}.ext/KEY/fib_*.so, nothing else.
# Without an interpreter with torch and tvm_ffi, or without g++ and ninja,
# it prints "skipped: ..." and exits 77.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
PY=/opt/nodus-fib/bin/python
if ! TVM_FFI_DISABLE_TORCH_C_DLPACK=1 "$PY" -I -c 'import torch, tvm_ffi' 2>/dev/null; then
	echo "skipped: no interpreter with torch and tvm_ffi ($PY: scripts/deps.sh installs apache-tvm-ffi into it)"
	exit 77
fi
if ! command -v g++ >/dev/null || ! command -v ninja >/dev/null; then
	echo "skipped: no g++ or ninja (tvm_ffi.cpp.load_inline builds with them: scripts/deps.sh)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NODUS=$(private_nodus "$tmp")
fx=$NODUS_SRC/tests/fixtures/flashinfer
ds=$tmp/ds
mkdir -p "$ds/definitions" "$ds/workloads" "$ds/solutions"
cp "$fx/definitions/rmsnorm_h64.json" "$ds/definitions/"
head -1 "$fx/workloads/rmsnorm_h64.jsonl" >"$ds/workloads/rmsnorm_h64.jsonl"
python3 - "$fx/solutions/rmsnorm_h64/cpp_ffi.json" "$ds/solutions" <<'PY'
import copy, json, sys
ok = json.load(open(sys.argv[1]))
out = sys.argv[2]
def put(name, doc):
    doc["name"] = name
    json.dump(doc, open(f"{out}/{name}.json", "w"), indent=2)
put("ffi_ok", copy.deepcopy(ok))
nobind = copy.deepcopy(ok)
del nobind["spec"]["binding"]
put("ffi_nobind", nobind)
wrong = copy.deepcopy(ok)
src = wrong["sources"][1]
assert src["path"] == "rmsnorm.cpp"
src["content"] = src["content"].replace("row[j] * inv * wp[j]", "row[j] * inv * wp[j] * 1.5f")
assert "1.5f" in src["content"]
put("ffi_wrong", wrong)
broken = copy.deepcopy(ok)
broken["sources"][1]["content"] = broken["sources"][1]["content"].replace(
    "check_f32(y, 2, \"y\");", "check_f32(y, 2, \"y\");\n\tnodus_no_such_function(y);")
put("ffi_broken", broken)
ret = copy.deepcopy(ok)
src = ret["sources"][1]["content"]
head = "void rmsnorm(tvm::ffi::TensorView x,"
assert head in src and "TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);" in src
src = src.replace(head, "static void rmsnorm_into(tvm::ffi::TensorView x,")
src = src.replace("TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);", """struct host_alloc { // what FromNDAlloc calls
	void AllocData(DLTensor *t) { t->data = malloc(tvm::ffi::GetDataSize(*t)); }
	void FreeData(DLTensor *t) { free(t->data); }
};

// value-returning: y is allocated here and returned
tvm::ffi::Tensor rmsnorm(tvm::ffi::TensorView x, tvm::ffi::TensorView weight, tvm::ffi::TensorView eps)
{
	tvm::ffi::Tensor y = tvm::ffi::Tensor::FromNDAlloc(host_alloc(), x.shape(), x.dtype(), x.device());
	rmsnorm_into(x, weight, eps, y);
	return y;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);""")
ret["sources"][1]["content"] = "#include <cstdlib>\n" + src
ret["spec"]["destination_passing_style"] = False
put("ffi_returning", ret)
late = {"name": "ffi_late", "definition": "rmsnorm_h64", "author": "nodus tests",
        "spec": {"language": "python", "target_hardware": ["cpu"], "entry_point": "late.py::run",
                 "dependencies": ["apache-tvm-ffi"], "destination_passing_style": True},
        "sources": [{"path": "late.py", "content": (
            "import time\n\nimport torch\nimport tvm_ffi.cpp\n\n"
            "# its source names the time of import: another call at run time than at build time\n"
            "_ext = tvm_ffi.cpp.load_inline(name='late', cpp_sources=["
            "f'// {time.time_ns()}\\n#include <tvm/ffi/function.h>\\n'\n"
            "    'void nop(tvm::ffi::TensorView y) {}\\nTVM_FFI_DLL_EXPORT_TYPED_FUNC(nop, nop);\\n'])\n\n\n"
            "def run(x, weight, eps, y):\n"
            "    _ext.nop(y)\n"
            "    y.copy_(x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight)\n")}]}
json.dump(late, open(f"{out}/ffi_late.json", "w"), indent=2)
PY

# 1. the import
out=$tmp/out
"$NODUS" import flashinfer "$ds" -o "$out" --backend cpu --python "$PY" >"$tmp/stdout" 2>"$tmp/err" ||
	fail "1.1 the import exited $?: $(cat "$tmp/err")"
grep -q "1 definition(s), 1 workload(s), 6 solution(s), 7 pair(s)" "$tmp/stdout" ||
	fail "1.2 the counts: $(cat "$tmp/stdout") $(cat "$tmp/err")"
grep -q "tvm_ffi.cpp.load_inline(name='fib_ffi_nobind'," "$out/solutions/ffi_nobind.py" ||
	fail "1.3 no binding is not tvm-ffi's: $(head -c 400 "$out/solutions/ffi_nobind.py")"
relax_isolation "$out/campaign.json" 1000
set_judge "$out/campaign.json" max_rounds 10

# 2. an interpreter without tvm_ffi (Debian's, where it lacks it)
if /usr/bin/python3 -I -c 'import torch' 2>/dev/null && ! /usr/bin/python3 -I -c 'import tvm_ffi' 2>/dev/null; then
	python3 - "$out/campaign.json" "$tmp/bare.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["target"]["python"] = "/usr/bin/python3"
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
	cp "$tmp/bare.json" "$out/bare.json"
	"$NODUS" plan "$out/bare.json" -o "$tmp/bare-plan.json" >"$tmp/bare.out" 2>&1
	rc=$?
	want="target.python '/usr/bin/python3' cannot import tvm_ffi (ModuleNotFoundError: No module named 'tvm_ffi'), which solution 'ffi_"
	[ $rc -eq 2 ] && grep -qF "$want" "$tmp/bare.out" &&
		grep -qF "'/usr/bin/python3 -m pip install apache-tvm-ffi==0.1.15.post2'" "$tmp/bare.out" ||
		fail "2.1 plan without tvm_ffi exited $rc: $(cat "$tmp/bare.out")"
	rm -f "$out/bare.json"
else
	echo "skipped: /usr/bin/python3 lacks torch or has tvm_ffi: item 2, the refusal"
fi

# 3. plan and run
"$NODUS" plan "$out/campaign.json" -o "$tmp/plan.json" >"$tmp/plan.txt" 2>&1 ||
	fail "3.1 plan: $(grep -v '^  ok' "$tmp/plan.txt" | tail -5)"
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" --cache "$tmp/cache" -q 2>"$tmp/err" ||
	fail "3.2 run exited $?: $(cat "$tmp/err")"
python3 - "$tmp/r.db" <<'PY' || fail "3.3 the records"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, status, IFNULL(label, ''), IFNULL(guard, ''), IFNULL(message, ''), compile_s"
    " FROM records WHERE final = 1").fetchall()
got = {pid.split("/")[1]: r for pid, *r in rows}
fails = []
def want(name, ok, what):
    r = got.get(name)
    if r is None or not ok(*r):
        fails.append(f"{name}: expected {what}, got {r}")
want("ffi_ok", lambda st, lab, g, m, c: st == "OK" and lab and c > 0.5, "OK with a label, compiled")
want("ffi_nobind", lambda st, lab, g, m, c: st == "OK" and lab, "OK with a label")
want("ffi_returning", lambda st, lab, g, m, c: st == "OK" and lab, "OK with a label")
want("ffi_wrong", lambda st, lab, g, m, c: st == "INCORRECT_NUMERICAL", "INCORRECT_NUMERICAL")
want("ffi_broken", lambda st, lab, g, m, c: st == "COMPILE_ERROR" and
     "did not compile at build time" in m and "'nodus_no_such_function' was not declared" in m,
     "COMPILE_ERROR with the compiler's error")
want("ffi_late", lambda st, lab, g, m, c: st == "LOAD_ERROR" and "no prebuilt extension" in m
     and "tvm_ffi.cpp.load_inline(name='late')" in m, "LOAD_ERROR 'no prebuilt extension'")
for f in fails:
    print("FAIL: " + f)
if not fails:
    print(f"t1320: ffi_ok {got['ffi_ok'][1]}, built in {got['ffi_ok'][4]:.1f} s")
sys.exit(1 if fails else 0)
PY
# only KEY/NAME.so files kept: all but the broken one's
other=$(find "$tmp"/cache/*.ext -mindepth 1 ! -type d ! -name 'fib_*.so' ! -name 'late.so' | head -3)
[ -z "$other" ] || fail "3.4 the extension directories keep more than extensions: $other"
n_so=$(find "$tmp"/cache/*.ext -name '*.so' | wc -l)
[ "$n_so" -eq 5 ] || fail "3.5 expected 5 extensions (ok, nobind, returning, wrong, late), got $n_so: $(find "$tmp"/cache/*.ext)"

[ "$fails" -eq 0 ] && echo "t1320: tvm-ffi solutions built ahead: OK, INCORRECT_NUMERICAL, COMPILE_ERROR, LOAD_ERROR as expected"
test_exit
