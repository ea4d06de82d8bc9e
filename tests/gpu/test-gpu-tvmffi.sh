#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ---------------------------------------------------------------------------
# test-gpu-tvmffi.sh: a FlashInfer-Bench CUDA solution with the tvm-ffi
# binding (none named: the default) on a GPU. tests/fixtures/flashinfer is
# imported with --backend cuda; of its campaign only rmsnorm_cuda's pairs
# (kernel.cu: a CUDA kernel launched on the stream tvm_ffi passes on, torch's
# current one) and the reference's A/A pair are kept, planned and run under
# `isolated`:
#   1. rmsnorm_cuda is correct against the reference (any label): nodus
#      built its tvm_ffi.cpp.load_inline extension at build time (nvcc, in
#      the build's jail, TVM_FFI_CUDA_ARCH_LIST=9.0) and the worker loaded
#      it from {cache}/{KEY}.ext with tvm_ffi.load_module;
#   2. the extension directory keeps fib_rmsnorm_cuda.so.
# The interpreter is the `python3` on PATH. When it cannot import tvm_ffi
# (the H200 has no network), the cp312 wheel scripts/gpu-bundle.sh put in
# BUILD_DIR/wheels is unpacked into python3's own environment, saying so:
# a worker reads only its interpreter's trees, so neither a venv made from
# python3 (on the H200 a venv itself, whose packages such a venv does not
# see) nor a .pth file naming python3's packages would do (the lent
# machine is bare again at its next start).
# Usage: bash tests/gpu/test-gpu-tvmffi.sh [BUILD_DIR]   (default: build).
# Without a GPU it prints "skipped: no GPU" and exits 77; without torch with
# CUDA, or without tvm_ffi and its wheel, "skipped: ...".
# ---------------------------------------------------------------------------
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-${NODUS_BUILD:-$SRC/build}}
case $B in /*) ;; *) B=$PWD/$B ;; esac
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skipped: no GPU"
	exit 77
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ] || ! "$PY" -I -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	echo "skipped: no python3 with a CUDA torch on PATH"
	exit 77
fi
N=$B/nodus
[ -x "$N" ] || { echo "FAIL: no nodus in $B"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
has_tvm() { TVM_FFI_DISABLE_TORCH_C_DLPACK=1 "$1" -I -c 'import torch, tvm_ffi, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; }
if ! has_tvm "$PY"; then
	whl=$(ls "$B"/wheels/apache_tvm_ffi-*-cp312-*.whl 2>/dev/null | head -1)
	[ -n "$whl" ] || { echo "skipped: $PY cannot import tvm_ffi and $B/wheels has no cp312 apache-tvm-ffi wheel (scripts/gpu-bundle.sh)"; exit 77; }
	# into python3's own environment: a worker reads only the trees of its
	# interpreter's prefix (docs/sandbox.md), so a venv that reached
	# python3's torch through a .pth file would be refused by nodus plan,
	# and a venv made from a venv does not see its packages; the lent
	# machine is bare again at its next start
	site=$("$PY" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	echo "test-gpu-tvmffi: $PY cannot import tvm_ffi: $whl unpacked into $site"
	"$PY" -I -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$site" &&
		has_tvm "$PY" || { echo "FAIL: $PY cannot import tvm_ffi after unpacking $whl into $site"; exit 1; }
fi
echo "test-gpu-tvmffi: interpreter $PY ($(TVM_FFI_DISABLE_TORCH_C_DLPACK=1 "$PY" -I -c 'import torch, tvm_ffi; print("torch", torch.__version__, "tvm_ffi", tvm_ffi.__version__)'))"
mkdir -p "$tmp/bin" && cp "$N" "$tmp/bin/nodus"
[ -f "$B/libnodus_cuda.so" ] && cp "$B/libnodus_cuda.so" "$tmp/bin/"
cp -r "$SRC/include" "$tmp/include"
"$tmp/bin/nodus" import flashinfer "$SRC/tests/fixtures/flashinfer" -o "$tmp/fi" --backend cuda --python "$PY" \
	>"$tmp/import.out" 2>&1
grep -q "solutions/rmsnorm_cuda" "$tmp/fi/campaign.json" 2>/dev/null ||
	{ cat "$tmp/import.out"; echo "FAIL: rmsnorm_cuda was not imported"; exit 1; }
c=$tmp/fi/campaign.json
"$PY" - "$c" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["pairs"] = [p for p in c["pairs"] if p["candidate"] == "rmsnorm_cuda" or
              (p["candidate"] == p["reference"] and "rmsnorm" in p["candidate"])]
keep = {p["candidate"] for p in c["pairs"]} | {p["reference"] for p in c["pairs"]}
c["solutions"] = [s for s in c["solutions"] if s.split("/")[-1][:-5] in keep]
c["tasks"] = [t for t in c["tasks"] if "rmsnorm" in t]
c["workloads"] = [w for w in c["workloads"] if "rmsnorm" in w]
c.setdefault("judge", {})["max_rounds"] = 10
json.dump(c, open(sys.argv[1], "w"), indent=1)
PYEOF
"$tmp/bin/nodus" plan "$c" -o "$tmp/plan.json" >"$tmp/plan.out" 2>&1 ||
	{ cat "$tmp/plan.out"; echo "FAIL: plan"; exit 1; }
"$tmp/bin/nodus" run "$tmp/plan.json" --cache "$tmp/cache" --db "$tmp/r.db" -q >"$tmp/run.out" 2>&1 ||
	{ tail -30 "$tmp/run.out"; echo "FAIL: run exited $?"; exit 1; }
"$PY" - "$tmp/r.db" <<'PYEOF'
import sqlite3, sys
bad = 0
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, status, label, guard, message FROM records WHERE final = 1").fetchall()
for pid, status, label, guard, msg in rows:
    if pid.split("/")[1] != "rmsnorm_cuda":
        continue
    ok = status == "OK"
    print(f"{'ok  ' if ok else 'FAIL'} {pid}: {label if ok else status} {guard or ''} {(msg or '')[:600]}")
    bad += not ok
if not any(r[0].split("/")[1] == "rmsnorm_cuda" for r in rows):
    print("FAIL rmsnorm_cuda: no record"); bad += 1
sys.exit(1 if bad else 0)
PYEOF
rc=$?
if ! ls "$tmp"/cache/*.ext/*/fib_rmsnorm_cuda.so >/dev/null 2>&1; then
	echo "FAIL: no fib_rmsnorm_cuda.so in $tmp/cache/*.ext"
	rc=1
fi
if [ $rc != 0 ]; then # what the builds' record steps said
	for f in "$tmp"/cache/*.log; do
		[ -s "$f" ] && { echo "--- $(basename "$f")"; tail -25 "$f"; }
	done
fi
[ $rc = 0 ] && echo "PASS: test-gpu-tvmffi" || echo "FAIL: test-gpu-tvmffi"
exit $rc
