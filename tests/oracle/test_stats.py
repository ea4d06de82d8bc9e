#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# test_stats.py: checks src/measure/stats.h against independent oracles
# (numpy, scipy, scikit-learn and plain Python re-implementations) on many
# random data sets with fixed seeds, through the stats-probe program
# (tests/oracle/stats-probe.c; path in $STATS_PROBE).
#
# Deterministic parts must agree to rounding: quantiles, median, mean and
# sample sd with numpy; the t quantile with scipy.stats.t.ppf to 1e-9
# relative (with scipy.special.betaincinv, and mpmath when installed, to
# arbitrate near p = 1/2 where t.ppf itself loses digits); the t-interval
# with scipy.stats.t.interval; Cohen's kappa with
# sklearn.metrics.cohen_kappa_score; the random generator with a Python
# xoshiro256**; the label rule and the look schedule with their definitions.
#
# Bootstrap intervals are Monte-Carlo estimates, so two correct
# implementations with different random streams differ. Each endpoint is a
# sample quantile of B replicates; its Monte-Carlo standard error is
# sqrt(a(1-a)/B) / f(q_a), where 1/f(q_a) (the sparsity) is estimated from
# the oracle's own replicate distribution as (q(a+h) - q(a-h)) / 2h. Two
# independent estimates differ by sqrt(2) times that; the tolerance is
# Z = 5 of those standard errors, plus one step of the replicate support
# near the level for discrete statistics (agreement, kappa). With B = 20000
# a correct implementation fails a comparison with probability about 1e-6.
#
# The test must be able to fail: a self-check feeds deliberately wrong
# values (perturbed quantiles, a one-level and a pooled bootstrap instead of
# the two-level one, a shifted kappa) through the same comparisons and
# counts a pass only when they are flagged.
#
# Exit status 0 when every check passes, 1 otherwise, 77 when scipy (or
# numpy, scikit-learn) is missing. Last line: "N passed, N failed".
# ------------------------------------------------------------------------
import json
import math
import os
import subprocess
import sys
import time

try:
    import numpy as np
    import scipy.stats
except ImportError:
    print("skipped: scipy not installed")
    sys.exit(77)
try:
    from sklearn.metrics import cohen_kappa_score
except ImportError:
    print("skipped: scikit-learn not installed")
    sys.exit(77)

Z = 5.0            # standard errors allowed between two bootstrap estimates
B = 20000          # bootstrap replicates on both sides of every comparison
T_RTOL = 1e-9      # t quantile and t-interval, relative
EXACT_RTOL = 1e-12  # quantile, mean, sd, kappa, relative (plus a tiny absolute)


class Tally:
    """Counts checks; prints each failure with both values."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.quiet = False

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            if not self.quiet:
                print("FAIL:", what)
        return ok


T = Tally()


def probe(requests):
    """Runs the probe on a list of requests and returns the decoded results."""
    exe = os.environ.get("STATS_PROBE")
    if not exe:
        print("error: STATS_PROBE is not set (run through ctest)")
        sys.exit(1)
    out = subprocess.run([exe], input=json.dumps(requests).encode(), capture_output=True,
                         check=True)
    return [decode(r) for r in json.loads(out.stdout)]


def decode(v):
    if isinstance(v, dict):
        return {k: decode(x) for k, x in v.items()}
    if v is None:
        return math.nan
    if v == "inf":
        return math.inf
    if v == "-inf":
        return -math.inf
    return v


def close(a, b, rtol, atol=0.0):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def datasets(rng, count):
    """Random data of varied size and shape: normal, heavy-tailed, tied,
    all-equal, tiny spread on a large mean (timings)."""
    out = []
    for i in range(count):
        n = int(rng.integers(1, 300)) if i % 7 else int(rng.integers(1, 4))
        kind = i % 5
        if kind == 0:
            x = rng.normal(rng.normal(0, 10), rng.uniform(0.01, 5), n)
        elif kind == 1:
            x = rng.standard_t(2, n) * 3
        elif kind == 2:
            x = rng.integers(-3, 4, n).astype(float)
        elif kind == 3:
            x = np.full(n, rng.normal())
        else:
            x = 1e6 + rng.normal(0, 1e-3, n)
        out.append(x)
    return out


# ---- descriptive statistics vs numpy ----

def test_descriptive():
    rng = np.random.default_rng(101)
    reqs, want = [], []
    for x in datasets(rng, 300):
        xs = x.tolist()
        for q in [0.0, 1.0, 0.5, float(rng.uniform()), float(rng.uniform()), 0.025, 0.975]:
            reqs.append({"fn": "quantile", "x": xs, "q": q})
            want.append(("quantile q=%g n=%d" % (q, len(x)), float(np.quantile(x, q))))
        reqs.append({"fn": "median", "x": xs})
        want.append(("median n=%d" % len(x), float(np.median(x))))
        reqs.append({"fn": "mean", "x": xs})
        want.append(("mean n=%d" % len(x), float(np.mean(x))))
        reqs.append({"fn": "stddev", "x": xs})
        sd = float(np.std(x, ddof=1)) if len(x) >= 2 else 0.0  # stats.h: 0 if n < 2
        want.append(("stddev n=%d" % len(x), sd))
    got = probe(reqs)
    for (what, w), g in zip(want, got):
        scale = 1e-15 * max(1.0, abs(w))
        T.check(close(g["value"], w, EXACT_RTOL, scale), "%s: nodus %r, numpy %r" %
                (what, g["value"], w))
    # Invalid inputs give NaN rather than a number.
    bad = probe([{"fn": "quantile", "x": [], "q": 0.5}, {"fn": "quantile", "x": [1.0], "q": 1.5},
                 {"fn": "mean", "x": []}])
    T.check(all(math.isnan(r["value"]) for r in bad), "quantile/mean of invalid input: %r" % bad)


# ---- Student's t ----

def t_quantile_by_betaincinv(p, df):
    """Second scipy route to the t quantile, through the inverse incomplete
    beta function: P(|T| <= t) = I_y(1/2, df/2) with y = t^2/(df+t^2), and
    P(T > t) = I_x(df/2, 1/2)/2 with x = 1-y. The central form is
    well-conditioned near p = 1/2, where scipy.stats.t.ppf loses digits
    (about 1e-8 relative at p = 0.5 + 1e-9; 0 instead of 2.7e-9 for df 4)."""
    from scipy.special import betaincinv
    up = np.abs(p - 0.5) + 0.5
    central = up <= 0.75
    with np.errstate(divide="ignore", invalid="ignore"):
        y = betaincinv(0.5, df / 2, 2 * (up - 0.5))
        x = betaincinv(df / 2, 0.5, 2 * (1 - up))
        t = np.where(central, np.sqrt(df * y / (1 - y)), np.sqrt(df * (1 - x) / x))
    return np.where(p < 0.5, -t, t)


def check_with_mpmath(cases):
    """Where scipy's two routes disagree, a 40-digit mpmath solve (when
    mpmath is installed) confirms the value nodus returned."""
    try:
        import mpmath
    except ImportError:
        return
    mpmath.mp.dps = 40
    for p, df, v in cases:
        def cdf_minus_p(t):
            x = df / (df + t * t)
            tail = mpmath.betainc(mpmath.mpf(df) / 2, 0.5, 0, x, regularized=True) / 2
            return (1 - tail if t > 0 else tail) - mpmath.mpf(p)
        exact = mpmath.findroot(cdf_minus_p, mpmath.mpf(v))
        T.check(abs((v - exact) / exact) <= 1e-12, "t_quantile(p=%r, df=%r): nodus %r, mpmath %s" %
                (p, df, v, mpmath.nstr(exact, 20)))


def test_t_quantile():
    rng = np.random.default_rng(202)
    ps = np.concatenate([np.linspace(0.5001, 0.9998, 25), 1 - 10 ** -rng.uniform(0.31, 4, 15),
                         [0.500000001, 0.51, 0.75, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9999 - 1e-12]])
    cases = [(float(p), float(df)) for df in range(1, 1001) for p in ps]
    cases += [(float(rng.uniform(0.5, 0.9999)), float(rng.uniform(0.2, 1000)))
              for _ in range(3000)]
    cases += [(1 - p, df) for p, df in cases[::7]]            # lower half by symmetry
    got = probe([{"fn": "t_quantile", "p": p, "df": df} for p, df in cases])
    ps_, dfs = np.array([p for p, _ in cases]), np.array([df for _, df in cases])
    want = scipy.stats.t.ppf(ps_, dfs)
    route = t_quantile_by_betaincinv(ps_, dfs)
    worst, arbitrated = 0.0, []
    for (p, df), g, w, r in zip(cases, got, want, route):
        v = g["value"]
        err = abs(v - r) / abs(r)
        worst = max(worst, err)
        ok = err <= T_RTOL
        if abs(w - r) <= T_RTOL * abs(r):
            ok = ok and abs(v - w) <= T_RTOL * abs(w)
        else:
            arbitrated.append((p, df, v))
        T.check(ok, "t_quantile(p=%r, df=%r): nodus %r, t.ppf %r, betaincinv %r" %
                (p, df, v, w, r))
    print("t quantile: %d cases, max relative error %.2e; %d cases near p = 1/2 where "
          "scipy.stats.t.ppf itself is off by more than %g and the betaincinv route decides" %
          (len(cases), worst, len(arbitrated), T_RTOL))
    check_with_mpmath(arbitrated[:20])
    edge = probe([{"fn": "t_quantile", "p": 0.5, "df": 3}, {"fn": "t_quantile", "p": 1.0, "df": 3},
                  {"fn": "t_quantile", "p": 0.0, "df": 3}, {"fn": "t_quantile", "p": 0.9, "df": 0}])
    T.check([r["value"] for r in edge[:3]] == [0.0, math.inf, -math.inf] and
            math.isnan(edge[3]["value"]), "t_quantile edges: %r" % edge)


def test_t_interval():
    rng = np.random.default_rng(303)
    reqs, want = [], []
    for i in range(400):
        n = int(rng.integers(2, 120)) if i % 5 else 2
        x = rng.normal(rng.normal(0, 3), rng.uniform(0.001, 4), n)
        if i % 11 == 0:
            x = np.full(n, 0.25)
        conf = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.99986]))
        reqs.append({"fn": "t_interval", "x": x.tolist(), "conf": conf})
        sem = scipy.stats.sem(x)
        lo, hi = (scipy.stats.t.interval(conf, n - 1, loc=np.mean(x), scale=sem)
                  if sem > 0 else (np.mean(x), np.mean(x)))
        want.append((n, conf, float(np.mean(x)), float(lo), float(hi)))
    for g, (n, conf, m, lo, hi) in zip(probe(reqs), want):
        scale = max(abs(lo), abs(hi), hi - lo) * T_RTOL + 1e-15
        ok = (g["rc"] == 0 and abs(g["lo"] - lo) <= scale and abs(g["hi"] - hi) <= scale and
              close(g["estimate"], m, EXACT_RTOL, 1e-15))
        T.check(ok, "t_interval n=%d conf=%g: nodus %r, scipy (%r, %r, %r)" %
                (n, conf, g, m, lo, hi))
    bad = probe([{"fn": "t_interval", "x": [1.0], "conf": 0.95},
                 {"fn": "t_interval", "x": [1.0, 2.0], "conf": 1.0}])
    T.check(all(r["rc"] == -1 for r in bad), "t_interval invalid input: %r" % bad)


# ---- bootstrap helpers ----

def mc_tolerance(dist, level, z=Z):
    """Allowed difference between two independent B-replicate percentile
    estimates at level, from the sparsity of the replicate distribution dist,
    plus one support step near the level (zero for continuous statistics)."""
    h = min(0.01, level / 2, (1 - level) / 2)    # never reach the extreme replicates
    lo_l, hi_l = level - h, level + h
    sparsity = (np.quantile(dist, hi_l) - np.quantile(dist, lo_l)) / (hi_l - lo_l)
    se = math.sqrt(level * (1 - level) / len(dist)) * sparsity
    window = np.unique(dist[(dist >= np.quantile(dist, lo_l)) & (dist <= np.quantile(dist, hi_l))])
    step = float(np.max(np.diff(window))) if len(window) > 1 else 0.0
    return z * math.sqrt(2.0) * se + step


def compare_interval(what, lo, hi, ref_lo, ref_hi, dist, conf):
    """True when (lo, hi) agrees with (ref_lo, ref_hi) within Monte-Carlo error."""
    a = (1 - conf) / 2
    tol_lo, tol_hi = mc_tolerance(dist, a), mc_tolerance(dist, 1 - a)
    ok = abs(lo - ref_lo) <= tol_lo and abs(hi - ref_hi) <= tol_hi
    return T.check(ok, "%s: nodus (%.6g, %.6g), oracle (%.6g, %.6g), tolerance (%.2g, %.2g)" %
                   (what, lo, hi, ref_lo, ref_hi, tol_lo, tol_hi))


def bootstrap_request(rounds, conf, seed, resamples=B):
    return {"fn": "speedup_bootstrap", "rounds": [list(map(float, r)) for r in rounds],
            "conf": conf, "resamples": resamples, "seed": seed}


def two_level_numpy(rounds, rng, b=B):
    """Independent numpy version of the two-level scheme: replicate means of
    log-ratios (rounds with replacement, then samples within each)."""
    r_count = len(rounds)
    m = np.array([len(r) for r in rounds])
    pad = np.zeros((r_count, m.max()))
    for i, r in enumerate(rounds):
        pad[i, :len(r)] = r
    out = np.empty(b)
    for start in range(0, b, 2000):
        nb = min(2000, b - start)
        pick = rng.integers(0, r_count, (nb, r_count))
        msel = m[pick]
        inner = np.floor(rng.random((nb, r_count, m.max())) * msel[..., None]).astype(int)
        vals = pad[pick[..., None], inner]
        mask = np.arange(m.max()) < msel[..., None]
        out[start:start + nb] = ((vals * mask).sum(axis=2) / msel).mean(axis=1)
    return out


def one_level_numpy(rounds, rng, b=B):
    """Wrong on purpose: resamples round means only."""
    means = np.array([np.mean(r) for r in rounds])
    return means[rng.integers(0, len(means), (b, len(means)))].mean(axis=1)


def pooled_numpy(rounds, rng, b=B):
    """Wrong on purpose: treats every sample as independent."""
    flat = np.concatenate([np.asarray(r, float) for r in rounds])
    out = np.empty(b)
    for start in range(0, b, 2000):
        nb = min(2000, b - start)
        out[start:start + nb] = flat[rng.integers(0, len(flat), (nb, len(flat)))].mean(axis=1)
    return out


# ---- bootstrap vs scipy (one sample per round) ----

def test_bootstrap_vs_scipy():
    rng = np.random.default_rng(404)
    cases = []
    for i, (r_count, conf) in enumerate([(8, 0.95), (10, 0.95), (10, 0.9), (20, 0.99), (40, 0.95),
                                         (40, 0.9929), (100, 0.95), (15, 0.8), (30, 0.95),
                                         (60, 0.99), (12, 0.95), (25, 0.9)]):
        if i % 3 == 0:
            x = rng.normal(rng.normal(0, 0.2), rng.uniform(0.005, 0.3), r_count)
        elif i % 3 == 1:
            x = rng.gamma(2.0, 0.05, r_count) - 0.1          # skewed log-ratios
        else:
            x = rng.standard_t(3, r_count) * 0.05
        cases.append((x, conf))
    got = probe([bootstrap_request([[v] for v in x], conf, 1000 + i)
                 for i, (x, conf) in enumerate(cases)])
    for i, ((x, conf), g) in enumerate(zip(cases, got)):
        res = scipy.stats.bootstrap((x,), np.mean, n_resamples=B, method="percentile",
                                    confidence_level=conf, rng=np.random.default_rng(5000 + i))
        ci = res.confidence_interval
        what = "bootstrap vs scipy R=%d conf=%g" % (len(x), conf)
        T.check(g["rc"] == 0 and close(math.log(g["estimate"]), float(np.mean(x)), 1e-12, 1e-15),
                "%s: estimate %r, mean %r" % (what, g.get("estimate"), np.mean(x)))
        compare_interval(what, math.log(g["lo"]), math.log(g["hi"]), ci.low, ci.high,
                         res.bootstrap_distribution, conf)


# ---- two-level bootstrap vs numpy ----

def round_sets(rng):
    sets = []
    specs = [(5, 3, 0.05, 0.05), (10, 3, 0.02, 0.1), (40, 10, 0.03, 0.03), (40, 3, 0.01, 0.2),
             (20, 1, 0.05, 0.0), (12, 0, 0.05, 0.08), (30, 0, 0.1, 0.02), (10, 2, 0.0, 0.1)]
    for r_count, m, between, within in specs:
        mu = rng.normal(0, 0.1)
        rounds = []
        for _ in range(r_count):
            size = m if m > 0 else int(rng.integers(1, 8))   # 0 = ragged rounds
            centre = mu + rng.normal(0, between)
            rounds.append((centre + rng.normal(0, within, size)).tolist())
        sets.append(rounds)
    return sets


def test_two_level():
    rng = np.random.default_rng(505)
    sets = round_sets(rng)
    confs = [0.95, 0.9, 0.95, 0.99, 0.95, 0.95, 0.9, 0.95]
    got = probe([bootstrap_request(s, c, 77 + i) for i, (s, c) in enumerate(zip(sets, confs))])
    for i, (rounds, conf, g) in enumerate(zip(sets, confs, got)):
        dist = two_level_numpy(rounds, np.random.default_rng(9000 + i))
        a = (1 - conf) / 2
        what = "two-level bootstrap R=%d sizes=%s conf=%g" % (
            len(rounds), sorted({len(r) for r in rounds}), conf)
        est = float(np.mean([np.mean(r) for r in rounds]))
        T.check(g["rc"] == 0 and close(math.log(g["estimate"]), est, 1e-12, 1e-15),
                "%s: estimate %r, oracle %r" % (what, g.get("estimate"), math.exp(est)))
        compare_interval(what, math.log(g["lo"]), math.log(g["hi"]), np.quantile(dist, a),
                         np.quantile(dist, 1 - a), dist, conf)
    bad = probe([bootstrap_request([[0.1, 0.2]], 0.95, 1), bootstrap_request([[0.1], []], 0.95, 1),
                 bootstrap_request([[0.1], [0.2]], 0.95, 1, resamples=0)])
    T.check(all(r["rc"] == -1 for r in bad), "bootstrap invalid input: %r" % bad)
    same = probe([bootstrap_request(sets[2], 0.95, 3), bootstrap_request(sets[2], 0.95, 3),
                  bootstrap_request(sets[2], 0.95, 4)])
    T.check(same[0] == same[1] and same[0] != same[2],
            "bootstrap: same seed must give the same interval, another seed another: %r" % same)


# ---- kappa and agreement vs scikit-learn ----

def label_sets(rng, count):
    out = []
    for i in range(count):
        n = int(rng.integers(1, 250))
        k = int(rng.integers(2, 7))
        a = rng.integers(0, k, n)
        keep = rng.random(n) < rng.uniform(0, 1)
        b = np.where(keep, a, rng.integers(0, k, n))
        if i % 13 == 0:
            a = np.full(n, int(rng.integers(0, k)))       # one rater uses one category
        out.append((a, b, k))
    return out


def test_kappa():
    rng = np.random.default_rng(606)
    sets = label_sets(rng, 400)
    reqs = []
    for a, b, k in sets:
        reqs.append({"fn": "cohen_kappa", "a": a.tolist(), "b": b.tolist(), "k": k})
        reqs.append({"fn": "agreement", "a": a.tolist(), "b": b.tolist()})
    got = probe(reqs)
    for j, (a, b, k) in enumerate(sets):
        kappa, agree = got[2 * j]["value"], got[2 * j + 1]["value"]
        T.check(agree == float(np.mean(a == b)), "agreement: nodus %r, numpy %r" %
                (agree, np.mean(a == b)))
        if len(set(a.tolist()) | set(b.tolist())) == 1:
            # sklearn gives NaN (0/0); stats.h reports kappa 1 here.
            T.check(kappa == 1.0, "kappa of one common category: nodus %r, want 1" % kappa)
            continue
        want = cohen_kappa_score(a, b)
        T.check(close(kappa, want, EXACT_RTOL, 1e-15), "kappa n=%d k=%d: nodus %r, sklearn %r" %
                (len(a), k, kappa, want))
    bad = probe([{"fn": "cohen_kappa", "a": [], "b": [], "k": 2},
                 {"fn": "cohen_kappa", "a": [0, 2], "b": [0, 1], "k": 2},
                 {"fn": "agreement", "a": [], "b": []}])
    T.check(all(math.isnan(r["value"]) for r in bad), "kappa/agreement undefined: %r" % bad)


def cluster_counts(a, b, cluster, k, c_count):
    """Per cluster: items, agreeing items, counts of a, counts of b."""
    rows = np.zeros((c_count, 2 + 2 * k), dtype=np.int64)
    np.add.at(rows[:, 0], cluster, 1)
    np.add.at(rows[:, 1], cluster, (a == b).astype(np.int64))
    np.add.at(rows, (cluster, 2 + a), 1)
    np.add.at(rows, (cluster, 2 + k + b), 1)
    return rows


def kappa_from_counts(tot, k):
    n, agree = tot[..., 0].astype(float), tot[..., 1].astype(float)
    chance = (tot[..., 2:2 + k] * tot[..., 2 + k:]).sum(axis=-1).astype(float)
    den = n * n - chance
    with np.errstate(invalid="ignore", divide="ignore"):
        return agree / n, np.where(den == 0, 1.0, (n * agree - chance) / np.where(den == 0, 1, den))


def agreement_numpy(rows, k, rng, b=B):
    """Independent numpy version of the cluster bootstrap."""
    agree, kappa = np.empty(b), np.empty(b)
    for start in range(0, b, 1000):
        nb = min(1000, b - start)
        tot = rows[rng.integers(0, len(rows), (nb, len(rows)))].sum(axis=1)
        agree[start:start + nb], kappa[start:start + nb] = kappa_from_counts(tot, k)
    return agree, kappa


def test_agreement_bootstrap():
    rng = np.random.default_rng(707)
    cases = []
    for i, (c_count, k, conf) in enumerate([(5, 4, 0.95), (20, 4, 0.95), (50, 5, 0.9),
                                            (12, 3, 0.99), (30, 6, 0.95), (8, 2, 0.9)]):
        sizes = rng.integers(1, 11, c_count)
        cluster = np.repeat(np.arange(c_count), sizes)
        n = len(cluster)
        skill = rng.uniform(0.3, 0.95, c_count)[cluster]   # agreement varies by task
        a = rng.integers(0, k, n)
        b = np.where(rng.random(n) < skill, a, rng.integers(0, k, n))
        cases.append((a, b, cluster, k, c_count, conf))
    reqs = [{"fn": "agreement_bootstrap", "a": a.tolist(), "b": b.tolist(),
             "cluster": cl.tolist(), "k": k, "n_clusters": c, "conf": conf, "resamples": B,
             "seed": 31 + i} for i, (a, b, cl, k, c, conf) in enumerate(cases)]
    for i, ((a, b, cl, k, c, conf), g) in enumerate(zip(cases, probe(reqs))):
        rows = cluster_counts(a, b, cl, k, c)
        d_agree, d_kappa = agreement_numpy(rows, k, np.random.default_rng(600 + i))
        al = (1 - conf) / 2
        what = "agreement bootstrap clusters=%d n=%d k=%d" % (c, len(a), k)
        T.check(g["rc"] == 0 and g["agreement"]["estimate"] == float(np.mean(a == b)) and
                close(g["kappa"]["estimate"], cohen_kappa_score(a, b), EXACT_RTOL, 1e-15),
                "%s: estimates %r" % (what, g))
        compare_interval(what + " (agreement)", g["agreement"]["lo"], g["agreement"]["hi"],
                         np.quantile(d_agree, al), np.quantile(d_agree, 1 - al), d_agree, conf)
        compare_interval(what + " (kappa)", g["kappa"]["lo"], g["kappa"]["hi"],
                         np.quantile(d_kappa, al), np.quantile(d_kappa, 1 - al), d_kappa, conf)
    bad = probe([{"fn": "agreement_bootstrap", "a": [0, 1], "b": [0, 1], "cluster": [0, 2],
                  "k": 2, "n_clusters": 3, "conf": 0.95, "resamples": 100, "seed": 1}])
    T.check(bad[0]["rc"] == -1, "agreement bootstrap with an empty cluster: %r" % bad)


# ---- looks and labels ----

def test_looks_and_labels():
    reqs, want = [], []
    for conf in [0.5, 0.9, 0.95, 0.99]:
        for k in [1, 2, 7, 8, 31]:
            reqs.append({"fn": "look_confidence", "conf": conf, "max_looks": k})
            want.append(("look_confidence(%g, %d)" % (conf, k), 1 - (1 - conf) / k))
    for lo in [2, 3, 10]:
        for hi in [lo, lo + 1, 40, 42]:
            for every in [1, 4, 5, 100]:
                looks = sorted(set(range(lo, hi + 1, every)) | {hi})
                reqs.append({"fn": "look_count", "min_rounds": lo, "max_rounds": hi,
                             "look_every": every})
                want.append(("look_count(%d, %d, %d)" % (lo, hi, every), len(looks)))
                for r in range(0, hi + 3):
                    reqs.append({"fn": "is_look", "rounds_done": r, "min_rounds": lo,
                                 "max_rounds": hi, "look_every": every})
                    want.append(("is_look(%d; %d, %d, %d)" % (r, lo, hi, every), int(r in looks)))
    for (what, w), g in zip(want, probe(reqs)):
        T.check(close(g["value"], w, 1e-15), "%s: nodus %r, want %r" % (what, g["value"], w))
    bad = probe([{"fn": "look_confidence", "conf": 0.95, "max_looks": 0},
                 {"fn": "look_count", "min_rounds": 1, "max_rounds": 40, "look_every": 5}])
    T.check(math.isnan(bad[0]["value"]) and bad[1]["value"] == -1, "invalid looks: %r" % bad)

    rng = np.random.default_rng(808)
    reqs, want = [], []
    for delta in [0.0, 0.01, 0.05, 0.1]:
        up, down = 1.0 + delta, 1.0 / (1.0 + delta)
        points = [down, up, 1.0, math.nextafter(up, 2), math.nextafter(up, 0),
                  math.nextafter(down, 2), math.nextafter(down, 0), 0.5, 2.0]
        points += rng.uniform(0.8, 1.25, 30).tolist()
        for lo in points:
            for hi in points:
                if lo > hi:
                    continue
                reqs.append({"fn": "label", "lo": lo, "hi": hi, "delta": delta})
                if lo >= down and hi <= up:
                    lab = "TIED"
                elif lo > up:
                    lab = "FASTER"
                elif hi < down:
                    lab = "SLOWER"
                else:
                    lab = "AMBIGUOUS"
                want.append(("label([%r, %r], %g)" % (lo, hi, delta), lab))
    for (what, w), g in zip(want, probe(reqs)):
        T.check(g["label"] == w, "%s: nodus %s, rule %s" % (what, g["label"], w))


# ---- the between-process term vs scipy's normal ----

def test_normal_and_widen():
    ps = [1e-300, 1e-20, 1e-9, 1e-5, 0.001, 0.02425, 0.025, 0.1, 0.3, 0.5, 0.7, 0.975,
          0.97575, 0.999, 1 - 1e-9, 1 - 1e-15]
    ps += np.random.default_rng(51).uniform(0, 1, 200).tolist()
    got = probe([{"fn": "normal_quantile", "p": p} for p in ps])
    for p, g in zip(ps, got):
        w = scipy.stats.norm.ppf(p)
        # relative 1e-13; near 1 the digits 1-p has left bound it instead
        tol = 1e-13 if p < 0.999 else 1e-9
        T.check(close(g["value"], w, tol), "normal_quantile(%r): nodus %r, scipy %r" % (p, g["value"], w))
    edge = probe([{"fn": "normal_quantile", "p": p} for p in (0.0, 1.0, 0.5)])
    T.check(edge[0]["value"] == -math.inf and edge[1]["value"] == math.inf and edge[2]["value"] == 0,
            "normal_quantile edges: %r" % edge)
    rng = np.random.default_rng(52)
    reqs, want = [], []
    for _ in range(300):
        est = math.exp(rng.normal(0, 0.3))
        lo, hi = est * math.exp(-rng.uniform(0, 0.2)), est * math.exp(rng.uniform(0, 0.2))
        if rng.uniform() < 0.2:  # an estimate beyond its bootstrap interval, either side
            lo, hi = (lo * 1.3, hi * 1.4) if rng.uniform() < 0.5 else (lo / 1.4, hi / 1.3)
        sd, conf = rng.choice([0.0, 0.005, 0.03, 0.2]), rng.choice([0.95, 0.99, 0.9928571])
        reqs.append({"fn": "widen_for_processes", "estimate": est, "lo": lo, "hi": hi,
                     "sd": sd, "conf": conf})
        z = scipy.stats.norm.ppf(0.5 + conf / 2) * sd
        m = math.log(est)
        want.append((est, math.exp(m - math.hypot(max(0.0, m - math.log(lo)), z)),
                     math.exp(m + math.hypot(max(0.0, math.log(hi) - m), z))))
    for r, w, g in zip(reqs, want, probe(reqs)):
        T.check(g["rc"] == 0 and all(close(g[k], v, 1e-12) for k, v in zip(("estimate", "lo", "hi"), w)),
                "widen_for_processes(%r): nodus %r, want %r" % (r, g, w))
        # the widened interval holds the whole input interval
        T.check(g.get("lo", 0) <= r["lo"] * (1 + 1e-12) and g.get("hi", 0) >= r["hi"] * (1 - 1e-12),
                "widen_for_processes(%r) lost part of its input: %r" % (r, g))
    # sd 0 is the interval itself; bad arguments are refused
    same = probe([{"fn": "widen_for_processes", "estimate": 1.1, "lo": 1.05, "hi": 1.2, "sd": 0, "conf": 0.95}])[0]
    T.check((same["lo"], same["hi"]) == (1.05, 1.2), "sd 0 moved the interval: %r" % same)
    bad = probe([{"fn": "widen_for_processes", "estimate": 1.0, "lo": 0.9, "hi": 1.1, "sd": -0.1, "conf": 0.95},
                 {"fn": "widen_for_processes", "estimate": 1.0, "lo": 0.9, "hi": 1.1, "sd": 0.1, "conf": 1.0},
                 {"fn": "widen_for_processes", "estimate": 1.0, "lo": 1.1, "hi": 1.05, "sd": 0.1, "conf": 0.95},
                 {"fn": "widen_for_processes", "estimate": 1.0, "lo": 0.0, "hi": 1.1, "sd": 0.1, "conf": 0.95}])
    T.check(all(b.get("rc") == -1 for b in bad), "invalid widen arguments accepted: %r" % bad)


# ---- random generator vs Python ----

M64 = (1 << 64) - 1


def py_rng(seed):
    s, x = [], seed
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        s.append(z ^ (z >> 31))

    def rotl(v, k):
        return ((v << k) | (v >> (64 - k))) & M64

    def nxt():
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result
    return nxt


def test_rng():
    seeds = [0, 1, 12345, M64]
    got = probe([{"fn": "rng", "seed": str(s), "count": 1000} for s in seeds])
    for seed, g in zip(seeds, got):
        nxt = py_rng(seed)
        want = [str(nxt()) for _ in range(1000)]
        T.check(g["values"] == want, "rng seed %d differs from xoshiro256** in Python" % seed)
    # nodus_rng_below: uniform over [0, n) (chi-square) and free of the two
    # classic biases for n = 3 * 2^62: plain modulo doubles [0, 2^62), an
    # unrejected multiply-shift doubles the values = 2 mod 3.
    small = probe([{"fn": "rng", "seed": "9", "count": 70000, "below": "7"}])[0]["values"]
    counts = np.bincount(np.array(small, dtype=np.int64), minlength=7)
    p = scipy.stats.chisquare(counts).pvalue
    T.check(len(counts) == 7 and p > 1e-4, "rng_below(7) counts %r, chi-square p %g" %
            (counts.tolist(), p))
    big = [int(v) for v in probe([{"fn": "rng", "seed": "10", "count": 30000,
                                   "below": str(3 << 62)}])[0]["values"]]
    low = np.mean([v < (1 << 62) for v in big])
    mod = np.mean([v % 3 == 2 for v in big])
    T.check(max(big) < (3 << 62) and abs(low - 1 / 3) < 0.02 and abs(mod - 1 / 3) < 0.02,
            "rng_below(3*2^62): P(v < 2^62) = %.4f, P(v = 2 mod 3) = %.4f, want 1/3" % (low, mod))


# ---- self-check: the comparisons flag wrong values ----

def self_check():
    """Every comparison above must reject a wrong implementation; a flag
    counts as a pass here, silence as a failure."""
    flagged = Tally()
    flagged.quiet = True
    saved, globals()["T"] = globals()["T"], flagged

    def must_flag(what, fn):
        before = flagged.failed
        fn()
        saved.check(flagged.failed > before, "self-check: %s was not flagged" % what)

    w = float(scipy.stats.t.ppf(0.975, 9))
    must_flag("t quantile off by 1e-8", lambda: T.check(
        abs(w * (1 + 1e-8) - w) / w <= T_RTOL, ""))
    x = np.array([1.0, 2.0, 4.0, 8.0])
    must_flag("quantile by the 'lower' method", lambda: T.check(
        close(float(np.quantile(x, 0.3, method="lower")), float(np.quantile(x, 0.3)),
              EXACT_RTOL), ""))
    a, b = np.array([0, 1, 1, 2, 0, 1]), np.array([0, 1, 0, 2, 0, 2])
    must_flag("kappa off by 1e-6", lambda: T.check(
        close(cohen_kappa_score(a, b) + 1e-6, cohen_kappa_score(a, b), EXACT_RTOL, 1e-15), ""))
    rng = np.random.default_rng(909)
    rounds = [(c + rng.normal(0, 0.1, 2)).tolist() for c in rng.normal(0, 0.01, 20)]
    noisy = [(c + rng.normal(0, 0.01, 3)).tolist() for c in rng.normal(0, 0.1, 20)]
    for name, wrong, data in [("one-level bootstrap", one_level_numpy, rounds),
                              ("pooled bootstrap", pooled_numpy, noisy)]:
        ref = two_level_numpy(data, np.random.default_rng(1))
        bad = wrong(data, np.random.default_rng(2))
        must_flag(name + " instead of two-level", lambda: compare_interval(
            "", np.quantile(bad, 0.025), np.quantile(bad, 0.975), np.quantile(ref, 0.025),
            np.quantile(ref, 0.975), ref, 0.95))
    ref = two_level_numpy(rounds, np.random.default_rng(3))
    shift = mc_tolerance(ref, 0.025) * 1.5
    must_flag("bootstrap bound shifted by 1.5 tolerances", lambda: compare_interval(
        "", np.quantile(ref, 0.025) + shift, np.quantile(ref, 0.975), np.quantile(ref, 0.025),
        np.quantile(ref, 0.975), ref, 0.95))
    # The real comparison passes on a second correct estimate of the same data.
    other = two_level_numpy(rounds, np.random.default_rng(4))
    before = flagged.failed
    compare_interval("", np.quantile(other, 0.025), np.quantile(other, 0.975),
                     np.quantile(ref, 0.025), np.quantile(ref, 0.975), ref, 0.95)
    saved.check(flagged.failed == before, "self-check: two correct bootstraps were told apart")
    globals()["T"] = saved


def main():
    started = time.monotonic()
    for test in [test_descriptive, test_t_quantile, test_t_interval, test_bootstrap_vs_scipy,
                 test_two_level, test_kappa, test_agreement_bootstrap, test_looks_and_labels,
                 test_normal_and_widen,
                 test_rng, self_check]:
        before = (T.passed, T.failed)
        test()
        print("%-26s %6d passed, %d failed" % (test.__name__, T.passed - before[0],
                                                T.failed - before[1]))
    print("time %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (T.passed, T.failed))
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
