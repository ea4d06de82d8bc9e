#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t7150-run-torch-params: a module's parameters take the reference's values
# by name, then by order and shape (issue 20; docs/formats.md, "python").
# A problem of nn.Linear then nn.LayerNorm (fc.weight, fc.bias, ln.weight,
# ln.bias), imported with `nodus import kernelbench`, against candidates
# written here:
#   1. the import declares the reference's floating parameters in the
#      reference's python.params and the candidates', in torch's order;
#   2. honest candidates are OK: one that creates the LayerNorm before the
#      Linear (same names, another order: only the names match them), and
#      one that names the LayerNorm's weight and bias ln_w, ln_b and
#      declares them first (no name matches: order and shape do, after
#      fc.weight and fc.bias took theirs by name);
#   3. wrong affine formulas on the renamed parameters fail
#      INCORRECT_NUMERICAL: |w| for w, and the bias dropped (the redrawn
#      weight has both signs, the bias is not 0);
#   4. a bad python.params is refused by `nodus check` with the file, the
#      line and the field.
# Without /usr/bin/python3 importing torch it prints "skipped: no torch"
# and exits 77.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
require_torch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"

cat >"$src/lin_ln.py" <<'PYS'
# A Linear layer, then a LayerNorm with its affine parameters.
import torch
import torch.nn as nn

batch, n_in, n_out = 16, 24, 32


class Model(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.ln = nn.LayerNorm(n_out)

    def forward(self, x):
        return self.ln(self.fc(x))


def get_inputs():
    return [torch.randn(batch, n_in)]


def get_init_inputs():
    return [n_in, n_out]
PYS

# the same module, its parts created in the other order
cat >"$src/lin_ln_reordered.py" <<'PYS'
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.ln = nn.LayerNorm(n_out)
        self.fc = nn.Linear(n_in, n_out)

    def forward(self, x):
        return self.ln(self.fc(x))
PYS

# the LayerNorm's parameters under other names, created before the Linear;
# FORMULA is replaced below to make the wrong candidates
cat >"$src/renamed.in" <<'PYS'
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.ln_w = nn.Parameter(torch.ones(n_out))
        self.ln_b = nn.Parameter(torch.zeros(n_out))
        self.fc = nn.Linear(n_in, n_out)
        self.n_out = n_out

    def forward(self, x):
        y = self.fc(x)
        return FORMULA
PYS
sed 's/FORMULA/F.layer_norm(y, (self.n_out,), self.ln_w, self.ln_b)/' "$src/renamed.in" >"$src/lin_ln_renamed.py"
sed 's/FORMULA/F.layer_norm(y, (self.n_out,), self.ln_w.abs(), self.ln_b)/' "$src/renamed.in" >"$src/lin_ln_abs_weight.py"
sed 's/FORMULA/F.layer_norm(y, (self.n_out,), self.ln_w, None)/' "$src/renamed.in" >"$src/lin_ln_no_bias.py"

# 1. the declaration
o=$tmp/kb
c=$o/campaign.json
"$NODUS" import kernelbench "$src/lin_ln.py" -o "$o" >/dev/null 2>"$tmp/err" || fail "1.1 import exited $?: $(cat "$tmp/err")"
for cand in lin_ln_reordered lin_ln_renamed lin_ln_abs_weight lin_ln_no_bias; do
	"$NODUS" import kernelbench-candidate "$src/$cand.py" --problem lin_ln -o "$o" --campaign "$c" \
		>/dev/null 2>"$tmp/err" || fail "1.2 candidate $cand exited $?: $(cat "$tmp/err")"
done
python3 - "$o/solutions" <<'PYS' || fail "1.3 python.params"
import json, sys
want = [{"name": "fc.weight", "shape": [32, 24], "dtype": "float32"},
        {"name": "fc.bias", "shape": [32], "dtype": "float32"},
        {"name": "ln.weight", "shape": [32], "dtype": "float32"},
        {"name": "ln.bias", "shape": [32], "dtype": "float32"}]
for n in ("lin_ln_ref", "lin_ln_reordered", "lin_ln_renamed", "lin_ln_abs_weight", "lin_ln_no_bias"):
    got = json.load(open(f"{sys.argv[1]}/{n}.json"))["python"].get("params")
    assert got == want, (n, got)
PYS

# 2, 3. the pairs (correctness only: a short timing)
relax_isolation "$c" 1000
set_judge "$c" max_rounds 10
"$NODUS" plan "$c" -o "$tmp/plan.json" >"$tmp/out" 2>&1 || fail "2.1 plan: $(cat "$tmp/out")"
"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q 2>"$tmp/err" || fail "2.2 run exited $?: $(cat "$tmp/err")"
final_outcomes "$tmp/r.db" >"$tmp/outcomes"
sed 's/^/  /' "$tmp/outcomes"
python3 - "$tmp/outcomes" <<'PYS' || fail "2.3 the outcomes: $(cat "$tmp/outcomes")"
import sys
got = {}
for line in open(sys.argv[1]):
    pid, cond, expect, outcome, guard = line.split()
    got[pid.split("/")[1]] = outcome
ok = {"FASTER", "SLOWER", "TIED", "AMBIGUOUS", "EQUIVALENT"}
bad = []
for cand in ("lin_ln_reordered", "lin_ln_renamed"):
    if got.get(cand) not in ok:
        bad.append(f"2. honest {cand}: {got.get(cand)}, expected OK")
for cand in ("lin_ln_abs_weight", "lin_ln_no_bias"):
    if got.get(cand) != "INCORRECT_NUMERICAL":
        bad.append(f"3. wrong {cand}: {got.get(cand)}, expected INCORRECT_NUMERICAL")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PYS

# 4. a bad declaration: located by file, line and field
s=$o/solutions/lin_ln_renamed.json
python3 - "$s" <<'PYS'
import json, sys
d = json.load(open(sys.argv[1]))
d["python"]["params"][1]["dtype"] = "int32"
d["python"]["params"][3]["name"] = "ln..bias"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PYS
"$NODUS" check "$s" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] || fail "4.1 a bad python.params passed nodus check"
grep -q "lin_ln_renamed.json:[0-9]*:.*python.params\[1\].dtype" "$tmp/err" ||
	fail "4.2 the dtype's error does not name the file, line and field: $(cat "$tmp/err")"
grep -q "lin_ln_renamed.json:[0-9]*:.*python.params\[3\].name.*ln..bias" "$tmp/err" ||
	fail "4.3 the name's error does not name the file, line and field: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "t7150: parameters matched by name, then order and shape"
test_exit
