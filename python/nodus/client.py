# SPDX-License-Identifier: MIT
"""A client of ``nodus serve`` (docs/serve.md), standard library only.

``Client(url, token=None)``: ``url`` is ``http://HOST:PORT`` or ``unix:/PATH`` (the server's
ready line prints it). ``submit(...)`` sends one candidate and returns its submission id once
the server has committed it; ``evaluate(batch)`` submits many and waits for all of them;
``async for e in client.results(ids)`` yields each as it ends. A full queue (503) is retried
after the seconds its Retry-After says; a connection refused or reset (a server restarting) is
retried too, with the same idempotency key, so a retried submission is never stored twice.
"""

import asyncio
import http.client
import json
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Dict, Iterable, List, Mapping, Optional, Sequence
from urllib.parse import urlencode, urlsplit

from .result import Result

#: The states a submission is in: queued (waiting for a batch), batched (in a sealed plan that
#: runs), done (its result is there), failed (it could not be evaluated; ``error`` says why).
STATES = ("queued", "batched", "done", "failed")
ENDED = ("done", "failed")


class ServeError(RuntimeError):
    """An answer of the server that is not a success: ``status`` (HTTP), ``body`` (parsed JSON
    when it is JSON, else text) and, for a 400, ``faults`` (each with path, line, column and
    message)."""

    def __init__(self, status: int, body: Any):
        self.status, self.body = status, body
        self.faults = body.get("faults", []) if isinstance(body, dict) else []
        what = body.get("error") if isinstance(body, dict) else str(body)
        detail = "".join(f"\n  {f.get('text') or f.get('message')}" for f in self.faults)
        super().__init__(f"nodus serve answered {status}: {what}{detail}")


@dataclass(frozen=True)
class Evaluation:
    """One ended (or not yet ended) submission. ``outcome`` is the baseline condition's
    outcome (a label, a status name, MISSING, or None before it ended); ``result`` is that
    condition's ``nodus.Result`` (for ``nodus.reward``), ``results`` every condition's;
    ``cost`` attempts, device seconds and USD; ``raw`` the server's JSON."""

    id: int
    state: str
    outcome: Optional[str]
    result: Optional[Result]
    results: Dict[str, Result] = field(default_factory=dict)
    label: Optional[str] = None
    seq: Optional[int] = None
    cost: Optional[Dict[str, Any]] = None
    error: Optional[str] = None
    pairs: Dict[str, Dict[str, Result]] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict, compare=False)

    @staticmethod
    def _results(pair: str, conds: Mapping[str, Any], reference: Optional[str]) -> Dict[str, Result]:
        out = {}
        for cond, o in (conds or {}).items():
            iv = o.get("interval") or (None, None)
            out[cond] = Result(pair, cond, o["status"], label=o.get("label"), verdict=o.get("verdict"),
                               estimate=o.get("speedup"), lo=iv[0], hi=iv[1], message=o.get("message"),
                               guard=o.get("guard"), attempt=o.get("attempt"), reference=reference)
        return out

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Evaluation":
        """From the server's JSON; a whole campaign's has ``pairs`` (pair -> condition ->
        Result) and no single ``result``."""
        res = doc.get("result") or {}
        results = cls._results(doc.get("pair") or "", res.get("conditions"), doc.get("reference"))
        pairs = {p: cls._results(p, o.get("conditions"), p.rsplit("/", 1)[-1])
                 for p, o in (res.get("pairs") or {}).items()}
        base = res.get("baseline")
        return cls(id=doc["id"], state=doc["state"], outcome=res.get("outcome"), result=results.get(base),
                   results=results, label=doc.get("label"), seq=doc.get("seq"), cost=res.get("cost"),
                   error=res.get("message") if doc["state"] == "failed" else None, pairs=pairs,
                   raw=dict(doc))


def solution_from_file(path: str) -> Dict[str, Any]:
    """A solution file (JSON) with its sources read in, as a submission carries it."""
    with open(path) as f:
        sol = json.load(f)
    d = os.path.dirname(os.path.abspath(path))
    srcs = []
    for rel in sol.get("sources", []):
        with open(os.path.join(d, rel)) as f:
            srcs.append({"path": os.path.basename(rel), "content": f.read()})
    sol["sources"] = srcs
    sol.pop("name", None)
    return sol


def campaign_files(path: str) -> Dict[str, str]:
    """A campaign file and every file it names (tasks, workloads, solutions and their sources),
    path relative to the campaign's directory -> text, as a whole-campaign submission carries
    them. Every file must lie in the campaign's directory tree."""
    root = os.path.dirname(os.path.abspath(path))
    out: Dict[str, str] = {}

    def add(p: str) -> str:
        full = os.path.normpath(os.path.join(root, p)) if not os.path.isabs(p) else p
        rel = os.path.relpath(full, root)
        if rel.startswith(".."):
            raise ValueError(f"{p!r} is outside the campaign's directory {root}")
        with open(full) as f:
            out[rel] = f.read()
        return full

    with open(path) as f:
        doc = json.load(f)
    out["campaign.json"] = json.dumps(doc)
    for p in doc.get("tasks", []) + doc.get("workloads", []):
        add(p)
    for p in doc.get("solutions", []):
        full = add(p)
        with open(full) as f:
            sol = json.load(f)
        for src in sol.get("sources", []):
            add(os.path.relpath(os.path.join(os.path.dirname(full), src), root))
    return out


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self._path)
        self.sock = s


class Client:
    """A connection to one ``nodus serve``. Thread-safe: each call opens its own connection."""

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 60.0,
                 retry_for: float = 300.0):
        """``timeout``: seconds per HTTP call. ``retry_for``: how long a submission keeps being
        retried (503, a refused or reset connection) before the last error is raised."""
        self.url, self.token, self.timeout, self.retry_for = url, token, timeout, retry_for
        if url.startswith("unix:"):
            self._unix, self._host = url[len("unix:"):], None
        else:
            u = urlsplit(url)
            if u.scheme != "http" or not u.hostname or u.port is None:
                raise ValueError(f"expected http://HOST:PORT or unix:/PATH, got {url!r}")
            self._unix, self._host = None, (u.hostname, u.port)

    # ---- HTTP ----
    def _conn(self, timeout: float) -> http.client.HTTPConnection:
        if self._unix:
            return _UnixHTTPConnection(self._unix, timeout)
        return http.client.HTTPConnection(*self._host, timeout=timeout)

    def _call(self, method: str, path: str, body: Optional[bytes] = None,
              headers: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None):
        h = {"Content-Type": "application/json"} if body is not None else {}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        h.update(headers or {})
        c = self._conn(timeout or self.timeout)
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
            return r.status, r.getheader("Retry-After"), data
        finally:
            c.close()

    @staticmethod
    def _parse(status: int, data: bytes) -> Any:
        try:
            return json.loads(data)
        except ValueError:
            return data.decode(errors="replace")

    def _json(self, method: str, path: str, timeout: Optional[float] = None) -> Any:
        status, _, data = self._call(method, path, timeout=timeout)
        doc = self._parse(status, data)
        if status != 200:
            raise ServeError(status, doc)
        return doc

    # ---- submitting ----
    def submit(self, solution: Optional[Mapping[str, Any]], workload: str, reference: Optional[str] = None, *,
               campaign: Optional[str] = None, label: Optional[str] = None,
               idempotency_key: Optional[str] = None, kernelbench: Optional[str] = None,
               kernelbench_path: str = "candidate.py") -> int:
        """Submits one candidate; returns its id once the server has stored it.

        ``solution``: the JSON a solution file holds with its sources inline
        (``[{"path": NAME, "content": TEXT}]``; ``solution_from_file`` makes one), ``name`` and
        ``task`` may be left out. ``workload`` and ``reference`` name those of the base campaign
        (``campaign``, optional when the server has one). ``idempotency_key``: a submission
        sent again with the same key gets the same id (one is made when none is given, so the
        retries here are safe). ``kernelbench``: instead of a solution, a KernelBench ``ModelNew``
        module's source (``kernelbench_path`` its file name), judged against an imported
        problem's reference. Raises ServeError for a refusal (400 with faults, 401, 409, 413)."""
        doc = {"workload": workload, "idempotency_key": idempotency_key or uuid.uuid4().hex}
        if kernelbench is not None:
            # a KernelBench ModelNew source as it is (solution None)
            doc["kernelbench"] = {"path": kernelbench_path, "content": kernelbench}
        if solution is not None:
            doc["solution"] = dict(solution)
        for k, v in (("reference", reference), ("campaign", campaign), ("label", label)):
            if v is not None:
                doc[k] = v
        return self._post(doc)

    def submit_campaign(self, campaign: Any, *, label: Optional[str] = None,
                        idempotency_key: Optional[str] = None) -> int:
        """Submits a whole campaign: ``campaign`` is a campaign file's path (its files are read
        with ``campaign_files``) or such a mapping of path -> text. It is judged as the server's
        ``nodus plan`` and ``nodus run`` would judge it; its Evaluation has ``pairs``."""
        files = campaign_files(campaign) if isinstance(campaign, (str, os.PathLike)) else dict(campaign)
        doc = {"campaign_files": files, "idempotency_key": idempotency_key or uuid.uuid4().hex}
        if label is not None:
            doc["label"] = label
        return self._post(doc)

    def _post(self, doc: Mapping[str, Any]) -> int:
        body = json.dumps(doc).encode()
        deadline = time.monotonic() + self.retry_for
        while True:
            try:
                status, retry_after, data = self._call("POST", "/v1/submissions", body)
            except (ConnectionError, socket.timeout, http.client.HTTPException, OSError) as e:
                # a server restarting: the key makes the retry safe
                if time.monotonic() > deadline:
                    raise ConnectionError(f"nodus serve at {self.url} did not answer: {e}") from e
                time.sleep(0.2)
                continue
            if status == 202:
                return int(json.loads(data)["id"])
            if status == 503 and time.monotonic() < deadline:
                time.sleep(min(float(retry_after or 1), max(0.0, deadline - time.monotonic())))
                continue
            raise ServeError(status, self._parse(status, data))

    # ---- results ----
    def get(self, sub_id: int) -> Evaluation:
        """One submission as it is now."""
        return Evaluation.from_json(self._json("GET", f"/v1/submissions/{int(sub_id)}"))

    def results_after(self, after: int = 0, wait: float = 0, limit: int = 1000) -> List[Evaluation]:
        """Ended submissions with seq > after, oldest first; waits up to ``wait`` seconds (at
        most 30) for the first when there is none yet."""
        q = urlencode({"after": int(after), "wait": int(wait), "limit": int(limit)})
        status, _, data = self._call("GET", f"/v1/results?{q}", timeout=self.timeout + wait)
        if status != 200:
            raise ServeError(status, self._parse(status, data))
        return [Evaluation.from_json(json.loads(line)) for line in data.decode().splitlines() if line.strip()]

    def _wait_round(self, want: set, after: int, got: Dict[int, Evaluation], wait: float) -> int:
        """One long-poll: records the ended ones of ``want`` in got; returns the new after."""
        try:
            page = self.results_after(after, wait=wait)
        except (ConnectionError, socket.timeout, http.client.HTTPException, OSError):
            time.sleep(0.5)  # a server restarting: ask again
            return after
        for e in page:
            after = max(after, e.seq or after)
            if e.id in want:
                got[e.id] = e
        return after

    async def results(self, ids: Iterable[int], wait: float = 10) -> AsyncIterator[Evaluation]:
        """Yields each of ``ids`` once, as it ends (done or failed), in the order they end."""
        want = set(int(i) for i in ids)
        after, seen = 0, set()
        while len(seen) < len(want):
            got: Dict[int, Evaluation] = {}
            after = await asyncio.to_thread(self._wait_round, want, after, got, wait)
            for i, e in got.items():
                if i not in seen:
                    seen.add(i)
                    yield e

    def wait(self, ids: Sequence[int], timeout: Optional[float] = None, wait: float = 10) -> List[Evaluation]:
        """Blocks until every one of ``ids`` ended; returns them in the order of ``ids``."""
        want = set(int(i) for i in ids)
        got: Dict[int, Evaluation] = {}
        after, deadline = 0, None if timeout is None else time.monotonic() + timeout
        while len(got) < len(want):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{len(want) - len(got)} of {len(want)} submissions have not ended "
                                   f"after {timeout} s")
            after = self._wait_round(want, after, got, wait)
        return [got[int(i)] for i in ids]

    def evaluate(self, batch: Iterable[Mapping[str, Any]], timeout: Optional[float] = None) -> List[Evaluation]:
        """Submits every entry of ``batch`` (the keyword arguments of ``submit``: solution,
        workload, ...), then blocks until all have ended; returns them in batch order."""
        ids = [self.submit(**entry) for entry in batch]
        return self.wait(ids, timeout=timeout)
