#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t3900-run-study-sample: the study suite (suites/study) seals, and a
# sample of its cpu half gets the labels its construction promises.
# 1. `nodus plan` seals both halves, cuda and cpu, with the judge audit
#    that plan runs (on the cpu half it builds and calls every family's
#    reference; without a GPU the cuda half's calls are skipped, its
#    inputs and tolerances still audited); the plans keep every pair with
#    its declared expect and effect.
# 2. Eight pairs of the cpu half, chosen to be quick on 2 cores (A/A pairs
#    of a call-bound and a compute-bound family, near-ties of 10% both
#    ways and of 1%, the split candidate against one call of the same
#    work, and a resource-profile pair: cached against recomputed), are run
#    under `isolated` with few rounds (10, one look at most after that at
#    20): every record ends OK, and its label is its expect or AMBIGUOUS
#    (EQUIVALENT: any label). A label that contradicts the construction is
#    run again once, in new processes, and fails if it does so again (an
#    offset between one pair of processes does not repeat; a fault of the
#    suite does), unless the machine was too busy for a timing label to be
#    trusted (then it is skipped, said as "skipped: machine busy", lib/load.sh).
# 3. A family's entries are one build (the build cache keys a native
#    solution without its entry): every trip pair's record hit the cache.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy_suites "$tmp"
S=$tmp/suites/study

# 1. both halves seal
for half in cuda cpu; do
	"$NODUS" plan "$S/$half/campaign.json" -o "$tmp/$half-plan.json" >"$tmp/$half-plan.out" 2>&1 ||
		fail "plan $half: $(tail -5 "$tmp/$half-plan.out")"
	python3 - "$S/$half/campaign.json" "$tmp/$half-plan.json" <<'PY' || fail "plan $half keeps the pairs"
import json, sys
c, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = [(x["expect"], x.get("effect")) for x in c["pairs"]]
got = [(x["expect"], x.get("effect")) for x in p["pairs"]]
sys.exit(0 if want == got and len(got) >= 200 else 1)
PY
done

# 2. a sample of the cpu half
python3 - "$S/cpu/campaign.json" <<'PY'
import json, sys
path = sys.argv[1]
c = json.load(open(path))
keep = {
    "tiny_square_w/tiny_square_t4/tiny_square_t4",        # A/A, call-bound, short
    "poly_w/poly_t1/poly_t1",                             # A/A, compute-bound, short
    "poly_w/poly_t100/poly_t110",                         # 10% less work: FASTER
    "rsqrt_newton_w/rsqrt_newton_t110/rsqrt_newton_t100", # 10% more work: SLOWER
    "tiny_square_w/tiny_square_t100/tiny_square_t110",    # 10%, call-bound: FASTER
    "poly_w/poly_t100/poly_t101",                         # 1%: TIED
    "poly_w/poly_split4/poly_t1000",                      # four calls of a quarter: TIED
    "cached_table_w/cached_table_cached/cached_table_recomputed",  # EQUIVALENT
}
c["pairs"] = [p for p in c["pairs"] if f'{p["workload"]}/{p["candidate"]}/{p["reference"]}' in keep]
assert len(c["pairs"]) == len(keep), "a sample pair is missing from the campaign"
c["conditions"] = [x for x in c["conditions"] if x["name"] == "isolated"]
c["judge"].update(min_rounds=10, max_rounds=20, look_every=10)
json.dump(c, open(path, "w"), indent=1)
PY
busy=$(busy_cores 1)
relax_isolation "$S/cpu/campaign.json" 1000
"$NODUS" plan "$S/cpu/campaign.json" -o "$tmp/sample.json" >/dev/null 2>&1 || fail "plan of the sample"
load_mark run
"$NODUS" run "$tmp/sample.json" --db "$tmp/r.db" --condition isolated -q || fail "run exited $?"
during=$(load_since run)
busy=$(max_cores "$busy" "$during")
# a label against the construction is run again once, in new processes
# (lib/campaign.sh, expect_constructed): a fault of the suite repeats
rerun_against "$S/cpu/campaign.json" "$tmp/r.db"
expect_constructed "$tmp/r.db" "$busy" 8 "$again"
# 3. the entries of one source are one build: every side of a trip pair
#    (FAMILY_tN against FAMILY_tM) was in the cache the plan filled with
#    the family's reference, so its record paid no compile
python3 - "$tmp/r.db" <<'PY' || fail "entries of one source built more than once"
import re, sqlite3, sys
n = 0
for pid, hits, compile_s in sqlite3.connect(sys.argv[1]).execute(
        "SELECT pair_id, compile_cache_hits, compile_s FROM records WHERE final = 1"):
    _, cand, ref = pid.split("/")
    if re.search(r"_t\d+$", cand) and re.search(r"_t\d+$", ref):
        n += 1
        assert hits == 2 and compile_s == 0, (pid, hits, compile_s)
assert n >= 4, n
PY
test_exit
