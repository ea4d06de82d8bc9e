#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t4200-demo-page.sh: `nodus demo` (what `make demo` runs), on a small cpu
# campaign, writes the JSON report and the HTML page and prints the page's
# path last; the page is well-formed HTML with the label table, the
# heatmap, the cost and every failure's message.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
tmp=$(mktemp -d)
trap 'pkill -9 -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
copy_suites "$tmp"
NODUS=$(private_nodus "$tmp")
small_campaign "$tmp/suites" rmsnorm >/dev/null
relax_isolation "$tmp/suites/cpu/campaign.json" 2.5
"$NODUS" demo --cpu --campaign "$tmp/suites/cpu/campaign.json" --out "$tmp/demo" >"$tmp/out" 2>"$tmp/err" ||
	fail "demo exited $?: $(tail -5 "$tmp/err")"
[ "$(tail -1 "$tmp/out")" = "nodus demo: the report page: $tmp/demo/report.html" ] ||
	fail "the last line does not name the page: $(tail -1 "$tmp/out")"
[ -s "$tmp/demo/report.json" ] || fail "no report.json"
python3 - "$tmp/demo/report.html" <<'PY' || fail "the page"
import html.parser, sys
text = open(sys.argv[1]).read()
class Check(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.open = []
    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "br"):
            self.open.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass  # <rect .../>: opens and closes
    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()
c = Check()
c.feed(text)
assert c.open == [], c.open
for part in ("<h2>Labels by pair</h2>", '<table class="hm">', "<th>attempts</th>",
             "Messages of the final records", "matched ratio", "A/A noise"):
    assert part in text, part
PY
[ "$fails" -eq 0 ] && echo "t4200: all ok"
[ "$fails" -eq 0 ]
