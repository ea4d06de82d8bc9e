#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t7160-audit-torch-params: a python reference's python.params is checked
# against its module (docs/audit.md, "params"), and a pair's two sides
# against each other (docs/formats.md, "python").
# A problem of nn.Linear then nn.LayerNorm (fc.weight, fc.bias, ln.weight,
# ln.bias), imported with `nodus import kernelbench`:
#   1. the audit builds the imported reference, calls it in its sandbox and
#      finds its module's floating tensors equal to the declaration (the
#      params finding passes; the JSON report has it);
#   2. declarations the module does not have fail the audit, each located
#      by the solution's file, line and column of the first declared entry
#      involved: 2.1 a shape (fc.weight [24, 32] for [32, 24]), 2.2 a dtype
#      (float64), 2.3 a name (ln.w for ln.weight: declared, not in the
#      module; ln.weight not declared), 2.4 an entry left out (ln.bias not
#      declared: located at the list), 2.5 an entry the module lacks
#      (extra.bias), 2.6 two entries exchanged (torch's order);
#   3. a candidate whose declaration is not its reference's is refused by
#      `nodus check` and `nodus plan`, at the pair, naming both solutions.
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
cat >"$src/lin_ln_new.py" <<'PYS'
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.ln = nn.LayerNorm(n_out)

    def forward(self, x):
        return self.ln(self.fc(x))
PYS

o=$tmp/kb
c=$o/campaign.json
ref=$o/solutions/lin_ln_ref.json
"$NODUS" import kernelbench "$src/lin_ln.py" -o "$o" >/dev/null 2>"$tmp/err" || fail "0.1 import exited $?: $(cat "$tmp/err")"
"$NODUS" import kernelbench-candidate "$src/lin_ln_new.py" --problem lin_ln -o "$o" --campaign "$c" \
	>/dev/null 2>"$tmp/err" || fail "0.2 candidate exited $?: $(cat "$tmp/err")"
cp "$ref" "$tmp/ref.orig"

# the audit's campaign: the reference against itself, so that a changed
# declaration is the reference's alone (3. checks the pairs)
python3 - "$c" "$o/audit.json" <<'PYS'
import json, sys
c = json.load(open(sys.argv[1]))
c["pairs"] = [{"workload": p["workload"], "candidate": p["reference"], "reference": p["reference"]}
              for p in c["pairs"]][:1]
c["solutions"] = [s for s in c["solutions"] if s.endswith("lin_ln_ref.json")]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PYS

# 1. the imported declaration is the module's
"$NODUS" audit "$o/audit.json" --cache "$tmp/cache" --format json -o "$tmp/a.json" >"$tmp/out" 2>&1
python3 - "$tmp/a.json" <<'PYS' || fail "1. the params finding of the imported reference: $(cat "$tmp/out")"
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for it in r["items"] for x in it["findings"] if x["check"] == "params"]
assert f and all(x["passed"] for x in f), f
assert all(it["run"] == "ran" for it in r["items"]), r["items"]
PYS

# 2. declarations the module does not have: EDIT (python over the params
# list d), the declared entry K the finding is located at ("-": the list
# itself) and the fragments the audit's text report must hold
line_of() { # the line of the params entry K of the reference ("-": of the list)
	python3 - "$ref" "$1" <<'PYS'
import sys
lines = open(sys.argv[1]).read().splitlines()
at = [i for i, l in enumerate(lines) if l.strip().startswith('"params"')][0]
if sys.argv[2] == "-":
    print(at + 1)
else:
    # json.dump(indent=2): each entry opens with a line of its own, "{"
    opens = [i for i in range(at + 1, len(lines)) if lines[i].strip() == "{"]
    print(opens[int(sys.argv[2])] + 1)
PYS
}
audit_case() { # NAME EDIT K FRAGMENT...
	local name=$1 edit=$2 k=$3
	shift 3
	cp "$tmp/ref.orig" "$ref"
	python3 - "$ref" "$edit" <<'PYS'
import json, sys
s = json.load(open(sys.argv[1]))
d = s["python"]["params"]
exec(sys.argv[2])
s["python"]["params"] = d
json.dump(s, open(sys.argv[1], "w"), indent=2)
PYS
	"$NODUS" audit "$o/audit.json" --cache "$tmp/cache" >"$tmp/out" 2>&1
	local rc=$?
	[ $rc -eq 1 ] || fail "$name: audit exited $rc, expected 1: $(cat "$tmp/out")"
	local frag
	for frag in "FAIL params: $ref:$(line_of "$k"):" "$@"; do
		grep -qF -- "$frag" "$tmp/out" || fail "$name: no '$frag' in: $(cat "$tmp/out")"
	done
}
audit_case 2.1 'd[0]["shape"] = [24, 32]' 0 \
	'$.python.params[0] fc.weight [24, 32] float32 is declared, the module has fc.weight [32, 24] float32'
audit_case 2.2 'd[2]["dtype"] = "float64"' 2 \
	'$.python.params[2] ln.weight [32] float64 is declared, the module has ln.weight [32] float32'
audit_case 2.3 'd[2]["name"] = "ln.w"' 2 \
	'2 difference(s) from the declaration: $.python.params[2] ln.w [32] float32 is declared, the module has no floating tensor ln.w' \
	"the module's ln.weight [32] float32 is not declared"
audit_case 2.4 'del d[3]' - \
	"1 difference(s) from the declaration: the module's ln.bias [32] float32 is not declared"
audit_case 2.5 'd.append({"name": "extra.bias", "shape": [32], "dtype": "float32"})' 4 \
	'$.python.params[4] extra.bias [32] float32 is declared, the module has no floating tensor extra.bias'
audit_case 2.6 'd[2], d[3] = d[3], d[2]' 2 \
	"\$.python.params[2] ln.bias [32] float32 is declared where torch's order has ln.weight"
cp "$tmp/ref.orig" "$ref"

# 3. a candidate declaring what its reference does not: check and plan
python3 - "$o/solutions/lin_ln_new.json" <<'PYS'
import json, sys
s = json.load(open(sys.argv[1]))
s["python"]["params"][2]["name"] = "ln_w"
json.dump(s, open(sys.argv[1], "w"), indent=2)
PYS
want='to declare the python.params of its reference "lin_ln_ref"'
"$NODUS" check "$c" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "3.1 nodus check exited $rc, expected 2: $(cat "$tmp/err")"
grep -qF "$want" "$tmp/err" || fail "3.2 nodus check: no '$want' in: $(cat "$tmp/err")"
grep -q 'campaign.json:[0-9]*:[0-9]*: \$.pairs\[[0-9]*\]: expected candidate "lin_ln_new"' "$tmp/err" ||
	fail "3.3 nodus check does not locate the pair: $(cat "$tmp/err")"
grep -qF '$.python.params[2] is ln_w [32] float32 in the candidate, ln.weight [32] float32 in the reference' "$tmp/err" ||
	fail "3.4 nodus check does not say what differs: $(cat "$tmp/err")"
"$NODUS" plan "$c" -o "$tmp/plan.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "3.5 nodus plan exited $rc, expected 2: $(cat "$tmp/err")"
grep -qF "$want" "$tmp/err" || fail "3.6 nodus plan: no '$want' in: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "t7160: declarations checked against the module and across a pair"
test_exit
