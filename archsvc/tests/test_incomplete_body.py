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
