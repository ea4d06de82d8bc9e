#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4300-report-screenshot.sh: the HTML report as a person sees it, drawn by
# headless Chromium (Debian's chromium; issue 19): `nodus demo` on a small
# cpu campaign writes the page, Chromium renders it, and
#   1. the rendered DOM holds what a reader looks for: the label table
#      with every pair, the heatmap, the cost table, the A/A noise line,
#      a reason for every failed row, the interval figure, and the one pair
#      declared wrongly on purpose (the slow candidate said FASTER) marked
#      as not what was declared, and only it (with the other pairs the JSON
#      report flags), each outcome the JSON flags marked too;
#   2. the screenshot (1280 x 1600) is a drawn page, not a blank or an
#      error page: between 3% and 60% of its pixels are not white, and it
#      is in colour (the label cells, the heatmap);
#   3. the page needs no horizontal scrolling at 1280 pixels: no row of
#      the screenshot is drawn in its last 8 columns (a table wider than
#      the window would cross them with its borders).
# Without chromium, or with one that cannot render about:blank here, it
# prints "skipped: ..." and exits 77.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	echo "skipped: no chromium (Debian's chromium package; scripts/deps.sh installs it)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" rmsnorm >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 1000
# one pair declared wrongly on purpose: the slow candidate said FASTER; its
# row's expect must be marked as missed
python3 - "$tmp/suites/cpu/campaign.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for p in c["pairs"]:
    if p["candidate"] == "rmsnorm_slow":
        p["expect"] = "FASTER"
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
"$NODUS" demo --cpu --campaign "$tmp/suites/cpu/campaign.json" --out "$tmp/demo" >"$tmp/out" 2>"$tmp/err" ||
	fail "demo exited $?: $(tail -5 "$tmp/err")"
page=$tmp/demo/report.html
[ -s "$page" ] || { echo "FAIL: no page"; exit 1; }
# a profile of its own: nothing of the user's, and no state between runs
chrome() {
	HOME=$tmp timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$tmp/profile" "$@" 2>>"$tmp/chromium.log"
}
# a browser that does not start here (no /dev/shm in a container, say) is
# the machine's trouble, not the page's: said, and skipped
if ! chrome --dump-dom about:blank 2>/dev/null | grep -q "<html"; then
	echo "skipped: chromium does not start here: $(tail -2 "$tmp/chromium.log" | tr '\n' ' ' | cut -c1-300)"
	exit 77
fi
chrome --dump-dom "file://$page" >"$tmp/dom.html" || fail "1.0 chromium --dump-dom exited $?: $(tail -3 "$tmp/chromium.log")"
chrome --window-size=1280,1600 --screenshot="$tmp/page.png" "file://$page" >/dev/null ||
	fail "2.0 chromium --screenshot exited $?: $(tail -3 "$tmp/chromium.log")"
python3 - "$tmp/dom.html" "$tmp/page.png" "$tmp/demo/report.json" <<'PY' || fail "the rendered page"
import json, struct, sys, zlib

dom, png, report = open(sys.argv[1]).read(), open(sys.argv[2], "rb").read(), json.load(open(sys.argv[3]))
bad = []
# 1. what a reader looks for, as Chromium parsed it
for part in ("Labels by pair", 'class="hm"', "<th>attempts</th>", "A/A noise",
             "Messages of the final records", "<svg"):
    if part not in dom:
        bad.append(f"1.1 the rendered page lacks {part!r}")
for p in report["pairs"]:
    if p["id"] not in dom:
        bad.append(f"1.2 pair {p['id']} is not on the page")
# the expectation mismatches marked, exactly those the report's own
# document flags under the baseline (a busy machine may add some), the
# wrong declaration among them; report.c alone holds the rule
import re
marked = re.findall(r'<td>([^<]+)</td><td class="m" title="the baseline is ([A-Z_]+), not as '
                    r'declared">\u2260 ([A-Z_]+)</td>', dom)
base = report["baseline"] if isinstance(report.get("baseline"), str) else "isolated"
want = sorted((p["id"], p["labels"].get(base, ""), p.get("expect") or "") for p in report["pairs"]
              if p["expect_mismatch"].get(base))
if sorted(marked) != want or not any("rmsnorm_slow" in m[0] for m in marked):
    bad.append(f"1.4 the expectation mismatches marked: {marked}, expected {want} (the slow "
               "candidate declared FASTER among them)")
# every contradicting outcome, under any condition, carries its mark
flagged = sum(bool(v) for p in report["pairs"] for v in p["expect_mismatch"].values())
if dom.count("\u2717</b>") != flagged or flagged < 1:
    bad.append(f"1.5 {dom.count(chr(0x2717) + '</b>')} outcomes marked as contradicting their "
               f"expect, the report flags {flagged}")
failed = [p["id"] for p in report["pairs"] if p["labels"].get("isolated") in
          ("INCORRECT_NUMERICAL", "REWARD_HACK", "COMPILE_ERROR", "RUNTIME_ERROR", "CRASH")]
for pid in failed:
    if dom.count(pid) < 2:  # its row in the labels, and its message's row
        bad.append(f"1.3 failed pair {pid} has no message row")

# 2. the screenshot, decoded (8-bit RGB or RGBA, not interlaced: Chromium's)
def pixels(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = ihdr
    assert depth == 8 and color in (2, 6) and not interlace, ihdr
    bpp = 3 if color == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = pixels(png)
if (w, h) != (1280, 1600):
    bad.append(f"2.1 the screenshot is {w}x{h}, expected 1280x1600")
drawn = coloured = 0
for line in rows[::4]:
    for x in range(0, w * bpp, bpp * 4):
        r, g, b = line[x], line[x + 1], line[x + 2]
        drawn += (r, g, b) != (255, 255, 255)
        coloured += max(r, g, b) - min(r, g, b) > 25  # not white, grey or black
total = len(rows[::4]) * len(range(0, w * bpp, bpp * 4))
share = drawn / total
if not 0.03 <= share <= 0.60:
    bad.append(f"2.2 {share:.1%} of the pixels are drawn: a blank or an error page")
if coloured < 50:
    bad.append(f"2.3 no colour on the page ({coloured} samples): the label cells and the "
               "heatmap are drawn in colour")

# 3. no horizontal scrolling at 1280 px: the rightmost drawn column lies inside the window
edge = sum(1 for line in rows for x in range((w - 8) * bpp, w * bpp, bpp)
           if tuple(line[x:x + 3]) != (255, 255, 255))
right = max((x // bpp for line in rows[::8] for x in range(0, w * bpp, bpp)
             if tuple(line[x:x + 3]) != (255, 255, 255)), default=0)
if edge:
    bad.append(f"3.1 {edge} pixels drawn in the last 8 columns of {w}: the page is wider "
               "than the window")
for b in bad:
    print("FAIL:", b)
print(f"t4300: {share:.1%} of the page drawn, rightmost column {right} of {w} px")
sys.exit(1 if bad else 0)
PY
test_exit
