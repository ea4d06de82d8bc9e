#!/usr/bin/env python3
"""How much one process's speed differs from another's for the same code.

Usage: process-offset.py [--processes N] [--python PY] [--pin CPU]

Starts N fresh interpreters one after the other (PYTHONHASHSEED=0, address
space randomisation off with setarch -R, pinned to one CPU), each timing the
same torch call (ReLU applied 32 times to a 64x1024 float32 tensor, the
relu_chain problem of suites/torch/kernelbench) in 16 rounds of 5 medians of
50 calls, after the workers' own mallopt. Prints each process's median and
range per call, then the spread between processes against the spread inside
one. If the first is much larger, an A/A pair timed in two processes carries
an offset that no number of rounds removes: the interval, built from rounds,
cannot see it (issue 24; docs/findings-h200.md, fourteenth session).
"""
import argparse
import os
import statistics
import subprocess
import sys

CHILD = r"""
import ctypes, time, torch
torch.set_num_threads(1)
libc = ctypes.CDLL("libc.so.6")
libc.mallopt(-3, 32 << 20)   # M_MMAP_THRESHOLD, as the workers set it
libc.mallopt(-1, 1 << 30)    # M_TRIM_THRESHOLD
x = torch.randn(64, 1024)
def f(x):
    for _ in range(32):
        x = torch.relu(x)
    return x
rounds = []
for r in range(16):
    best = []
    for k in range(5):
        t0 = time.perf_counter_ns()
        for i in range(50):
            f(x)
        best.append((time.perf_counter_ns() - t0) / 50 / 1000)
    rounds.append(sorted(best)[2])
print(" ".join(f"{v:.2f}" for v in rounds))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--processes", type=int, default=8)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--pin", default=str(os.cpu_count() - 1))
    a = ap.parse_args()
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    medians, inside = [], []
    for p in range(a.processes):
        out = subprocess.run(["setarch", "-R", "taskset", "-c", a.pin, a.python, "-c", CHILD],
                             env=env, check=True, capture_output=True, text=True).stdout
        rounds = [float(v) for v in out.split()]
        m = statistics.median(rounds)
        medians.append(m)
        inside.append((max(rounds) - min(rounds)) / m)
        print(f"process {p}: median {m:.1f} us per call, rounds {min(rounds):.1f}-{max(rounds):.1f}")
    lo, hi = min(medians), max(medians)
    print(f"between processes: medians {lo:.1f}-{hi:.1f} us, max/min {hi / lo:.3f}; "
          f"inside one: median range {statistics.median(inside) * 100:.1f}% of its median")


if __name__ == "__main__":
    sys.exit(main())
