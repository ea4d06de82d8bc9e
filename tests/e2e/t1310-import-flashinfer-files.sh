#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# t1310-import-flashinfer-files.sh: FlashInfer-Bench workloads whose inputs
# come from safetensors files, and integer inputs (docs/import.md; the
# file distribution: docs/formats.md, "File inputs"). The dataset is
# written here, by Python's standard library (struct + json), not copied:
#   gather_scale: y = table[index] * scale[:, None], index (int32) and
#     scale (float32) from one safetensors file, table random;
#   int_double: y = 2 * x, x int32 and random;
#   bad workloads: a truncated file, a header longer than the file, a dtype
#     and a shape that are not the definition's, two tensors whose offsets
#     overlap, a missing key, a path that leaves the dataset, a random uint8,
#     a file whose index is right and scale is not (nothing of it copied);
#     and a workload whose every input is a file.
#   1. the import: the good workloads become file inputs naming the copied
#      blob and its sha256, the integer input int_range [-1024, 1023]
#      (FlashInfer-Bench's randint) and the import says so; each bad one is
#      left out in words naming the file and the tensor (exit 1);
#      the format's own library (where installed) agrees on the good file
#      and the malformed ones;
#   2. nodus check takes the imported campaign; a blob changed under its
#      workload is an error at FILE:LINE:COL; a blob whose hash is kept
#      right but whose header overruns is the reader's error there; a task
#      whose input is a file is refused;
#   3. with torch: plan and run on the cpu; a candidate that hardcodes the
#      file's index and scale is correct (so the values came through as
#      they are: a redraw would make it wrong), one that ignores scale is
#      not; the audit names the file inputs, and says constant_output is
#      not tested where every input is a file; the dataset export gives them
#      back as safetensors inputs with the values run (FlashInfer-Bench's
#      own TraceSet and safetensors read them, where installed); verify
#      names the blob when it changes after sealing.
# On a GPU, tests/gpu/test-gpu-file-inputs.sh runs it all again on cuda:
# T1310_BACKEND=cuda and T1310_PYTHON (the interpreter with CUDA torch);
# by default cpu and Debian's /usr/bin/python3.
# ------------------------------------------------------------------------
set -u
. "$(dirname "$0")/lib/campaign.sh"
BACKEND=${T1310_BACKEND:-cpu}
PY=${T1310_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NODUS=$(private_nodus "$tmp")
ds=$tmp/ds
out=$tmp/out

python3 - "$ds" <<'PY' || { echo "FAIL: the dataset"; exit 1; }
import json, math, os, struct, sys
ds = sys.argv[1]
for d in ("definitions", "workloads", "solutions", "blob/workloads/gather", "other"):
    os.makedirs(f"{ds}/{d}", exist_ok=True)

def st(tensors, fix=None):
    """safetensors bytes: tensors = [(key, dtype, shape, raw bytes)]."""
    header, data = {}, b""
    for key, dtype, shape, raw in tensors:
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"written_by": "t1310"}
    if fix:
        fix(header)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data

INDEX = [5, 0, 3, 3, 7, 1]
SCALE = [0.5, -2.0, 1.25, 3.0, -0.75, 0.125]
i32 = struct.pack("<6i", *INDEX)
f32 = struct.pack("<6f", *SCALE)
good = st([("index", "I32", [6], i32), ("scale", "F32", [6], f32)])
blob = "blob/workloads/gather"
open(f"{ds}/{blob}/good.safetensors", "wb").write(good)
open(f"{ds}/{blob}/truncated.safetensors", "wb").write(good[:-5])
open(f"{ds}/{blob}/overrun.safetensors", "wb").write(struct.pack("<Q", 4096) + good[8:])
open(f"{ds}/{blob}/dtype.safetensors", "wb").write(
    st([("index", "I64", [6], struct.pack("<6q", *INDEX)), ("scale", "F32", [6], f32)]))
open(f"{ds}/{blob}/shape.safetensors", "wb").write(
    st([("index", "I32", [2, 3], i32), ("scale", "F32", [6], f32)]))
def overlap(h):
    h["scale"]["data_offsets"] = [20, 44]
open(f"{ds}/{blob}/overlap.safetensors", "wb").write(
    st([("index", "I32", [6], i32), ("scale", "F32", [6], f32)], overlap))
open(f"{ds}/other/outside.safetensors", "wb").write(good)
# every input from a file: nothing for the judge to draw
# (values bfloat16 cannot hold: the audit's loose_tolerance rounds them)
TABLE = [3.0 * math.sin(1.7 * k + 0.3) for k in range(32)]
open(f"{ds}/{blob}/allfile.safetensors", "wb").write(
    st([("table", "F32", [8, 4], struct.pack("<32f", *TABLE)), ("index", "I32", [6], i32),
        ("scale", "F32", [6], f32)]))
# index right, scale of another shape: the workload is left out after its
# first input passed, and its file must not be copied
open(f"{ds}/{blob}/half.safetensors", "wb").write(
    st([("index", "I32", [6], i32), ("scale", "F32", [3], f32[:12])]))

json.dump({"name": "gather_scale", "op_type": "gather",
           "axes": {"n": {"type": "var"}, "m": {"type": "var"}, "d": {"type": "const", "value": 4}},
           "inputs": {"table": {"shape": ["m", "d"], "dtype": "float32"},
                      "index": {"shape": ["n"], "dtype": "int32"},
                      "scale": {"shape": ["n"], "dtype": "float32"}},
           "outputs": {"y": {"shape": ["n", "d"], "dtype": "float32"}},
           "reference": "def run(table, index, scale):\n    return table[index.long()] * scale[:, None]\n"},
          open(f"{ds}/definitions/gather_scale.json", "w"))
json.dump({"name": "int_double", "op_type": "elementwise", "axes": {"n": {"type": "var"}},
           "inputs": {"x": {"shape": ["n"], "dtype": "int32"}},
           "outputs": {"y": {"shape": ["n"], "dtype": "int32"}},
           "reference": "def run(x):\n    return x * 2\n"},
          open(f"{ds}/definitions/int_double.json", "w"))
json.dump({"name": "bytes_id", "op_type": "elementwise", "axes": {"n": {"type": "var"}},
           "inputs": {"b": {"shape": ["n"], "dtype": "uint8"}},
           "outputs": {"y": {"shape": ["n"], "dtype": "uint8"}},
           "reference": "def run(b):\n    return b.clone()\n"},
          open(f"{ds}/definitions/bytes_id.json", "w"))

def wl(uuid, path, key_index="index", definition="gather_scale"):
    return {"definition": definition, "workload": {"uuid": uuid, "axes": {"n": 6, "m": 8}, "inputs": {
        "table": {"type": "random"},
        "index": {"type": "safetensors", "path": path, "tensor_key": key_index},
        "scale": {"type": "safetensors", "path": path, "tensor_key": "scale"}}}}
lines = [wl("good0001", f"./{blob}/good.safetensors"),
         wl("trnc0002", f"{blob}/truncated.safetensors"),
         wl("ovrn0003", f"{blob}/overrun.safetensors"),
         wl("dtyp0004", f"{blob}/dtype.safetensors"),
         wl("shap0005", f"{blob}/shape.safetensors"),
         wl("ovlp0006", f"{blob}/overlap.safetensors"),
         wl("nkey0007", f"{blob}/good.safetensors", key_index="idx"),
         wl("outs0008", f"../ds/other/outside.safetensors"),
         wl("half000b", f"{blob}/half.safetensors")]
allf = wl("allf000c", f"{blob}/allfile.safetensors")
# the same file spelt another way: one copy, one path
allf["workload"]["inputs"]["table"] = {"type": "safetensors", "path": "./blob//workloads/./gather/allfile.safetensors", "tensor_key": "table"}
lines.append(allf)
with open(f"{ds}/workloads/gather_scale.jsonl", "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
with open(f"{ds}/workloads/int_double.jsonl", "w") as f:
    f.write(json.dumps({"definition": "int_double", "workload": {
        "uuid": "ints0009", "axes": {"n": 300}, "inputs": {"x": {"type": "random"}}}}) + "\n")
with open(f"{ds}/workloads/bytes_id.jsonl", "w") as f:
    f.write(json.dumps({"definition": "bytes_id", "workload": {
        "uuid": "uint000a", "axes": {"n": 8}, "inputs": {"b": {"type": "random"}}}}) + "\n")

# a candidate right only with the file's values (a redraw makes it wrong),
# and one that ignores scale
hard = ("import torch\n\ndef run(table, index, scale):\n"
        f"    idx = torch.tensor({INDEX}, dtype=torch.long, device=table.device)\n"
        f"    s = torch.tensor({SCALE}, dtype=table.dtype, device=table.device)\n"
        "    return table[idx] * s[:, None]\n")
noscale = "def run(table, index, scale):\n    return table[index.long()].clone()\n"
for name, text in (("hardcoded", hard), ("noscale", noscale)):
    json.dump({"name": name, "definition": "gather_scale", "author": "t1310",
               "spec": {"language": "python", "target_hardware": ["cpu"], "entry_point": "main.py::run",
                        "destination_passing_style": False},
               "sources": [{"path": "main.py", "content": text}]},
              open(f"{ds}/solutions/{name}.json", "w"))
PY

# 1. the import
"$NODUS" import flashinfer "$ds" -o "$out" --backend "$BACKEND" --python "$PY" >"$tmp/stdout" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "1.1 exited $rc, expected 1 (something left out): $(cat "$tmp/err")"
grep -q "wrote $out: 3 definition(s), 3 workload(s), 2 solution(s), 6 pair(s)" "$tmp/stdout" ||
	fail "1.2 the counts: $(cat "$tmp/stdout") $(cat "$tmp/err")"
b=$ds/blob/workloads/gather
for want in \
	"trnc0002 left out: input 'index': $b/truncated.safetensors, tensor 'index': tensor 'scale': data_offsets [24, 48] lie outside the 43 data bytes after the header" \
	"ovrn0003 left out: input 'index': $b/overrun.safetensors, tensor 'index': expected a header of 4096 bytes after the length" \
	"dtyp0004 left out: input 'index': $b/dtype.safetensors, tensor 'index': expected dtype int32 (the definition's), got I64" \
	"shap0005 left out: input 'index': $b/shape.safetensors, tensor 'index': expected shape [\"n\"] with the workload's axes, got [2, 3]" \
	"ovlp0006 left out: input 'index': $b/overlap.safetensors, tensor 'index': tensors 'index' and 'scale' overlap" \
	"nkey0007 left out: input 'index': $b/good.safetensors, tensor 'idx': expected a tensor 'idx' in the file" \
	"outs0008 left out: input 'index': safetensors path '../ds/other/outside.safetensors' is absolute or leaves the dataset" \
	"uint000a left out: input 'b' is uint8 and random: FlashInfer-Bench draws no random uint8" \
	"half000b left out: input 'scale': $b/half.safetensors, tensor 'scale': expected shape [\"n\"] with the workload's axes, got [3]" \
	"int_double.json: input 'x' (int32): a random workload draws integers in [-1024, 1023] (int_range)"; do
	grep -qF -- "$want" "$tmp/err" || fail "1.3 not said: $want (stderr: $(cat "$tmp/err"))"
done
# the bad files are refused in words, never by a crash
grep -q "AddressSanitizer\|runtime error" "$tmp/err" && fail "1.4 a sanitizer report: $(cat "$tmp/err")"
python3 - "$out" "$ds" <<'PY' || fail "1.5 the documents"
import hashlib, json, sys
d, ds = sys.argv[1:3]
w = json.load(open(f"{d}/workloads/gather_scale_good0001.json"))
sha = hashlib.sha256(open(f"{ds}/blob/workloads/gather/good.safetensors", "rb").read()).hexdigest()
want = {"dist": "file", "path": "../blob/workloads/gather/good.safetensors", "tensor": "index", "sha256": sha}
assert w["inputs"]["index"]["init"] == want, w["inputs"]
assert w["inputs"]["scale"]["init"]["tensor"] == "scale" and "table" not in w["inputs"], w["inputs"]
assert open(f"{d}/blob/workloads/gather/good.safetensors", "rb").read() == open(
    f"{ds}/blob/workloads/gather/good.safetensors", "rb").read()
import os
blobs = sorted(os.listdir(f"{d}/blob/workloads/gather"))
assert blobs == ["allfile.safetensors", "good.safetensors"], blobs  # no file of a workload left out
a = json.load(open(f"{d}/workloads/gather_scale_allf000c.json"))["inputs"]
assert {v["init"]["path"] for v in a.values()} == {"../blob/workloads/gather/allfile.safetensors"}, a
t = json.load(open(f"{d}/tasks/int_double.json"))
assert t["inputs"][0]["init"] == {"dist": "int_range", "low": -1024, "high": 1023}, t["inputs"]
assert "variants" not in t["inputs"][0], t["inputs"][0]
t = json.load(open(f"{d}/tasks/gather_scale.json"))
assert [i["name"] for i in t["inputs"]] == ["table", "index", "scale"]
PY
"$NODUS" check "$out/campaign.json" >/dev/null 2>"$tmp/err" || fail "1.6 nodus check: $(cat "$tmp/err")"
# the format's own library (the venv of t4050, where scripts/deps.sh made it)
# reads the good file as we wrote it and refuses the malformed ones nodus
# refuses: our writer and reader agree with it, not only with each other
if [ -x /opt/nodus-fib/bin/python ] && /opt/nodus-fib/bin/python -c 'import safetensors.torch' 2>/dev/null; then
	/opt/nodus-fib/bin/python - "$ds/blob/workloads/gather" <<'PY' || fail "1.7 safetensors' own reader disagrees"
import sys
from safetensors.torch import load_file
d = sys.argv[1]
t = load_file(f"{d}/good.safetensors")
assert t["index"].tolist() == [5, 0, 3, 3, 7, 1] and t["scale"].tolist() == [0.5, -2.0, 1.25, 3.0, -0.75, 0.125], t
for bad in ("truncated", "overrun", "overlap"):
    try:
        load_file(f"{d}/{bad}.safetensors")
    except Exception:
        continue
    raise AssertionError(f"{bad}.safetensors loads")
PY
else
	echo "skipped: no safetensors package (/opt/nodus-fib, scripts/deps.sh): item 1.7"
fi

# 2. a blob changed under its workload, then one whose hash is right but
# whose header overruns the file
cp -r "$out" "$tmp/bad"
wl=$tmp/bad/workloads/gather_scale_good0001.json
printf 'x' >>"$tmp/bad/blob/workloads/gather/good.safetensors"
"$NODUS" check "$tmp/bad/campaign.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "2.1 a changed blob passed check"
grep -qE "^$wl:[0-9]+:[0-9]+: .*good.safetensors to have sha256 [0-9a-f]{64} \(the workload's\), got [0-9a-f]{64}" "$tmp/err" ||
	fail "2.2 the changed blob, located: $(cat "$tmp/err")"
python3 - "$tmp/bad" <<'PY'
import hashlib, json, struct, sys
d = sys.argv[1]
p = f"{d}/blob/workloads/gather/good.safetensors"
raw = open(p, "rb").read()[:-1]
raw = struct.pack("<Q", len(raw)) + raw[8:]  # the header runs past the end
open(p, "wb").write(raw)
sha = hashlib.sha256(raw).hexdigest()
w = f"{d}/workloads/gather_scale_good0001.json"
j = json.load(open(w))
for k in ("index", "scale"):
    j["inputs"][k]["init"]["sha256"] = sha
json.dump(j, open(w, "w"), indent=2)
PY
"$NODUS" check "$tmp/bad/campaign.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "2.3 an overrunning header passed check"
grep -qE "^$wl:[0-9]+:[0-9]+: .*good.safetensors: not a valid safetensors file for tensor 'index': expected a header of [0-9]+ bytes after the length" "$tmp/err" ||
	fail "2.4 the overrun, located: $(cat "$tmp/err")"

# a task cannot take its values from a file (their shape is a workload's)
cp -r "$out" "$tmp/task"
python3 - "$tmp/task/tasks/gather_scale.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["inputs"][1]["init"] = {"dist": "file", "path": "x.safetensors", "tensor": "index", "sha256": "0" * 64}
json.dump(t, open(sys.argv[1], "w"), indent=2)
PY
"$NODUS" check "$tmp/task/campaign.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qE "^$tmp/task/tasks/gather_scale.json:[0-9]+:[0-9]+: .*\"file\" belongs in a workload's inputs" "$tmp/err" ||
	fail "2.5 a task's file input: $(cat "$tmp/err")"

# 3. plan and run, with torch
if "$PY" -I -c 'import torch' 2>/dev/null; then
	relax_isolation "$out/campaign.json" 1000
	set_judge "$out/campaign.json" max_rounds 10
	"$NODUS" plan "$out/campaign.json" -o "$tmp/plan.json" >"$tmp/plan.txt" 2>&1 ||
		fail "3.1 plan: $(grep -v '^  ok' "$tmp/plan.txt" | tail -5)"
	"$NODUS" audit "$out/campaign.json" --format json -o "$tmp/audit.json" >/dev/null 2>&1
	python3 - "$tmp/audit.json" <<'PY' || fail "3.2 the audit does not name the file inputs"
import json, sys
a = json.load(open(sys.argv[1]))
text = json.dumps(a)
for name in ("file_input:index", "file_input:scale"):
    assert name in text, name
assert "dead_input:index" not in text and "dead_input:table" in text
# the workload whose every input is a file: constant_output is said untested, not failed
assert "not tested: every input is fixed" in text, text[:2000]
PY
	python3 - "$tmp/plan.json" <<'PY' || fail "3.3 the blob is not sealed"
import json, sys
files = json.load(open(sys.argv[1]))["files"]
assert any(f["path"].endswith("blob/workloads/gather/good.safetensors") and f.get("input") for f in files), files
PY
	"$NODUS" run "$tmp/plan.json" --db "$tmp/r.db" -q 2>"$tmp/err"
	python3 - "$tmp/r.db" <<'PY' || fail "3.4 the records: $(cat "$tmp/err")"
import sqlite3, sys
rows = dict((r[0], (r[1], r[2])) for r in sqlite3.connect(sys.argv[1]).execute(
    "SELECT pair_id, status, IFNULL(message, '') FROM records WHERE final = 1"))
print(rows)
hard = [v for k, v in rows.items() if "/hardcoded/" in k]
nos = [v for k, v in rows.items() if "/noscale/" in k]
ints = [v for k, v in rows.items() if k.startswith("int_double")]
assert hard and all(s == "OK" for s, _ in hard), hard
assert nos and all(s.startswith("INCORRECT") for s, _ in nos), nos
assert ints and all(s == "OK" for s, _ in ints), ints
PY
	# the dataset export gives the file inputs back as safetensors inputs,
	# with the values that were run, where FlashInfer-Bench looks for them
	"$NODUS" report "$tmp/r.db" --format dataset --plan-file "$tmp/plan.json" -o "$tmp/exp" \
		>/dev/null 2>"$tmp/err" || fail "3.5 dataset export exited $?: $(cat "$tmp/err")"
	python3 - "$tmp/exp" <<'PY' || fail "3.6 the exported file inputs"
import glob, json, struct, sys
root = sys.argv[1]
(f,) = glob.glob(f"{root}/workloads/gather_scale/*.jsonl")
(w,) = [l["workload"] for l in map(json.loads, open(f)) if l["workload"]["uuid"].startswith("gather_scale_good0001")]
ins = w["inputs"]
assert ins["table"] == {"type": "random"}, ins
assert ins["index"]["type"] == "safetensors" and ins["index"]["tensor_key"] == "index", ins
assert ins["scale"]["path"] == ins["index"]["path"] and ins["index"]["path"].startswith("blob/workloads/"), ins
raw = open(f"{root}/{ins['index']['path']}", "rb").read()
(n,) = struct.unpack("<Q", raw[:8])
assert n % 8 == 0, n
h = json.loads(raw[8:8 + n])
def tensor(k, fmt):
    b, e = h[k]["data_offsets"]
    return list(struct.unpack(fmt, raw[8 + n + b:8 + n + e]))
assert h["index"]["dtype"] == "I32" and h["index"]["shape"] == [6], h
assert tensor("index", "<6i") == [5, 0, 3, 3, 7, 1]
assert tensor("scale", "<6f") == [0.5, -2.0, 1.25, 3.0, -0.75, 0.125]
PY
	if [ -x /opt/nodus-fib/bin/python ] && /opt/nodus-fib/bin/python -c 'import safetensors.torch' 2>/dev/null; then
		/opt/nodus-fib/bin/python - "$tmp/exp" <<'PY' || fail "3.7 FlashInfer-Bench's own loader on the export"
import importlib.util, sys, types
spec = importlib.util.find_spec("flashinfer_bench")
pkg = types.ModuleType("flashinfer_bench")
pkg.__path__ = list(spec.submodule_search_locations)
sys.modules["flashinfer_bench"] = pkg
from flashinfer_bench.data import TraceSet
from safetensors.torch import load_file
ts = TraceSet.from_path(sys.argv[1])
wls = [t.workload for tl in ts.traces.values() for t in tl if t.workload.uuid.startswith("gather_scale_good")]
assert wls, list(ts.traces)
for w in wls:
    spec = w.inputs["index"]
    assert spec.type == "safetensors", spec
    t = load_file(f"{sys.argv[1]}/{spec.path}")
    assert t[spec.tensor_key].tolist() == [5, 0, 3, 3, 7, 1], t
PY
	fi
	printf 'y' >>"$out/blob/workloads/gather/good.safetensors"
	"$NODUS" verify "$tmp/plan.json" >/dev/null 2>"$tmp/err"
	[ $? -ne 0 ] && grep -q "blob/workloads/gather/good.safetensors.*changed since sealing" "$tmp/err" ||
		fail "3.8 verify after the blob changed: $(cat "$tmp/err")"
else
	echo "skipped: no torch ($PY cannot import torch): item 3, the run"
fi
[ "$fails" -eq 0 ] && echo "t1310: safetensors inputs imported exactly, bad files refused in words"
test_exit
