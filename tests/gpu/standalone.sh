#!/bin/sh
# SPDX-License-Identifier: MIT
# ---------------------------------------------------------------------------
# standalone.sh: builds and runs the GPU test without CMake or the library's
# other dependencies (jansson, sqlite3, seccomp), for a GPU machine that has
# only nvcc, gcc and libcrypto. Run from the repository root:
#     sh tests/gpu/standalone.sh [BUILD_DIR]      (default /tmp/nodus-gpu)
# Exit status is the test's: 0 passed, 1 a check failed, 77 no GPU.
# ---------------------------------------------------------------------------
set -e
B=${1:-/tmp/nodus-gpu}
NVCC=${NVCC:-nvcc}
mkdir -p "$B"
CFLAGS="-std=c11 -D_GNU_SOURCE -DNODUS_HAVE_CUDA=1 -Wall -Wextra -Wshadow -Werror -Iinclude -Isrc -fPIC"
NVFLAGS="-std=c++17 -arch=sm_90 -shared -cudart static -D_GNU_SOURCE -Iinclude -Isrc"
for f in src/common/common.c src/backend/nvml.c; do
	gcc $CFLAGS -fvisibility=hidden -c "$f" -o "$B/$(basename "$f" .c).o"
done
$NVCC $NVFLAGS -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra,-Wshadow,-Werror \
	src/backend/cuda/*.cu "$B/common.o" "$B/nvml.o" -lcrypto -o "$B/libnodus_cuda.so"
$NVCC $NVFLAGS -Xcompiler -fPIC tests/gpu/gpu_kernels.cu -o "$B/libnodus_gpu_test_kernels.so"
gcc $CFLAGS tests/gpu/test-gpu-backend.c src/common/common.c src/backend/nvml.c \
	src/backend/cuda_loader.c -ldl -lcrypto -o "$B/test-gpu-backend"
set +e
NODUS_CUDA_BACKEND="$B/libnodus_cuda.so" "$B/test-gpu-backend" "$B/libnodus_gpu_test_kernels.so"
