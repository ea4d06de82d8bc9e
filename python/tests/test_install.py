# SPDX-License-Identifier: MIT
# The package installs with pip from the checkout (a copy of python/, so the source tree gets
# no build output), offline, and the installed copy imports with nothing but the standard
# library.
import os
import shutil
import subprocess
import sys

import pytest


def test_pip_install(nodus_src, tmp_path):
    for probe in (["-m", "pip", "--version"], ["-c", "import setuptools"]):
        if subprocess.run([sys.executable] + probe, capture_output=True).returncode:
            pytest.skip(f"{sys.executable} lacks pip or setuptools ({' '.join(probe)} failed)")
    src = tmp_path / "src"
    shutil.copytree(nodus_src / "python", src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    env = dict(os.environ, PIP_ROOT_USER_ACTION="ignore", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                        "--no-index", "--target", str(tmp_path / "site"), str(src)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    installed = sorted(f.name for f in (tmp_path / "site" / "nodus").glob("*.py"))
    assert installed == sorted(f.name for f in (nodus_src / "python" / "nodus").glob("*.py"))
    env["PYTHONPATH"] = str(tmp_path / "site")
    check = ("import sys, nodus, nodus.local\n"
             "assert nodus.__file__.startswith(sys.argv[1]), nodus.__file__\n"
             "p = nodus.Policy.binary()\n"
             "print(nodus.reward({'status': 'OK', 'label': 'FASTER'}, p))\n")
    p = subprocess.run([sys.executable, "-S", "-c", check, str(tmp_path / "site")], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=60)
    assert (p.returncode, p.stdout.strip()) == (0, "1.0"), p.stderr
