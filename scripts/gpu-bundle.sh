#!/usr/bin/env bash
# gpu-bundle.sh: build here what bench/gpu-check.sh runs on the lent GPU machine.
#
# The GPU machine cannot install packages, so nodus is built here (same nvcc 13.0,
# sm_90) into build-gpu/, and the shared libraries it needs that the GPU machine's
# image may lack (jansson, sqlite3, libcrypto, libseccomp, cmocka) are copied into
# build-gpu/syslib. Carry build-gpu with the run; gpu-check.sh puts syslib on
# LD_LIBRARY_PATH. A compile error therefore never costs device time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh >/dev/null
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-gpu -j "$(nproc)"
mkdir -p build-gpu/syslib
for lib in libjansson.so.4 libsqlite3.so.0 libcrypto.so.3 libseccomp.so.2 libcmocka.so.0; do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { p = $NF } END { print p }')
	[ -n "$path" ] && cp -L "$path" build-gpu/syslib/
done
# object files are not needed there; keep the carried folder small
find build-gpu -name '*.o' -delete
du -sh build-gpu
