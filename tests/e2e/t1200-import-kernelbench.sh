#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t1200-import-kernelbench.sh: `nodus import kernelbench` and
# `nodus import kernelbench-candidate` (docs/import.md).
#   1. the bundled suites/torch/kernelbench is what the importer makes: its
#      five problems imported afresh give the committed tasks, workloads
#      and reference solutions byte for byte, and its candidates the
#      committed candidate solutions; the sources already in place are kept;
#   2. what the importer decides: torch.rand's [0, 1) replaced by nodus's
#      normal(0, 1), said on stderr and in the task's description; a size
#      passed to get_init_inputs() is a const axis; the campaign check;
#   3. bad problems are refused with the file and line, writing nothing: a
#      syntax error, no get_inputs, an exception in get_inputs() (its last
#      traceback line), a non-tensor input; an existing output file is
#      never overwritten; an unknown --problem;
#   4. --campaign: a new campaign that `nodus check` accepts, then one more
#      pair with the previous content kept as C.json.bak1; the same pair
#      again is refused and the campaign left as it was;
#   5. --backend cuda writes cuda solutions and a cuda campaign; a backend
#      nodus does not have is refused;
#   6. a tuple argument of get_init_inputs() (a kernel size) is kept as an
#      array in python.init and reaches the constructor as a tuple: the pair
#      runs;
#   7. --keep-going writes the problems that can be imported and says why
#      each other one cannot (exit 1; 2 when none can).
# Without /usr/bin/python3 importing torch it prints "skipped: no torch".
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
require_torch
skips=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kb=$NODUS_SRC/suites/torch/kernelbench

# 1. the bundled suite is a fresh import
"$NODUS" import kernelbench "$kb"/solutions/{softmax_eager,layernorm_affine,gelu_tanh_eager,relu_chain,linear_relu}.py \
	-o "$tmp/kb" >"$tmp/out" 2>"$tmp/err" || fail "1.1 import exited $?: $(cat "$tmp/err")"
for f in "$kb"/tasks/*.json "$kb"/workloads/*.json "$kb"/solutions/*_ref.json; do
	rel=${f#"$kb"/}
	cmp -s "$f" "$tmp/kb/$rel" || fail "1.2 $rel differs from a fresh import: $(diff "$f" "$tmp/kb/$rel" | head -5)"
done
python3 - "$kb/campaign.json" >"$tmp/cands" <<'PYS'
import json, sys
c = json.load(open(sys.argv[1]))
seen = set()
for p in c["pairs"]:
    if not p["candidate"].endswith("_ref") and p["candidate"] not in seen:
        seen.add(p["candidate"])
        print(p["candidate"], p["workload"])
PYS
[ "$(wc -l <"$tmp/cands")" -ge 15 ] || fail "1.3 expected at least 15 candidates in the campaign"
while read -r cand problem; do
	"$NODUS" import kernelbench-candidate "$kb/solutions/$cand.py" --problem "$problem" -o "$tmp/kb" \
		>/dev/null 2>"$tmp/err" || fail "1.4 candidate $cand exited $?: $(cat "$tmp/err")"
	cmp -s "$kb/solutions/$cand.json" "$tmp/kb/solutions/$cand.json" ||
		fail "1.5 solutions/$cand.json differs from a fresh import"
done <"$tmp/cands"
# into the suite's own directory: the sources there are kept, not copied
mkdir -p "$tmp/same/solutions"
cp "$kb/solutions/relu_chain.py" "$tmp/same/solutions/"
"$NODUS" import kernelbench "$tmp/same/solutions/relu_chain.py" -o "$tmp/same" >"$tmp/out" 2>&1 ||
	fail "1.6 import into the source's own directory: $(cat "$tmp/out")"
grep -q "wrote $tmp/same/solutions/relu_chain.py" "$tmp/out" && fail "1.7 the source in place was rewritten"

# 2. the decisions, said
"$NODUS" import kernelbench "$kb/solutions/softmax_eager.py" -o "$tmp/two" >/dev/null 2>"$tmp/err" ||
	fail "2.1 import exited $?"
grep -q "softmax_eager.py: input x: get_inputs() drew values in \[0, 1) (torch.rand's); nodus draws normal(0, 1)" \
	"$tmp/err" || fail "2.2 the replaced draw is not said on stderr: $(cat "$tmp/err")"
python3 - "$tmp/two/tasks/softmax_eager.json" "$tmp/kb/tasks/linear_relu.json" <<'PYS' || fail "2.3 the tasks"
import json, sys
t = json.load(open(sys.argv[1]))
assert "torch.rand's" in t["description"] and "normal(0, 1)" in t["description"], t["description"]
assert t["inputs"][0]["init"] == {"dist": "normal", "mean": 0, "std": 1}, t["inputs"][0]
assert t["axes"] == {"batch_size": {"type": "var"}, "dim": {"type": "var"}}, t["axes"]
l = json.load(open(sys.argv[2]))
assert l["axes"]["in_features"] == {"type": "const", "value": 256}, l["axes"]
assert l["axes"]["batch_size"] == {"type": "var"}, l["axes"]
PYS

# 3. bad problems: file and line, nothing written
bad=$tmp/bad
mkdir -p "$bad"
printf 'import torch\nimport torch.nn as nn\n\nclass Model(nn.Module)\n    pass\n' >"$bad/syntax.py"
printf 'import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return x\n\ndef get_init_inputs():\n    return []\n' >"$bad/noinputs.py"
printf 'import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return x\n\ndef get_inputs():\n    return [torch.rand(4, undefined_size)]\n\ndef get_init_inputs():\n    return []\n' >"$bad/raises.py"
printf 'import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def forward(self, x, k):\n        return x * k\n\ndef get_inputs():\n    return [torch.rand(4, 8), 3]\n\ndef get_init_inputs():\n    return []\n' >"$bad/scalar.py"
check_bad() { # CASE FILE EXPECTED-MESSAGE
	"$NODUS" import kernelbench "$bad/$2" -o "$tmp/badout" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$1 $2: exit $rc, expected 2"
	grep -qF -- "$3" "$tmp/err" || fail "$1 $2: expected '$3', got: $(cat "$tmp/err")"
	[ -e "$tmp/badout" ] && fail "$1 $2: something was written" && rm -rf "$tmp/badout"
}
check_bad 3.1 syntax.py "nodus: $bad/syntax.py:4: SyntaxError: expected ':'"
check_bad 3.2 noinputs.py "nodus: $bad/noinputs.py: defines no 'get_inputs' (a KernelBench problem defines"
check_bad 3.3 raises.py "nodus: $bad/raises.py:9: get_inputs(): NameError: name 'undefined_size' is not defined"
check_bad 3.4 scalar.py "nodus: $bad/scalar.py:8: get_inputs() item 1: expected a tensor, got int"
# two problems, the second bad: the first is not written either
"$NODUS" import kernelbench "$kb/solutions/relu_chain.py" "$bad/syntax.py" -o "$tmp/badout" >/dev/null 2>&1
[ -e "$tmp/badout" ] && fail "3.5 a refused import of two problems wrote the first"
# an existing file is never overwritten
"$NODUS" import kernelbench "$kb/solutions/relu_chain.py" -o "$tmp/two" >/dev/null 2>"$tmp/err" ||
	fail "3.6 import of a second problem into the same directory exited $?"
cp "$tmp/two/tasks/relu_chain.json" "$tmp/before.json"
"$NODUS" import kernelbench "$kb/solutions/relu_chain.py" -o "$tmp/two" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "3.7 importing over existing files exited $rc, expected 2"
grep -qF "'$tmp/two/tasks/relu_chain.json' exists: nodus import never overwrites a file" "$tmp/err" ||
	fail "3.8 message: $(cat "$tmp/err")"
cmp -s "$tmp/before.json" "$tmp/two/tasks/relu_chain.json" || fail "3.9 the existing task changed"
"$NODUS" import kernelbench-candidate "$kb/solutions/relu_chain_double.py" --problem nosuch -o "$tmp/two" \
	>/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "no imported problem in" "$tmp/err" || fail "3.10 unknown --problem: $(cat "$tmp/err")"
"$NODUS" import kernelbench --python /no/such/python "$kb/solutions/relu_chain.py" -o "$tmp/x" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "expected an executable interpreter" "$tmp/err" || fail "3.11 --python: $(cat "$tmp/err")"
"$NODUS" import --help | grep -q "nodus import kernelbench PROBLEM.py... -o DIR" || fail "3.12 --help"

# 4. --campaign: new, then one more pair with a backup, then refused
c=$tmp/two/campaign.json
"$NODUS" import kernelbench-candidate "$kb/solutions/relu_chain_double.py" --problem relu_chain -o "$tmp/two" \
	--campaign "$c" --expect SLOWER >"$tmp/out" 2>"$tmp/err" || fail "4.1 exited $?: $(cat "$tmp/err")"
"$NODUS" check "$c" >/dev/null 2>"$tmp/err" || fail "4.2 the new campaign: $(cat "$tmp/err")"
cp "$c" "$tmp/c1.json"
"$NODUS" import kernelbench-candidate "$kb/solutions/relu_chain_plus_one.py" --problem relu_chain -o "$tmp/two" \
	--campaign "$c" >"$tmp/out" 2>"$tmp/err" || fail "4.3 exited $?: $(cat "$tmp/err")"
cmp -s "$tmp/c1.json" "$c.bak1" || fail "4.4 the previous campaign is not kept as $c.bak1"
grep -q "kept the previous $c as $c.bak1" "$tmp/out" || fail "4.5 the backup is not said: $(cat "$tmp/out")"
python3 - "$c" <<'PYS' || fail "4.6 the campaign's pairs"
import json, sys
c = json.load(open(sys.argv[1]))
got = [(p["candidate"], p["reference"], p.get("expect")) for p in c["pairs"]]
assert got == [("relu_chain_ref", "relu_chain_ref", "EQUIVALENT"), ("relu_chain_double", "relu_chain_ref", "SLOWER"),
               ("relu_chain_plus_one", "relu_chain_ref", None)], got
assert c["target"]["python"] == "/usr/bin/python3", c["target"]
PYS
"$NODUS" check "$c" >/dev/null 2>"$tmp/err" || fail "4.7 the grown campaign: $(cat "$tmp/err")"
cp "$c" "$tmp/c2.json"
rm "$tmp/two/solutions/relu_chain_plus_one.json"
"$NODUS" import kernelbench-candidate "$kb/solutions/relu_chain_plus_one.py" --problem relu_chain -o "$tmp/two" \
	--campaign "$c" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "already has the pair relu_chain/relu_chain_plus_one/relu_chain_ref" "$tmp/err" ||
	fail "4.8 the same pair again: $(cat "$tmp/err")"
cmp -s "$tmp/c2.json" "$c" || fail "4.9 a refused pair changed the campaign"
[ -e "$c.bak2" ] && fail "4.10 a refused pair left a backup"

# 5. --backend cuda: the problem's reference, its candidate and a new
# campaign's target say cuda (no GPU needed: plan is not run)
"$NODUS" import kernelbench --backend cuda "$kb/solutions/relu_chain.py" -o "$tmp/gpu" >/dev/null 2>"$tmp/err" ||
	fail "5.1 exited $?: $(cat "$tmp/err")"
"$NODUS" import kernelbench-candidate "$kb/solutions/relu_chain_double.py" --problem relu_chain -o "$tmp/gpu" \
	--campaign "$tmp/gpu/campaign.json" >/dev/null 2>"$tmp/err" || fail "5.2 exited $?: $(cat "$tmp/err")"
python3 - "$tmp/gpu" <<'PYS' || fail "5.3 the backend of the documents"
import json, sys
d = sys.argv[1]
got = [json.load(open(f"{d}/solutions/{n}.json"))["backend"] for n in ("relu_chain_ref", "relu_chain_double")]
got.append(json.load(open(f"{d}/campaign.json"))["target"]["backend"])
assert got == ["cuda"] * 3, got
PYS
"$NODUS" import kernelbench --backend tpu "$kb/solutions/relu_chain.py" -o "$tmp/tpu" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "backend: expected cpu or cuda, got 'tpu'" "$tmp/err" || fail "5.4 --backend tpu: $(cat "$tmp/err")"

# 6. a tuple in get_init_inputs() (a kernel size): python.init keeps it as
# an array, the constructor gets a tuple again, and the pair runs
mkdir -p "$tmp/tup"
cat >"$tmp/tup/conv_asym.py" <<'PYS'
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        assert isinstance(kernel_size, tuple), type(kernel_size)
        self.conv = nn.Conv2d(channels, channels, kernel_size, padding=(1, 2), bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 4, 16, 16)]


def get_init_inputs():
    return [4, (3, 5)]
PYS
sed 's/\bModel\b/ModelNew/g' "$tmp/tup/conv_asym.py" >"$tmp/tup/conv_asym_new.py"
"$NODUS" import kernelbench "$tmp/tup/conv_asym.py" -o "$tmp/tup/out" >/dev/null 2>"$tmp/err" ||
	fail "6.1 a tuple argument: exited $?: $(cat "$tmp/err")"
"$NODUS" import kernelbench-candidate "$tmp/tup/conv_asym_new.py" --problem conv_asym -o "$tmp/tup/out" \
	--campaign "$tmp/tup/out/campaign.json" >/dev/null 2>"$tmp/err" || fail "6.2 exited $?: $(cat "$tmp/err")"
python3 -c 'import json, sys; i = json.load(open(sys.argv[1]))["python"]["init"]; sys.exit(i != [4, [3, 5]])' \
	"$tmp/tup/out/solutions/conv_asym_ref.json" || fail "6.3 python.init is not [4, [3, 5]]"
relax_isolation "$tmp/tup/out/campaign.json" 1000
set_judge "$tmp/tup/out/campaign.json" max_rounds 10
if "$NODUS" plan "$tmp/tup/out/campaign.json" -o "$tmp/tup/plan.json" >"$tmp/out" 2>&1; then
	"$NODUS" run "$tmp/tup/plan.json" --db "$tmp/tup/r.db" -q 2>"$tmp/err" || fail "6.5 run exited $?: $(cat "$tmp/err")"
	n=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
	    \"SELECT COUNT(*) FROM records WHERE final = 1 AND status = 'OK'\").fetchone()[0])" "$tmp/tup/r.db")
	[ "$n" = 2 ] || fail "6.6 $n of 2 pairs OK: $(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
	    'SELECT status, message FROM records WHERE final = 1').fetchall())" "$tmp/tup/r.db" | head -c 600)"
else
	fail "6.4 plan: $(cat "$tmp/out")"
fi

# 7. --keep-going: the good problem written, the bad one said and left out,
# exit 1; without it the same two write nothing (item 3)
mkdir -p "$tmp/kg"
printf 'import torch\ndef get_inputs():\n    return [1.5]\n' >"$tmp/kg/no_model.py"
"$NODUS" import kernelbench --keep-going "$kb/solutions/relu_chain.py" "$tmp/kg/no_model.py" -o "$tmp/kg/out" \
	>/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "7.1 --keep-going with one bad problem exited $rc, expected 1: $(cat "$tmp/err")"
[ -f "$tmp/kg/out/tasks/relu_chain.json" ] || fail "7.2 the good problem was not written"
[ -e "$tmp/kg/out/tasks/no_model.json" ] && fail "7.3 the bad problem was written"
grep -q "no_model.py: defines no 'Model'" "$tmp/err" && grep -q "imported 1 of 2 problem(s); left out: $tmp/kg/no_model.py" "$tmp/err" ||
	fail "7.4 the refusal and the summary: $(cat "$tmp/err")"
"$NODUS" import kernelbench --keep-going "$tmp/kg/no_model.py" -o "$tmp/kg/none" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "none of the 1 problem(s) could be imported" "$tmp/err" && [ ! -e "$tmp/kg/none" ] ||
	fail "7.5 --keep-going with no good problem: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "t1200: the bundled kernelbench suite is a fresh import; bad problems refused in words"
test_exit
