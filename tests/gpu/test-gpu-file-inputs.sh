#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ---------------------------------------------------------------------------
# test-gpu-file-inputs.sh: FlashInfer-Bench workloads with safetensors and
# integer inputs on the cuda backend: tests/e2e/t1310 (the import, its bad
# files, then plan, audit, run, the dataset export and verify) with
# T1310_BACKEND=cuda and the python3 on PATH, whose torch has CUDA. A file
# input's values reach the device as they are (the candidate that hardcodes
# them is correct, the one that ignores scale is not), integer inputs are
# drawn on the device, and the export gives the values back.
# Usage: bash tests/gpu/test-gpu-file-inputs.sh [BUILD_DIR]   (default:
# build; BUILD_DIR/nodus and BUILD_DIR/libnodus_cuda.so). Without a GPU it
# prints "skipped: no GPU" and exits 77; without torch with CUDA,
# "skipped: ...".
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
# not readlink -f: a venv's python3 is a link to the base interpreter, which cannot import the venv's torch
if [ -z "$PY" ] || ! "$PY" -I -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	echo "skipped: no python3 with a CUDA torch on PATH"
	exit 77
fi
[ -x "$B/nodus" ] || { echo "FAIL: no nodus in $B"; exit 1; }
NODUS=$B/nodus NODUS_SRC=$SRC T1310_BACKEND=cuda T1310_PYTHON=$PY \
	bash "$SRC/tests/e2e/t1310-import-flashinfer-files.sh"
