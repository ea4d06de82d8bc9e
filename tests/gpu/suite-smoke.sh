#!/bin/sh
# SPDX-License-Identifier: MIT
# ---------------------------------------------------------------------------
# suite-smoke.sh: on a GPU, builds the suites/cuda solutions and times the
# pairs whose expected label is a speed claim, printing reference time /
# candidate time per pair next to the expectation. A hand check of the
# suite's known truths, not a judge: no correctness, no intervals.
# Run from the repository root after tests/gpu/standalone.sh BUILD_DIR:
#     sh tests/gpu/suite-smoke.sh [BUILD_DIR]
# ---------------------------------------------------------------------------
B=${1:-/tmp/nodus-gpu}
NVCC=${NVCC:-nvcc}
S=suites/cuda/solutions
gcc -std=c11 -D_GNU_SOURCE -DNODUS_HAVE_CUDA=1 -Wall -Wextra -Werror -Iinclude -Isrc \
	tests/gpu/suite-time.c src/common/common.c src/backend/cuda_loader.c -ldl -lcrypto \
	-o "$B/suite-time" || exit 1
for f in $S/*/*.cu; do
	l=; case $f in *cublas*) l=-lcublas ;; esac
	$NVCC -std=c++17 -O3 -arch=sm_90 -shared -Xcompiler -fPIC -Iinclude "$f" $l \
		-o "$B/$(basename "$(dirname "$f")")_$(basename "$f" .cu).so" || exit 1
done
export NODUS_CUDA_BACKEND="$B/libnodus_cuda.so"
t() { l=$1 e=$2; shift 2; "$B/suite-time" "$B/$l.so" "$e" "$@" | cut -d' ' -f2; }
pair() { # expect workload-args candidate-lib entry reference-lib entry
	c=$(t "$3" "$4" $2) r=$(t "$5" "$6" $2)
	echo "$4 vs $6: ref/cand = $(echo "$r $c" | awk '{printf "%.2f", $1/$2}') ($r ns / $c ns), expect $1"
}
V16="n=16777216 in:16777216 in:1 out:16777216"
V4K="n=4096 in:4096 in:1 out:4096"
S128="n=134217728 in:134217728 in:1 out:134217728"
SM="rows=4096,cols=1024 in:4096x1024 out:4096x1024"
SMS="rows=256,cols=1024 in:256x1024 out:256x1024"
RMS="rows=4096,cols=1024 in:4096x1024 in:1024 out:4096x1024"
M5="m=512,n=512,k=512 in:512x512 in:512x512 out:512x512"
M4="m=4096,n=4096,k=4096 in:4096x4096 in:4096x4096 out:4096x4096"
pair SLOWER "$V16" vector_scale_one_block vector_scale_one_block vector_scale_ref vector_scale_ref
pair SLOWER "$V4K" vector_scale_two_launch vector_scale_two_launch vector_scale_ref vector_scale_ref
pair TIED "$V4K" vector_scale_ref vector_scale_ref vector_scale_ref vector_scale_ref
pair FASTER "$S128" stream_scale_float4 stream_scale_float4 stream_scale_scalar stream_scale_scalar
pair FASTER "$SM" softmax_warp softmax_warp softmax_ref softmax_ref
pair SLOWER "$SMS" softmax_three_pass_sync softmax_three_pass_sync softmax_warp softmax_warp
pair FASTER "$RMS" rmsnorm_block rmsnorm_block rmsnorm_ref rmsnorm_ref
pair FASTER "$M5" matmul_cublas matmul_cublas matmul_naive matmul_naive
pair FASTER "$M4" matmul_tiled matmul_tiled matmul_naive matmul_naive
pair FASTER "$M4" matmul_cublas matmul_cublas matmul_tiled matmul_tiled
