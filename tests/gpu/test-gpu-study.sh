#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ---------------------------------------------------------------------------
# test-gpu-study.sh: a sample of the study suite's cuda half
# (suites/study/cuda), on a GPU. Nine pairs, one or more of each kind the
# suite holds: A/A pairs short (tiny_square, 4 launches), medium-long
# (rsqrt_newton, 1000 trips in one launch) and long (scale, 300 passes over
# 16M elements); near-ties of 10% on a memory-bound and a compute-bound
# family and of 1% on the compute-bound one; the launch-bound family's
# host-synchronised candidate (a wait after every launch: SLOWER); the
# compute family's four-launch host-synchronised split (TIED); and a
# resource-profile pair (fused against unfused, EQUIVALENT). Planned and run
# under `isolated` with the campaign's judge; every record must end OK with
# its expect as label, or AMBIGUOUS (EQUIVALENT: any label).
# Usage: bash tests/gpu/test-gpu-study.sh [BUILD_DIR]   (default: build;
# BUILD_DIR/nodus and BUILD_DIR/libnodus_cuda.so). Without a GPU it prints
# "skipped: no GPU" and exits 77.
# ---------------------------------------------------------------------------
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-${NODUS_BUILD:-$SRC/build}}
case $B in /*) ;; *) B=$PWD/$B ;; esac
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skipped: no GPU"
	exit 77
fi
N=$B/nodus
[ -x "$N" ] || { echo "FAIL: no nodus in $B"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$SRC/suites" "$tmp/suites"
mkdir -p "$tmp/bin" && cp "$N" "$tmp/bin/nodus"
[ -f "$B/libnodus_cuda.so" ] && cp "$B/libnodus_cuda.so" "$tmp/bin/"
cp -r "$SRC/include" "$tmp/include"
c=$tmp/suites/study/cuda/campaign.json
python3 - "$c" <<'PY'
import json, sys
path = sys.argv[1]
c = json.load(open(path))
keep = {
    "tiny_square_w/tiny_square_t4/tiny_square_t4",
    "rsqrt_newton_w/rsqrt_newton_t1000/rsqrt_newton_t1000",
    "scale_w/scale_t300/scale_t300",
    "scale_w/scale_t100/scale_t110",
    "poly_w/poly_t100/poly_t110",
    "poly_w/poly_t100/poly_t101",
    "tiny_square_w/tiny_square_t100_sync/tiny_square_t100",
    "poly_w/poly_sync4/poly_t4000",
    "fused_relu_axpy_w/fused_relu_axpy_fused/fused_relu_axpy_unfused",
}
c["pairs"] = [p for p in c["pairs"] if f'{p["workload"]}/{p["candidate"]}/{p["reference"]}' in keep]
assert len(c["pairs"]) == len(keep), "a sample pair is missing from the campaign"
c["conditions"] = [x for x in c["conditions"] if x["name"] == "isolated"]
json.dump(c, open(path, "w"), indent=1)
PY
"$tmp/bin/nodus" plan "$c" -o "$tmp/plan.json" || { echo "FAIL: plan"; exit 1; }
"$tmp/bin/nodus" run "$tmp/plan.json" --cache "$tmp/cache" --db "$tmp/r.db" --condition isolated -q || { echo "FAIL: run exited $?"; exit 1; }
python3 - "$tmp/r.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
fails = 0
for pid, expect, status, label, guard, lo, hi in db.execute(
        "SELECT r.pair_id, p.expect, r.status, r.label, r.guard, r.ci_lo, r.ci_hi FROM records r"
        " JOIN pairs p ON p.plan_digest = r.plan_digest AND p.pair_id = r.pair_id WHERE r.final = 1"):
    outcome = label if status == "OK" else status
    ok = status == "OK" and (expect == "EQUIVALENT" or outcome in (expect, "AMBIGUOUS"))
    print(f"{'ok' if ok else 'FAIL'}: {pid} {outcome} [{lo}, {hi}] (expect {expect}{', ' + guard if guard else ''})")
    fails += not ok
sys.exit(1 if fails else 0)
PY
