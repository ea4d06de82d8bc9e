#!/usr/bin/env python3
"""What `nodus serve` costs over a direct `nodus run` of the same plan (issue 21).

Usage: serve-overhead.py NODUS CAMPAIGN OUTDIR

CAMPAIGN's pairs, under its first condition alone (a copy of the campaign
written beside it, so its relative paths hold, and removed at the end), are
evaluated twice, on one compile cache warmed first by `nodus plan` and a
`nodus run` of that copy (plan builds only the references its audit calls;
the run builds every candidate, whose cache key is its content, not its
name, so both measured sides find every build cached; each side's compile
seconds are reported, from its records, to show it):

1. through `nodus serve`: every pair's candidate is sent as a submission
   (its solution file with its sources inline, the pair's workload and
   reference) from 4 client threads at once, and the clock runs from the first
   POST to the last result. Each POST's time to its 202 (the store's commit
   included) is the client's critical path;
2. directly: `nodus plan` of the batch's own campaign (the one the server
   wrote, DB.serve/batch/SHA/campaign.json) and `nodus run` of the plan the
   server sealed, each timed, into a fresh store.

Reports the per-submission overhead, (serve - run) / N and (serve - plan -
run) / N, and the throughput share, run / serve and (plan + run) / serve, and
whether each pair's outcome is the same both ways (two measurements: a
near-tie may differ). Writes OUTDIR/serve-overhead.json and the stores; the
last line is the summary.
"""
import concurrent.futures
import glob
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import nodus  # noqa: E402  (the package of this checkout)


def timed(cmd, log):
    t0 = time.monotonic()
    rc = subprocess.call(cmd, stdout=log, stderr=log)
    return rc, time.monotonic() - t0


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    nodus_bin, camp_path, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    log = open(os.path.join(out, "serve-overhead.log"), "a")
    camp = json.load(open(camp_path))
    root = os.path.dirname(camp_path)
    camp["conditions"] = camp["conditions"][:1]
    camp["name"] = camp["name"] + "-serve-bench"
    base = os.path.join(root, "campaign-serve-bench.json")
    json.dump(camp, open(base, "w"), indent=1)
    cache = os.path.join(out, "cache")
    try:
        rc, t_warm = timed([nodus_bin, "plan", base, "--cache", cache, "-o", os.path.join(out, "warm-plan.json")], log)
        if rc:
            sys.exit(f"nodus plan {base} exited {rc} (serve-overhead.log)")
        rc, t_warm_run = timed([nodus_bin, "run", os.path.join(out, "warm-plan.json"), "--db",
                                os.path.join(out, "warm.db"), "--cache", cache, "-q"], log)
        if rc:
            sys.exit(f"nodus run of the warm-up plan exited {rc} (serve-overhead.log)")
        sol_path = {}
        for p in camp["solutions"]:
            s = json.load(open(os.path.join(root, p)))
            sol_path[s["name"]] = os.path.join(root, p)
        subs = [dict(solution=nodus.solution_from_file(sol_path[p["candidate"]]), workload=p["workload"],
                     reference=p["reference"], label="%s/%s/%s" % (p["workload"], p["candidate"], p["reference"]))
                for p in camp["pairs"]]
        db = os.path.join(out, "serve.db")
        server = subprocess.Popen([nodus_bin, "serve", "--db", db, "--campaign", base, "--cache", cache,
                                   "--batch-max", str(len(subs) + 1), "--batch-wait-ms", "200"],
                                  stdout=subprocess.PIPE, stderr=log, text=True)
        url = None
        for line in server.stdout:
            m = re.search(r"listening on (\S+)", line)
            if m:
                url = m.group(1)
                break
        if not url:
            sys.exit("nodus serve did not say where it listens (serve-overhead.log)")
        client = nodus.Client(url)

        def post(s):
            t = time.monotonic()
            i = client.submit(s["solution"], s["workload"], s["reference"], label=s["label"])
            return i, time.monotonic() - t

        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            posted = list(pool.map(post, subs))
        ids = [i for i, _ in posted]
        ends = client.wait(ids, timeout=3600)
        t_serve = time.monotonic() - t0
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        lat = sorted(x for _, x in posted)
        batches = sorted(glob.glob(os.path.join(db + ".serve", "batch", "*", "plan.json")))
        if len(batches) != 1:
            sys.exit(f"expected one batch, found {len(batches)}: the server split the submissions")
        plan = batches[0]
        rc, t_plan = timed([nodus_bin, "plan", os.path.join(os.path.dirname(plan), "campaign.json"),
                            "--cache", cache, "-o", os.path.join(out, "direct-plan.json")], log)
        if rc:
            sys.exit(f"nodus plan of the batch's campaign exited {rc}")
        direct = os.path.join(out, "direct.db")
        rc, t_run = timed([nodus_bin, "run", plan, "--db", direct, "--cache", cache, "-q"], log)
        if rc:
            sys.exit(f"nodus run of the batch's plan exited {rc}")
        cond = camp["conditions"][0]["name"]
        outcome = {}
        for pair, status, label, verdict in sqlite3.connect(direct).execute(
                "SELECT pair_id, status, label, verdict FROM records WHERE final = 1 AND condition = ?", (cond,)):
            outcome[pair] = label if status == "OK" else status
        same = sum(1 for e in ends if e.raw.get("pair") in outcome and outcome[e.raw["pair"]] == e.outcome)

        def compile_s(path):
            return sqlite3.connect(path).execute("SELECT IFNULL(SUM(compile_s), 0) FROM records").fetchone()[0]
        n = len(subs)
        res = {
            "campaign": camp_path, "condition": cond, "submissions": n, "warm_plan_s": t_warm,
            "warm_run_s": t_warm_run, "serve_compile_s": compile_s(db), "direct_compile_s": compile_s(direct),
            "post_ms": {"median": 1e3 * statistics.median(lat), "p95": 1e3 * lat[int(0.95 * (n - 1))],
                        "max": 1e3 * lat[-1]},
            "serve_s": t_serve, "direct_plan_s": t_plan, "direct_run_s": t_run,
            "overhead_ms_per_submission_vs_run": 1e3 * (t_serve - t_run) / n,
            "overhead_ms_per_submission_vs_plan_run": 1e3 * (t_serve - t_plan - t_run) / n,
            "throughput_share_vs_run": t_run / t_serve,
            "throughput_share_vs_plan_run": (t_plan + t_run) / t_serve,
            "same_outcome": same, "ended": sum(1 for e in ends if e.state == "done"),
        }
        json.dump(res, open(os.path.join(out, "serve-overhead.json"), "w"), indent=1)
        for e in ends:
            print(f"  {e.raw.get('pair')}: serve {e.outcome}, direct {outcome.get(e.raw.get('pair'))}")
        print(f"{n} submissions: POST to 202 median {res['post_ms']['median']:.1f} ms, p95 "
              f"{res['post_ms']['p95']:.1f} ms, max {res['post_ms']['max']:.1f} ms; serve {t_serve:.1f} s, "
              f"direct plan {t_plan:.1f} s + run {t_run:.1f} s; overhead per submission "
              f"{res['overhead_ms_per_submission_vs_run']:.0f} ms over the run "
              f"({res['overhead_ms_per_submission_vs_plan_run']:.0f} ms over plan + run); throughput "
              f"{100 * res['throughput_share_vs_run']:.1f}% of the run's "
              f"({100 * res['throughput_share_vs_plan_run']:.1f}% of plan + run); same outcome {same} of {n}; "
              f"compiles in the records: serve {res['serve_compile_s']:.1f} s, direct {res['direct_compile_s']:.1f} s")
    finally:
        os.unlink(base)


if __name__ == "__main__":
    main()
