# SPDX-License-Identifier: MIT
# The README's Python example runs, from the source root, as written.
import os
import re
import subprocess
import sys

import pytest


def test_readme_example(nodus_src, nodus_bin):
    text = (nodus_src / "README.md").read_text()
    sec = text[text.index("## From Python: rewards"):]
    code = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
    assert len(code.strip().splitlines()) == 5
    built = nodus_src / "build" / "nodus"
    if not (built.exists() and os.path.samefile(nodus_bin, built)):
        pytest.skip(f"the example names build/nodus; this run's binary is {nodus_bin}")
    env = dict(os.environ, PYTHONPATH=str(nodus_src / "python"))
    p = subprocess.run([sys.executable, "-c", code], cwd=nodus_src, env=env, capture_output=True,
                       text=True, timeout=240)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 12  # the pairs of suites/identity/cpu, isolated
    for line in lines:
        pair, cond, outcome, value = line.split()
        assert cond == "isolated"
        float(value)
        if outcome == "INCORRECT_NUMERICAL":
            assert float(value) == -1.0
