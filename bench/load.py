"""The load of the soak and of its CI form: one thread per API key sending mixed reads
(project list, services, graph, SVG, history) and service writes (create, update, rename,
delete) back to back over http.client, each remembering every write and what it was told,
so that the database can be checked against it afterwards (bench/consistency.py). Used by
bench/soak.py, archsvc/tests/test_load.py and archsvc/tests/test_faults.py."""

import http.client
import json
import random
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from diagrams.slugs import service_slug  # pure code: no Django setup needed

ORGS, KEYS_PER_ORG, PROJECTS_PER_ORG = 3, 2, 2
WORKERS = 2
MAX_LIVE = 12  # services a client keeps per project: graphs stay a realistic size
TOPICS = [
    f"events.{name}"
    for name in ("orders", "payments", "stock", "users", "mail", "audit", "search", "billing")
]
CATEGORIES = ["core", "edge", "data"]

# (operation, weight): about two thirds reads.
MIXED = [
    ("list", 10),
    ("services", 18),
    ("graph", 15),
    ("svg", 15),
    ("history", 6),
    ("create", 12),
    ("update", 16),
    ("delete", 8),
]
WRITES = {"create", "update", "delete"}
EXPECTED = {"create": 200, "update": 200, "delete": 204}

# gunicorn reads gunicorn.conf.py from its working directory; recycling stays off here even
# if a deployment turns it on there, or a leak would be hidden (and RSS compared across
# processes).
LOAD_ENV = {"RATE_LIMIT_ENABLED": "0", "GUNICORN_MAX_REQUESTS": "0"}


@dataclass
class LoadClient:
    """One API key (with projects:manage) and the projects of its organization it uses."""

    label: str
    org: str
    token: str
    projects: list[str] = field(default_factory=list)


@dataclass
class Write:
    """One write as the client saw it. `marker` is the description it set (unique), `slug`
    the service it addressed and `new_slug` the one it answered with."""

    op: str
    project: str
    slug: str
    marker: str | None
    status: int | None
    body: bytes
    name: str | None = None
    new_slug: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == EXPECTED[self.op]


class LoadWorker(threading.Thread):
    """Sends one client's requests back to back until `stop`; it writes only its own services
    (never reused names), so it knows what each project must hold, failed writes aside."""

    def __init__(
        self,
        url: str,
        client: LoadClient,
        *,
        stop: threading.Event,
        seed: int,
        mix: list[tuple[str, int]] = MIXED,
    ):
        super().__init__(daemon=True, name=f"load-{client.label}")
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.client = client
        self.stop = stop
        self.rng = random.Random(seed)
        self.ops, self.weights = zip(*mix, strict=True)
        self.live: dict[str, dict[str, str]] = {p: {} for p in client.projects}
        self.unknown: dict[str, set[str]] = {p: set() for p in client.projects}
        self.counter = 0
        self.latencies: dict[str, list[float]] = {"read": [], "write": []}
        self.statuses: Counter = Counter()
        self.failures: list[tuple[str, int | None, bytes]] = []
        self.writes: list[Write] = []
        self.timeline: list[tuple[float, str, int | None]] = []
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.step()
        except Exception as exc:  # noqa: BLE001 - a broken client fails the run, loudly
            self.failures.append(("client", None, repr(exc).encode()))
            raise
        finally:
            self.conn.close()

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int | None, bytes]:
        headers = {"Authorization": f"Bearer {self.client.token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException) as exc:
            # a dropped connection: the client cannot know what happened
            self.conn.close()
            return None, repr(exc).encode()

    def _service_name(self, kind: str) -> str:
        self.counter += 1
        return f"{self.client.label} {kind}{self.counter}"

    def _marker(self) -> str:
        self.counter += 1
        return f"{self.client.label}#{self.counter}"

    def step(self) -> None:
        op = self.rng.choices(self.ops, self.weights)[0]
        project = self.rng.choice(self.client.projects)
        live = self.live[project]
        if op in ("update", "delete") and not live:
            op = "create"
        elif op == "create" and len(live) >= MAX_LIVE:
            op = "delete"
        base = f"/v1/projects/{project}"
        started = time.perf_counter()
        write = None
        if op == "list":
            status, body = self.request("GET", "/v1/projects?pageSize=20")
        elif op == "services":
            status, body = self.request("GET", f"{base}/services")
        elif op == "graph":
            status, body = self.request("GET", f"{base}/graph")
        elif op == "svg":
            status, body = self.request("GET", f"{base}/graph/svg")
        elif op == "history":
            status, body = self.request("GET", f"{base}/history")
        elif op == "create":
            marker = self._marker()
            request = {
                "name": self._service_name("s"),
                "description": marker,
                "category": self.rng.choice(CATEGORIES),
                "owner": self.client.label,
                "produces": [{"name": self.rng.choice(TOPICS)}],
                "consumes": [{"name": self.rng.choice(TOPICS)}],
            }
            status, body = self.request("POST", f"{base}/services", request)
            write = Write("create", project, "", marker, status, body, request["name"])
        elif op == "update":
            slug = self.rng.choice(sorted(live))
            marker = self._marker()
            request = {"description": marker}
            if self.rng.random() < 0.25:
                request["name"] = self._service_name("r")
            else:
                request["produces"] = [{"name": t} for t in self.rng.sample(TOPICS, 2)]
            status, body = self.request("PUT", f"{base}/services/{slug}", request)
            write = Write("update", project, slug, marker, status, body, request.get("name"))
        else:
            slug = self.rng.choice(sorted(live))
            status, body = self.request("DELETE", f"{base}/services/{slug}")
            write = Write("delete", project, slug, live[slug], status, body)
        elapsed = (time.perf_counter() - started) * 1000
        self.latencies["write" if op in WRITES else "read"].append(elapsed)
        self.statuses[(op, status)] += 1
        self.timeline.append((time.monotonic(), op, status))
        if write is None:
            if status != 200:
                self.failures.append((op, status, body[:500]))
            return
        self.writes.append(write)
        self._learn(write, live)

    def _learn(self, write: Write, live: dict[str, str]) -> None:
        """What the project now holds, as far as this client can tell."""
        if not write.ok:
            self.failures.append((write.op, write.status, write.body[:500]))
            # whatever the outcome, these services are no longer ours to reason about
            for slug in (write.slug, write.name and service_slug(write.name)):
                if slug:
                    live.pop(slug, None)
                    self.unknown[write.project].add(slug)
            return
        if write.op == "delete":
            del live[write.slug]
            return
        write.new_slug = json.loads(write.body)["slug"]
        if write.slug and write.slug != write.new_slug:
            del live[write.slug]
        live[write.new_slug] = write.marker


def project_create(url: str, token: str, name: str) -> str:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request(
        "POST",
        "/v1/projects",
        body=json.dumps({"name": name, "description": "soak"}),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"project create: {response.status} {body[:300]!r}")
    return json.loads(body)["id"]


def projects_create(url: str, clients: list[LoadClient], per_org: int = PROJECTS_PER_ORG):
    """Each organization's first key makes its projects; every key of it uses them all."""
    by_org: dict[str, list[LoadClient]] = {}
    for client in clients:
        by_org.setdefault(client.org, []).append(client)
    for org, members in by_org.items():
        ids = [project_create(url, members[0].token, f"Soak {org} {n}") for n in range(per_org)]
        for client in members:
            client.projects = list(ids)


def child_rss(master_pid: int) -> dict[int, int]:
    from archsvc.tests.servers import child_pids, rss_kib

    sizes = {pid: rss_kib(pid) for pid in child_pids(master_pid)}
    return {pid: size for pid, size in sizes.items() if size is not None}


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_load(
    url: str,
    clients: list[LoadClient],
    *,
    seconds: float,
    warmup: float,
    master_pid: int,
    seed: int = 1,
) -> dict:
    """`seconds` of mixed load, one thread per client, sampling the workers' RSS: the figures,
    and the workers (their writes and what they believe each project holds)."""
    stop = threading.Event()
    workers = [
        LoadWorker(url, client, stop=stop, seed=seed * 1000 + n) for n, client in enumerate(clients)
    ]
    rss_start = child_rss(master_pid)
    seen = set(rss_start)
    samples = []
    started = time.monotonic()
    for worker in workers:
        worker.start()
    rss_warm = None
    while (elapsed := time.monotonic() - started) < seconds:
        time.sleep(min(1.0, max(0.0, seconds - elapsed)))
        samples.append((round(time.monotonic() - started, 1), child_rss(master_pid)))
        seen |= set(samples[-1][1])
        if rss_warm is None and time.monotonic() - started >= warmup:
            rss_warm = samples[-1][1]
    stop.set()
    for worker in workers:
        worker.join(timeout=90)
    duration = time.monotonic() - started
    rss_end = child_rss(master_pid)
    statuses = sum((w.statuses for w in workers), Counter())
    reads = [x for w in workers for x in w.latencies["read"]]
    writes = [x for w in workers for x in w.latencies["write"]]
    every = reads + writes
    growth = {pid: rss_end[pid] - rss_warm[pid] for pid in rss_end if pid in (rss_warm or {})}
    two_thirds = next((rss for t, rss in samples if t >= duration * 2 / 3), rss_end)
    tail = {pid: rss_end[pid] - two_thirds[pid] for pid in rss_end if pid in two_thirds}
    return {
        "seconds": round(duration, 1),
        "warmup": warmup,
        "clients": len(clients),
        "orgs": len({c.org for c in clients}),
        "projects": len({p for c in clients for p in c.projects}),
        "requests": len(every),
        "reads": len(reads),
        "writes": len(writes),
        "rps": len(every) / duration,
        "p50": percentile(every, 0.50),
        "p99": percentile(every, 0.99),
        "max": max(every),
        "read_p50": percentile(reads, 0.50),
        "read_p99": percentile(reads, 0.99),
        "write_p50": percentile(writes, 0.50),
        "write_p99": percentile(writes, 0.99),
        "mean": statistics.fmean(every),
        "statuses": {
            f"{op} {status}": n
            for (op, status), n in sorted(
                statuses.items(), key=lambda item: (item[0][0], str(item[0][1]))
            )
        },
        "server_errors": sum(n for (_, s), n in statuses.items() if s is not None and s >= 500),
        "dropped": sum(n for (_, s), n in statuses.items() if s is None),
        "failures": [f for w in workers for f in w.failures],
        "rss_start": rss_start,
        "rss_warm": rss_warm or {},
        "rss_end": rss_end,
        "rss_max": {pid: max(s[1].get(pid, 0) for s in samples) for pid in rss_end},
        "rss_growth": growth,
        "rss_tail_growth": tail,
        "rss_samples": samples,
        "workers_replaced": len(seen - set(rss_start)),
        "workers": workers,
    }
