# SPDX-License-Identifier: MIT
"""From a nodus result to a scalar reward, under a policy that says what every outcome earns.

A policy gives a value for each label (FASTER, SLOWER, TIED, AMBIGUOUS), for an OK record
without a label (``unlabelled``: correct, but its interval was not usable) and for every failure
status. Nothing defaults to 0 behind the user's back: a ``Policy`` that leaves any of them out
is refused when it is built, with a ``PolicyError`` naming every missing key. A value is a
number, or a function of the ``Result`` that returns one (the speedup's bounds, say).

python/README.md documents the named policies in a table.
"""

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Union

from .result import FAILURES, MISSING, STATUSES, Result

Value = Union[float, int, Callable[[Result], float]]

#: The Policy fields that hold what a label earns, by label.
_LABEL_FIELDS = {"FASTER": "faster", "SLOWER": "slower", "TIED": "tied", "AMBIGUOUS": "ambiguous"}


class PolicyError(ValueError):
    """A policy that does not say what some outcome earns, or names one that does not exist."""

    def __init__(self, message: str, missing=()):
        super().__init__(message)
        self.missing = tuple(missing)


@dataclass(frozen=True)
class Policy:
    """What each outcome earns.

    ``faster``, ``slower``, ``tied``, ``ambiguous``: the value of an OK record with that label.
    ``unlabelled``: the value of an OK record without a label (its interval was not usable).
    ``failures``: status name -> value, for the failure statuses (every status but OK).
    ``failure``: the value of every failure status that ``failures`` does not name.
    Every one of them must be given, directly or (failures) through ``failure``; a status name
    in ``failures`` that nodus does not have is refused too, so a typo cannot fall through to
    ``failure``.
    """

    faster: Optional[Value] = None
    slower: Optional[Value] = None
    tied: Optional[Value] = None
    ambiguous: Optional[Value] = None
    unlabelled: Optional[Value] = None
    failures: Mapping[str, Value] = field(default_factory=dict)
    failure: Optional[Value] = None
    name: str = "custom"

    def __post_init__(self):
        unknown = sorted(k for k in self.failures if k not in FAILURES)
        if unknown:
            hint = " (OK is no failure: its value is the label's)" if "OK" in unknown else ""
            raise PolicyError(
                f"policy {self.name!r}: failures names {', '.join(map(repr, unknown))}, not a failure status "
                f"of nodus{hint}; the failure statuses are {', '.join(FAILURES)}"
            )
        missing = [f for f in ("faster", "slower", "tied", "ambiguous", "unlabelled") if getattr(self, f) is None]
        if self.failure is None:
            missing += [f"failures[{s!r}]" for s in FAILURES if s not in self.failures]
        if missing:
            hint = "; failure=... gives every failure that failures does not name" if self.failure is None else ""
            raise PolicyError(
                f"policy {self.name!r} does not say what these earn: {', '.join(missing)} "
                f"(every outcome's reward is the policy's explicit choice, never a default{hint})",
                missing,
            )
        for key, v in self._values():
            if not callable(v) and not isinstance(v, (int, float)):
                raise PolicyError(f"policy {self.name!r}: {key} is {v!r}, not a number or a function of the result")

    def _values(self):
        for f in ("faster", "slower", "tied", "ambiguous", "unlabelled", "failure"):
            if getattr(self, f) is not None:
                yield f, getattr(self, f)
        for s, v in self.failures.items():
            yield f"failures[{s!r}]", v

    def value_for(self, result: Result) -> Value:
        """The value (a number or a function) the policy gives result's outcome."""
        if result.status == MISSING:
            raise ValueError(f"pair {result.pair!r} has no final record under {result.condition!r}: no reward yet")
        if result.verdict is not None:
            raise ValueError(
                f"pair {result.pair!r} under {result.condition!r} has a binary verdict "
                f"({result.verdict}) of a judge_preset, another harness's rule with no interval: "
                f"a policy gives values for nodus's labels; reward the condition nodus judges")
        if result.status == "OK":
            return self.unlabelled if result.label is None else getattr(self, _LABEL_FIELDS[result.label])
        return self.failures.get(result.status, self.failure)

    # ---- named policies ----

    @classmethod
    def binary(cls, **overrides: Any) -> "Policy":
        """1.0 for FASTER, 0.0 for everything else: SLOWER, TIED, AMBIGUOUS, OK without a label
        and every failure (NOT_ISOLATED and INVALID_REFERENCE included). Keyword arguments
        replace any of those values."""
        kw = dict(faster=1.0, slower=0.0, tied=0.0, ambiguous=0.0, unlabelled=0.0, failure=0.0, name="binary")
        kw.update(overrides)
        return cls(**kw)

    @classmethod
    def ternary(cls, *, ambiguous: Value, failure: Optional[Value] = None,
                failures: Optional[Mapping[str, Value]] = None, **overrides: Any) -> "Policy":
        """+1 for FASTER, 0 for TIED, -1 for SLOWER; AMBIGUOUS and the failures are the caller's
        to give (``ambiguous=``, ``failure=`` and/or ``failures=``); OK without a label 0."""
        kw = dict(faster=1.0, slower=-1.0, tied=0.0, ambiguous=ambiguous, unlabelled=0.0,
                  failure=failure, failures=dict(failures or {}), name="ternary")
        kw.update(overrides)
        return cls(**kw)

    @classmethod
    def log_speedup_lower_bound(cls, *, failure: Optional[Value] = None,
                                failures: Optional[Mapping[str, Value]] = None, **overrides: Any) -> "Policy":
        """ln(lo), the log of the interval's conservative bound, for every label, AMBIGUOUS
        included: what the candidate is worth at least, at the judge's confidence. A TIED pair
        earns about 0 (slightly below), a SLOWER one a negative value. OK without a label
        (no usable interval) earns 0.0. Failures are the caller's to give."""
        kw = dict(faster=log_lower_bound, slower=log_lower_bound, tied=log_lower_bound,
                  ambiguous=log_lower_bound, unlabelled=0.0, failure=failure,
                  failures=dict(failures or {}), name="log_speedup_lower_bound")
        kw.update(overrides)
        return cls(**kw)


def log_lower_bound(result: Result) -> float:
    """ln of the speedup interval's lower bound; ValueError when the record has none."""
    lo = result.lo
    if lo is None or not (lo > 0) or math.isinf(lo):
        raise ValueError(f"pair {result.pair!r} under {result.condition!r} ({result.outcome}) "
                         f"has no positive finite lower bound (lo = {lo!r})")
    return math.log(lo)


def as_result(record: Union[Result, Mapping[str, Any]]) -> Result:
    """A Result from a Result, or from a mapping: a record of the store (``status``, ``label``,
    ``speedup``, ``ci_lo``, ``ci_hi``, ``pair_id``, ``condition``, ...), or the same with
    ``estimate``, ``lo``, ``hi``, ``pair``; or a report outcome under ``outcome``."""
    if isinstance(record, Result):
        return record
    r = dict(record)
    pair = r.get("pair", r.get("pair_id", "?"))
    cond = r.get("condition", "?")
    fields = dict(
        estimate=r.get("estimate", r.get("speedup")),
        lo=r.get("lo", r.get("ci_lo")),
        hi=r.get("hi", r.get("ci_hi")),
        message=r.get("message"),
        guard=r.get("guard") or None,
    )
    if "status" not in r and "outcome" in r:
        return Result.from_outcome(pair, cond, r["outcome"], **fields)
    if "status" not in r:
        raise ValueError(f"a record needs a status (one of {', '.join(STATUSES)}); got keys {sorted(r)}")
    return Result(pair, cond, r["status"], label=r.get("label"), verdict=r.get("verdict"), **fields)


def reward(result: Union[Result, Mapping[str, Any]], policy: Policy) -> float:
    """The scalar reward policy gives result (a Result or a record mapping: ``as_result``)."""
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a nodus.Policy, not {type(policy).__name__}")
    res = as_result(result)
    v = policy.value_for(res)
    return float(v(res) if callable(v) else v)
