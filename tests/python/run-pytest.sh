#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-pytest.sh: the Python package's pytest suite (python/tests) with Debian's
# /usr/bin/python3, the package taken from the checkout (PYTHONPATH=python/, no
# install). Without pytest: "skipped: pytest not installed" and exit 77, CTest's
# skip (scripts/deps.sh installs python3-pytest). NODUS names the binary the
# local-mode test drives.
: "${NODUS:?}" "${NODUS_SRC:?}"
PY=/usr/bin/python3
if ! "$PY" -c 'import pytest' 2>/dev/null; then
	echo "skipped: pytest not installed ($PY -m pytest; Debian's python3-pytest provides it)"
	exit 77
fi
export PYTHONPATH="$NODUS_SRC/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
# A test that skipped an assertion because the machine was too busy for it
# (test_serve.py: "machine busy") makes the whole run CTest's skip, never a
# pass, as the end-to-end tests do (tests/e2e/lib/load.sh).
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$PY" -m pytest -q -rs -p no:cacheprovider --rootdir "$NODUS_SRC/python" "$NODUS_SRC/python/tests" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" = 0 ] && grep -q "^SKIPPED.*machine busy" "$out"; then
	grep "^SKIPPED.*machine busy" "$out" | sed 's/^SKIPPED [^ ]* /skipped: /'
	exit 77
fi
exit "$rc"
