#!/usr/bin/env python3
"""Writes docs/guards.md from test results, never by hand.

Usage: guards-table.py ADV_CPU.db FAULTS_CPU.db [H200_ADVERSARIAL_REPORT.txt [SANDBOX_CPU.db]]
       > docs/guards.md

ADV_CPU.db and FAULTS_CPU.db are the record stores the end-to-end tests t6000 and
t3200 leave when GUARDS_OUT is set (`make guards` runs them), SANDBOX_CPU.db the one
t6100 leaves when GUARDS_SANDBOX_OUT is set. The H200 column comes
from the text report nodus wrote on the H200 for suites/adversarial/cuda
(bench/results/h200/.../report-adversarial.txt). Each row: the exploit or fault (the
first sentence of its source's "Exploit:" comment, or the candidate name), what the
campaign declares it must end as, what nodus recorded and which guard fired.
"""
import os
import re
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_sentence(text):
    text = re.sub(r"\s+", " ", text).strip()
    m = re.match(r"(.+?[.:])(\s|$)", text)
    return (m.group(1) if m else text)[:150]


def describe(candidate):
    """The first sentence of the prose in the source's header comment, after
    an "Exploit...:" label when there is one."""
    for sub in ("suites/adversarial/solutions", "suites/faults/solutions",
                "suites/adversarial/cuda/solutions"):
        for ext in (".c", ".cu"):
            path = os.path.join(ROOT, sub, candidate + ext)
            if not os.path.exists(path):
                continue
            lines = []
            for line in open(path).read().splitlines()[2:40]:
                body = re.sub(r"^\s*(/\*|\*/|\*|//)\s?", "", line)
                if re.match(r"^-{10,}", body.strip()) or line.startswith("#"):
                    break
                lines.append(body)
            paragraphs = [p for p in "\n".join(lines).split("\n\n") if p.strip()]
            for para in paragraphs:
                if re.match(r"\s*\S+\.(c|cu):", para) and len(paragraphs) > 1:
                    continue  # the "file.c: what it is" line
                para = re.sub(r"^\s*Exploit[^:]*:\s*", "", para)
                return first_sentence(para)
    return candidate


def rows_from_db(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = []
    for pid, work, cand, ref, expect, status, label, guard, message in db.execute(
            "SELECT r.pair_id, p.workload, p.candidate, p.reference, p.expect, r.status, r.label,"
            " r.guard, r.message"
            " FROM records r JOIN pairs p ON p.plan_digest = r.plan_digest AND"
            " p.pair_id = r.pair_id WHERE r.final = 1 ORDER BY r.id"):
        outcome = label if status == "OK" else status
        # a faulty reference is the fault of its pair: name and describe it
        if ref.startswith("fault_"):
            out.append((f"`{cand}` against the reference `{ref}`", describe(ref), expect,
                        outcome, guard or "-", work))
        else:
            out.append((f"`{cand}`", describe(cand), expect, outcome, guard or "-", work))
    # a candidate run on several workloads (a small and a large output) is
    # one row per workload: name the workload, or the rows read as doubles
    seen = {}
    for row in out:
        seen[row[0]] = seen.get(row[0], 0) + 1
    return [(f"{r[0]} on `{r[5]}`" if seen[r[0]] > 1 else r[0],) + r[1:5] for r in out]


def rows_from_report(path):
    rows = {}
    for line in open(path):
        m = re.match(r"(\S+/(\S+)/\S+)\s+(\S+)\s+(\S+)", line)
        if m and "/" in m.group(1) and m.group(3) != "expect":
            rows[m.group(2)] = (m.group(3), m.group(4))
    return rows


def verdict(expect, outcome):
    """ok when the outcome is the declared one; an exploit declared TIED is one whose
    gain the protocol removed, so any label short of FASTER is ok (t6000's rule)."""
    if outcome == expect:
        return "ok"
    if expect == "TIED" and outcome in ("SLOWER", "AMBIGUOUS"):
        return "ok (no gain)"
    return "**MISMATCH**"


# The attack classes the judge must catch (issue 17), each with the
# candidates written for it, on cpu (suites/adversarial) and on cuda
# (suites/adversarial/cuda). A class with no cuda candidate says why.
CLASSES = [
    ("1. Timed calls told apart from checked calls (output contents before the call, the gap "
     "since the last call, the call count, a sample's inputs drawn afresh)",
     ["adv_poison_probe", "adv_gap_probe", "adv_stale_after_n", "adv_mutate_when_timed",
      "adv_restore_when_timed", "adv_oob_when_timed", "adv_memo_diff", "adv_memo_rows",
      "adv_memo_skip_fresh", "adv_memo_fresh_only"],
     ["poison_probe", "gap_probe", "oob_when_timed", "memo_tiles", "memo_fresh_only"], None),
    ("2. Sharing a process with the reference's timing or the clock (patching the reference, "
     "the clock, the worker's channels; stealing the core off its turn)",
     ["adv_slow_reference", "adv_slow_reference_got", "adv_clock_bend", "adv_take_clock",
      "adv_off_turn_itimer", "adv_off_turn_posix", "adv_interpose", "adv_thread"],
     ["slow_reference", "rogue_stream", "persisting_l2"], None),
    ("3a. A formula wrong only for negative weights (abs(w) for w)",
     ["adv_abs_weight", "adv_abs_square_over_abs", "adv_abs_max_neg"], [],
     "the weights' draw (both signs) and the audit are the task's, not the backend's"),
    ("3b. A near-constant output that ignores its inputs, dithered",
     ["adv_dither_address", "adv_dither_counter", "adv_dither_hash"],
     ["dither_address", "dither_counter", "dither_hash"], None),
    ("3c. An input written and restored before return",
     ["adv_restore_memcpy", "adv_restore_inplace", "adv_restore_when_timed"], [],
     "device memory cannot be mapped read-only; docs/judge.md says a restored write is "
     "not detected on cuda"),
    ("4. Writes past (or before) an output buffer",
     ["adv_oob_one_past", "adv_oob_4k", "adv_oob_4m", "adv_oob_before", "adv_oob_memset",
      "adv_oob_when_timed"],
     ["oob_one_past", "oob_4m", "oob_before", "oob_memset", "oob_when_timed"], None),
]


def class_cell(names, outcome_of):
    """Each candidate with what was recorded; one never run says so."""
    cells = []
    for name in names:
        got = outcome_of(name)
        if not got:
            cells.append(f"`{name}` **not run**")
            continue
        cells.append(f"`{name}` " + ", ".join(
            f"{outcome}{'' if verdict(expect, outcome).startswith('ok') else ' **MISMATCH**'}"
            for expect, outcome in got))
    return "; ".join(cells)


def print_classes(cpu_rows, h200):
    def cpu_outcome(name):
        return [(r[2], r[3]) for r in cpu_rows if re.match(rf"`{re.escape(name)}`( |$)", r[0])]

    def cuda_outcome(name):
        return [h200[name]] if name in h200 else []

    print("## The classes of attack (issue 17)\n")
    print("Each class, the candidates written for it and what nodus recorded for each (every")
    print("workload it runs on); the tables below give the guard that fired.\n")
    print("| class | cpu | cuda (H200) |")
    print("|---|---|---|")
    for title, cpu, cuda, why_no_cuda in CLASSES:
        cuda_cell = class_cell(cuda, cuda_outcome) if h200 and cuda else (
            f"none: {why_no_cuda}" if why_no_cuda else "no H200 report given")
        print(f"| {title} | {class_cell(cpu, cpu_outcome)} | {cuda_cell} |")
    print()


def main():
    adv, faults = sys.argv[1], sys.argv[2]
    h200 = rows_from_report(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else {}
    sandbox = rows_from_db(sys.argv[4]) if len(sys.argv) > 4 else []
    print("# Guards: exploit → guard → test → result\n")
    print("Generated by `scripts/guards-table.py` from the records of the end-to-end tests")
    print("(`make guards`), and for CUDA from the report nodus wrote on the H200; do not edit by")
    print("hand. \"ok\" means the recorded outcome equals the one the campaign declares.\n")
    suites = [("CPU adversarial suite (suites/adversarial)", "t6000", rows_from_db(adv)),
              ("CPU fault suite (suites/faults)", "t3200", rows_from_db(faults))]
    if sandbox:
        suites.append(("CPU sandbox attacks (suites/adversarial/sandbox; each in the entry"
                       " and in a constructor)", "t6100", sandbox))
    print_classes(suites[0][2], h200)
    for title, test, rows in suites:
        print(f"## {title}\n")
        print("| candidate | exploit or fault | must end as | recorded (CPU) | guard | test | |")
        print("|---|---|---|---|---|---|---|")
        for name, what, expect, outcome, guard in rows:
            print(f"| {name} | {what} | {expect} | {outcome} | {guard} | {test} |"
                  f" {verdict(expect, outcome)} |")
        print()
    if h200:
        print("## CUDA adversarial suite on the H200 (suites/adversarial/cuda)\n")
        print("| candidate | exploit or fault | must end as | recorded (H200) | |")
        print("|---|---|---|---|---|")
        for cand, (expect, outcome) in h200.items():
            print(f"| `{cand}` | {describe(cand)} | {expect} | {outcome} |"
                  f" {verdict(expect, outcome)} |")
        print()


if __name__ == "__main__":
    main()
