"""A bounded load in CI: mixed reads and writes from six API keys in three organizations
against gunicorn (2 workers) on PostgreSQL + Redis for LOAD_SECONDS (20): no 5xx, no
dropped connection, memory flat after the warm-up, and afterwards every project's history
consistent and equal to what the clients were told. `make soak` runs the long form and
writes its figures into docs/benchmarks.md (bench/soak.py)."""

import os
import uuid

import pytest
from django.db import connection

from archsvc.tests.servers import AppServer
from bench import load, soak
from conftest import requires_postgres, requires_redis

LOAD_SECONDS = float(os.environ.get("LOAD_SECONDS", 20))
# Each worker keeps recent renders in memory up to this many bytes (32 MiB by default): small
# here, so that it is full by the end of the warm-up and growth after it would be a leak.
RENDER_CACHE_BYTES = 2 * 1024 * 1024


@requires_postgres
@requires_redis
@pytest.mark.django_db(transaction=True)
def test_mixed_load_has_no_server_error_flat_memory_and_consistent_history(factory):
    clients = []
    for o in range(1, load.ORGS + 1):
        org = factory.org(f"load-{o}")
        for k in range(1, load.KEYS_PER_ORG + 1):
            token = factory.key(org, f"load-{k}", ["projects:manage"])
            clients.append(load.LoadClient(f"o{o}k{k}", org.slug, token))
    env = {
        **load.LOAD_ENV,
        "CACHE_KEY_PREFIX": f"load-{uuid.uuid4().hex}",
        "RENDER_LOCAL_CACHE_BYTES": str(RENDER_CACHE_BYTES),
    }
    with AppServer(env=env, workers=load.WORKERS) as server:
        load.projects_create(server.url, clients)
        result = load.run_load(
            server.url,
            clients,
            seconds=LOAD_SECONDS,
            warmup=LOAD_SECONDS / 4,
            master_pid=server.process.pid,
        )
        log = server.log_text()
    with connection.cursor() as cursor:
        checks = soak.check(cursor, result)
    print(soak.report(result, checks))

    assert result["server_errors"] == 0 and result["dropped"] == 0, log[-3000:]
    assert result["failures"] == []
    assert result["writes"] > 50 and result["reads"] > 100  # the load was a load
    assert len(result["rss_end"]) == load.WORKERS and result["workers_replaced"] == 0
    limit = RENDER_CACHE_BYTES // 1024 + soak.RSS_SLACK_KIB
    assert all(kib <= limit for kib in result["rss_growth"].values()), result["rss_samples"]
    assert checks["problems"] == []
    assert checks["client_problems"] == []
    assert soak.verdict(result, checks, render_cache_bytes=RENDER_CACHE_BYTES, tail=False) == []
