# SPDX-License-Identifier: MIT
"""The names a nodus record holds, and one result: a pair's final record under one condition.

STATUSES and LABELS mirror NODUS_STATUS_MAP and NODUS_LABEL_MAP in include/nodus/nodus.h, in
their order; python/tests/test_names.py parses the header and fails when they differ.
"""

from dataclasses import dataclass
from typing import Any, List, Mapping, Optional

#: Every status a record may end with (``records.status``), in the C enum's order.
STATUSES = (
    "OK",  # correct; timed and labelled
    "COMPILE_ERROR",  # a solution did not compile
    "LOAD_ERROR",  # a solution did not load or lacks its entry
    "RUNTIME_ERROR",  # a solution returned an error
    "TIMEOUT",  # the watchdog ended the worker
    "CRASH",  # the worker died from a signal or exited early
    "INCORRECT_SHAPE",  # outputs not fully written
    "INCORRECT_NUMERICAL",  # outputs outside tolerance
    "INPUT_MUTATED",  # the candidate wrote its inputs
    "REWARD_HACK",  # a guard caught an exploit
    "INVALID_REFERENCE",  # the reference failed its own checks
    "NOT_ISOLATED",  # the isolation check failed
    "OUT_OF_MEMORY",  # the worker ran out of memory
)

#: The statuses that are failures: every status but OK.
FAILURES = STATUSES[1:]

#: Failures that are no verdict on the candidate: the machine was busy (NOT_ISOLATED), the
#: reference failed its own checks (INVALID_REFERENCE). A policy still has to say what they earn.
NO_VERDICT = ("INVALID_REFERENCE", "NOT_ISOLATED")

#: The labels of an OK record (``records.label``), in the C enum's order.
LABELS = ("FASTER", "SLOWER", "TIED", "AMBIGUOUS")

#: The outcomes of an OK record under a condition with a judge_preset (``records.verdict``):
#: another harness's binary rule, with no interval. Never a label (docs/protocol.md, "Presets").
BINARY_VERDICTS = ("BINARY_FASTER", "BINARY_NOT_FASTER")

#: The outcome ``nodus report`` gives a pair-condition without a final record.
MISSING = "MISSING"


@dataclass(frozen=True)
class Result:
    """A pair's final record under one condition, as ``nodus report --format json`` gives it.

    ``status`` is one of STATUSES, or MISSING when the pair has no final record under the
    condition yet. ``label`` is one of LABELS for an OK record (None for an OK record without a
    label, whose interval was not usable, and for every failure). ``estimate``, ``lo``, ``hi``
    are the speedup (reference time / candidate time) and its interval, None when unknown.
    """

    pair: str
    condition: str
    status: str
    label: Optional[str] = None
    verdict: Optional[str] = None
    estimate: Optional[float] = None
    lo: Optional[float] = None
    hi: Optional[float] = None
    message: Optional[str] = None
    guard: Optional[str] = None
    tie_margin: Optional[float] = None
    task: Optional[str] = None
    candidate: Optional[str] = None
    reference: Optional[str] = None
    expect: Optional[str] = None
    attempt: Optional[int] = None
    attempts: Optional[int] = None

    def __post_init__(self):
        if self.status != MISSING and self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r} (expected one of {', '.join(STATUSES)} or MISSING)")
        if self.label is not None and self.label not in LABELS:
            raise ValueError(f"unknown label {self.label!r} (expected one of {', '.join(LABELS)})")
        if self.label is not None and self.status != "OK":
            raise ValueError(f"a {self.status} record has no label (got {self.label!r})")
        if self.verdict is not None and self.verdict not in BINARY_VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r} (expected one of {', '.join(BINARY_VERDICTS)})")
        if self.verdict is not None and (self.status != "OK" or self.label is not None):
            raise ValueError(f"a verdict belongs to an OK record without a label (got status "
                             f"{self.status!r}, label {self.label!r})")

    @property
    def outcome(self) -> str:
        """What ``pairs[].labels`` of the report says: the label, else the status name."""
        if self.verdict is not None:
            return self.verdict
        return self.label if self.label is not None else self.status

    @classmethod
    def from_outcome(cls, pair: str, condition: str, outcome: str, **fields: Any) -> "Result":
        """A result from a report outcome (a label, a status name or MISSING)."""
        if outcome in LABELS:
            return cls(pair, condition, "OK", label=outcome, **fields)
        if outcome in BINARY_VERDICTS:
            return cls(pair, condition, "OK", verdict=outcome, **fields)
        return cls(pair, condition, outcome, **fields)


def results_from_report(doc: Mapping[str, Any]) -> List[Result]:
    """Every (pair, condition) of a ``nodus report --format json`` document, in its order:
    pairs as the report lists them, conditions as each pair's ``labels`` lists them."""
    out = []
    for p in doc["pairs"]:
        for cond, outcome in p["labels"].items():
            sp = (p.get("speedups") or {}).get(cond) or {}
            dec = (p.get("decided_by") or {}).get(cond) or {}
            out.append(
                Result.from_outcome(
                    p["id"],
                    cond,
                    outcome,
                    estimate=sp.get("estimate"),
                    lo=sp.get("lo"),
                    hi=sp.get("hi"),
                    tie_margin=sp.get("tie_margin"),
                    message=(p.get("messages") or {}).get(cond),
                    guard=(p.get("guards") or {}).get(cond),
                    task=p.get("task"),
                    candidate=p.get("candidate"),
                    reference=p.get("reference"),
                    expect=p.get("expect"),
                    attempt=dec.get("attempt"),
                    attempts=dec.get("attempts"),
                )
            )
    return out
