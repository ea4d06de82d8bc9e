#!/usr/bin/env bash
# gpu-bundle.sh: build here what bench/gpu-check.sh runs on the lent GPU machine.
#
# The GPU machine cannot install packages, so nodus is built here (same nvcc 13.0,
# sm_90) into build-gpu/, and the shared libraries it needs that the GPU machine's
# image may lack (jansson, sqlite3, libcrypto, libseccomp, cmocka, libmicrohttpd with
# its GnuTLS) are copied into
# build-gpu/syslib. Carry build-gpu with the run; gpu-check.sh puts syslib on
# LD_LIBRARY_PATH. A compile error therefore never costs device time.
#
# scripts/gpu-bundle.sh REV builds commit REV instead, from a temporary
# worktree, into build-gpu-base/: the "before" of `gpu-check.sh ab`, which
# runs both builds on one machine (carry build-gpu and build-gpu-base). The
# base's own suites/ come with it (build-gpu-base/suites), for
# `AB_SUITES=base gpu-check.sh ab`: both builds then run the campaign as it
# was at REV, where today's suites use fields an older nodus refuses.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
-h | --help)
	sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 0
	;;
esac
bash scripts/deps.sh >/dev/null
src=. out=build-gpu
if [ $# -ge 1 ]; then
	rev=$(git rev-parse --verify --quiet "$1^{commit}") ||
		{ echo "gpu-bundle.sh: '$1' is not a commit of this repository (expected REV, e.g. 7841e1e)" >&2; exit 2; }
	src=$(mktemp -d /tmp/nodus-base.XXXXXX)
	trap 'git worktree remove --force "$src" >/dev/null 2>&1; rm -rf "$src"' EXIT
	git worktree add --detach "$src" "$rev" >/dev/null 2>&1
	out=build-gpu-base
	echo "$rev" >"$src/.base-rev"
	# the worktree is new each time: a cache from the last one names a
	# source directory that is gone
	rm -rf "$out"
fi
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
	cmake --build "$out" -j "$(nproc)" ||
	{ echo "gpu-bundle.sh: the build of $src into $out failed" >&2; exit 1; }
if [ $# -ge 1 ]; then
	cp "$src/.base-rev" "$out/REV"
	cp -r "$src/suites" "$out/suites"
else # what the build is of, for the reports (the device's copy may have no .git)
	echo "$(git rev-parse HEAD)$(git diff --quiet HEAD -- src include CMakeLists.txt || echo -dirty)" >"$out/REV"
fi
# apache-tvm-ffi for the H200's Python 3.12 (no network there), which
# tests/gpu/test-gpu-tvmffi.sh installs when tvm_ffi is not importable:
# the version torch_ext.py and scripts/deps.sh name
tvm_ffi_version=$(sed -n "s/^TVM_FFI_VERSION = '\(.*\)'$/\1/p" "$src/include/nodus/torch_ext.py")
if [ -n "$tvm_ffi_version" ] && ! ls "$out/wheels/apache_tvm_ffi-$tvm_ffi_version-cp312-"*.whl >/dev/null 2>&1; then
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
		--platform manylinux_2_28_x86_64 -d "$out/wheels" "apache-tvm-ffi==$tvm_ffi_version" ||
		echo "gpu-bundle.sh: could not download apache-tvm-ffi $tvm_ffi_version (cp312): test-gpu-tvmffi.sh will skip without it" >&2
fi
mkdir -p "$out/syslib"
for lib in libjansson.so.4 libsqlite3.so.0 libcrypto.so.3 libseccomp.so.2 libcmocka.so.0; do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { p = $NF } END { print p }')
	[ -n "$path" ] && cp -L "$path" "$out/syslib/"
done
# libmicrohttpd (nodus serve; every nodus process loads it) and what it links
# that an image without it may lack (GnuTLS and its own libraries): not the C
# library's, and not libffi, which every image with Python has and whose
# copy there Python's ctypes must keep using
if mhd=$(ldd "$out/nodus" | awk '$1 ~ /^libmicrohttpd/ { print $3 }') && [ -n "$mhd" ]; then
	cp -L "$mhd" "$out/syslib/"
	ldd "$mhd" | awk '$3 ~ /^\// && $1 !~ /^(libc|libm|libdl|libpthread|librt|ld-linux|libffi)[.]/ { print $3 }' |
		while read -r dep; do cp -L "$dep" "$out/syslib/"; done
fi
# object files, the static core library and CMake's compiler probes are not
# needed there; keep the carried folders small (the tree, build-gpu and
# build-gpu-base together must stay under the device's 64 MiB)
find "$out" -name '*.o' -delete
find "$out" -type d -path '*/CompilerId*/tmp' -prune -exec rm -rf {} +
rm -f "$out/libnodus_core.a"
du -sh "$out"
