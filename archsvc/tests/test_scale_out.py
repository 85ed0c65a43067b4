"""Two app servers (separate gunicorn processes) on one PostgreSQL and one Redis: a write
through one is read fresh through the other, renders included, revocations and rate
limits hold on both, and a burst of cold reads across both is rendered once."""

import json
import random
import threading
import uuid

import pytest

from accounts.actors import actor_for_api_key
from accounts.models import ApiKey
from accounts.services import api_key_revoke
from archsvc.tests.servers import AppServer
from conftest import requires_postgres, requires_redis
from diagrams.project_writes import project_create
from diagrams.service_writes import service_create


def call(server, method, path, token, body=None):
    status, headers, raw = server.request(
        method, path, token, json.dumps(body).encode() if body is not None else None
    )
    return status, raw


@requires_postgres
@requires_redis
@pytest.mark.django_db(transaction=True)
def test_two_app_servers_share_state_renders_limits_and_revocations(factory):
    org = factory.org("scale")
    token = factory.key(org, "writer", ["projects:manage"])
    limited = factory.key(org, "limited")
    env = {"CACHE_KEY_PREFIX": f"scale-{uuid.uuid4().hex}", "RATE_LIMIT_READ": "1000/h"}
    with AppServer(env=env) as a, AppServer(env=env) as b:
        status, raw = call(a, "POST", "/v1/projects", token, {"name": "Shop", "description": ""})
        assert status == 200
        project = json.loads(raw)["id"]
        call(a, "POST", f"/v1/projects/{project}/services", token, {"name": "Alpha"})
        status, svg = call(b, "GET", f"/v1/projects/{project}/graph/svg", token)
        assert status == 200 and b'data-entity-id="service--alpha"' in svg
        # a write through A: B's next render is the new state, not a cached one
        call(a, "POST", f"/v1/projects/{project}/services", token, {"name": "Beta"})
        status, svg = call(b, "GET", f"/v1/projects/{project}/graph/svg", token)
        assert b'data-entity-id="service--beta"' in svg
        call(b, "PUT", f"/v1/projects/{project}/services/beta", token, {"name": "Gamma"})
        status, mermaid = call(a, "GET", f"/v1/projects/{project}/graph/mermaid", token)
        assert b"service__gamma" in mermaid and b"service__beta" not in mermaid

        # an ETag from one server is good on the other until a write through either
        svg_path = f"/v1/projects/{project}/graph/svg"
        status, headers, _ = a.request("GET", svg_path, token)
        tag = headers["ETag"]
        status, headers, raw = b.request("GET", svg_path, token, headers={"If-None-Match": tag})
        assert (status, raw, headers["ETag"]) == (304, b"", tag)
        call(a, "PUT", f"/v1/projects/{project}/services/gamma", token, {"name": "Delta"})
        status, headers, svg = b.request("GET", svg_path, token, headers={"If-None-Match": tag})
        assert status == 200 and headers["ETag"] != tag
        assert b'data-entity-id="service--delta"' in svg

        # a share token replaced through B is dead on A at once
        share = json.loads(call(a, "POST", f"/v1/projects/{project}/public-share-token", token)[1])[
            "token"
        ]
        assert a.request("GET", f"/share/{share}/graph.svg")[0] == 200
        call(b, "POST", f"/v1/projects/{project}/public-share-token", token)
        assert a.request("GET", f"/share/{share}/graph.svg")[0] == 404

        # a revoked key is refused by both at once
        assert call(a, "GET", "/v1/limits", limited)[0] == 200
        api_key_revoke(organization=org, name="limited")
        assert call(a, "GET", "/v1/limits", limited)[0] == 401
        assert call(b, "GET", "/v1/limits", limited)[0] == 401

    # rate limits are counted once for both (test_ratelimit.py holds the count exactly)
    env = {"CACHE_KEY_PREFIX": f"scale-{uuid.uuid4().hex}", "RATE_LIMIT_READ": "3/h"}
    with AppServer(env=env) as a, AppServer(env=env) as b:
        statuses = [call(server, "GET", "/v1/limits", token)[0] for server in (a, b, a, b, a)]
        assert statuses == [200, 200, 200, 429, 429]


@requires_postgres
@requires_redis
@pytest.mark.django_db(transaction=True)
def test_a_burst_of_cold_reads_across_servers_renders_once(factory):
    """After a write to a big project every open page asks for the new drawing at the same
    moment. Four workers on two servers miss it together: one renders, the rest wait for its
    bytes in the shared cache (each render is logged, so the logs count them)."""
    org = factory.org("burst")
    token = factory.key(org, "writer", ["projects:manage"])
    actor = actor_for_api_key(ApiKey.objects.get(organization=org, name="writer"))
    project = project_create(actor=actor, name="Tangle", description="").id
    rng = random.Random(1)
    topics = [f"topic-{i}" for i in range(150)]
    for i in range(150):  # a tangled project: its layout takes about half a second
        service_create(
            actor=actor,
            project_id=project,
            data={
                "name": f"svc-{i}",
                "produces": [{"name": t} for t in rng.sample(topics, rng.randint(0, 3))],
                "consumes": [{"name": t} for t in rng.sample(topics, rng.randint(0, 3))],
            },
        )
    env = {"CACHE_KEY_PREFIX": f"burst-{uuid.uuid4().hex}", "LOG_LEVEL": "INFO"}
    with AppServer(env=env, workers=2) as a, AppServer(env=env, workers=2) as b:
        servers = [a, b] * 4
        start = threading.Barrier(len(servers))
        answers = [None] * len(servers)

        def read(index):
            start.wait()
            answers[index] = call(servers[index], "GET", f"/v1/projects/{project}/graph/svg", token)

        threads = [threading.Thread(target=read, args=(i,)) for i in range(len(servers))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert {status for status, _ in answers} == {200}
        assert len({body for _, body in answers}) == 1
        assert answers[0][1].count(b'class="node service"') == 150
        logs = a.log_text() + b.log_text()
    renders = [line for line in logs.splitlines() if "render computed" in line]
    assert len(renders) == 1, renders
    assert f"render computed: svg of {project} in " in renders[0]
