# SPDX-License-Identifier: MIT
# nodus.local.evaluate on a tiny cpu campaign (the vector_poly pairs of suites/cpu, shortened
# as tests/e2e/lib/campaign.sh's small_campaign shortens it, isolation relaxed as the e2e tests
# relax it, since the test runner shares a 2-core machine with the measured pairs), checked
# against what `nodus report --format json` says of the same store; and the errors of a step
# that fails.
import json
import math
import shutil
import subprocess

import pytest

import nodus
from nodus import Policy, reward
from nodus.local import NodusCLIError, evaluate


@pytest.fixture(scope="module")
def campaign(nodus_src, tmp_path_factory):
    d = tmp_path_factory.mktemp("suites")
    shutil.copytree(nodus_src / "suites" / "cpu", d / "cpu")
    p = d / "cpu" / "campaign.json"
    c = json.loads(p.read_text())
    c["pairs"] = [x for x in c["pairs"] if x["workload"].startswith("vector_poly_")]
    c["judge"].update(min_rounds=4, max_rounds=8, look_every=2, isolation_max_busy_cores=2.5)
    p.write_text(json.dumps(c, indent=1))
    return p, len(c["pairs"]), [x["name"] for x in c["conditions"]]


def test_evaluate_matches_report(campaign, nodus_bin, tmp_path):
    path, n_pairs, conditions = campaign
    db = tmp_path / "r.db"
    results = evaluate(path, db=str(db), nodus_bin=nodus_bin, timeout=300)
    assert len(results) == n_pairs * len(conditions)
    assert all(isinstance(r, nodus.Result) for r in results)

    doc = json.loads(subprocess.run([nodus_bin, "report", str(db), "--format", "json"],
                                    check=True, capture_output=True, text=True).stdout)
    # one result per pair and condition, each field as the report has it
    want = {}
    for p in doc["pairs"]:
        for cond, outcome in p["labels"].items():
            want[(p["id"], cond)] = (outcome, p["speedups"][cond], p["messages"][cond], p["guards"][cond])
    got = {(r.pair, r.condition): r for r in results}
    assert set(got) == set(want)
    assert {c for _, c in got} == set(conditions)
    for key, (outcome, sp, message, guard) in want.items():
        r = got[key]
        assert r.outcome == outcome
        if outcome in nodus.LABELS:
            assert (r.status, r.label) == ("OK", outcome)
        else:
            assert (r.status, r.label) == (outcome, None)
        assert (r.estimate, r.lo, r.hi) == ((sp["estimate"], sp["lo"], sp["hi"]) if sp else (None, None, None))
        assert (r.message, r.guard) == (message, guard)
    assert results == nodus.results_from_report(doc)

    # every pair-condition has a final record; the wrong candidate is caught by the tolerance
    for r in results:
        assert r.status != nodus.MISSING
        if r.candidate == "vector_poly_wrong" and r.status != "NOT_ISOLATED":
            assert (r.status, r.guard) == ("INCORRECT_NUMERICAL", "tolerance")
            assert "outside atol" in r.message
        elif r.status == "OK":
            # (a percentile bootstrap interval need not hold the geometric-mean estimate)
            assert r.label in nodus.LABELS and r.estimate > 0 and 0 < r.lo <= r.hi

    # a reward for every result
    p = Policy.log_speedup_lower_bound(failure=-1.0, failures={"NOT_ISOLATED": 0.0})
    for r in results:
        v = reward(r, p)
        assert math.isfinite(v)
        assert v == (pytest.approx(math.log(r.lo)) if r.status == "OK" else (0.0 if r.status == "NOT_ISOLATED" else -1.0))

    # a second evaluate resumes the store: nothing runs again, the same results come back
    again = evaluate(path, db=str(db), nodus_bin=nodus_bin, timeout=120)
    assert again == results


def test_evaluate_without_db(campaign, nodus_bin):
    path, n_pairs, conditions = campaign
    results = evaluate(path, nodus_bin=nodus_bin, condition="isolated", timeout=300)
    assert len(results) == n_pairs * len(conditions)
    assert {r.status == nodus.MISSING for r in results if r.condition != "isolated"} <= {True}
    assert all(r.status != nodus.MISSING for r in results if r.condition == "isolated")


def test_plan_error_carries_stderr(nodus_bin, tmp_path):
    with pytest.raises(NodusCLIError) as e:
        evaluate(tmp_path / "absent.json", db=str(tmp_path / "r.db"), nodus_bin=nodus_bin)
    assert e.value.step == "plan" and e.value.returncode == 2
    assert "absent.json" in e.value.stderr and "absent.json" in str(e.value)


def test_bad_campaign_error_carries_stderr(nodus_bin, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "campaign", "format": 1, "name": 3}')
    with pytest.raises(NodusCLIError) as e:
        evaluate(bad, db=str(tmp_path / "r.db"), nodus_bin=nodus_bin)
    assert e.value.step == "plan" and e.value.returncode != 0
    assert e.value.stderr.strip() and e.value.stderr.strip() in str(e.value)


def test_report_error_carries_stderr(nodus_bin, tmp_path):
    with pytest.raises(NodusCLIError) as e:
        nodus.local.report(tmp_path / "none.db", nodus_bin=nodus_bin)
    assert e.value.step == "report" and e.value.returncode == 2 and e.value.stderr


def test_no_binary(tmp_path, monkeypatch):
    monkeypatch.delenv("NODUS", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no nodus binary"):
        evaluate(tmp_path / "c.json")
    with pytest.raises(FileNotFoundError, match="not an executable"):
        evaluate(tmp_path / "c.json", nodus_bin=str(tmp_path / "nodus"))


def test_run_error_carries_stderr(campaign, nodus_bin, tmp_path):
    path, _, _ = campaign
    with pytest.raises(NodusCLIError) as e:
        evaluate(path, db=str(tmp_path / "no-such-dir" / "r.db"), nodus_bin=nodus_bin)
    assert e.value.step == "run" and e.value.returncode == 2
    assert "no-such-dir" in e.value.stderr and e.value.cmd[1] == "run"
