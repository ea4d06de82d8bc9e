#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t6100-run-sandbox: the sandbox attacks of suites/adversarial/sandbox (one
# source, sbx_attack.c, each attack both in the entry and in an ELF
# constructor) end as their campaign declares (REWARD_HACK) with the guard
# that stops them named, and none of them gets anything out:
#   - the orchestrator survives every one (the run ends by itself, exit 0,
#     and the store holds a final record for every pair);
#   - no process of an attempt is alive afterwards (every process an attack
#     starts is named nodus-sbx-esc), no worker of this run either;
#   - nothing was written (/tmp/nodus-sbx-*), nothing was run (the shell's
#     marker), the TCP listener saw no connection, no SysV segment with the
#     attack's key exists, every worker's private directory is gone;
#   - the secrets planted here (a file in /tmp, a variable in the
#     orchestrator's environment) appear nowhere in the store.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
listener=
cleanup() {
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	pkill -9 -f "$tmp/" 2>/dev/null
	pkill -9 -x nodus-sbx-esc 2>/dev/null
	rm -rf "$tmp" /tmp/nodus-sbx-secret /tmp/nodus-sbx-written /tmp/nodus-sbx-exec
}
trap cleanup EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
campaign="$tmp/suites/adversarial/sandbox/campaign.json"
relax_isolation "$campaign" 2.5
rm -f /tmp/nodus-sbx-written /tmp/nodus-sbx-exec
token="nodus-secret-$$-$RANDOM$RANDOM"
echo "$token" >/tmp/nodus-sbx-secret
chmod 644 /tmp/nodus-sbx-secret

# the TCP listener the connect attack aims at; it notes any connection
python3 - "$tmp/connected" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47613))
s.listen(8)
while True:
    c, _ = s.accept()
    open(sys.argv[1], "a").write("connection\n")
    c.close()
PY
listener=$!

"$NODUS" plan "$campaign" -o "$tmp/plan.json" >/dev/null || { echo "FAIL: plan"; exit 1; }
mkdir "$tmp/workers"
NODUS_SBX_SECRET="$token" TMPDIR="$tmp/workers" "$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q
rc=$?
[ "$rc" -eq 0 ] || fail "nodus run exited $rc: an attack reached the orchestrator"

# each attack ends as declared, with the guard that stops it
n=0
while read -r pid cond expect outcome guard; do
	n=$((n + 1))
	case "$pid" in
	*/sbx_keep_fd_ctor/*) want=load_census ;;
	*) want=syscall_filter ;;
	esac
	[ "$outcome" = "$expect" ] || fail "$pid: expected $expect, got $outcome ($guard)"
	[ "$guard" = "$want" ] || fail "$pid: expected guard $want, got $guard"
done < <(final_outcomes "$tmp/r.db")
pairs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['pairs']))" "$campaign")
[ "$n" -eq "$pairs" ] || fail "the store holds $n final records for $pairs pairs"
[ "$n" -ge 32 ] || fail "expected at least 32 attacks, got $n"

# nothing of any attempt is alive, nothing was left behind
sleep 0.5
[ "$(pgrep -x nodus-sbx-esc | wc -l)" -eq 0 ] || fail "a process an attack forked is still alive"
[ "$(count_processes "$tmp/bin/nodus")" -eq 0 ] || fail "a worker of the run is still alive"
[ -e /tmp/nodus-sbx-written ] && fail "an attack wrote /tmp/nodus-sbx-written"
[ -e /tmp/nodus-sbx-exec ] && fail "an attack ran a shell"
[ -n "$(find "$tmp/workers" -mindepth 1 -maxdepth 1)" ] &&
	fail "workers' directories are left: $(ls "$tmp/workers")"
find "$tmp" -name nodus-sbx-written | grep -q . && fail "an attack wrote a file in its directory"
[ -e "$tmp/connected" ] && fail "an attack connected to 127.0.0.1:47613"
python3 - <<'PY' || fail "a SysV segment with the attack's key exists"
import sys
key = 0x6e6f6475
for line in open("/proc/sysvipc/shm").read().splitlines()[1:]:
    if int(line.split()[0]) == key:
        sys.exit(1)
PY
# the secrets are nowhere in the store
grep -qa "$token" "$tmp/r.db" && fail "a planted secret reached the store"
grep -qa 'root:' "$tmp/r.db" && fail "/etc/shadow or /etc/passwd reached the store"
[ -n "${GUARDS_SANDBOX_OUT:-}" ] && cp "$tmp/r.db" "$GUARDS_SANDBOX_OUT"
[ "$fails" -eq 0 ] && echo "t6100: $n sandbox attacks stopped, nothing escaped"
exit $((fails > 0))
