#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kb_eval.py: KernelBench's own evaluator on candidate/problem pairs, for the
side-by-side study (bench/kernelbench-side-by-side.sh).

    python3 kb_eval.py --kernelbench SRC --pairs PAIRS.json --reps R -o OUT.jsonl

SRC is a KernelBench checkout's `src` directory (it holds the `kernelbench`
package); nothing of it is committed to nodus. PAIRS.json is a list of
{"problem": NAME, "reference": FILE, "candidate": FILE} (pairs.py adds
"pair", the nodus pair it sits beside, "expect", and "backend": `triton` for
a Triton candidate, which KernelBench imports from a file because @jit
reads its function's source; `cuda`, KernelBench's default, exec()s the
text). Each pair is evaluated R times (a pair's repetitions already in
OUT.jsonl are not run again, so a second call goes on) with
`kernelbench.eval.eval_kernel_against_ref` as
KernelBench's scripts/run_and_check.py configures it (5 correctness trials,
100 timed runs, cuda_event timing), in this one process, as KernelBench runs
it. One JSON line per evaluation: the problem, the candidate's file name, the
nodus pair and expect, the repetition, compiled, correctness, runtime and
ref_runtime [ms, KernelBench's unit], speedup (ref_runtime / runtime),
excessive_speedup (KernelBench's own flag above 10x, a warning it prints),
metadata (KernelBench's, as text, when it did not compile or was not
correct), and wall_s, the evaluation's wall time with the GPU held.

KernelBench imports packages its evaluator never calls (an LLM client, a
progress bar, pydantic, dotenv). Where the interpreter lacks one, the stand-in
in bench/kernelbench/shims is put last on sys.path: it only defines the names
the import needs (and pydantic.BaseModel's field defaults), so an installed
package always wins.
"""
import argparse
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernelbench", required=True, help="KernelBench's src directory")
    ap.add_argument("--pairs", required=True, help="a JSON list of {problem, reference, candidate}")
    ap.add_argument("--reps", type=int, default=10, help="evaluations per pair (default 10)")
    ap.add_argument("--correct-trials", type=int, default=5)
    ap.add_argument("--perf-trials", type=int, default=100)
    ap.add_argument("--timing", default="cuda_event", help="KernelBench's timing_method")
    ap.add_argument("-o", "--output", required=True, help="JSON lines, appended")
    a = ap.parse_args()
    sys.path.insert(0, a.kernelbench)
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims"))
    import torch
    from kernelbench import eval as kb_eval

    pairs = json.load(open(a.pairs))
    done = set()  # a second call goes on where the first stopped
    if os.path.exists(a.output):
        for line in open(a.output):
            r = json.loads(line)
            done.add((r["problem"], r.get("candidate"), r["rep"]))
    with open(a.output, "a") as out:
        for p in pairs:
            ref_src, cand_src = open(p["reference"]).read(), open(p["candidate"]).read()
            cand = os.path.basename(p["candidate"])
            for rep in range(a.reps):
                if (p["problem"], cand, rep) in done:
                    continue
                t0 = time.time()
                row = {"problem": p["problem"], "candidate": cand, "pair": p.get("pair"),
                       "expect": p.get("expect"), "rep": rep}
                try:
                    r = kb_eval.eval_kernel_against_ref(
                        original_model_src=ref_src, custom_model_src=cand_src,
                        measure_performance=True, timing_method=a.timing,
                        num_correct_trials=a.correct_trials, num_perf_trials=a.perf_trials,
                        device=torch.device("cuda:0"), backend=p.get("backend", "cuda"),
                        precision=torch.float32)
                    if r is None:  # KernelBench's answer to a lock-file error: "retry"
                        raise RuntimeError("eval_kernel_against_ref returned None (a lock "
                                           "file error while compiling, it says: retry)")
                    row.update(compiled=bool(r.compiled), correctness=bool(r.correctness),
                               runtime=r.runtime, ref_runtime=r.ref_runtime,
                               excessive_speedup=bool((r.metadata or {}).get("excessive_speedup")))
                    if not (r.compiled and r.correctness):  # why not, in KernelBench's words
                        row["metadata"] = {k: str(v)[:300] for k, v in (r.metadata or {}).items()}
                    if r.runtime and r.runtime > 0 and r.ref_runtime and r.ref_runtime > 0:
                        row["speedup"] = r.ref_runtime / r.runtime
                except Exception as e:  # what the evaluator raised, kept as data
                    row["error"] = f"{type(e).__name__}: {e}"[:500]
                row["wall_s"] = time.time() - t0
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"kb_eval: {row['problem']} {cand} rep {rep}: speedup {row.get('speedup')} "
                      f"wall {row['wall_s']:.2f} s {row.get('error', '')}", flush=True)


if __name__ == "__main__":
    main()
