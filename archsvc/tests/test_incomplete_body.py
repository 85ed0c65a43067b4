"""A body shorter than its Content-Length (the client went away mid-body) is refused before
any view acts on it, even when what arrived parses."""

import io
import json

from diagrams.tests.helpers import new_project, new_service


def short_put(client, path: str, body: bytes, declared: int):
    return client.generic(
        "PUT",
        path,
        b"",
        content_type="application/json",
        CONTENT_LENGTH=str(declared),
        **{"wsgi.input": io.BytesIO(body)},
    )


def test_a_short_body_that_parses_is_refused_and_changes_nothing(api):
    project = new_project(api)
    new_service(api, project, {"name": "Alpha", "description": "first"})
    body = json.dumps({"description": "half-sent"}).encode()
    response = short_put(api, f"/v1/projects/{project}/services/alpha", body, len(body) + 4)
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "bad_request",
        "message": "The request body is shorter than its Content-Length.",
    }
    assert api.get(f"/v1/projects/{project}/services/alpha").json()["description"] == "first"


def test_a_whole_body_passes(api):
    project = new_project(api)
    new_service(api, project, {"name": "Alpha"})
    body = json.dumps({"description": "whole"}).encode()
    response = short_put(api, f"/v1/projects/{project}/services/alpha", body, len(body))
    assert response.status_code == 200 and response.json()["description"] == "whole"


def test_a_form_cut_between_fields_is_refused(factory, org):
    """The service editor posts a form: a cut between two fields would drop the later ones."""
    membership = factory.member(org, "ada@example.com")
    client = factory.member_client(membership, enforce_csrf=False)
    body = b"name=Alpha&description=kept"
    response = client.generic(
        "POST",
        "/projects/",
        b"",
        content_type="application/x-www-form-urlencoded",
        CONTENT_LENGTH=str(len(body) + 20),
        **{"wsgi.input": io.BytesIO(body)},
    )
    assert response.status_code == 400


def chunked(client, path: str, body: bytes, *, terminated: bool):
    """A chunked request as the server hands it on: no Content-Length, the body de-chunked
    in its input stream, which gunicorn ends at the body's end (`wsgi.input_terminated`)."""
    extra = {"wsgi.input": io.BytesIO(body), "HTTP_TRANSFER_ENCODING": "chunked"}
    if terminated:
        extra["wsgi.input_terminated"] = True
    return client.generic(
        "POST", path, b"", content_type="application/json", CONTENT_LENGTH="", **extra
    )


def test_a_chunked_body_is_read_where_the_server_ends_its_stream(api):
    """A duplicate's name sent chunked (Python's requests with a generator) was read as no
    body: the copy was made under the source's name, a project spent on the plan."""
    project = new_project(api, "Walk Two")
    body = json.dumps({"name": "My named copy"}).encode()
    response = chunked(api, f"/v1/projects/{project}/duplicate", body, terminated=True)
    assert response.status_code == 200 and response.json()["name"] == "My named copy"
    response = chunked(
        api,
        "/v1/projects",
        json.dumps({"name": "Sent chunked", "description": ""}).encode(),
        terminated=True,
    )
    assert response.status_code == 200 and response.json()["name"] == "Sent chunked"


def test_a_chunked_body_the_server_cannot_end_is_refused_and_changes_nothing(api):
    project = new_project(api, "Walk Two")
    before = api.get("/v1/projects").json()["total"]
    body = json.dumps({"name": "My named copy"}).encode()
    response = chunked(api, f"/v1/projects/{project}/duplicate", body, terminated=False)
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "bad_request",
        "message": "This server cannot read a chunked request body: send the body with its "
        "Content-Length.",
    }
    assert api.get("/v1/projects").json()["total"] == before


def test_a_chunked_body_over_the_size_limit_is_refused(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"name": "Big", "description": "x" * 2000}).encode()
    response = chunked(api, "/v1/projects", body, terminated=True)
    assert response.status_code == 400
    assert response.json()["message"] == "The request body is too large."
    assert api.get("/v1/projects").json()["total"] == 0


def test_gunicorn_hands_a_chunked_body_on(tmp_path):
    """Through the production server, as a client sends it (http.client, chunked)."""
    import http.client

    from archsvc.tests.servers import AppServer, manage

    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "RATE_LIMIT_ENABLED": "0"}
    manage("migrate", "-v", "0", env=env)
    manage("create_member", "--org", "walk", "ada@example.com", env=env)
    token = manage("create_api_key", "--org", "walk", "--name", "ci", env=env).split()[-1]
    with AppServer(env=env) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        body = iter([b'{"name": ', b'"Sent in chunks", "description": ""}'])
        connection.request(
            "POST",
            "/v1/projects",
            body=body,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
    assert response.status == 200, answer
    assert answer["name"] == "Sent in chunks"
