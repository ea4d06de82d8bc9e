# SPDX-License-Identifier: MIT
# Shared fixtures: the source tree (NODUS_SRC, else two levels above this folder) and the
# nodus binary (NODUS, else build/nodus of the source tree).
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package from the checkout, installed or not


@pytest.fixture(scope="session")
def nodus_src():
    return pathlib.Path(os.environ.get("NODUS_SRC") or HERE.parent.parent).resolve()


@pytest.fixture(scope="session")
def nodus_bin(nodus_src):
    b = os.environ.get("NODUS") or str(nodus_src / "build" / "nodus")
    if not os.access(b, os.X_OK):
        pytest.skip(f"no nodus binary at {b} (make builds build/nodus; or set NODUS)")
    return b
