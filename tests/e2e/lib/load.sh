# SPDX-License-Identifier: MIT
# The machine's load, for end-to-end tests with an assertion that needs an
# idle machine (a label, a count of AMBIGUOUS records, an isolation check
# that must pass). Sourced by lib/campaign.sh. Such a test measures the load
# first; when the machine is too busy for the assertion it prints
# "skipped: machine busy (N cores busy): WHAT" and leaves that assertion
# out, and it ends with CTest's skip code (77, SKIP_RETURN_CODE in
# tests/CMakeLists.txt), never as a pass; every other assertion still runs.
#
# busy_cores [SECONDS]: cores kept busy by others over the next SECONDS
#   (default 1), from /proc/stat as nodus's own isolation check counts them.
# load_mark NAME / load_since NAME: the same, averaged from the mark to now,
#   less the CPU time of this shell and of the children it has waited for
#   (a nodus run and its workers), so that our own work does not count.
# max_cores CORES...: the largest.
# too_busy CORES: true when CORES is above BUSY_MAX_CORES (default 0.5, the
#   judge's default isolation_max_busy_cores: an idle machine is below it).
# skip_busy CORES WHAT: says that WHAT was not checked, and counts it.
# test_exit: 1 after any failure, else 77 after any skip, else 0.
: "${BUSY_MAX_CORES:=0.5}"
skips=0
# prints "busy total own": busy and total jiffies of all cpus, and this
# shell's own and waited children's (fields 14-17 of /proc/$$/stat)
load_snapshot() {
	local own
	own=$(sed 's/^.*) //' "/proc/$$/stat" | awk '{ print $12 + $13 + $14 + $15 }')
	awk -v own="$own" '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i
		print t - $5 - $6, t, own; exit }' /proc/stat
}
load_mark() {
	printf -v "$1" '%s' "$(load_snapshot)"
}
load_since() {
	local now
	now=$(load_snapshot)
	awk -v a="${!1}" -v b="$now" -v cpus="$(nproc)" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		busy = y[1] - x[1] - (y[3] - x[3]); total = y[2] - x[2]
		if (busy < 0) busy = 0
		printf "%.2f\n", (total > 0 ? busy / total * cpus : 0) }'
}
busy_cores() {
	local mark
	load_mark mark
	sleep "${1:-1}"
	load_since mark
}
max_cores() {
	printf '%s\n' "$@" | sort -g | tail -1
}
too_busy() {
	awk -v n="$1" -v max="$BUSY_MAX_CORES" 'BEGIN { exit !(n > max) }'
}
skip_busy() {
	echo "skipped: machine busy ($1 cores busy): $2"
	skips=$((skips + 1))
}
test_exit() {
	[ "$fails" -gt 0 ] && exit 1
	[ "$skips" -gt 0 ] && exit 77
	exit 0
}
