#!/usr/bin/env python3
"""A/A pairs timed the way nodus times them, in fresh processes, many times.

Usage: process-pairs.py [--pairs N] [--rounds R] [--python PY] [--device cpu|cuda]
                        [--history N] [--hashseed S] [--env KEY=VALUE ...] [--pin CPU]

Each pair is two fresh interpreters running the same torch call (the
relu_chain problem of suites/torch/kernelbench on the cpu, a 256 x 1024
layer norm module on cuda), driven over pipes in R rounds, the order of the two
sides drawn per round with an untimed batch of the other side where a round
would start with the side that ended the last (src/run/drive.c). Both are
pinned to one CPU, as nodus's timing workers are, and set the workers' mallopt.
With --history N the first side ("candidate") first runs N untimed calls on
other inputs, as nodus's measure worker runs its correctness trials before
timing. Prints each pair's ratio of medians (reference / candidate: > 1 is
"faster") and a 95% interval over its rounds (ratio of per-round medians, t
over rounds, as a sketch of the judge's), then how many pairs' intervals
exclude 1 and the spread of the pair ratios against the rounds' intervals.
If the pair ratios spread far wider than one pair's interval, an offset per
process exists that rounds cannot see (docs/findings-h200.md).
"""
import argparse
import math
import os
import random
import statistics
import subprocess
import sys

CHILD = r"""
import ctypes, os, sys, time, torch
torch.set_num_threads(1)
libc = ctypes.CDLL("libc.so.6")
libc.mallopt(-3, 32 << 20)   # M_MMAP_THRESHOLD, as the workers set it
libc.mallopt(-1, 1 << 30)    # M_TRIM_THRESHOLD
dev = sys.argv[1]
history = int(sys.argv[2])
cpu = int(sys.argv[3])
if dev == "cuda":
    m = torch.nn.LayerNorm(1024).to(dev)
    x = torch.randn(256, 1024, device=dev)
    def f(x):
        return m(x)
    sync = torch.cuda.synchronize
else:
    x = torch.randn(64, 1024)
    def f(x):
        for _ in range(32):
            x = torch.relu(x)
        return x
    sync = lambda: None
with torch.no_grad():
    for _ in range(history):
        f(torch.randn_like(x))
    sync()
    f(x); sync()
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})
    out = sys.stdout
    for line in sys.stdin:
        n = int(line)
        sync()
        t0 = time.perf_counter_ns()
        for i in range(n):
            f(x)
        sync()
        out.write(f"{(time.perf_counter_ns() - t0) / n}\n")
        out.flush()
"""


def tq(df):
    # two-sided 95% t quantiles for small df, then the normal's
    table = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31,
             9: 2.26, 10: 2.23, 12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}
    for k in sorted(table):
        if df <= k:
            return table[k]
    return 1.96


def one_pair(a, env, rng):
    procs = []
    for side in range(2):
        hist = a.history if side == 0 else 0
        procs.append(subprocess.Popen(
            [a.python, "-c", CHILD, a.device, str(hist), str(a.pin)], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1))

    def batch(side, n):
        procs[side].stdin.write(f"{n}\n")
        procs[side].stdin.flush()
        return float(procs[side].stdout.readline())

    # size: a batch of about 2 ms
    per = batch(0, 20)
    batch(1, 20)
    n = max(1, int(2e6 / per))
    logs = []
    last = None
    for r in range(a.rounds):
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        if last is not None and order[0] == last:
            batch(1 - last, n)  # untimed separator
        meds = {0: [], 1: []}
        for side in order:
            meds[side] = statistics.median(batch(side, n) for _ in range(5))
        last = order[-1]
        logs.append(math.log(meds[1] / meds[0]))  # reference / candidate
    for p in procs:
        p.stdin.close()
        p.wait()
    m = statistics.fmean(logs)
    se = statistics.stdev(logs) / math.sqrt(len(logs))
    h = tq(len(logs) - 1) * se
    return math.exp(m), math.exp(m - h), math.exp(m + h)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--history", type=int, default=0)
    ap.add_argument("--hashseed", default=None, help="PYTHONHASHSEED for both sides")
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for both sides")
    ap.add_argument("--pin", type=int, default=os.cpu_count() - 1, help="-1: unpinned")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if a.hashseed is not None:
        env["PYTHONHASHSEED"] = a.hashseed
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    rng = random.Random(a.seed)
    print(f"device {a.device}, {a.pairs} pairs x {a.rounds} rounds, history {a.history}, "
          f"hash seed {a.hashseed}, env {' '.join(a.env) or '-'}, pin {a.pin}")
    ratios, widths, off = [], [], 0
    for p in range(a.pairs):
        e, lo, hi = one_pair(a, env, rng)
        ratios.append(e)
        widths.append(hi / lo)
        excl = lo > 1 or hi < 1
        off += excl
        print(f"pair {p}: {e:.4f} [{lo:.4f}, {hi:.4f}]{'  excludes 1' if excl else ''}")
    logs = [math.log(r) for r in ratios]
    print(f"pairs whose interval excludes 1: {off} of {a.pairs}; pair ratios "
          f"{min(ratios):.4f}-{max(ratios):.4f}, sd of log ratio {statistics.stdev(logs):.4f}; "
          f"median interval width (hi/lo) {statistics.median(widths):.4f}")


if __name__ == "__main__":
    sys.exit(main())
