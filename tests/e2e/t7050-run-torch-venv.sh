#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t7050-run-torch-venv: a target's interpreter may be a virtual
# environment's python (the H200's python3 is one), whose packages lie
# outside the system trees every worker may read (family 7: solutions in
# other languages; docs/sandbox.md, docs/formats.md "Python solutions"):
#   1. plan accepts the environment's interpreter, and the fingerprint
#      names it;
#   2. a candidate that imports a module installed only in the environment
#      is loaded, timed and correct against a reference that imports it too
#      (its workers read the environment's site-packages, read-only, and so
#      does the judge audit's sandbox, which runs the reference at plan);
#   3. a candidate that writes into the environment's site-packages at
#      import is refused (REWARD_HACK, the load filter), and the file does
#      not exist: the trees are readable, never writable;
#   4. plan refuses, in words naming the entry, an interpreter whose
#      sys.path reaches a tree outside both the system's and its own library
#      directories (a .pth file naming another directory, as an editable
#      install does), and one naming a directory inside its prefix but
#      outside its stdlib and site-packages.
# Without /usr/bin/python3 importing torch, or without its venv module, it
# prints "skipped: ..." and exits 77.
set -u
. "$(dirname "$0")/lib/campaign.sh"
require_torch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$PY" -m venv --system-site-packages --without-pip "$tmp/venv" 2>"$tmp/err"; then
	echo "skipped: no venv ($PY -m venv: $(head -c 200 "$tmp/err"); Debian's python3-venv provides it)"
	exit 77
fi
VPY=$tmp/venv/bin/python3
site=$("$VPY" -I -c 'import site; print(site.getsitepackages()[0])')
case $site in "$tmp/venv/"*) ;; *) echo "FAIL: the venv's site-packages is '$site'"; exit 1 ;; esac
cat >"$site/nodus_venv_rowsum.py" <<'EOF'
# installed only in the test's virtual environment
import torch


def row_sum(x, y):
    torch.sum(x, dim=1, out=y)
EOF
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
s=$tmp/suites/torch/solutions
cat >"$s/row_sum_venv.py" <<'EOF'
# row_sum through a module only the environment has
import nodus_venv_rowsum


def run(x, y):
    nodus_venv_rowsum.row_sum(x, y)
EOF
cat >"$s/row_sum_venv_ref.py" <<'EOF'
# the reference, through the environment's module too: the judge audit
# runs it in its own sandbox
import nodus_venv_rowsum


def run(x, y):
    nodus_venv_rowsum.row_sum(x, y)
EOF
cat >"$s/row_sum_venv_write.py" <<EOF
# writes into the environment's packages when imported
open("$site/nodus_planted.py", "w").write("x = 1\n")


def run(x, y):
    y.copy_(x.sum(dim=1))
EOF
for name in row_sum_venv row_sum_venv_ref row_sum_venv_write; do
	python3 - "$s/row_sum_torch.json" "$s/$name.json" "$name" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.update(name=sys.argv[3], sources=[sys.argv[3] + ".py"], tags=["torch"])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
done
c=$tmp/suites/torch/campaign.json
python3 - "$c" "$VPY" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["target"]["python"] = sys.argv[2]
c["solutions"] = ["../cpu/solutions/row_sum/row_sum_ref.json", "solutions/row_sum_venv_ref.json",
                  "solutions/row_sum_venv.json", "solutions/row_sum_venv_write.json"]
c["tasks"], c["workloads"] = c["tasks"][:1], c["workloads"][:1]
w = "row_sum_512x2048"
c["pairs"] = [{"candidate": "row_sum_venv", "reference": "row_sum_venv_ref", "workload": w,
               "expect": "EQUIVALENT"},
              {"candidate": "row_sum_venv_write", "reference": "row_sum_ref", "workload": w,
               "expect": "REWARD_HACK"}]
c["judge"].update(min_rounds=4, max_rounds=8, look_every=2)
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
relax_isolation "$c" 1000

# 1. plan, and the fingerprint
"$NODUS" plan "$c" -o "$tmp/plan.json" >"$tmp/out" 2>&1 || fail "1.1 plan refused the venv's interpreter: $(cat "$tmp/out")"
# 2 and 3
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q 2>"$tmp/err" || fail "2.1 run exited $?: $(cat "$tmp/err")"
python3 - "$tmp/r.db" <<'PY' || fails=$((fails + 1))
import sqlite3, sys
rows = {pid: (status, guard, msg) for pid, status, guard, msg in sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, status, guard, IFNULL(message, '') FROM records WHERE final = 1")}
bad = []
for pid, (status, guard, msg) in rows.items():
    if "row_sum_venv_write" in pid:
        if (status, guard) != ("REWARD_HACK", "syscall_filter"):
            bad.append(f"3.1 {pid}: {status} {guard} {msg[:300]}")
    elif status != "OK":
        bad.append(f"2.2 {pid}: {status} {guard} {msg[:300]}")
if len(rows) != 2:
    bad.append(f"2.3 expected 2 final records, got {sorted(rows)}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ -e "$site/nodus_planted.py" ] && fail "3.2 the candidate wrote into the venv's site-packages"
python3 - "$tmp/r.db" "$VPY" <<'PY' || fail "1.2 the target's fingerprint does not name the venv's interpreter"
import json, sqlite3, sys
fps = [json.loads(f) for (f,) in sqlite3.connect(sys.argv[1]).execute("SELECT fingerprint_json FROM targets")]
sys.exit(0 if fps and all(f.get("python", {}).get("interpreter") == sys.argv[2] for f in fps) else 1)
PY

# 4. a sys.path entry outside both the system's trees and the prefix
mkdir -p "$tmp/elsewhere"
echo "$tmp/elsewhere" >"$site/nodus-elsewhere.pth"
"$NODUS" plan "$c" -o "$tmp/plan2.json" >"$tmp/out" 2>&1 && fail "4.1 plan took a sys.path entry outside the trees"
grep -q "sys.path entry '$tmp/elsewhere'" "$tmp/out" || fail "4.2 the refusal does not name the entry: $(cat "$tmp/out")"
mkdir -p "$tmp/venv/share/elsewhere"
echo "$tmp/venv/share/elsewhere" >"$site/nodus-elsewhere.pth"
"$NODUS" plan "$c" -o "$tmp/plan3.json" >"$tmp/out" 2>&1 && fail "4.3 plan took a prefix directory outside its library directories"
grep -q "sys.path entry '$tmp/venv/share/elsewhere'" "$tmp/out" || fail "4.4 the refusal does not name the entry: $(cat "$tmp/out")"
test_exit
