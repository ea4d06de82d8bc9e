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
exec "$PY" -m pytest -q -p no:cacheprovider --rootdir "$NODUS_SRC/python" "$NODUS_SRC/python/tests"
