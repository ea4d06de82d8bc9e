# SPDX-License-Identifier: MIT
"""Local mode: evaluate a campaign with the nodus CLI, no server.

``evaluate(campaign)`` runs ``nodus plan CAMPAIGN -o PLAN``, ``nodus run PLAN --db DB --resume
-q`` and ``nodus report DB --plan DIGEST --format json``, and returns the report's results, one
per (pair, condition). A step that fails raises ``NodusCLIError`` with the command, its exit
status and its stderr.
"""

import json
import os
import shutil
import subprocess
import tempfile
from typing import List, Optional, Sequence

from .result import Result, results_from_report


class NodusCLIError(RuntimeError):
    """A nodus command that failed: ``step`` (plan, run, report), ``cmd``, ``returncode``,
    ``stderr`` (the CLI's own words) and ``stdout``."""

    def __init__(self, step: str, cmd: Sequence[str], returncode: Optional[int], stderr: str, stdout: str = ""):
        self.step, self.cmd, self.returncode, self.stderr, self.stdout = step, list(cmd), returncode, stderr, stdout
        how = "timed out" if returncode is None else f"exited {returncode}"
        detail = stderr.strip() or stdout.strip() or "(no output)"
        super().__init__(f"nodus {step} {how}: {' '.join(self.cmd)}\n{detail}")


def find_nodus(nodus_bin: Optional[str] = None) -> str:
    """The nodus binary: nodus_bin, else $NODUS, else ``nodus`` on PATH."""
    cand = nodus_bin or os.environ.get("NODUS") or shutil.which("nodus")
    if not cand:
        raise FileNotFoundError("no nodus binary: pass nodus_bin=, set $NODUS, or put nodus on PATH "
                                "(make builds build/nodus)")
    if not (os.path.isfile(cand) and os.access(cand, os.X_OK)):
        raise FileNotFoundError(f"nodus binary {cand!r} is not an executable file")
    return cand


def _call(step: str, cmd: Sequence[str], timeout: Optional[float]) -> str:
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise NodusCLIError(step, cmd, None, f"{err}\n(no result after {timeout} s)", out) from None
    if p.returncode != 0:
        raise NodusCLIError(step, cmd, p.returncode, p.stderr, p.stdout)
    return p.stdout


def report(db: str, plan_digest: Optional[str] = None, nodus_bin: Optional[str] = None,
           timeout: Optional[float] = None) -> dict:
    """``nodus report DB [--plan DIGEST] --format json``, parsed."""
    cmd = [find_nodus(nodus_bin), "report", os.fspath(db), "--format", "json"]
    if plan_digest:
        cmd += ["--plan", plan_digest]
    out = _call("report", cmd, timeout)
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        raise NodusCLIError("report", cmd, 0, f"its output is not JSON: {e}", out) from None


def evaluate(campaign_path: str, db: Optional[str] = None, nodus_bin: Optional[str] = None, *,
             plan_path: Optional[str] = None, condition: Optional[str] = None,
             cache: Optional[str] = None, timeout: Optional[float] = None) -> List[Result]:
    """Plans, runs and reports campaign_path; returns one Result per (pair, condition).

    db: the record store (kept; a store that already holds records of the same plan is resumed,
    so pair-conditions with a final record are not run again). Without db, a temporary store is
    used and removed. plan_path: where the sealed plan is written (default: a temporary file,
    removed). condition: run only that condition (the report still lists every
    condition; the others are MISSING until run). cache: compiled solutions (nodus's default:
    nodus-cache beside db). timeout: seconds per command.
    """
    nodus = find_nodus(nodus_bin)
    tmp = tempfile.TemporaryDirectory(prefix="nodus-local-") if db is None or plan_path is None else None
    try:
        if db is None:
            db = os.path.join(tmp.name, "records.db")
        if plan_path is None:
            plan_path = os.path.join(tmp.name, "plan.json")
        _call("plan", [nodus, "plan", os.fspath(campaign_path), "-o", os.fspath(plan_path)], timeout)
        with open(plan_path) as f:
            digest = json.load(f)["digest"]
        cmd = [nodus, "run", os.fspath(plan_path), "--db", os.fspath(db), "--resume", "-q"]
        if condition:
            cmd += ["--condition", condition]
        if cache:
            cmd += ["--cache", os.fspath(cache)]
        _call("run", cmd, timeout)
        return results_from_report(report(db, digest, nodus, timeout))
    finally:
        if tmp is not None:
            tmp.cleanup()
