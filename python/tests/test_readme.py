# SPDX-License-Identifier: MIT
# The README's Python example runs, from the source root, as written.
import os
import re
import subprocess
import time
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


def test_readme_serve_example(nodus_src, nodus_bin, tmp_path):
    # the service example: a real `nodus serve` on the port the example names, on a fresh store
    text = (nodus_src / "README.md").read_text()
    sec = text[text.index("## From Python: a service"):]
    code = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
    assert len(code.strip().splitlines()) == 5
    port = re.search(r"http://127\.0\.0\.1:(\d+)", code).group(1)
    built = nodus_src / "build" / "nodus"
    if not (built.exists() and os.path.samefile(nodus_bin, built)):
        pytest.skip(f"the example names build/nodus; this run's binary is {nodus_bin}")
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        srv = subprocess.Popen([nodus_bin, "serve", "--db", str(tmp_path / "serve.db"), "--campaign",
                                "suites/cpu/campaign.json", "--listen", f"127.0.0.1:{port}"],
                               cwd=nodus_src, stdout=out, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            if "listening on" in log.read_text() or srv.poll() is not None:
                break
            time.sleep(0.05)
        if srv.poll() is not None and "Address already in use" in log.read_text():
            pytest.skip(f"port {port}, which the example names, is taken on this machine")
        assert f"listening on http://127.0.0.1:{port}" in log.read_text(), log.read_text()
        env = dict(os.environ, PYTHONPATH=str(nodus_src / "python"))
        p = subprocess.run([sys.executable, "-c", code], cwd=nodus_src, env=env, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert len(lines) == 2
        for line in lines:
            sub, outcome, lo, device_s = line.split()
            # (the machine may be too busy for the isolation check: then NOT_ISOLATED, no interval)
            assert outcome in ("FASTER", "NOT_ISOLATED") and float(device_s) > 0, line
            if outcome == "FASTER":
                assert float(lo) > 1, line
    finally:
        srv.kill()
        srv.wait()
