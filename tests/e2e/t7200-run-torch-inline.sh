#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t7200-run-torch-inline: python solutions that compile C++ with
# torch.utils.cpp_extension.load_inline when imported (KernelBench's
# ModelNew). The worker may not start a compiler, so nodus builds their
# extensions at build time (include/nodus/torch_ext.py, run in the build's
# jail) into {cache}/{KEY}.ext, and the worker imports them from there
# (tests/fixtures/torch-inline, against suites/torch's row_sum_torch):
#   1. a correct C++ row sum by load_inline is OK (any label), its build
#      compiled the extension; a second run of the plan with the same
#      --cache is a cache hit (compile_s 0) and OK again;
#   2. C++ that does not compile is COMPILE_ERROR whose message carries
#      the compiler's error ("'nodus_no_such_function' was not declared");
#   3. a call whose source depends on the time of import (another source
#      at run time than at build time) is LOAD_ERROR "no prebuilt
#      extension", not a sandbox kill;
#   4. the worker reads the extensions read-only: KEY.read names KEY.ext,
#      and nothing but {key}/{name}.so files is kept there (two: the
#      correct candidate's and the run-time one's);
#   5. a module that attacks the build from its record step (it writes
#      outside the build directory, leaves links to /etc/passwd and /etc
#      where extensions go, leaves a process in a session of its own) wrote
#      nothing outside, left no link in the cache and no process for the
#      attempt to kill (the build step's end killed it: detail.strays_killed
#      absent); at run time it is correct (OK).
# Isolation is not this test's subject: it is relaxed so that the compiles
# beside it never make a pair NOT_ISOLATED. Without an interpreter that
# imports torch (Debian's python3-torch) it prints "skipped: no torch" and
# exits 77; without torch's C++ headers, g++ or ninja (scripts/deps.sh
# installs libtorch-dev, pybind11-dev and ninja-build) "skipped: no torch
# extension tool chain".
set -u
. "$(dirname "$0")/lib/campaign.sh"
PY=/usr/bin/python3
if ! "$PY" -I -c 'import torch' 2>/dev/null; then
	echo "skipped: no torch ($PY cannot import torch; Debian's python3-torch provides it)"
	exit 77
fi
if ! command -v g++ >/dev/null || ! command -v ninja >/dev/null ||
	! "$PY" -I -c 'import os, sys, torch.utils.cpp_extension as c
sys.exit(0 if any(os.path.exists(os.path.join(p, "torch", "extension.h")) for p in c.include_paths() + ["/usr/include"]) else 1)' 2>/dev/null; then
	echo "skipped: no torch extension tool chain (g++, ninja and torch/extension.h: scripts/deps.sh installs libtorch-dev, pybind11-dev, ninja-build)"
	exit 77
fi
tmp=$(mktemp -d)
mark=/tmp/nodus-t7200-escape
rm -f "$mark"
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
cp -r "$NODUS_SRC/tests/fixtures/torch-inline" "$tmp/suites/torch-inline"
NODUS=$(private_nodus "$tmp")
c=$tmp/suites/torch-inline/campaign.json
relax_isolation "$c" 1000
"$NODUS" plan "$c" -o "$tmp/plan.json" >"$tmp/plan.out" 2>&1 || { cat "$tmp/plan.out"; echo "FAIL: plan"; exit 1; }
"$NODUS" run "$tmp/plan.json" --db "$tmp/r1.db" --cache "$tmp/cache" -q || fail "run 1 exited $?"
"$NODUS" run "$tmp/plan.json" --db "$tmp/r2.db" --cache "$tmp/cache" -q || fail "run 2 exited $?"

# 1-3: the final records of both runs
python3 - "$tmp/r1.db" "$tmp/r2.db" <<'PY' || fails=$((fails + 1))
import sqlite3, sys
fails = []
def finals(db):
    q = ("SELECT r.pair_id, r.status, r.guard, r.message, r.compile_s, r.compile_cache_hits"
         " FROM records r WHERE r.final = 1 ORDER BY r.id")
    return {pid.split("/")[1]: row for pid, *row in sqlite3.connect(db).execute(q)}
first, second = finals(sys.argv[1]), finals(sys.argv[2])
# 5: the process the escape candidate's record step left was killed when the
# step ended, before any attempt's workers: none for an attempt to reap (the
# build may run in another pair's attempt: an oracle group builds its members)
import json
for pid, detail in sqlite3.connect(sys.argv[1]).execute(
        "SELECT pair_id, detail_json FROM records"):
    killed = json.loads(detail or "{}").get("strays_killed")
    if killed:
        fails.append(f"run 1: {pid}: the attempt killed {killed} process(es) its build step left")
for run, recs in (("run 1", first), ("run 2", second)):
    if len(recs) != 4:
        fails.append(f"{run}: expected 4 final records, got {sorted(recs)}")
        continue
    st, guard, msg, _, _ = recs["row_sum_inline_escape"]
    if st != "OK":
        fails.append(f"{run}: row_sum_inline_escape: expected OK, got {st} ({guard}: {msg})")
    st, guard, msg, _, _ = recs["row_sum_inline"]
    if st != "OK":
        fails.append(f"{run}: row_sum_inline: expected OK, got {st} ({guard}: {msg})")
    st, guard, msg, _, _ = recs["row_sum_inline_broken"]
    if st != "COMPILE_ERROR" or "'nodus_no_such_function' was not declared" not in msg:
        fails.append(f"{run}: row_sum_inline_broken: expected COMPILE_ERROR with the compiler's "
                     f"error, got {st} ({guard}: {msg})")
    st, guard, msg, _, _ = recs["row_sum_inline_runtime"]
    if st != "LOAD_ERROR" or "no prebuilt extension" not in msg:
        fails.append(f"{run}: row_sum_inline_runtime: expected LOAD_ERROR 'no prebuilt "
                     f"extension', got {st} ({guard}: {msg})")
if len(first) == 4 and len(second) == 4:
    c1, c2 = first["row_sum_inline"][3], second["row_sum_inline"][3]
    if not c1 > 1:
        fails.append(f"run 1: row_sum_inline compiled in {c1} s: its extension was not built")
    if c2 != 0 or second["row_sum_inline"][4] < 1:
        fails.append(f"run 2: row_sum_inline: expected a cache hit, compile_s {c2}, "
                     f"hits {second['row_sum_inline'][4]}")
    print(f"t7200: row_sum_inline built in {c1:.1f} s (its extension included), "
          f"{c2:.1f} s from the cache")
for f in fails:
    print("FAIL: " + f)
sys.exit(1 if fails else 0)
PY

# 4 and 5: what the worker reads: KEY.read names KEY.ext; only .so files
# kept, no link (the escape candidate's are refused)
for ext in "$tmp"/cache/*.ext; do
	[ -d "$ext" ] || continue
	read="${ext%.ext}.read"
	grep -qF "$ext" "$read" 2>/dev/null || fail "$read does not name $ext"
	other=$(find "$ext" -mindepth 1 ! -type d ! -name '*.so' | head -3)
	[ -z "$other" ] || fail "$ext keeps more than extensions: $other"
done
links=$(find "$tmp/cache" -type l | head -3)
[ -z "$links" ] || fail "the cache holds symbolic links: $links"
# the correct and the run-time candidates kept one each; the broken none
n_so=$(find "$tmp"/cache/*.ext -name '*.so' | wc -l)
[ "$n_so" -eq 2 ] || fail "expected 2 extensions in the cache, got $n_so: $(find "$tmp"/cache/*.ext)"
ls -d "$tmp"/cache/*.build.* "$tmp"/cache/*.ext.* >/dev/null 2>&1 && fail "a build directory was left in the cache"
if [ -e "$mark" ]; then
	if grep -qs "landlock unavailable" "$tmp"/cache/*.log; then
		echo "t7200: no Landlock here: the record step's write outside the build directory is not refused"
	else
		fail "the record step wrote $mark outside the build directory"
	fi
	rm -f "$mark"
fi

[ "$fails" -eq 0 ] && echo "t7200: load_inline built ahead: OK, COMPILE_ERROR, LOAD_ERROR as expected, cache hit, the build's jail held"
test_exit
