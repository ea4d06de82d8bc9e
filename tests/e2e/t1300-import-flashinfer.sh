#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t1300-import-flashinfer.sh: `nodus import flashinfer` on a small dataset in
# FlashInfer-Bench's layout, written for nodus (tests/fixtures/flashinfer;
# docs/import.md):
#   1. the definition becomes a task (its const and var axes, a scalar input
#      that is constant, never varied) and a wrapped reference, each random
#      or scalar workload a workload (the scalar's value its init), the
#      value-returning and the destination-passing solution python
#      solutions, the C++ solution with torch's binding (two files: a header
#      its source includes) a python module that compiles them with
#      load_inline, the C++ one with the tvm-ffi binding (also with a
#      header) one that compiles them with tvm_ffi.cpp.load_inline, the
#      campaign every solution on every workload and the reference against
#      itself, the scalar's audit checks waived with a reason; the
#      definition with an integer input is imported (a random workload
#      would draw FlashInfer-Bench's [-1024, 1023], and the import says
#      so); what nodus cannot take (a safetensors input whose file is
#      missing, a CUDA solution on a cpu target) is said with its file, and
#      the exit is 1 (safetensors inputs that are there: t1310);
#   2. with torch, the campaign plans (its judge audit passes) and runs on
#      the cpu: every pair OK, the solutions correct against the reference
#      (the C++ ones with torch's extension tool chain, the tvm-ffi one with
#      an interpreter that imports tvm_ffi, /opt/nodus-fib's from
#      scripts/deps.sh; without them their pairs are left out, saying so);
#   3. importing again into the same directory writes nothing (exit 2, the
#      file named); a directory with no dataset is refused in words;
#   4. on cuda the judge declares process_sd, and the CUDA solution with no
#      binding (tvm-ffi, the default) is imported: a module whose .cu is
#      load_inline's cuda_sources (it is compiled only on the H200:
#      tests/gpu/test-gpu-torch.sh).
# Items 2 needs /usr/bin/python3 with torch; without it they are skipped.
# The tvm-ffi binding's own cases (a wrong result, a compile error, a
# missing tvm_ffi): t1320.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
NODUS=$(private_nodus "$tmp")
ds=$NODUS_SRC/tests/fixtures/flashinfer
out=$tmp/out

# 1. the import
"$NODUS" import flashinfer "$ds" -o "$out" --backend cpu >"$tmp/stdout" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "1.1 exited $rc, expected 1 (something left out): $(cat "$tmp/err")"
grep -q "wrote $out: 2 definition(s), 2 workload(s), 4 solution(s), 9 pair(s)" "$tmp/stdout" ||
	fail "1.2 the counts: $(cat "$tmp/stdout")"
for want in "gather_rows.json: input 'index' (int32): a random workload draws integers in [-1024, 1023] (int_range)" \
	"rmsnorm_h64.jsonl:3: workload c3d4e5f6-0000-4000-8000-000000000003 left out: input 'x': cannot read safetensors file $ds/blobs/x.safetensors: No such file or directory" \
	"cuda_kernel.json: solution rmsnorm_cuda left out: a cuda solution on a cpu target (import with --backend cuda)"; do
	grep -qF "$want" "$tmp/err" || fail "1.3 not said: $want (stderr: $(cat "$tmp/err"))"
done
python3 - "$out" <<'PY' || fail "1.4 the documents"
import json, sys
d = sys.argv[1]
t = json.load(open(f"{d}/tasks/rmsnorm_h64.json"))
assert t["axes"] == {"batch": {"type": "var"}, "hidden": {"type": "const", "value": 64}}, t["axes"]
ins = {i["name"]: i for i in t["inputs"]}
assert list(ins) == ["x", "weight", "eps"], list(ins)
assert ins["eps"]["shape"] is None and ins["eps"]["init"]["dist"] == "constant" and "variants" not in ins["eps"]
assert ins["x"]["variants"] and t["outputs"][0]["name"] == "y"
w = json.load(open(f"{d}/workloads/rmsnorm_h64_a1b2c3d4.json"))
assert w["axes"] == {"batch": 256} and w["inputs"]["eps"]["init"] == {"dist": "constant", "value": 1e-6}, w
ref = open(f"{d}/solutions/rmsnorm_h64_ref.py").read()
assert "def run(x, weight, eps)" in ref and "def nodus_run(*args)" in ref
dps = json.load(open(f"{d}/solutions/rmsnorm_torch_dps.json"))
assert dps["entry"] == "rmsnorm" and dps["python"]["style"] == "destination", dps
ret = json.load(open(f"{d}/solutions/rmsnorm_torch_returning.json"))
assert ret["entry"] == "nodus_run", ret
cpp = json.load(open(f"{d}/solutions/rmsnorm_cpp_torch.json"))
assert cpp["language"] == "python" and cpp["entry"] == "rmsnorm" and "cpp" in cpp["tags"], cpp
mod = open(f"{d}/solutions/rmsnorm_cpp_torch.py").read()
assert "from torch.utils.cpp_extension import load_inline" in mod and "csrc/rmsnorm_util.h" in mod, mod[:400]
ns = {}
exec("import posixpath\n" + mod.split("from torch.utils.cpp_extension import load_inline")[1].split("_ext = load_inline")[0], ns)
main = ns["_inlined"]("csrc/rmsnorm.cpp", {"csrc/rmsnorm.cpp"})
assert "static inline torch::Tensor inv_rms" in main and '#include "rmsnorm_util.h"' not in main, main
assert "#pragma once" not in main, main
ffi = json.load(open(f"{d}/solutions/rmsnorm_cpp_ffi.json"))
assert ffi["language"] == "python" and ffi["entry"] == "rmsnorm" and ffi["python"]["style"] == "destination", ffi
mod = open(f"{d}/solutions/rmsnorm_cpp_ffi.py").read()
assert "import tvm_ffi.cpp\n" in mod and "tvm_ffi.cpp.load_inline(name='fib_rmsnorm_cpp_ffi'," in mod, mod[:400]
assert "rmsnorm = getattr(_ext, 'rmsnorm')" in mod and "torch.utils.cpp_extension" not in mod, mod[-400:]
ns = {}
exec("import posixpath\n" + mod.split("import tvm_ffi.cpp\n")[1].split("_ext = ")[0], ns)
assert ns["_CPP"] == ["rmsnorm.cpp"] and ns["_CUDA"] == [], (ns["_CPP"], ns["_CUDA"])
main = ns["_inlined"]("rmsnorm.cpp", {"rmsnorm.cpp"})
assert "static inline void check_f32" in main and '#include "rmsnorm_check.h"' not in main, main
assert "TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);" in main and "#pragma once" not in main, main
c = json.load(open(f"{d}/campaign.json"))
got = sorted((p["workload"], p["candidate"]) for p in c["pairs"])
assert len(got) == 9 and ("rmsnorm_h64_a1b2c3d4", "rmsnorm_h64_ref") in got, got
checks = sorted(w["check"] for w in c["audit"]["waive"])
assert checks == ["constant_input:eps", "dead_input:eps"] and all(w["reason"] for w in c["audit"]["waive"]), checks
assert c["target"]["backend"] == "cpu"
PY
"$NODUS" check "$out/campaign.json" >/dev/null 2>"$tmp/err" || fail "1.5 nodus check: $(cat "$tmp/err")"

# 2. plan and run, with torch (and tvm_ffi: the interpreter that has it, else
# the tvm-ffi solution's pairs are left out of the campaign, saying so)
if /usr/bin/python3 -I -c 'import torch' 2>/dev/null; then
	ffi=1
	if TVM_FFI_DISABLE_TORCH_C_DLPACK=1 /opt/nodus-fib/bin/python -I -c 'import torch, tvm_ffi' 2>/dev/null; then
		python3 - "$out/campaign.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["target"]["python"] = "/opt/nodus-fib/bin/python"
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
	elif /usr/bin/python3 -I -c 'import tvm_ffi' 2>/dev/null; then
		:
	else
		ffi=0
		echo "skipped: no interpreter with torch and tvm_ffi (/opt/nodus-fib from scripts/deps.sh): the tvm-ffi solution's pairs, item 2"
		python3 - "$out/campaign.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["solutions"] = [s for s in c["solutions"] if "cpp_ffi" not in s]
c["pairs"] = [p for p in c["pairs"] if "cpp_ffi" not in p["candidate"]]
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
	fi
	relax_isolation "$out/campaign.json" 1000
	set_judge "$out/campaign.json" max_rounds 10
	"$NODUS" plan "$out/campaign.json" -o "$tmp/plan.json" >"$tmp/plan.txt" 2>&1 ||
		fail "2.1 plan: $(grep -v '^  ok' "$tmp/plan.txt" | tail -5)"
	"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q 2>"$tmp/err" || fail "2.2 run exited $?: $(cat "$tmp/err")"
	ext=1
	command -v g++ >/dev/null && command -v ninja >/dev/null && /usr/bin/python3 -I -c 'import os, sys, torch.utils.cpp_extension as c
sys.exit(0 if any(os.path.exists(os.path.join(p, "torch", "extension.h")) for p in c.include_paths() + ["/usr/include"]) else 1)' 2>/dev/null || ext=0
	[ "$ext" = 1 ] || echo "skipped: no torch extension tool chain (scripts/deps.sh installs libtorch-dev, pybind11-dev, ninja-build): the C++ solution's pairs, item 2"
	python3 - "$tmp/r.db" "$ext" "$ffi" <<'PY' || fail "2.3 the records"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, status, IFNULL(message, '') FROM records WHERE final = 1").fetchall()
assert len(rows) == (9 if sys.argv[3] == "1" else 7), len(rows)
if sys.argv[2] == "0":
    rows = [r for r in rows if "cpp_torch" not in r[0] and "cpp_ffi" not in r[0]]
bad = [r for r in rows if r[1] != "OK"]
assert not bad, bad
PY
else
	echo "skipped: no torch (/usr/bin/python3 cannot import torch): item 2, the run"
	skips=$((skips + 1))
fi

# 3. nothing overwritten; no dataset
cp "$out/campaign.json" "$tmp/c.json"
"$NODUS" import flashinfer "$ds" -o "$out" --backend cpu >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "exists: nodus import never overwrites a file (nothing was written)" "$tmp/err" ||
	fail "3.1 a second import into the same directory: $(cat "$tmp/err")"
cmp -s "$tmp/c.json" "$out/campaign.json" || fail "3.2 the campaign changed"
mkdir -p "$tmp/empty"
"$NODUS" import flashinfer "$tmp/empty" -o "$tmp/none" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "nothing to import" "$tmp/err" && [ ! -e "$tmp/none" ] ||
	fail "3.3 an empty dataset: $(cat "$tmp/err")"
# 4. on cuda the judge declares the offset between two processes
# (docs/statistics.md, "Between processes"); on the cpu it declares none
"$NODUS" import flashinfer "$ds" -o "$tmp/cuda" >/dev/null 2>&1
python3 - "$tmp/cuda/campaign.json" "$out/campaign.json" <<'PY' || fail "4 process_sd"
import json, sys
cuda, cpu = (json.load(open(p))["judge"] for p in sys.argv[1:3])
assert cuda.get("process_sd") == 0.03, cuda
assert "process_sd" not in cpu, cpu
d = sys.argv[1].rsplit("/", 1)[0]
s = json.load(open(f"{d}/solutions/rmsnorm_cuda.json"))
assert s["backend"] == "cuda" and s["entry"] == "run" and "cuda" in s["tags"], s
mod = open(f"{d}/solutions/rmsnorm_cuda.py").read()
assert "a cuda solution with the tvm-ffi binding" in mod and "run = getattr(_ext, 'run')" in mod, mod[-300:]
ns = {}
exec("import posixpath\n" + mod.split("import tvm_ffi.cpp\n")[1].split("_ext = ")[0], ns)
assert ns["_CPP"] == [] and ns["_CUDA"] == ["kernel.cu"], (ns["_CPP"], ns["_CUDA"])
assert "TVMFFIEnvGetStream" in ns["_inlined"]("kernel.cu", {"kernel.cu"})
PY
[ "$fails" -eq 0 ] && echo "t1300: the FlashInfer-Bench fixture imported, what is left out said"
test_exit
