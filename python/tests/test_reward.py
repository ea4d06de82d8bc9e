# SPDX-License-Identifier: MIT
# nodus.reward under the named and custom policies: every label and status, and the errors of
# a policy that leaves an outcome out.
import math
import re

import pytest

import nodus
from nodus import FAILURES, LABELS, STATUSES, Policy, PolicyError, Result, reward

INTERVALS = {"FASTER": (1.5, 1.4, 1.6), "SLOWER": (0.5, 0.45, 0.55),
             "TIED": (1.0, 0.99, 1.01), "AMBIGUOUS": (1.05, 0.98, 1.12)}


def labelled(label):
    est, lo, hi = INTERVALS[label]
    return Result("p", "isolated", "OK", label=label, estimate=est, lo=lo, hi=hi)


def failed(status):
    return Result("p", "isolated", status, message=f"{status} message")


UNLABELLED = Result("p", "isolated", "OK", label=None, estimate=float("nan"))


def every_outcome():
    return [labelled(lab) for lab in LABELS] + [UNLABELLED] + [failed(s) for s in FAILURES]


def test_binary_every_outcome():
    p = Policy.binary()
    assert [reward(r, p) for r in every_outcome()] == [1.0] + [0.0] * (3 + 1 + len(FAILURES))


def test_binary_overrides():
    p = Policy.binary(failures={"REWARD_HACK": -1.0}, ambiguous=0.25)
    assert reward(failed("REWARD_HACK"), p) == -1.0
    assert reward(failed("CRASH"), p) == 0.0
    assert reward(labelled("AMBIGUOUS"), p) == 0.25


def test_ternary_every_outcome():
    p = Policy.ternary(ambiguous=0.1, failure=-2.0, failures={"NOT_ISOLATED": math.nan})
    got = {r.outcome: reward(r, p) for r in every_outcome()}
    assert got["FASTER"] == 1.0 and got["TIED"] == 0.0 and got["SLOWER"] == -1.0
    assert got["AMBIGUOUS"] == 0.1 and got["OK"] == 0.0
    assert math.isnan(got["NOT_ISOLATED"])
    assert all(got[s] == -2.0 for s in FAILURES if s != "NOT_ISOLATED")


def test_log_speedup_lower_bound_every_outcome():
    p = Policy.log_speedup_lower_bound(failure=-3.0, failures={"REWARD_HACK": -10.0})
    for lab in LABELS:  # the conservative bound, AMBIGUOUS included
        assert reward(labelled(lab), p) == pytest.approx(math.log(INTERVALS[lab][1]))
    assert reward(labelled("FASTER"), p) > 0 > reward(labelled("SLOWER"), p)
    assert reward(UNLABELLED, p) == 0.0
    for s in FAILURES:
        assert reward(failed(s), p) == (-10.0 if s == "REWARD_HACK" else -3.0)


def test_log_lower_bound_needs_a_bound():
    p = Policy.log_speedup_lower_bound(failure=-1.0)
    with pytest.raises(ValueError, match="lower bound"):
        reward(Result("p", "c", "OK", label="FASTER", estimate=2.0), p)


def test_custom_policy_with_functions():
    p = Policy(faster=lambda r: r.estimate, slower=-1, tied=0, ambiguous=lambda r: r.hi - r.lo,
               unlabelled=0, failures={s: -len(s) for s in FAILURES}, name="mine")
    assert reward(labelled("FASTER"), p) == 1.5
    assert reward(labelled("AMBIGUOUS"), p) == pytest.approx(0.14)
    assert reward(failed("TIMEOUT"), p) == -7.0
    assert isinstance(reward(labelled("SLOWER"), p), float)


@pytest.mark.parametrize("key", ["faster", "slower", "tied", "ambiguous", "unlabelled"])
def test_custom_policy_missing_label_value(key):
    kw = dict(faster=1, slower=0, tied=0, ambiguous=0, unlabelled=0, failure=-1)
    del kw[key]
    with pytest.raises(PolicyError, match=rf"does not say what these earn: {key}\b") as e:
        Policy(**kw)
    assert e.value.missing == (key,)


@pytest.mark.parametrize("status", FAILURES)
def test_custom_policy_missing_failure(status):
    failures = {s: -1.0 for s in FAILURES if s != status}
    with pytest.raises(PolicyError, match=re.escape(f"failures['{status}']")) as e:
        Policy(faster=1, slower=0, tied=0, ambiguous=0, unlabelled=0, failures=failures)
    assert e.value.missing == (f"failures['{status}']",)


def test_named_policies_need_explicit_choices():
    with pytest.raises(PolicyError, match="NOT_ISOLATED"):
        Policy.log_speedup_lower_bound()
    with pytest.raises(TypeError, match="ambiguous"):
        Policy.ternary(failure=-1)  # a required keyword: no AMBIGUOUS value is assumed
    with pytest.raises(PolicyError, match="ambiguous"):
        Policy.ternary(ambiguous=None, failure=-1)
    with pytest.raises(PolicyError) as e:
        Policy()
    assert e.value.missing[:5] == ("faster", "slower", "tied", "ambiguous", "unlabelled")
    assert len(e.value.missing) == 5 + len(FAILURES)


def test_unknown_failure_key_is_refused():
    with pytest.raises(PolicyError, match="INCORRECT_NUMERIC'"):
        Policy.binary(failures={"INCORRECT_NUMERIC": -1})
    with pytest.raises(PolicyError, match="OK is no failure"):
        Policy.binary(failures={"OK": 1})


def test_value_must_be_a_number_or_function():
    with pytest.raises(PolicyError, match="faster is 'high'"):
        Policy.binary(faster="high")


def test_records_as_mappings():
    p = Policy.log_speedup_lower_bound(failure=-1.0)
    row = {"pair_id": "p", "condition": "isolated", "status": "OK", "label": "FASTER",
           "speedup": 2.0, "ci_lo": 1.8, "ci_hi": 2.2, "guard": ""}  # a row of the store
    assert reward(row, p) == pytest.approx(math.log(1.8))
    assert reward({"status": "OK", "label": "TIED", "estimate": 1, "lo": 0.99, "hi": 1.01}, p) == \
        pytest.approx(math.log(0.99))
    assert reward({"outcome": "SLOWER", "lo": 0.5}, p) == pytest.approx(math.log(0.5))
    assert reward({"outcome": "CRASH"}, p) == -1.0
    assert reward({"status": "REWARD_HACK", "guard": "timing"}, p) == -1.0
    with pytest.raises(ValueError, match="needs a status"):
        reward({"label": "FASTER"}, p)


def test_bad_names_and_missing():
    p = Policy.binary()
    with pytest.raises(ValueError, match="unknown status"):
        reward({"status": "BROKEN"}, p)
    with pytest.raises(ValueError, match="unknown label"):
        reward({"status": "OK", "label": "FAST"}, p)
    with pytest.raises(ValueError, match="has no label"):
        Result("p", "c", "CRASH", label="FASTER")
    with pytest.raises(ValueError, match="no final record"):
        reward(Result("p", "c", nodus.MISSING), p)
    with pytest.raises(TypeError, match="nodus.Policy"):
        reward(labelled("FASTER"), {"faster": 1})


def test_every_status_is_covered():
    assert set(FAILURES) | {"OK"} == set(STATUSES)
    p = Policy.binary()
    for s in STATUSES:
        r = labelled("TIED") if s == "OK" else failed(s)
        assert reward(r, p) in (0.0, 1.0)


def test_binary_verdicts_are_no_labels():
    """A judge_preset's verdict (another harness's rule, no interval) is read from a report
    and a record, is never a label, and earns no reward by accident."""
    doc = {"pairs": [{"id": "w/c/r", "labels": {"isolated": "TIED", "kb": "BINARY_FASTER"},
                      "speedups": {"kb": {"estimate": 1.02, "lo": None, "hi": None}}}]}
    res = {r.condition: r for r in nodus.results_from_report(doc)}
    assert res["kb"].status == "OK" and res["kb"].label is None
    assert res["kb"].verdict == "BINARY_FASTER" and res["kb"].outcome == "BINARY_FASTER"
    assert res["isolated"].label == "TIED" and res["isolated"].verdict is None
    p = Policy.binary()
    assert reward(res["isolated"], p) == 0.0
    with pytest.raises(ValueError, match="binary verdict"):
        reward(res["kb"], p)
    with pytest.raises(ValueError, match="binary verdict"):
        reward({"status": "OK", "verdict": "BINARY_NOT_FASTER"}, p)
    with pytest.raises(ValueError, match="unknown verdict"):
        Result("p", "c", "OK", verdict="FASTER")
    with pytest.raises(ValueError, match="without a label"):
        Result("p", "c", "OK", label="FASTER", verdict="BINARY_FASTER")
    assert nodus.BINARY_VERDICTS == ("BINARY_FASTER", "BINARY_NOT_FASTER")
