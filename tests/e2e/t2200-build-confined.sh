#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t2200-build-confined: the build, the sealing and the audit hold against
# the attacks of suites/adversarial/toolchain (docs/sandbox.md, "The build and
# the audit").
#   1. Build attacks that read a file no solution may (.incbin /etc/shadow,
#      .incbin by a relative name, #include /etc/passwd, of a suite file
#      through "..", of /proc/self/environ, of a link to /etc/passwd,
#      __has_include, #pragma GCC dependency, an assembler .include) end
#      REWARD_HACK with the guard named; honest mistakes (a header of the
#      solution's directory not listed, named plainly, through "..", or from
#      a listed header; a typo; a compile error quoting a system header) end
#      COMPILE_ERROR, the unlisted ones saying what to add to sources; no
#      line of a foreign file is in any record; the honest solution with a
#      listed header is OK; the orchestrator survives and the store holds
#      every record. Once under Landlock (build_confined) and once with it
#      turned off (NODUS_TEST_NO_LANDLOCK: the dependency check,
#      build_outside_read / build_undeclared_read, and the log filter).
#   2. A listed header changed after sealing: verify names it, the plan's
#      digest changes, the compile cache rebuilds; a changed include/
#      header also misses the cache.
#   3. Rebinding flags (-Wl,--wrap=, -Wl,--defsym=, -Xlinker) and flags
#      that make the compiler read a file (-include, -imacros) fail check.
#   4. Sources that are symbolic links out of the solution's directory (to
#      /etc/passwd, through a link to /etc, to /proc/self/environ) fail
#      check and plan (source_outside); a link put in after sealing fails
#      verify and run (sealed_link).
#   5. A FIFO, a link to /dev/zero and a 20 GiB sparse file in place of a
#      sealed file: verify and run refuse them at once, in check's words.
#   6. References that write a file, run a shell, fork, or act from a
#      constructor during plan's audit: plan fails (guard sandbox) or the
#      act is contained; none of their files exists afterwards.
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"; rm -f /tmp/nodus-t2200-*' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
build="$tmp/suites/adversarial/toolchain"
relax_isolation "$build/campaign.json" 2.5

# records DB: candidate, status, guard, message, compile cache hits; one JSON line per record
records() {
	python3 - "$1" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for pid, status, guard, msg, cs in db.execute(
        "SELECT pair_id, status, guard, IFNULL(message, ''), compile_cache_hits"
        " FROM records WHERE final = 1 ORDER BY id"):
    print(json.dumps({"cand": pid.split("/")[1], "status": status, "guard": guard,
                      "message": msg, "hits": cs}))
PY
}

# check_builds DB MODE: the expectations of part 1
check_builds() {
	python3 - "$1" "$2" <<'PY' || fails=$((fails + 1))
import json, sqlite3, sys
db, mode = sys.argv[1], sys.argv[2]
ll = mode == "landlock"
hack = ("REWARD_HACK", "build_confined" if ll else "build_outside_read")
add = 'add "build_unlisted.h" to its "sources"'
want = {
    # attacks: files no solution may read, by every route to them
    "build_incbin_shadow": hack + ("/etc/shadow",),
    "build_incbin_relative": hack + ("/etc/passwd",),
    "build_include_passwd": hack + ("/etc/passwd",),
    "build_include_outside": hack + ("relu.json",),
    "build_include_proc": hack + ("/proc/self/environ",),
    "build_include_link": hack + ("/etc/passwd",),
    "build_has_include": hack + ("/etc/shadow",),
    # reads only the file's time, and gcc does not list it: Landlock alone sees it
    "build_pragma_dependency": hack + ("/etc/passwd",) if ll else ("OK", "", ""),
    "build_asm_include": hack + ("/etc/passwd",),
    # honest mistakes: a file of the solution's own directory, not listed; a typo
    "build_header_unlisted": ("COMPILE_ERROR", "build_undeclared_read", add),
    "build_header_dotdot": ("COMPILE_ERROR", "build_undeclared_read", add),
    "build_header_nested": ("COMPILE_ERROR", "build_undeclared_read", add),
    "build_header_typo": ("COMPILE_ERROR", "compile", "build_unlisetd.h: No such file"),
    "build_quote_system": ("COMPILE_ERROR", "compile", "build_quote_system.c:"),
    "build_header_listed": ("OK", "", ""),
}
foreign = [l.strip() for l in open("/etc/passwd") if len(l.strip()) > 4]
foreign += ['"kind": "task"', "max_error_cap", "extern void *memcpy", "__restrict __src"]
bad = 0
seen = set()
for pid, status, guard, msg in sqlite3.connect(db).execute(
        "SELECT pair_id, status, guard, IFNULL(message, '') FROM records WHERE final = 1"):
    cand = pid.split("/")[1]
    seen.add(cand)
    st, g, frag = want[cand]
    if status != st or guard != g or frag not in msg:
        print(f"FAIL: {mode}: {cand}: expected {st}/{g} naming {frag!r}, got {status}/{guard}: {msg}")
        bad = 1
    for line in foreign:
        if line in msg:
            print(f"FAIL: {mode}: {cand}: the record quotes another file ({line!r}): {msg}")
            bad = 1
    if cand == "build_quote_system" and "left out" not in msg:
        print(f"FAIL: {mode}: the filter did not say it left lines out: {msg}")
        bad = 1
    if not ll and guard not in ("", "compile") and "landlock unavailable" not in msg:
        print(f"FAIL: {mode}: {cand}: the record does not say Landlock was off: {msg}")
        bad = 1
if seen != set(want):
    print(f"FAIL: {mode}: records for {sorted(seen)}, expected {sorted(want)}")
    bad = 1
sys.exit(bad)
PY
}

# ---- 1. build attacks, under Landlock and without it ----
# a link out of the tree is made here, not committed (build_include_link.c)
ln -s /etc/passwd "$build/solutions/build_link.h"
"$NODUS" plan "$build/campaign.json" -o "$tmp/plan.json" --cache "$tmp/cache-plan" >/dev/null ||
	{ echo "FAIL: plan of the build campaign"; exit 1; }
for mode in landlock fallback; do
	if [ "$mode" = fallback ]; then export NODUS_TEST_NO_LANDLOCK=1; fi
	"$NODUS" run "$tmp/plan.json" --db "$tmp/$mode.db" --cache "$tmp/cache-$mode" -q ||
		fail "$mode: run exited $? (the orchestrator must survive every attack)"
	unset NODUS_TEST_NO_LANDLOCK
	check_builds "$tmp/$mode.db" "$mode"
	# no object in the cache carries /etc/shadow (no entry was kept for it)
	if [ -r /etc/shadow ] && [ -s /etc/shadow ]; then
		first=$(head -c 12 /etc/shadow)
		grep -lF -- "$first" "$tmp/cache-$mode"/*.so 2>/dev/null && fail "$mode: an object holds /etc/shadow"
	fi
done

# ---- 2. a listed header changed after sealing ----
digest1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$tmp/plan.json")
echo "/* changed after sealing */" >>"$build/solutions/build_listed.h"
out=$("$NODUS" verify "$tmp/plan.json" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "verify of a changed listed header exited $rc, expected 1: $out"
grep -q "build_listed.h: changed since sealing" <<<"$out" || fail "verify did not name the header: $out"
"$NODUS" plan "$build/campaign.json" -o "$tmp/plan2.json" --cache "$tmp/cache-plan" >/dev/null || fail "re-plan exited $?"
digest2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$tmp/plan2.json")
[ "$digest1" != "$digest2" ] || fail "the plan's digest did not change with the header"
# nodus's own header changes too: every object that read it must rebuild
echo "/* changed include */" >>"$tmp/include/nodus/solution.h"
"$NODUS" run "$tmp/plan2.json" --db "$tmp/rebuilt.db" --cache "$tmp/cache-landlock" -q || fail "run of the re-sealed plan exited $?"
while IFS= read -r rec; do
	cand=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["cand"])' "$rec")
	# the first pair builds the reference: the cache held it from part 1 under
	# the same key, but it read include/nodus/solution.h, which changed
	[ "$cand" = build_incbin_shadow ] &&
		{ python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1])["hits"] != 0)' "$rec" ||
			fail "the reference came from the cache although include/ changed: $rec"; }
	# by build_header_listed the reference is cached (built by the first
	# pair): the one hit is it, the candidate (its header changed) rebuilt
	[ "$cand" = build_header_listed ] &&
		{ python3 -c 'import json,sys; r=json.loads(sys.argv[1]); sys.exit(not (r["status"]=="OK" and r["hits"]==1))' "$rec" ||
			fail "the changed header did not rebuild (a stale cache entry ran): $rec"; }
done < <(records "$tmp/rebuilt.db")
[ -n "$(ls "$tmp"/cache-landlock/*.deps 2>/dev/null)" ] || fail "no cache entry lists its dependencies"
grep -q "include/nodus/solution.h" "$tmp"/cache-landlock/*.deps || fail "the cache does not track include/ headers"

# ---- 3. rebinding flags ----
out=$("$NODUS" check "$build/solutions/build_wrap_flags.json" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "check of rebinding flags exited $rc, expected 2: $out"
for frag in '"-Wl,--wrap=malloc" (an option list passed to another tool' '"-Wl,--defsym=' '"-Xlinker" (an option nodus sets itself or forbids'; do
	grep -qF -- "$frag" <<<"$out" || fail "check did not refuse $frag: $out"
done
out=$("$NODUS" check "$build/solutions/build_include_flag.json" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "check of -include/-imacros flags exited $rc, expected 2: $out"
for frag in '"-include"' '"-imacros"' '"--include=/etc/shadow"'; do
	grep -qF -- "$frag" <<<"$out" || fail "check did not refuse $frag: $out"
done

# ---- 4. sources that are links out of the solution's directory ----
mini="$tmp/mini"
cp -r "$NODUS_SRC/tests/fixtures/mini" "$mini"
relax_isolation "$mini/campaign.json" 2.5
sol="$mini/solutions/vec_add_unrolled.json"
src="$mini/solutions/vec_add_unrolled.c"
cp "$src" "$tmp/unrolled.c"
set_sources() { python3 - "$sol" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["sources"] = [sys.argv[2]]; json.dump(s, open(sys.argv[1], "w"))
PY
}
ln -s /etc "$mini/solutions/etc_link"
ln -s /proc/self/environ "$mini/solutions/environ.c"
ln -s /etc/passwd "$mini/solutions/passwd.c"
for s in passwd.c etc_link/passwd environ.c; do
	set_sources "$s"
	for cmd in check plan; do
		if [ "$cmd" = check ]; then out=$("$NODUS" check "$mini/campaign.json" 2>&1)
		else out=$("$NODUS" plan "$mini/campaign.json" -o "$tmp/mplan.json" --cache "$tmp/cache-mini" 2>&1); fi
		rc=$?
		[ "$rc" -eq 2 ] || fail "$cmd of a source linked out ($s) exited $rc, expected 2: $out"
		grep -q "guard source_outside" <<<"$out" || fail "$cmd of $s: source_outside not named: $out"
		grep -q "root:x:0" <<<"$out" && fail "$cmd of $s printed the linked file"
	done
done
set_sources vec_add_unrolled.c
"$NODUS" plan "$mini/campaign.json" -o "$tmp/mplan.json" --cache "$tmp/cache-mini" >/dev/null || fail "plan of the mini campaign exited $?"
# the same bytes, but through a link out of the suite, after sealing
cp "$tmp/unrolled.c" "$tmp/outside.c"
rm "$src" && ln -s "$tmp/outside.c" "$src"
for cmd in verify run; do
	if [ "$cmd" = verify ]; then out=$(timeout 60 "$NODUS" verify "$tmp/mplan.json" 2>&1)
	else out=$(timeout 60 "$NODUS" run "$tmp/mplan.json" --db "$tmp/link.db" -q 2>&1); fi
	rc=$?
	[ "$rc" -eq 1 ] || fail "$cmd with a sealed source turned into a link exited $rc, expected 1: $out"
	grep -q "guard sealed_link" <<<"$out" || fail "$cmd did not name sealed_link: $out"
done

# ---- 5. FIFO, /dev/zero, a huge sparse file in place of a sealed file ----
for kind in fifo zero sparse; do
	rm -f "$src"
	case $kind in
	fifo) mkfifo "$src"; frag="not a regular file" ;;
	zero) ln -s /dev/zero "$src"; frag="not a regular file" ;;
	sparse) truncate -s 20G "$src"; frag="more than the limit" ;;
	esac
	want=$("$NODUS" check "$sol" 2>&1 | grep -o "expected a readable regular file, got .*" | sed 's/got "[^"]*": /got /')
	for cmd in verify run; do
		if [ "$cmd" = verify ]; then out=$(timeout 60 "$NODUS" verify "$tmp/mplan.json" 2>&1)
		else out=$(timeout 60 "$NODUS" run "$tmp/mplan.json" --db "$tmp/$kind.db" -q 2>&1); fi
		rc=$?
		[ "$rc" -ne 124 ] || fail "$cmd hung on a $kind in place of a sealed file"
		[ "$rc" -eq 1 ] || fail "$cmd with a $kind exited $rc, expected 1: $out"
		grep -qF "$frag" <<<"$out" || fail "$cmd with a $kind does not say '$frag': $out"
		grep -qF "${want:-no message from check}" <<<"$out" || fail "$cmd with a $kind: not check's words ($want): $out"
	done
done
rm -f "$src"
cp "$tmp/unrolled.c" "$src"

# ---- 6. references acting during plan's audit ----
rm -f /tmp/nodus-t2200-*
out=$(timeout 300 "$NODUS" plan "$build/audit/campaign.json" -o "$tmp/aplan.json" --cache "$tmp/cache-audit" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "plan with attacking references exited $rc, expected 1 (audit failed): $out"
[ -e "$tmp/aplan.json" ] && fail "a plan was written although its audit failed"
for k in write exec fork; do
	grep -q "FAIL relu/relu_audit_$k (reference audit_ref_$k; calls: failed: .*guard sandbox" <<<"$out" ||
		fail "the audit did not refuse audit_ref_$k by the sandbox: $out"
done
grep -q "relu_audit_ctor (reference audit_ref_ctor; calls: ran)" <<<"$out" || fail "the constructor reference did not run contained: $out"
for f in write exec fork ctor ctor-exec; do
	[ -e "/tmp/nodus-t2200-audit-$f" ] && fail "a reference left /tmp/nodus-t2200-audit-$f during the audit"
done

[ "$fails" -eq 0 ] && echo "t2200: builds confined, sources sealed, references sandboxed"
exit $((fails > 0))
