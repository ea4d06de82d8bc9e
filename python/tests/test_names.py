# SPDX-License-Identifier: MIT
# The package's status and label lists against the C enums (include/nodus/nodus.h) and the
# store's CHECK constraints (src/store), so that they cannot drift apart.
import re

import nodus


def _map(header, name):
    """The names of an X-macro: the X(NAME, ...) entries of #define NAME(X) and its continuations."""
    start = header.find(f"#define {name}(X)")
    assert start >= 0, f"{name} not found in nodus.h"
    lines = []
    for line in header[start:].splitlines():
        lines.append(line)
        if not line.rstrip().endswith("\\"):
            break
    return tuple(re.findall(r"\bX\(\s*([A-Z_]+)\s*,", "\n".join(lines)))


def test_statuses_match_header(nodus_src):
    header = (nodus_src / "include" / "nodus" / "nodus.h").read_text()
    statuses = _map(header, "NODUS_STATUS_MAP")
    assert len(statuses) >= 13
    assert nodus.STATUSES == statuses
    assert nodus.FAILURES == tuple(s for s in statuses if s != "OK")
    assert set(nodus.NO_VERDICT) <= set(nodus.FAILURES)


def test_labels_match_header(nodus_src):
    header = (nodus_src / "include" / "nodus" / "nodus.h").read_text()
    assert nodus.LABELS == _map(header, "NODUS_LABEL_MAP")


def test_statuses_match_store_schema(nodus_src):
    # the store CHECKs records.status against the same names (docs/store.md)
    text = (nodus_src / "src" / "store" / "schema.sql").read_text()
    m = re.search(r"CHECK \(status IN \((.*?)\)\)", text, re.S)
    assert m, "the records.status CHECK not found in src/store"
    names = tuple(re.findall(r"'([A-Z_]+)'", m.group(1)))
    assert names == nodus.STATUSES


def test_parser_sees_a_new_status(nodus_src):
    # the comparison can fail: a status added to the header is one the package lacks
    header = (nodus_src / "include" / "nodus" / "nodus.h").read_text()
    grown = header.replace('X(OK, "correct; timed and labelled")',
                           'X(OK, "correct; timed and labelled")                                  \\\n'
                           '\tX(NEW_STATUS, "a status the package does not know")', 1)
    assert grown != header
    assert _map(grown, "NODUS_STATUS_MAP") != nodus.STATUSES
    assert "NEW_STATUS" in _map(grown, "NODUS_STATUS_MAP")
