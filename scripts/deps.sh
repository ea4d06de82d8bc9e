#!/usr/bin/env bash
# deps.sh: install what nodus needs to build and test, from Debian's packages and PyPI.
# Idempotent: packages already present are not fetched again. Needs root (CI and the
# developer machines run as root); as another user it only reports what is missing.
set -euo pipefail

debs=(build-essential cmake pkg-config
      libjansson-dev libsqlite3-dev libssl-dev libseccomp-dev libcmocka-dev libmicrohttpd-dev
      clang python3 python3-pip python3-venv python3-pytest chromium)

missing=()
for p in "${debs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing packages: ${missing[*]} (run as root to install)" >&2
		exit 1
	fi
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The statistics oracle: scipy (and scikit-learn for Cohen's kappa) check the numbers
# nodus computes itself. They are test-only dependencies.
if ! python3 -c 'import scipy, sklearn' 2>/dev/null; then
	echo "deps.sh: installing scipy and scikit-learn for the statistics tests"
	python3 -m pip install -q scipy scikit-learn 2>/dev/null ||
		python3 -m pip install -q --break-system-packages scipy scikit-learn
fi
# torch for the python solutions' tests (t7000: suites/torch), on Debian's own interpreter,
# which the suite's target names (/usr/bin/python3, not a python3 earlier on PATH).
if ! /usr/bin/python3 -I -c 'import torch' 2>/dev/null; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: /usr/bin/python3 cannot import torch: t7000 will be skipped" \
			"(run as root to install python3-torch)" >&2
	else
		echo "deps.sh: installing python3-torch for the python solutions' tests"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -qq --no-install-recommends python3-torch ||
			{ apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-torch; }
	fi
fi
# torch's C++ headers and pybind11 for load_inline (torch.utils.cpp_extension), and ninja,
# which drives its compiles: small (about 2.4 MB of packages); without them the load_inline
# tests are skipped, saying so (docs/dependencies.md)
ext_debs=(libtorch-dev pybind11-dev ninja-build)
ext_missing=()
for p in "${ext_debs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || ext_missing+=("$p")
done
if [ ${#ext_missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing ${ext_missing[*]}: the load_inline tests will be skipped" >&2
	else
		echo "deps.sh: installing ${ext_missing[*]} for the load_inline tests"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -qq --no-install-recommends "${ext_missing[@]}" ||
			{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${ext_missing[@]}"; }
	fi
fi
# Slurm for t5300 (`nodus slurm` against a real scheduler: the test starts slurmctld, slurmd
# and munged itself, with a private configuration, and stops them); test-only. Without it
# t5300 is skipped, saying so (docs/dependencies.md)
slurm_debs=(slurmctld slurmd slurm-client munge)
slurm_missing=()
for p in "${slurm_debs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || slurm_missing+=("$p")
done
if [ ${#slurm_missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing ${slurm_missing[*]}: t5300 (Slurm) will be skipped" >&2
	else
		echo "deps.sh: installing ${slurm_missing[*]} for the Slurm test"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -qq --no-install-recommends "${slurm_missing[@]}" ||
			{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${slurm_missing[@]}"; } ||
			echo "deps.sh: could not install ${slurm_missing[*]}: t5300 will be skipped" >&2
	fi
fi
# FlashInfer-Bench's own data layer validates the dataset `nodus report --format dataset`
# writes (t4050): its pydantic models and TraceSet.from_path are the format's reference
# validator. Test-only, in a venv of its own (Debian's pydantic is 1.x; the package needs 2.x)
# that sees Debian's torch (--system-site-packages). The package itself comes without its
# dependencies: the test imports only flashinfer_bench.data, never the package's __init__,
# which needs flashinfer and tvm-ffi. Without the venv t4050 is skipped, saying so.
fib_venv=/opt/nodus-fib
fib_version=0.1.2
if ! "$fib_venv/bin/python" -c "import importlib.metadata as m, pydantic, safetensors
assert m.version('flashinfer-bench') == '$fib_version' and tuple(map(int, pydantic.VERSION.split('.')[:2])) >= (2, 7)" 2>/dev/null; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: no $fib_venv with flashinfer-bench $fib_version: t4050 will be skipped" \
			"(run as root to install it)" >&2
	else
		echo "deps.sh: installing flashinfer-bench $fib_version's data layer into $fib_venv for t4050"
		{ /usr/bin/python3 -m venv --system-site-packages "$fib_venv" &&
			"$fib_venv/bin/pip" install -q 'pydantic>=2.7' safetensors docstring-parser &&
			"$fib_venv/bin/pip" install -q --no-deps "flashinfer-bench==$fib_version"; } ||
			echo "deps.sh: installing flashinfer-bench into $fib_venv failed: t4050 will be skipped" >&2
	fi
fi
# apache-tvm-ffi, FlashInfer-Bench's tvm-ffi binding (its default for C++ and CUDA solutions,
# docs/import.md), in the same venv: t1320 and t1300 run imported tvm-ffi solutions with it on
# Debian's torch (tvm_ffi takes torch 1.13's tensors by torch.utils.dlpack, zero-copy). Test-only
# here; at run time it is the user's interpreter's package (docs/dependencies.md). Without it
# those tests print "skipped: ..." for their tvm-ffi parts.
tvm_ffi_version=0.1.15.post2
if [ -x "$fib_venv/bin/python" ] && ! "$fib_venv/bin/python" -c "import importlib.metadata as m
assert m.version('apache-tvm-ffi') == '$tvm_ffi_version'" 2>/dev/null; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: no apache-tvm-ffi $tvm_ffi_version in $fib_venv: t1320 will be skipped" \
			"(run as root to install it)" >&2
	else
		echo "deps.sh: installing apache-tvm-ffi $tvm_ffi_version into $fib_venv for t1320"
		"$fib_venv/bin/pip" install -q --no-deps "apache-tvm-ffi==$tvm_ffi_version" typing-extensions ||
			echo "deps.sh: installing apache-tvm-ffi into $fib_venv failed: t1320 will be skipped" >&2
	fi
fi
echo "deps.sh: ok"
