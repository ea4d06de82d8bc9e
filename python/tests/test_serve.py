# SPDX-License-Identifier: MIT
# `nodus serve` with nodus.Client, a real server on a temporary store:
#   1. 1,000 candidates from 8 concurrent clients (some POSTs sent twice with their idempotency
#      key); the server is SIGKILLed while a batch is half run, and restarted on the same store
#      and port. Then: every submission ended once (0 lost, 0 duplicated: 1,000 rows, 1,000
#      distinct seqs, one final record per pair), each result is what `nodus report` says of
#      the records its plan's `nodus run` wrote, each outcome is what a fresh `nodus run` of
#      the same sealed plan gives (for the batch that was killed and another), and the
#      outcomes are the ones the candidates have by construction (clearly faster, clearly
#      slower, wrong output);
#   2. a full queue answers 503 with Retry-After and stores nothing;
#   3. a bind that is not loopback is refused without a token; with one, requests without it
#      (or with another) get 401;
#   4. bad JSON gets 400 with its line, column and byte; a bad field its JSON path and place;
#      a body too large 413; an idempotency key reused for another body 409; junk on the socket
#      leaves the server running; a Unix socket;
#   5. a KernelBench ModelNew source is judged as `nodus import kernelbench-candidate` makes it.
# The judge is cut down (few rounds, one trial, small vector) so that the 1,000 pairs run in a
# few minutes on two cores; isolation is relaxed as the other campaign tests relax it.
import json
import os
import resource
import signal
import sqlite3
import subprocess
import threading
import time
import shutil
import http.client
from concurrent.futures import ThreadPoolExecutor

import pytest

import nodus

N = int(os.environ.get("NODUS_SERVE_TEST_N", "1000"))
BUSY_MAX_CORES = 0.5  # as tests/e2e/lib/load.sh: the judge's default isolation_max_busy_cores
UNDECIDED = ("AMBIGUOUS", "TIED", "NOT_ISOLATED")  # what load beside a timed pair can turn a label into
CLIENTS = 8
KINDS = {"fast": "FASTER", "slow": "SLOWER", "wrong": "INCORRECT_NUMERICAL"}


@pytest.fixture(scope="module")
def base(nodus_src, tmp_path_factory):
    """A base campaign: suites/cpu's vector_poly on 4096 elements, isolated only."""
    d = tmp_path_factory.mktemp("serve-suite")
    shutil.copytree(nodus_src / "suites" / "cpu", d / "cpu")
    w = json.loads((d / "cpu" / "workloads" / "vector_poly_16384.json").read_text())
    w.update(name="vector_poly_4096", axes={"n": 4096})
    (d / "cpu" / "workloads" / "vector_poly_4096.json").write_text(json.dumps(w))
    p = d / "cpu" / "campaign.json"
    c = json.loads(p.read_text())
    c["workloads"].append("workloads/vector_poly_4096.json")
    c["pairs"] = [{"workload": "vector_poly_4096", "candidate": "vector_poly_fast", "reference": "vector_poly_ref"}]
    c["conditions"] = [x for x in c["conditions"] if x["kind"] == "isolated"]
    c["judge"].update(min_rounds=2, max_rounds=8, look_every=2, trials=1, recheck_reps=1, determinism=False,
                      warmup_calls=1, warmup_ms=0, samples_per_round=2, min_sample_ns=50000,
                      bootstrap_resamples=1000, oracle_group=16, isolation_max_busy_cores=2.5)
    p.write_text(json.dumps(c, indent=1))
    sols = {k: nodus.solution_from_file(str(d / "cpu" / "solutions" / "vector_poly" / f"vector_poly_{k}.json"))
            for k in KINDS}
    return p, sols


class Load:
    """Cores kept busy by processes other than this test and the children it has waited for,
    from mark() to busy(), counted from /proc/stat as tests/e2e/lib/load.sh counts them."""

    def __init__(self):
        self.mark()

    @staticmethod
    def _now():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        own = sum(getattr(resource.getrusage(w), k) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                  for k in ("ru_utime", "ru_stime"))
        return sum(v) - v[3] - v[4], sum(v), own * os.sysconf("SC_CLK_TCK")

    def mark(self):
        self.at = self._now()

    def busy(self):
        b, t, own = self._now()
        busy = (b - self.at[0]) - (own - self.at[2])
        return max(0.0, busy / max(1, t - self.at[1]) * os.cpu_count())


class Server:
    """A `nodus serve` process; its output goes to a file (read for the ready line)."""

    def __init__(self, nodus_bin, db, campaign, *args, log=None):
        self.log = log or f"{db}.log"
        self.out = open(self.log, "a")
        self.start_at = os.path.getsize(self.log)
        self.p = subprocess.Popen([nodus_bin, "serve", "--db", str(db), "--campaign", str(campaign), *args],
                                  stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.url = self._ready()

    def _ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log) as f:
                f.seek(self.start_at)
                for line in f:
                    if line.startswith("nodus serve: listening on "):
                        return line.split()[-1]
            if self.p.poll() is not None:
                raise AssertionError(f"nodus serve exited {self.p.returncode}: {open(self.log).read()}")
            time.sleep(0.05)
        raise AssertionError("nodus serve printed no ready line in 60 s")

    def kill(self, sig=signal.SIGKILL):
        if self.p.poll() is None:
            self.p.send_signal(sig)
        self.p.wait(timeout=30)
        self.out.close()


def raw(url, method, path, body=None, headers=None):
    host, port = url[len("http://"):].rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


def busy_beside(db):
    """(plan digest, pair) -> the most cores others kept busy beside the pair's deciding record,
    as nodus's own isolation check measured them before and after its timing (detail)."""
    out = {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    for digest, pair, detail in con.execute("SELECT plan_digest, pair_id, detail_json FROM records WHERE final = 1"):
        d = json.loads(detail or "{}")
        cores = [d.get(k, {}).get("busy_cores") or 0.0 for k in ("isolation_before", "isolation_after")]
        out[(digest, pair)] = max(out.get((digest, pair), 0.0), *cores)
    con.close()
    return out


def report_outcomes(nodus_bin, db, digest):
    doc = json.loads(subprocess.run([nodus_bin, "report", str(db), "--plan", digest, "--format", "json"],
                                    check=True, capture_output=True, text=True).stdout)
    return {r.pair: r for r in nodus.results_from_report(doc)}


def half_run_batch(db):
    """A sealed batch whose plan has some records but not all (a batch in the middle of its run),
    once another batch is done: the store then holds done, batched and queued submissions."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            rows = con.execute("SELECT b.id, b.plan_digest, (SELECT COUNT(*) FROM serve_submissions s WHERE "
                               "s.batch_id = b.id), (SELECT COUNT(*) FROM records r WHERE r.plan_digest = "
                               "b.plan_digest AND r.final = 1) FROM serve_batches b WHERE b.state = 'sealed' "
                               "AND EXISTS (SELECT 1 FROM serve_batches WHERE state = 'done')").fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    for bid, digest, n, done in rows:
        if 0 < done < n:
            return bid, digest
    return None


def test_thousand_candidates_kill_restart(base, nodus_bin, tmp_path):
    campaign, sols = base
    db = tmp_path / "serve.db"
    t0 = time.monotonic()
    load = Load()
    srv = Server(nodus_bin, db, campaign, "--batch-max", "50", "--batch-wait-ms", "100")
    client = nodus.Client(srv.url, retry_for=600)
    # a wrong candidate fails its first trial (about 0.1 s); a timed one takes about 0.5 s
    kinds = [("fast", "slow", "wrong", "wrong")[i % 4] for i in range(N)]
    ids = [None] * N
    resent = {}
    latency = []  # seconds from POST to 202 (a retry across the restart included)

    def submit_share(k):
        for i in range(k, N, CLIENTS):
            key = f"client{k}-sub{i}"
            t = time.monotonic()
            ids[i] = client.submit(sols[kinds[i]], "vector_poly_4096", label=kinds[i], idempotency_key=key)
            latency.append(time.monotonic() - t)
            if i % 97 == 0:  # a retried POST: the same key must give the same id
                resent[i] = client.submit(sols[kinds[i]], "vector_poly_4096", label=kinds[i], idempotency_key=key)

    pool = ThreadPoolExecutor(CLIENTS)
    futures = [pool.submit(submit_share, k) for k in range(CLIENTS)]

    # SIGKILL while a batch is half run; then restart on the same store and port
    killed = None
    deadline = time.monotonic() + 600
    while killed is None and time.monotonic() < deadline:
        killed = half_run_batch(db)
        if killed is None:
            time.sleep(0.05)
    assert killed, "no batch was seen half run"
    srv.kill()
    killed_at = time.monotonic()
    time.sleep(0.5)  # clients meanwhile meet a refused connection and retry
    srv = Server(nodus_bin, db, campaign, "--batch-max", "50", "--batch-wait-ms", "100",
                 "--listen", srv.url[len("http://"):], log=srv.log)
    try:
        for f in futures:
            f.result(timeout=900)
        assert all(i is not None for i in ids)
        assert len(set(ids)) == N, "two candidates got one id"
        assert all(resent[i] == ids[i] for i in resent), "a resent POST got a new id"
        evs = client.wait(ids, timeout=900)
        stream, after = [], 0
        while True:
            page = client.results_after(after)
            if not page:
                break
            stream += page
            after = page[-1].seq
    finally:
        srv.kill(signal.SIGTERM)
        pool.shutdown()
    elapsed = time.monotonic() - t0
    # a timing label that load beside its pair left undecided (AMBIGUOUS, say, where the
    # candidate is clearly slower) is not compared when nodus's own isolation check saw more
    # than BUSY_MAX_CORES busy beside that pair: it is counted and the test ends skipped,
    # never passed (tests/e2e/lib/load.sh). Any other difference fails.
    busy = load.busy()
    beside = busy_beside(db)
    not_compared = []

    def same(got, want, what, cores):
        if got == want:
            return
        if (got in UNDECIDED or want in UNDECIDED) and cores > BUSY_MAX_CORES:
            not_compared.append(f"{what}: {got} beside {want}")
            return
        assert got == want, f"{what}: {got}, expected {want} ({cores:.2f} cores busy beside the pair)"

    # 0 lost, 0 duplicated: every submission ended once, done, with a result
    con = sqlite3.connect(str(db))
    rows = con.execute("SELECT id, state, done_seq, pair_id, batch_id FROM serve_submissions").fetchall()
    assert len(rows) == N
    assert {r[0] for r in rows} == set(ids)
    assert all(r[1] == "done" for r in rows), [r for r in rows if r[1] != "done"][:5]
    assert sorted(r[2] for r in rows) == list(range(1, N + 1))
    # one final record per pair (the killed batch's finished pairs were not redone)
    digests = dict(con.execute("SELECT id, plan_digest FROM serve_batches"))
    per_pair = con.execute("SELECT s.id, (SELECT COUNT(*) FROM records r JOIN serve_batches b ON "
                           "r.plan_digest = b.plan_digest WHERE b.id = s.batch_id AND r.pair_id = s.pair_id "
                           "AND r.final = 1) FROM serve_submissions s").fetchall()
    assert all(n == 1 for _, n in per_pair), [x for x in per_pair if x[1] != 1][:5]
    killed_subs = [r for r in rows if r[4] == killed[0]]
    before_kill = {r[0] for r in rows if r[4] is not None and r[4] < killed[0]}
    con.close()

    # the stream yielded each once
    assert sorted(e.id for e in stream) == sorted(ids)

    # each result is the one the CLI gives: by construction, in the store's report, and in a
    # fresh run of the same sealed plan
    by_id = {e.id: e for e in evs}
    for i, sub in enumerate(ids):
        e = by_id[sub]
        assert (e.state, e.label) == ("done", kinds[i]), (sub, e.raw)
        same(e.outcome, KINDS[kinds[i]], f"submission {sub} ({kinds[i]})",
             beside.get((e.raw["plan_digest"], e.raw["pair"]), 0.0))
        assert e.cost["attempts"] >= 1 and e.cost["device_s"] > 0
    reports = {bid: report_outcomes(nodus_bin, db, d) for bid, d in digests.items()}
    for sub_id, state, seq, pair, bid in rows:
        r = reports[bid][pair]
        got = by_id[sub_id].result
        # (the report prints numbers to 10 significant digits)
        assert (got.status, got.label, got.message, got.guard or "") == \
            (r.status, r.label, r.message, r.guard or ""), (sub_id, pair)
        for a, b in ((got.estimate, r.estimate), (got.lo, r.lo), (got.hi, r.hi)):
            assert (a is None and b is None) or a == pytest.approx(b, rel=1e-9), (sub_id, pair)
    plans = {bid: p for bid, p in sqlite3.connect(str(db)).execute("SELECT id, plan_path FROM serve_batches")}
    for bid in sorted({killed[0], min(plans)}):
        fresh = tmp_path / f"fresh-{bid}.db"
        subprocess.run([nodus_bin, "run", plans[bid], "--db", str(fresh), "-q"], check=True, timeout=600)
        cli = report_outcomes(nodus_bin, fresh, digests[bid])
        fresh_beside = busy_beside(fresh)
        mine = {pair: by_id[s].outcome for s, _, _, pair, b in rows if b == bid}
        assert mine and set(mine) <= set(cli)
        for pair, outcome in mine.items():
            key = (digests[bid], pair)
            same(outcome, cli[pair].outcome, f"{pair} (batch {bid}) against a fresh nodus run",
                 max(beside.get(key, 0.0), fresh_beside.get(key, 0.0)))
    assert killed_subs and before_kill, "the killed batch and one before it had submissions"
    latency.sort()
    print(f"\n{N} submissions, 8 clients, killed at {killed_at - t0:.0f} s: {elapsed:.0f} s in all; "
          f"POST to 202: median {1e3 * latency[len(latency) // 2]:.1f} ms, "
          f"99th percentile {1e3 * latency[int(len(latency) * 0.99)]:.1f} ms; {busy:.2f} cores busy beside")
    if not_compared:
        pytest.skip(f"machine busy (above {BUSY_MAX_CORES} cores busy beside a pair): {len(not_compared)} timing label(s) "
                    f"not compared: {'; '.join(not_compared[:5])}")


def test_full_queue_503(base, nodus_bin, tmp_path):
    campaign, sols = base
    db = tmp_path / "q.db"
    # a batch waits long for company: nothing leaves the queue during the test
    srv = Server(nodus_bin, db, campaign, "--queue-max", "3", "--batch-wait-ms", "600000")
    try:
        c = nodus.Client(srv.url, retry_for=1.5)
        ids = [c.submit(sols["fast"], "vector_poly_4096", idempotency_key=f"k{i}") for i in range(3)]
        assert len(set(ids)) == 3
        body = json.dumps({"workload": "vector_poly_4096", "solution": sols["fast"]}).encode()
        status, headers, data = raw(srv.url, "POST", "/v1/submissions", body)
        assert status == 503 and headers.get("Retry-After") == "1", (status, headers)
        assert "queue is full" in json.loads(data)["error"]
        t = time.monotonic()
        with pytest.raises(nodus.ServeError) as e:
            c.submit(sols["fast"], "vector_poly_4096")
        assert e.value.status == 503 and time.monotonic() - t >= 1  # retried, then gave up
        # a retried POST whose submission is stored is answered with its id, full queue or not
        assert c.submit(sols["fast"], "vector_poly_4096", idempotency_key="k1") == ids[1]
    finally:
        srv.kill()
    n = sqlite3.connect(str(db)).execute("SELECT COUNT(*) FROM serve_submissions").fetchone()[0]
    assert n == 3  # the refused ones were not stored


def test_token_off_loopback(base, nodus_bin, tmp_path):
    campaign, _ = base
    p = subprocess.run([nodus_bin, "serve", "--db", str(tmp_path / "t.db"), "--campaign", str(campaign),
                        "--listen", "0.0.0.0:0"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--token-file" in p.stderr and "not a loopback" in p.stderr, p.stderr
    tok = tmp_path / "token"
    tok.write_text("s3cret-token-0123456789\n")
    srv = Server(nodus_bin, tmp_path / "t.db", campaign, "--listen", "0.0.0.0:0", "--token-file", str(tok))
    try:
        port = srv.url.rsplit(":", 1)[1]
        url = f"http://127.0.0.1:{port}"
        assert raw(url, "GET", "/v1/health")[0] == 401
        assert raw(url, "GET", "/v1/health", headers={"Authorization": "Bearer s3cret-token-012345678"})[0] == 401
        assert raw(url, "GET", "/v1/health", headers={"Authorization": "Bearer s3cret-token-0123456789"})[0] == 200
        with pytest.raises(nodus.ServeError) as e:
            nodus.Client(url).get(1)
        assert e.value.status == 401
        with pytest.raises(nodus.ServeError) as e:
            nodus.Client(url, token="s3cret-token-0123456789").get(1)
        assert e.value.status == 404
    finally:
        srv.kill()


def test_bad_requests(base, nodus_bin, tmp_path):
    campaign, sols = base
    srv = Server(nodus_bin, tmp_path / "b.db", campaign, "--body-max", "65536", "--batch-wait-ms", "600000")
    try:
        status, _, data = raw(srv.url, "POST", "/v1/submissions", b'{"workload": "x",, }')
        doc = json.loads(data)
        assert status == 400 and doc["error"] == "the body is not JSON"
        f = doc["faults"][0]
        assert (f["line"], f["column"]) == (1, 18) and "at byte 18" in f["message"], f
        bad = dict(sols["fast"], entry="1x")
        body = json.dumps({"workload": "vector_poly_4096", "solution": bad}, indent=1).encode()
        status, _, data = raw(srv.url, "POST", "/v1/submissions", body)
        f = json.loads(data)["faults"]
        assert status == 400 and [x["path"] for x in f] == ["$.solution.entry"], f
        line = body.decode().splitlines()[f[0]["line"] - 1]
        assert '"entry"' in line and "C identifier" in f[0]["message"]
        status, _, data = raw(srv.url, "POST", "/v1/submissions",
                              json.dumps({"workload": "nope", "solution": sols["fast"], "extra": 1}).encode())
        paths = [x["path"] for x in json.loads(data)["faults"]]
        assert status == 400 and "$.workload" in paths and "$" in paths, paths
        status, _, _ = raw(srv.url, "POST", "/v1/submissions", b"x" * 100000)
        assert status == 413
        c = nodus.Client(srv.url)
        a = c.submit(sols["fast"], "vector_poly_4096", idempotency_key="same")
        assert c.submit(sols["fast"], "vector_poly_4096", idempotency_key="same") == a
        with pytest.raises(nodus.ServeError) as e:
            c.submit(sols["slow"], "vector_poly_4096", idempotency_key="same")
        assert e.value.status == 409
        assert c.get(a).state == "queued"
        assert raw(srv.url, "GET", "/v1/nothing")[0] == 404
        assert raw(srv.url, "GET", "/v1/results?after=x")[0] == 400
        assert raw(srv.url, "PUT", "/v1/submissions", b"{}")[0] == 405
        # not HTTP at all, a header far too long, a body cut off: answered or dropped, and
        # the server goes on
        import socket
        host, port = srv.url[len("http://"):].rsplit(":", 1)
        for junk in (b"GARBAGE\r\n\r\n", b"GET /v1/health HTTP/1.1\r\nX: " + b"a" * 200000 + b"\r\n\r\n",
                     b"POST /v1/submissions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"a\""):
            with socket.create_connection((host, int(port)), timeout=10) as s:
                try:
                    s.sendall(junk)
                    s.shutdown(socket.SHUT_WR)
                    s.recv(4096)
                except OSError:
                    pass
        assert raw(srv.url, "GET", "/v1/health")[0] == 200
        assert srv.p.poll() is None
    finally:
        srv.kill()


def test_unix_socket(base, nodus_bin, tmp_path):
    campaign, sols = base
    sock = tmp_path / "s.sock"
    srv = Server(nodus_bin, tmp_path / "u.db", campaign, "--socket", str(sock))
    try:
        assert srv.url == f"unix:{sock}" and (os.stat(sock).st_mode & 0o777) == 0o600
        c = nodus.Client(srv.url)
        [e] = c.evaluate([dict(solution=sols["wrong"], workload="vector_poly_4096")], timeout=300)
        assert e.outcome == "INCORRECT_NUMERICAL" and e.result.guard == "tolerance"
    finally:
        srv.kill()


def test_kernelbench_candidate(nodus_src, nodus_bin, tmp_path):
    # a KernelBench ModelNew source, sent as it is, judged against an imported problem's
    # reference (suites/torch/kernelbench: softmax_fused is faster by construction, its expect)
    if subprocess.run(["/usr/bin/python3", "-I", "-c", "import torch"], capture_output=True).returncode:
        pytest.skip("/usr/bin/python3 cannot import torch (python3-torch)")
    kb = nodus_src / "suites" / "torch" / "kernelbench"
    srv = Server(nodus_bin, tmp_path / "k.db", kb / "campaign.json")
    try:
        src = (kb / "solutions" / "softmax_fused.py").read_text()
        c = nodus.Client(srv.url)
        sub = c.submit(None, "softmax_eager", kernelbench=src, kernelbench_path="softmax_fused.py")
        [e] = c.wait([sub], timeout=600)
        assert e.state == "done" and e.outcome in ("FASTER", "NOT_ISOLATED"), e.raw
    finally:
        srv.kill()


def test_whole_campaign(base, nodus_bin, tmp_path):
    # a whole campaign sent with its files: judged as one plan, every pair in its result, the
    # same outcomes `nodus report` gives of that plan; a campaign naming a file it did not send
    # is refused
    campaign, _ = base
    d = campaign.parent
    c = json.loads(campaign.read_text())
    small = dict(c, name="whole", tasks=["tasks/vector_poly.json"], workloads=["workloads/vector_poly_4096.json"],
                 solutions=[f"solutions/vector_poly/vector_poly_{k}.json" for k in ("ref", "fast", "wrong")],
                 pairs=[{"workload": "vector_poly_4096", "candidate": f"vector_poly_{k}", "reference": "vector_poly_ref"}
                        for k in ("fast", "wrong")])
    (d / "whole.json").write_text(json.dumps(small))
    srv = Server(nodus_bin, tmp_path / "w.db", campaign)
    try:
        cl = nodus.Client(srv.url)
        files = nodus.campaign_files(str(d / "whole.json"))
        assert "solutions/vector_poly/vector_poly_fast.c" in files
        sub = cl.submit_campaign(files, label="whole")
        [e] = cl.wait([sub], timeout=300)
        assert e.state == "done" and e.raw["kind"] == "campaign", e.raw
        got = {p: r["isolated"].outcome for p, r in e.pairs.items()}
        assert got == {"vector_poly_4096/vector_poly_fast/vector_poly_ref": "FASTER",
                       "vector_poly_4096/vector_poly_wrong/vector_poly_ref": "INCORRECT_NUMERICAL"}
        cli = report_outcomes(nodus_bin, tmp_path / "w.db", e.raw["plan_digest"])
        assert {p: r.outcome for p, r in cli.items()} == got
        assert e.cost["attempts"] == 2
        # a file left out: the fault names it, where the campaign names it
        del files["tasks/vector_poly.json"]
        with pytest.raises(nodus.ServeError) as x:
            cl.submit_campaign(files)
        assert x.value.status == 400 and any("campaign_files/campaign.json" in f["text"] for f in x.value.faults), \
            x.value.faults
        # a path that leaves the tree
        with pytest.raises(nodus.ServeError) as x:
            cl.submit_campaign({"campaign.json": "{}", "../x.json": "{}"})
        assert x.value.status == 400 and "../x.json" in str(x.value)
    finally:
        srv.kill()
