#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3910-run-study-torch-sample: the study suite's KernelBench-format half
# (suites/study/torch-cuda, torch-cpu) seals, and a sample of its cpu half
# gets the labels its construction promises, with Debian's torch.
# 1. `nodus plan` seals both torch halves (on the cpu half the judge audit
#    imports and calls every family's reference Model; on a machine without
#    a GPU the cuda half's calls are skipped, its inputs and tolerances still
#    audited); the plans keep every pair with its declared expect and effect.
# 2. Four quick pairs of the cpu half run under `isolated` with few rounds:
#    torch.softmax against the formula written out (FASTER), LayerNorm's
#    formula against nn.LayerNorm with redrawn parameters (SLOWER), an A/A
#    pair of one ReLU (TIED) and cuBLAS's TF32 switch, which does nothing on
#    the cpu (EQUIVALENT: any label). Every record ends OK with its expect or
#    AMBIGUOUS; a contradicting label fails unless the machine was too busy
#    for a timing label to be trusted (then "skipped: machine busy").
# Without an interpreter that imports torch the test is skipped, saying so.
set -u
. "$(dirname "$0")/lib/campaign.sh"
require_torch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
S=$tmp/suites/study

# 1. both torch halves seal
for half in torch-cuda torch-cpu; do
	"$NODUS" plan "$S/$half/campaign.json" -o "$tmp/$half-plan.json" >"$tmp/$half-plan.out" 2>&1 ||
		fail "plan $half: $(tail -5 "$tmp/$half-plan.out")"
	python3 - "$S/$half/campaign.json" "$tmp/$half-plan.json" <<'PY' || fail "plan $half keeps the pairs"
import json, sys
c, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = [(x["expect"], x.get("effect")) for x in c["pairs"]]
got = [(x["expect"], x.get("effect")) for x in p["pairs"]]
sys.exit(0 if want == got and len(got) >= 50 else 1)
PY
done

# 2. a sample of the cpu half
python3 - "$S/torch-cpu/campaign.json" <<'PY'
import json, sys
path = sys.argv[1]
c = json.load(open(path))
keep = {
    "t_softmax_w/t_softmax_fused/t_softmax_ref",            # one kernel against five: FASTER
    "t_layernorm_w/t_layernorm_manual/t_layernorm_ref",     # the formula written out: SLOWER
    "t_relu_launch_w/t_relu_launch_s1/t_relu_launch_s1",    # A/A, one ReLU: TIED
    "t_tf32_w/t_tf32_on/t_tf32_ref",                        # TF32 does nothing here: EQUIVALENT
}
c["pairs"] = [p for p in c["pairs"] if f'{p["workload"]}/{p["candidate"]}/{p["reference"]}' in keep]
assert len(c["pairs"]) == len(keep), "a sample pair is missing from the campaign"
c["conditions"] = [x for x in c["conditions"] if x["name"] == "isolated"]
c["judge"].update(min_rounds=10, max_rounds=20, look_every=10)
json.dump(c, open(path, "w"), indent=1)
PY
busy=$(busy_cores 1)
relax_isolation "$S/torch-cpu/campaign.json" 1000
"$NODUS" plan "$S/torch-cpu/campaign.json" -o "$tmp/sample.json" >"$tmp/sample.out" 2>&1 ||
	fail "plan of the sample: $(tail -3 "$tmp/sample.out")"
load_mark run
"$NODUS" run "$tmp/sample.json" --db "$tmp/r.db" --condition isolated -q || fail "run exited $?"
during=$(load_since run)
busy=$(max_cores "$busy" "$during")
# a label against the construction is run again once, in new processes
# (lib/campaign.sh, expect_constructed): a fault of the suite repeats
rerun_against "$S/torch-cpu/campaign.json" "$tmp/r.db"
expect_constructed "$tmp/r.db" "$busy" 4 "$again"
test_exit
