#!/usr/bin/env python3
"""The study's figures as Markdown, every one from a report nodus wrote.

Usage: study-paper.py REPORT.json...

Each REPORT.json is `nodus report DB --format json` of one study store (the
cuda half, the torch-cuda half, ...). For each it prints, under a heading
naming the file it came from:
  - per condition (the baseline first): pairs scored against the isolated
    baseline, agreement and Cohen's kappa with their intervals over tasks,
    false-fast pairs (FASTER here, not FASTER in isolation), A/A pairs
    called faster, what the condition did to effect sizes (the median log
    ratio against the baseline's, with its interval), device seconds per
    evaluation and per agreeing label, and agreeing records per dollar;
  - the resolution curve: per declared true effect, labels that met it of
    the pairs run, per condition;
  - the false-fast pairs, with both speedups;
  - the pairs whose outcome contradicts their declared truth.
Conditions with no final record yet are listed as not run. Nothing is
computed here that the report does not hold, but for counting: the paper
quotes nodus, not this script. Standard library only.
"""
import json
import os
import sys


def usage():
    doc = __doc__.strip()
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(doc)
        sys.exit(0)
    if len(sys.argv) < 2:
        print("usage: study-paper.py REPORT.json...\n(--help says more)", file=sys.stderr)
        sys.exit(2)
    for p in sys.argv[1:]:
        if not os.path.isfile(p):
            print(f"study-paper.py: {p}: no such report", file=sys.stderr)
            sys.exit(2)
    return sys.argv[1:]


def num(v, fmt="{:.3f}"):
    return "–" if v is None else fmt.format(v)


def interval(x, fmt="{:.3f}"):
    if not x or x.get("estimate") is None:
        return "–"
    if x.get("lo") is None or x.get("hi") is None:
        return num(x["estimate"], fmt)
    return f"{num(x['estimate'], fmt)} [{num(x['lo'], fmt)}, {num(x['hi'], fmt)}]"


def ran(rep, name):
    return sum(1 for p in rep["pairs"] if p["labels"].get(name) not in (None, "MISSING"))


def conditions_table(rep):
    out = ["| condition | judge | pairs run | scored | agreement with isolated | κ | false fast "
           "| A/A called faster | effect sizes (median log ratio) | device s per evaluation "
           "| per agreeing label | agreeing per $ |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    idle = []
    for c in rep["conditions"]:
        n = ran(rep, c["name"])
        if n == 0:
            idle.append(c["name"])
            continue
        aa, cost = c["aa_noise"], c["cost"]
        judge = c["judge_preset"] or "nodus"
        out.append(
            f"| {c['name']}{' (baseline)' if c['baseline'] else ''} | {judge} | {n} | {c['scored']} "
            f"| {interval(c['agreement'])} | {interval(c['kappa'])} | {len(c['false_fast'])} "
            f"| {aa['called_faster']} of {aa['aa_pairs']} | {interval(c.get('effect_scale'))} "
            f"| {num(cost.get('device_s_per_attempt'), '{:.2f}')} "
            f"| {num(cost.get('device_s_per_agreeing'), '{:.2f}')} "
            f"| {num(c.get('agreeing_per_usd'), '{:.0f}')} |")
    if idle:
        out.append("")
        out.append("Not run yet: " + ", ".join(idle) + ".")
    return out


def resolution_table(rep):
    conds = [c for c in rep["conditions"] if ran(rep, c["name"]) > 0]
    if not conds:
        return []
    bins = []
    for x in conds[0]["resolution"]:
        sign = "+" if x["direction"] == "faster" else "−" if x["direction"] == "slower" else ""
        bins.append((sign + f"{x['effect_pct']:g}%") if sign else "A/A")
    out = ["| condition | " + " | ".join(bins) + " |", "|---" * (len(bins) + 1) + "|"]
    for c in conds:
        cells = []
        for x in c["resolution"]:
            run = x["pairs"] - x.get("missing", 0)
            cell = f"{x['met']}/{run}"
            if x["wrong"]:
                cell += f" ({x['wrong']} wrong)"
            cells.append(cell)
        out.append(f"| {c['name']} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("A cell is labels that met the declared truth / pairs run; the rest were AMBIGUOUS "
               "or failed, unless counted wrong.")
    return out


def false_fast(rep):
    out = []
    for c in rep["conditions"]:
        for f in c["false_fast"]:
            b, s = f.get("baseline_speedup") or {}, f.get("speedup") or {}
            out.append(f"- {c['name']}: `{f['pair']}` {f['label']} {interval(s)} here, "
                       f"{f['baseline']} {interval(b)} in isolation")
    return out or ["None."]


def mismatches(rep):
    out = []
    for p in rep["pairs"]:
        bad = [k for k, v in (p.get("expect_mismatch") or {}).items() if v]
        if bad:
            out.append(f"- `{p['id']}` expect {p['expect']}: " +
                       ", ".join(f"{k} {p['labels'][k]}" for k in bad))
    return out or ["None."]


def main():
    for path in usage():
        rep = json.load(open(path))
        plan = rep["plan"]
        print(f"## {plan.get('name')}: {plan['pairs']} pairs (`{path}`)\n")
        print(f"Plan {plan['digest'][:12]}, tie margin {plan.get('tie_margin')}, "
              f"process_sd {plan.get('process_sd')}"
              + (f", tasks with their own judge: {', '.join(sorted(plan['task_judges']))}"
                 if plan.get("task_judges") else "") + ".\n")
        print("\n".join(conditions_table(rep)) + "\n")
        print("### Resolution\n")
        print("\n".join(resolution_table(rep)) + "\n")
        print("### Shared FASTER, not FASTER in isolation\n")
        print("\n".join(false_fast(rep)) + "\n")
        print("### Outcomes against their declared truth\n")
        print("\n".join(mismatches(rep)) + "\n")


if __name__ == "__main__":
    main()
