"""Faults under a real gunicorn: PostgreSQL stopped and started again (cleanly, then as in a
crash) during a write load, Redis stopped, restarted and hung, and clients that go away in
the middle of a request. The database and Redis that fail are the test's own
(servers.PrivatePostgres, servers.PrivateRedis); the machine's shared ones are never
touched. Afterwards the stored history is checked write by write (bench/consistency.py)."""

import json
import re
import socket
import struct
import threading
import time
import uuid
from collections import Counter

import psycopg
import pytest
from django.db import connection

from archsvc.tests.servers import (
    AppServer,
    PrivatePostgres,
    PrivateRedis,
    manage,
    private_postgres_missing,
    private_redis_missing,
)
from bench.consistency import client_problems, history_problems
from bench.load import LOAD_ENV, LoadClient, LoadWorker, projects_create
from conftest import requires_postgres

POSTGRES_MISSING = private_postgres_missing()
requires_private_postgres = pytest.mark.skipif(
    POSTGRES_MISSING is not None, reason=f"cannot run a private PostgreSQL: {POSTGRES_MISSING}"
)
REDIS_MISSING = private_redis_missing()
requires_private_redis = pytest.mark.skipif(
    REDIS_MISSING is not None, reason=f"cannot run a private Redis: {REDIS_MISSING}"
)

SEED = """
from accounts.models import ApiKey
from accounts.services import api_key_create, member_create
org = member_create(email="faults@example.com", org_slug="faults").organization
for n in range(3):
    print(api_key_create(organization=org, name=f"writer-{n}",
                         permissions=[ApiKey.PERMISSION_PROJECTS_MANAGE])[1])
"""
# Mostly writes, a few reads: each writer creates, updates, renames and deletes its own
# services in one shared project (so they also queue on its row lock).
WRITE_MIX = [("create", 4), ("update", 5), ("delete", 2), ("services", 1), ("svg", 1)]


def error_shape(status: int, body: bytes) -> bool:
    """The spec's ErrorResponse with code internal_error and the HTTP status."""
    try:
        data = json.loads(body)
    except ValueError:
        return False
    return (
        data.get("status") == status
        and data.get("code") == "internal_error"
        and isinstance(data.get("message"), str)
    )


@requires_postgres
@requires_private_postgres
def test_postgres_restarts_under_write_load_fail_cleanly_apply_nothing_by_halves_and_recover():
    with PrivatePostgres() as postgres:
        env = {"DATABASE_URL": postgres.url}
        manage("migrate", "-v", "0", env=env)
        tokens = manage("shell", "-v", "0", "-c", SEED, env=env).split()[-3:]
        clients = [LoadClient(f"w{n}", "faults", token) for n, token in enumerate(tokens)]
        app_env = {**env, **LOAD_ENV, "CACHE_KEY_PREFIX": f"faults-{uuid.uuid4().hex}"}
        with AppServer(env=app_env, workers=2) as server:
            projects_create(server.url, clients, per_org=1)
            workers_before = server.worker_pids()
            stop = threading.Event()
            load = [
                LoadWorker(server.url, client, stop=stop, seed=n, mix=WRITE_MIX)
                for n, client in enumerate(clients)
            ]
            for worker in load:
                worker.start()
            time.sleep(1.5)
            outages, health, probes = [], [], []
            for mode in ("fast", "immediate"):
                down = time.monotonic()
                postgres.stop(mode=mode)
                time.sleep(0.5)
                health.append(server.request("GET", "/healthz"))
                probes.append(server.request("GET", "/v1/projects", tokens[0]))
                time.sleep(1.0)
                postgres.start()
                outages.append((mode, down, time.monotonic()))
                time.sleep(2.0)  # the load goes on: the same workers must come back alone
            stop.set()
            for worker in load:
                worker.join(timeout=60)
            workers_after = server.worker_pids()
            final = server.request("GET", "/v1/projects", tokens[0])
            log = server.log_text()
        with psycopg.connect(postgres.url.replace("postgres://", "postgresql://")) as conn:
            with conn.cursor() as cursor:
                problems, counts = history_problems(cursor)
                mismatches, writes = client_problems(cursor, load)

    timeline = sorted(event for worker in load for event in worker.timeline)
    failures = [f for worker in load for f in worker.failures]
    print(
        f"\n{len(timeline)} requests, {len(failures)} failed during two outages; "
        f"{writes['writes']} writes, {writes['failed_writes']} failed, of which "
        f"{writes['failed_but_applied']} had in fact committed; {counts}"
    )
    ends = [down for _, down, _ in outages[1:]] + [float("inf")]
    for (mode, down, up), end in zip(outages, ends, strict=True):
        during = [e for e in timeline if down <= e[0] < end]
        first_ok = next((e[0] - up for e in during if e[0] > up and e[2] in (200, 204)), None)
        print(
            f"  {mode} stop: {Counter(e[2] for e in during if e[2] not in (200, 204))} in "
            f"{up - down:.1f} s down, first success {first_ok:.2f} s after the start "
            f"returned"
        )
    print("  errors logged:", Counter(re.findall(r"\b(\w+(?:Error|Exception|Shutdown))\b", log)))

    # the faults were felt, and every failure was the spec's JSON error, not a dropped
    # connection nor an HTML page
    assert failures, "no request failed: the outage was not exercised"
    assert {status for _, status, _ in failures} <= {500, 503}, failures[:5]
    assert all(error_shape(status, body) for _, status, body in failures), failures[:5]
    assert '"message": "unhandled error"' not in log  # only "database unavailable" (503)
    for probe in health:
        assert probe[0] == 503 and json.loads(probe[2])["database"] == "unavailable"
    for status, headers, body in probes:
        assert status == 503 and error_shape(status, body), body
        assert headers["Retry-After"] == "1" and headers["Content-Type"] == "application/json"
    # recovered without a restart: the same workers, every client succeeding again
    assert workers_after == workers_before and len(workers_before) == 2
    for mode, _, up in outages:
        assert any(e[0] > up and e[2] in (200, 204) for e in timeline), mode
    for worker in load:
        assert [s for _, _, s in worker.timeline[-3:]] and all(
            s in (200, 204) for _, _, s in worker.timeline[-3:]
        ), worker.timeline[-5:]
    assert final[0] == 200, final
    # nothing applied by halves, nothing acknowledged lost
    assert problems == []
    assert mismatches == []


@requires_postgres
@requires_private_redis
@pytest.mark.django_db(transaction=True)
def test_redis_stopped_or_hung_keeps_serving_fails_open_and_never_serves_a_stale_render(factory):
    org = factory.org("cache-faults")
    writer = factory.key(org, "writer", ["projects:manage"])
    renders = factory.key(org, "renders")
    limited = factory.key(org, "limited")
    with PrivateRedis() as redis_server:
        env = {
            "REDIS_URL": redis_server.url,
            "CACHE_KEY_PREFIX": "faults",
            "RATE_LIMIT_READ": "6/h",
        }
        with AppServer(env=env) as server:

            def call(method, path, token, body=None):
                return server.request(
                    method, path, token, json.dumps(body).encode() if body is not None else None
                )

            def health():
                status, _, raw = server.request("GET", "/healthz")
                return status, json.loads(raw)

            project = json.loads(
                call("POST", "/v1/projects", writer, {"name": "Shop", "description": ""})[2]
            )["id"]
            base = f"/v1/projects/{project}"
            call(
                "POST",
                f"{base}/services",
                writer,
                {"name": "Alpha", "produces": [{"name": "orders"}]},
            )
            status, _, svg = call("GET", f"{base}/graph/svg", renders)
            assert status == 200 and b"service--alpha" in svg
            cached = set(redis_server.client().keys("faults:*render:*"))
            assert cached, "the render was not cached"
            assert health() == (200, {"status": "ok", "database": "ok", "cache": "ok"})
            assert [call("GET", "/v1/limits", limited)[0] for _ in range(7)] == [200] * 6 + [429]

            # Redis stopped (its data saved, as an orderly restart does)
            redis_server.stop(save=True)
            assert health() == (
                200,
                {"status": "degraded", "database": "ok", "cache": "unavailable"},
            )
            started = time.monotonic()
            assert (
                call(
                    "POST",
                    f"{base}/services",
                    writer,
                    {"name": "Beta", "consumes": [{"name": "orders"}]},
                )[0]
                == 200
            )
            assert call("DELETE", f"{base}/services/alpha", writer)[0] == 204
            status, _, raw = call("GET", f"{base}/services", writer)
            assert status == 200 and [s["slug"] for s in json.loads(raw)] == ["beta"]
            status, _, svg = call("GET", f"{base}/graph/svg", writer)
            assert status == 200 and b"service--beta" in svg and b"service--alpha" not in svg
            # rate limits fail open: nothing can be counted, so nothing is refused
            assert [call("GET", "/v1/limits", limited)[0] for _ in range(5)] == [200] * 5
            assert time.monotonic() - started < 5, "requests were slow without the cache"

            # Redis back with the old renders: keyed by the old updatedAt, never found again
            redis_server.start()
            assert cached <= set(redis_server.client().keys("faults:*render:*"))
            assert health()[1]["cache"] == "ok"
            status, _, svg = call("GET", f"{base}/graph/svg", renders)
            assert status == 200 and b"service--beta" in svg and b"service--alpha" not in svg
            _, _, mermaid = call("GET", f"{base}/graph/mermaid", renders)
            assert b"service__beta" in mermaid and b"service__alpha" not in mermaid
            # counted again: the saved count still refuses at once, unless the key's hourly
            # window ended meanwhile (the clock is not ours to hold), and then a fresh
            # window counts six and refuses the seventh; never seven that all pass
            statuses = []
            while len(statuses) < 7 and 429 not in statuses:
                statuses.append(call("GET", "/v1/limits", limited)[0])
            assert statuses in ([429], [200] * 6 + [429]), statuses

            # Redis hung (SIGSTOP: connections open, nothing answers): each cache call
            # times out after 0.5 s and the request goes on without the cache
            redis_server.pause()
            try:
                started = time.monotonic()
                assert call("POST", f"{base}/services", writer, {"name": "Gamma"})[0] == 200
                status, _, svg = call("GET", f"{base}/graph/svg", writer)
                assert status == 200 and b"service--gamma" in svg
                assert health() == (
                    200,
                    {"status": "degraded", "database": "ok", "cache": "unavailable"},
                )
                hung = time.monotonic() - started
            finally:
                redis_server.resume()
            assert hung < 15
            status, _, svg = call("GET", f"{base}/graph/svg", renders)
            assert b"service--gamma" in svg and b"service--beta" in svg
            print(f"\nthree requests with Redis hung took {hung:.1f} s")
    with connection.cursor() as cursor:
        assert history_problems(cursor)[0] == []


def raw_request(
    port: int, head: str, body: bytes, *, reset: bool = False, pause: float = 0.0
) -> None:
    """Send a request (maybe only part of its body) and go away without reading the answer:
    a FIN, or a RST when `reset`."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(head.encode() + body)
    if pause:
        time.sleep(pause)
    if reset:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def head(method: str, path: str, token: str, length: int) -> str:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_client_that_disconnects_mid_request_loses_nothing_and_breaks_nothing(factory):
    org = factory.org("disconnects")
    token = factory.key(org, "writer", ["projects:manage"])
    # one sync worker: it serves requests one after another, so the request after an
    # abandoned one sees everything the abandoned one did
    with AppServer(workers=1) as server:

        def call(method, path, body=None):
            status, _, raw = server.request(
                method, path, token, json.dumps(body).encode() if body else None
            )
            return status, json.loads(raw) if raw else None

        def raw_of(slug):
            return call("GET", f"{base}/services/{slug}/raw")

        worker = server.worker_pids()
        project = call("POST", "/v1/projects", {"name": "Shop", "description": ""})[1]["id"]
        base = f"/v1/projects/{project}"
        call("POST", f"{base}/services", {"name": "Alpha", "description": "first"})
        before = raw_of("alpha")[1]

        # a body cut short (the client gone before its last bytes): nothing happens
        update = json.dumps({"description": "half", "owner": "Team"}).encode()
        for cut, pause, reset in (
            (len(update) - 1, 0, False),
            (8, 0.3, False),
            (len(update) - 1, 0, True),
        ):
            raw_request(
                server.port,
                head("PUT", f"{base}/services/alpha", token, len(update)),
                update[:cut],
                pause=pause,
                reset=reset,
            )
        create = json.dumps({"name": "Half"}).encode()
        raw_request(server.port, head("POST", f"{base}/services", token, len(create)), create[:-1])
        # cut short where what arrived still parses (only trailing whitespace missing):
        # refused too, by comparing what arrived with Content-Length
        padded = json.dumps({"description": "parses"}).encode() + b"    "
        raw_request(
            server.port, head("PUT", f"{base}/services/alpha", token, len(padded)), padded[:-4]
        )
        assert raw_of("alpha")[1] == before
        assert call("GET", f"{base}/services/half")[0] == 404

        # a whole request, the client gone before the answer: applied, all of it
        update = json.dumps({"description": "whole"}).encode()
        raw_request(server.port, head("PUT", f"{base}/services/alpha", token, len(update)), update)
        status, after = raw_of("alpha")
        assert status == 200 and after["description"] == "whole"
        assert after["version"] == before["version"] + 1
        assert call("GET", base)[1]["updatedAt"] == after["validFrom"]
        create = json.dumps({"name": "Whole"}).encode()
        raw_request(server.port, head("POST", f"{base}/services", token, len(create)), create)
        assert raw_of("whole")[0] == 200

        # the same, torn down with a RST: all of it or nothing
        create = json.dumps({"name": "Reset"}).encode()
        raw_request(
            server.port, head("POST", f"{base}/services", token, len(create)), create, reset=True
        )
        assert call("GET", f"{base}/services/reset")[0] in (200, 404)

        status, services = call("GET", f"{base}/services")
        assert status == 200 and {"alpha", "whole"} <= {s["slug"] for s in services}
        assert call("GET", base)[1]["serviceCount"] == len(services)
        assert server.worker_pids() == worker  # the worker lived through it all
        log = server.log_text()
    with connection.cursor() as cursor:
        assert history_problems(cursor)[0] == []
    # a client going away is the client's doing: a warning and a 400, not a 500 and a trace
    assert '"level": "ERROR"' not in log and "Traceback" not in log, log[-3000:]
