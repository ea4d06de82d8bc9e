#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t2100-audit: `nodus audit` flags a workload whose affine inputs are
# declared as ones/zeros, a reference with a dead input, and a reference
# whose output is below atol; it passes every bundled suite; `nodus plan`
# refuses an audited-bad task and seals it with a waiver, recorded in the
# plan, and `nodus serve` refuses to serve it; a Triton reference's calls
# are skipped, saying why.
set -u
: "${NODUS:?}" "${NODUS_SRC:?}"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$NODUS_SRC/tests/fixtures/mini" "$tmp/mini"
cd "$tmp/mini" || exit 1

# every bundled suite passes (cuda ones with their calls skipped here)
for c in "$NODUS_SRC"/suites/*/campaign.json "$NODUS_SRC"/suites/*/*/campaign.json; do
	"$NODUS" audit "$c" --cache "$tmp/cache" >"$tmp/out" 2>&1 ||
		fail "bundled $(basename "$(dirname "$c")"): $(cat "$tmp/out")"
done

# audit CAMPAIGN CHECK: the campaign fails the audit, naming CHECK
expect_flag() {
	"$NODUS" audit "$1" --cache "$tmp/cache" --format json -o "$tmp/audit.json"
	local rc=$?
	[ $rc -eq 1 ] || fail "$1: audit exited $rc, expected 1"
	python3 - "$tmp/audit.json" "$2" <<'PY' || fail "$1: $2 not flagged"
import json, sys
r, check = json.load(open(sys.argv[1])), sys.argv[2]
bad = [f["check"] for it in r["items"] for f in it["findings"] if not f["passed"]]
assert r["verdict"] == "FAIL" and check in bad, (r["verdict"], bad)
PY
}
edit() { # FILE PYTHON-EXPRESSION-ON-d
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
}

"$NODUS" audit campaign.json --cache "$tmp/cache" >/dev/null || fail "the mini campaign should pass"

# 1. affine inputs declared as ones and zeros: an affine task of our own
cp campaign.json affine.json
cp tasks/vec_add.json tasks/axpb.json
edit tasks/axpb.json 'd["name"] = "axpb"; d["inputs"] = [d["inputs"][0], {"name": "w", "dtype": "float32", "shape": ["n"], "init": {"dist": "affine_scale", "spread": 0.5}}, {"name": "b", "dtype": "float32", "shape": ["n"], "init": {"dist": "affine_shift", "spread": 0.5}}]'
cat >solutions/axpb_ref.c <<'C'
#include "nodus/solution.h"
int axpb_ref(const nodus_call *call)
{
	const float *x = call->inputs[0].data, *w = call->inputs[1].data, *b = call->inputs[2].data;
	float *z = call->outputs[0].data;
	for (int64_t i = 0; i < call->outputs[0].numel; i++)
		z[i] = x[i] * w[i] + b[i];
	return 0;
}
C
cp solutions/vec_add_ref.json solutions/axpb_ref.json
edit solutions/axpb_ref.json 'd.update(name="axpb_ref", task="axpb", sources=["axpb_ref.c"], entry="axpb_ref")'
cp workloads/vec_add_4k.json workloads/axpb_naive.json
edit workloads/axpb_naive.json 'd.update(name="axpb_naive", task="axpb", inputs={"w": {"init": {"dist": "constant", "value": 1}}, "b": {"init": {"dist": "constant", "value": 0}}})'
edit affine.json 'd.update(tasks=["tasks/axpb.json"], workloads=["workloads/axpb_naive.json"], solutions=["solutions/axpb_ref.json"], pairs=[{"workload": "axpb_naive", "candidate": "axpb_ref", "reference": "axpb_ref"}])'
expect_flag affine.json constant_input:w
expect_flag affine.json constant_input:b
expect_flag affine.json mutation:drop:w
# the same task with its declared draws passes, and each wrong formula is caught
cp workloads/axpb_naive.json workloads/axpb.json
edit workloads/axpb.json 'd["name"] = "axpb"; del d["inputs"]'
cp affine.json affine-ok.json
edit affine-ok.json 'd.update(workloads=["workloads/axpb.json"], pairs=[{"workload": "axpb", "candidate": "axpb_ref", "reference": "axpb_ref"}])'
"$NODUS" audit affine-ok.json --cache "$tmp/cache" --format json -o "$tmp/ok.json" ||
	fail "the affine task with its declared draws should pass"
python3 - "$tmp/ok.json" <<'PY' || fail "mutations not all checked"
import json, sys
checks = {f["check"] for it in json.load(open(sys.argv[1]))["items"] for f in it["findings"]}
want = {"mutation:drop:w", "mutation:one_plus:w", "mutation:abs:w", "mutation:drop:b", "mutation:swap:b",
        "mutation:bias_first:b", "dead_input:w", "dead_input:b", "constant_output",
        "output_below_atol", "loose_tolerance"}
assert want <= checks, want - checks
PY
# |w| for w: caught only on the negate trial, so a judge of one trial cannot tell them apart
cp affine-ok.json affine-one-trial.json
edit affine-one-trial.json 'd["judge"] = dict(d.get("judge", {}), trials=1)'
expect_flag affine-one-trial.json mutation:abs:w

# 2. a dead input: a reference that ignores y
cp campaign.json dead.json
sed 's/x\[i\] + y\[i\]/x[i] + 0.0f * y[i]/' solutions/vec_add_ref.c >solutions/vec_add_dead.c
cp solutions/vec_add_ref.json solutions/vec_add_dead.json
edit solutions/vec_add_dead.json 'd.update(name="vec_add_dead", sources=["vec_add_dead.c"])'
edit dead.json 'd["solutions"].append("solutions/vec_add_dead.json"); d["pairs"] = [{"workload": "vec_add_4k", "candidate": "vec_add_ref", "reference": "vec_add_dead"}]'
expect_flag dead.json dead_input:y

# 3. a reference output below atol
cp campaign.json small.json
cp workloads/vec_add_4k.json workloads/vec_add_loose.json
edit workloads/vec_add_loose.json 'd.update(name="vec_add_loose", tolerance={"atol": 1000.0})'
edit small.json 'd["workloads"] = ["workloads/vec_add_loose.json"]; d["pairs"] = [{"workload": "vec_add_loose", "candidate": "vec_add_unrolled", "reference": "vec_add_ref"}]'
expect_flag small.json output_below_atol

# plan refuses the naive affine campaign, and seals it with the waivers
"$NODUS" plan affine.json -o affine-plan.json --cache "$tmp/cache" >"$tmp/plan.out" 2>&1
[ $? -eq 1 ] || fail "plan of an audited-bad campaign should exit 1"
[ -e affine-plan.json ] && fail "a plan was written for an audited-bad campaign"
grep -q "constant_input:w" "$tmp/plan.out" || fail "plan does not name the failing check"
# nodus serve runs the same audit on its base campaign: it refuses to serve
# one that fails, naming the check, before it listens (exit 2)
timeout 120 "$NODUS" serve --db "$tmp/serve.db" --campaign affine.json --cache "$tmp/cache" \
	>"$tmp/serve.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "serve of an audited-bad campaign should exit 2, got $rc: $(tail -3 "$tmp/serve.out")"
grep -q "constant_input:w" "$tmp/serve.out" || fail "serve does not name the failing check: $(tail -5 "$tmp/serve.out")"
grep -q "listening" "$tmp/serve.out" && fail "serve listened with an audited-bad campaign"
edit affine.json 'd["audit"] = {"waive": [{"task": "axpb", "workload": "axpb_naive", "check": c, "reason": "t2100"} for c in ["constant_input:w", "constant_input:b", "dead_input:w", "dead_input:b", "mutation:drop:w", "mutation:drop:b", "mutation:bias_first:b"]]}'
"$NODUS" plan affine.json -o affine-plan.json --cache "$tmp/cache" >"$tmp/plan.out" 2>&1 ||
	fail "plan with waivers: $(cat "$tmp/plan.out")"
python3 - affine-plan.json <<'PY' || fail "waivers not recorded in the plan"
import json, sys
w = json.load(open(sys.argv[1]))["audit"]["waive"]
assert {"task": "axpb", "workload": "axpb_naive", "check": "constant_input:w", "reason": "t2100"} in w, w
PY
"$NODUS" verify affine-plan.json >/dev/null || fail "the waived plan does not verify"
# a waiver naming a task the campaign lacks is a campaign fault
edit affine.json 'd["audit"]["waive"][0]["task"] = "nope"'
"$NODUS" audit affine.json >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a waiver for an unknown task should exit 2"
grep -q 'audit.waive\[0\].task: expected a task of the campaign' "$tmp/out" || fail "waiver fault: $(cat "$tmp/out")"
# a Triton reference is not called, and the line says why (on any machine:
# without a GPU that reason comes before "no cuda backend")
cp -r "$NODUS_SRC/suites" "$tmp/suites"
edit "$tmp/suites/torch-cuda/campaign.json" 'd["pairs"] = [{"workload": "vector_scale_16m", "candidate": "vector_scale_torch", "reference": "vector_scale_triton"}]'
"$NODUS" audit "$tmp/suites/torch-cuda/campaign.json" --cache "$tmp/cache" >"$tmp/out" 2>&1 ||
	fail "audit of a Triton reference: $(cat "$tmp/out")"
grep -qF "reference vector_scale_triton; calls: skipped: a Triton reference (its module names triton) is not called by the audit" "$tmp/out" ||
	fail "the audit of a Triton reference does not say why it is not called: $(cat "$tmp/out")"
"$NODUS" audit --help | grep -q "usage: nodus audit" || fail "audit --help"
echo "t2100: $fails failures"
exit $((fails > 0))
