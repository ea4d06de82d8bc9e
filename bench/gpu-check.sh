#!/usr/bin/env bash
# gpu-check.sh: everything that needs a GPU, in one call on the lent H200.
#
# Build first, here:  bash scripts/gpu-bundle.sh
# Then on the device: bash bench/gpu-check.sh [quick|full]   (carry build-gpu)
#
# Steps: machine facts; GPU tests; the CUDA campaign sealed, calibrated and run
# twice from scratch into two databases (test-retest); reports; the harness
# overhead figures from the records. Logs and reports go to $OUT (at most 8
# files come back), and a short table is printed last. Never changes clocks,
# power, compute mode or MIG; any MPS daemon it starts uses a private pipe
# directory and is shut down by this script on every exit path.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/build-gpu/syslib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
N="$PWD/build-gpu/nodus"
work=$(mktemp -d /tmp/nodus-gpu.XXXXXX)
log="$OUT/gpu-check.log"
: >"$log"
summary=()

cleanup() {
	if [ -n "${MPS_PIPE:-}" ] && [ -d "$MPS_PIPE" ]; then
		echo quit | CUDA_MPS_PIPE_DIRECTORY="$MPS_PIPE" nvidia-cuda-mps-control >/dev/null 2>&1 || true
	fi
	pkill -f "$N __stress" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

step() { echo "== $*" | tee -a "$log"; }
row() { summary+=("$(printf '%-34s %s' "$1" "$2")"); }

step "machine"
{ nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.sm,clocks.max.sm,mig.mode.current,compute_mode --format=csv
  nvidia-smi --query-compute-apps=pid,name --format=csv; uname -r; nvcc --version | tail -1; } >>"$log" 2>&1
"$N" version >>"$log" 2>&1 || { echo "nodus does not run here"; ldd "$N" | tee -a "$log"; exit 1; }

step "gpu tests"
gpu_fail=0
for t in build-gpu/tests/gpu/test-gpu-*; do
	[ -x "$t" ] || continue
	if timeout 300 "$t" >>"$log" 2>&1; then row "$(basename "$t")" "passed"; else rc=$?; gpu_fail=1; row "$(basename "$t")" "FAILED ($rc)"; fi
done
for t in build-gpu/tests/test-nvml build-gpu/test-nvml; do
	[ -x "$t" ] && { timeout 120 "$t" >>"$log" 2>&1 && row "test-nvml" "passed" || row "test-nvml" "FAILED"; }
done

campaign=suites/cuda/campaign.json
step "plan $campaign"
"$N" check "$campaign" >>"$log" 2>&1 || { row "check" "FAILED"; }
"$N" plan "$campaign" -o "$work/plan.json" >>"$log" 2>&1 || { row "plan" "FAILED"; printf '%s\n' "${summary[@]}"; exit 1; }
cp "$work/plan.json" "$OUT/plan.json"

runs=2; [ "$mode" = quick ] && runs=1
for i in $(seq 1 $runs); do
	step "run $i (fresh database)"
	t0=$(date +%s.%N)
	"$N" run "$work/plan.json" --db "$work/run$i.db" --cache "$work/cache" >>"$log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	row "run $i" "exit $rc, $(echo "$t1 - $t0" | bc) s"
	"$N" report "$work/run$i.db" --format json -o "$OUT/report-run$i.json" >>"$log" 2>&1
	"$N" report "$work/run$i.db" --format text -o "$OUT/report-run$i.txt" >>"$log" 2>&1
done
if [ "$runs" = 2 ]; then
	python3 bench/retest.py "$work/run1.db" "$work/run2.db" >"$OUT/retest.txt" 2>>"$log"
	row "test-retest" "$(tail -1 "$OUT/retest.txt")"
fi
python3 bench/overhead.py "$work/run1.db" >"$OUT/overhead.txt" 2>>"$log" && row "overhead" "$(tail -1 "$OUT/overhead.txt")"

echo
echo "nodus gpu-check ($mode) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
printf '%s\n' "${summary[@]}"
exit $gpu_fail
