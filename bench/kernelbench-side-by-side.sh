#!/usr/bin/env bash
# kernelbench-side-by-side.sh: nodus and KernelBench's own evaluator on the
# same KernelBench level 1 problems and candidates, on one GPU (issue 20,
# "Side by side"): the A/A pairs and our own candidates
# (bench/kernelbench/candidates), each label of nodus's beside the share of
# KernelBench's evaluations that call the candidate faster.
#
#     bash bench/kernelbench-side-by-side.sh import KB OUT
#     bash bench/kernelbench-side-by-side.sh nodus  KB OUT [PROBLEM_NUMBER...]
#     bash bench/kernelbench-side-by-side.sh kb     KB OUT [REPS]
#     bash bench/kernelbench-side-by-side.sh summary KB OUT
#     bash bench/kernelbench-side-by-side.sh check  KB OUT
#
# KB is a KernelBench checkout (KB/KernelBench/level1, KB/src); nothing of it
# is committed to nodus. NODUS names the nodus binary (default
# build-gpu/nodus), PY the interpreter with a CUDA torch (default the
# python3 on PATH, not resolved: a venv's link leads to its base), BACKEND
# the backend (default cuda; cpu tries the script on a machine without GPU).
#   import   every level 1 problem, one `nodus import kernelbench --backend
#            cuda` each (IMPORT_JOBS at a time, default 4; none started
#            after the epoch second IMPORT_DEADLINE), into OUT/suite;
#            OUT/import.tsv has one line per problem: number, exit status,
#            seconds, the error's first line. A second call keeps what was
#            imported and tries the others again.
#   nodus    the A/A pairs of the problems named (default: 1, 40 and 88,
#            the issue's, then the problems of our candidates, then the
#            imported problems of at most 1 GiB of tensors, in number
#            order, up to 8): the problem against itself (one file, the
#            same content hash) and against a copy whose class is renamed
#            ModelNew (what KernelBench evaluates, another hash); then our
#            candidates of those problems (bench/kernelbench/candidates,
#            its README: pN_WHAT.py is a ModelNew for problem N; KB_CANDIDATES
#            names another folder, "" none), each imported as a user would,
#            `nodus import kernelbench-candidate --campaign` with the
#            file's `# expect:` (OUT/candidates.txt: what the importer
#            said); those that need CUDA are left out when BACKEND is not
#            cuda. Planned (the problems the judge audit refuses are left
#            out, OUT/audit-refused.txt says why), run under `isolated`
#            into OUT/nodus.db (--resume: a second call goes on), reported
#            as JSON.
#   kb       KernelBench's eval_kernel_against_ref on each renamed copy and
#            each candidate against its problem, REPS times each (default
#            10), as its run_and_check.py configures it
#            (bench/kernelbench/kb_eval.py; a Triton candidate with its
#            backend "triton"), into OUT/kb.jsonl (a second call goes on
#            where it stopped). The pairs are the last nodus call's
#            (OUT/kb-pairs.json).
#   summary  bench/kernelbench/summary.py: per pair, nodus's label and
#            interval, KernelBench's share of "faster" evaluations and mean
#            speedup, and whether they agree (nodus FASTER against a
#            KernelBench majority faster, SLOWER against a majority not
#            faster; TIED and AMBIGUOUS counted apart); the totals: the
#            agreement, how often each calls an A/A pair faster, GPU-seconds
#            per evaluation and per decided label.
#   check    bench/kernelbench/check-candidates.py: each candidate against
#            its problem by the importer's float32 rule, outside nodus and
#            KernelBench (on a GPU, the CUDA and Triton ones too), into
#            OUT/check.txt; a quick look before the other two judge them.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: kernelbench-side-by-side.sh import|nodus|kb|summary|check KB OUT ...}
KB=${2:?the KernelBench checkout}
OUT=${3:?the output directory}
shift 3
N=${NODUS:-$PWD/build-gpu/nodus}
PY=${PY:-$(command -v python3)}
BACKEND=${BACKEND:-cuda}
export BACKEND
L1=$KB/KernelBench/level1
suite=$OUT/suite
mkdir -p "$OUT" "$suite"
[ -d "$L1" ] || { echo "kernelbench-side-by-side: no $L1 (expected a KernelBench checkout)" >&2; exit 2; }

case $mode in
import)
	: >"$OUT/import.tsv"
	one() { # one problem: its own output directory, merged after
		local f=$1 n s rc e
		n=$(basename "$f" .py)
		# imported by an earlier call: kept (a second call tries the others)
		[ "$(cut -f2 "$OUT/import/$n/status.tsv" 2>/dev/null)" = 0 ] && return
		rm -rf "$OUT/import/$n"
		mkdir -p "$OUT/import/$n"
		if [ "$(date +%s)" -ge "${IMPORT_DEADLINE:-99999999999}" ]; then
			printf '%s	-	0	not run: IMPORT_DEADLINE passed\n' "${n%%_*}" >"$OUT/import/$n/status.tsv"
			return
		fi
		s=$(date +%s.%N)
		"$N" import kernelbench --backend "$BACKEND" --python "$PY" --timeout 240 "$f" \
			-o "$OUT/import/$n" >"$OUT/import/$n/out.txt" 2>"$OUT/import/$n/err.txt"
		rc=$?
		e=$(date +%s.%N)
		printf '%s\t%s\t%.1f\t%s\n' "${n%%_*}" "$rc" "$(echo "$e - $s" | bc)" \
			"$(grep -m1 '^nodus: ' "$OUT/import/$n/err.txt" | tr '\t' ' ' | cut -c1-300)" \
			>"$OUT/import/$n/status.tsv"
	}
	export -f one
	export N PY OUT IMPORT_DEADLINE
	# the study's default problems first, then in number order
	ls "$L1"/*.py | awk -F/ '{ n = $NF; sub(/_.*/, "", n); print (n == 1 || n == 40 || n == 88 ? 0 : n), $0 }' |
		sort -n | cut -d' ' -f2- | xargs -P "${IMPORT_JOBS:-4}" -I{} bash -c 'one "$@"' _ {}
	for d in "$OUT"/import/*/; do
		cat "$d/status.tsv" >>"$OUT/import.tsv"
		for sub in tasks workloads solutions; do
			[ -d "$d/$sub" ] && mkdir -p "$suite/$sub" && cp -n "$d/$sub"/* "$suite/$sub/"
		done
	done
	sort -n -o "$OUT/import.tsv" "$OUT/import.tsv"
	ok=$(awk -F'\t' '$2 == 0' "$OUT/import.tsv" | wc -l)
	echo "kernelbench-side-by-side: imported $ok of $(wc -l <"$OUT/import.tsv") level 1 problems (OUT/import.tsv)"
	;;
nodus)
	# the campaign: pairs.py's A/A pairs, then our candidates as a user
	# adds them. A candidate's files in the suite are ours, from an earlier
	# call: removed first, since the importer never overwrites a file (the
	# same bytes come back, so the plan is the same and --resume goes on)
	campaign() {
		"$PY" bench/kernelbench/pairs.py "$suite" "$L1" "$OUT" "$PY" "$@" || return 1
		: >"$OUT/candidates.txt"
		local file problem cand expect ex
		while IFS=$'\t' read -r file problem cand expect; do
			rm -f "$suite/solutions/$cand.json" "$suite/solutions/$(basename "$file")"
			ex=()
			[ "$expect" = - ] || ex=(--expect "$expect")
			echo "== $cand" >>"$OUT/candidates.txt"
			"$N" import kernelbench-candidate "$file" --problem "$problem" -o "$suite" \
				--python "$PY" --campaign "$OUT/campaign.json" "${ex[@]}" \
				>>"$OUT/candidates.txt" 2>&1 ||
				echo "kernelbench-side-by-side: candidate $cand not imported (OUT/candidates.txt says why)"
		done <"$OUT/candidates.tsv"
		# the importer keeps each previous campaign as .bakN; this one is
		# written afresh by pairs.py every call, so the copies keep nothing
		rm -f "$OUT"/campaign.json.bak*
		echo "kernelbench-side-by-side: $(grep -c '^added the pair' "$OUT/candidates.txt") of $(wc -l <"$OUT/candidates.tsv") candidates imported"
	}
	campaign "$@" || exit 1
	if ! "$N" plan "$OUT/campaign.json" -o "$OUT/plan.json" >"$OUT/plan.txt" 2>&1; then
		# the problems the judge audit refuses are left out, and said
		# (OUT/audit-refused.txt); the others are planned again
		cat "$OUT/plan.txt"
		cp "$OUT/plan.txt" "$OUT/audit-refused.txt"
		keep=$(awk '/^(PASS|FAIL) kb_/ { split($2, a, "/"); n = a[1]; sub(/^kb_/, "", n); sub(/_.*/, "", n)
			if ($1 == "PASS") ok[n] = 1; else bad[n] = 1 }
			END { for (n in ok) if (!(n in bad)) print n }' "$OUT/plan.txt" | sort -n | tr '\n' ' ')
		[ -n "$keep" ] || { echo "kernelbench-side-by-side: the audit refused every problem"; exit 1; }
		echo "kernelbench-side-by-side: planning again with the problems the audit passed: $keep"
		campaign $keep || exit 1
		"$N" plan "$OUT/campaign.json" -o "$OUT/plan.json" >"$OUT/plan.txt" 2>&1 ||
			{ cat "$OUT/plan.txt"; exit 1; }
	fi
	resume=()
	[ -f "$OUT/nodus.db" ] && resume=(--resume)
	"$N" run "$OUT/plan.json" --db "$OUT/nodus.db" --cache "$OUT/cache" "${resume[@]}" \
		>"$OUT/run.txt" 2>&1
	rc=$?
	"$N" report "$OUT/nodus.db" --format json -o "$OUT/report.json" >/dev/null 2>&1
	"$N" report "$OUT/nodus.db" >"$OUT/report.txt" 2>&1
	echo "kernelbench-side-by-side: nodus run exited $rc"
	exit $rc
	;;
kb)
	"$PY" bench/kernelbench/kb_eval.py --kernelbench "$KB/src" --pairs "$OUT/kb-pairs.json" \
		--reps "${1:-10}" -o "$OUT/kb.jsonl"
	;;
summary)
	"$PY" bench/kernelbench/summary.py "$OUT"
	;;
check)
	"$PY" bench/kernelbench/check-candidates.py "$L1" 2>&1 | tee "$OUT/check.txt"
	;;
*)
	echo "kernelbench-side-by-side: unknown mode '$mode' (import, nodus, kb, summary, check)" >&2
	exit 2
	;;
esac
