"""Every error is the spec's body: ErrorResponse, ValidationError with violations by JSON
path, and a bare internal_error for anything unexpected."""

import pytest


def test_unknown_v1_path_is_json_404(api):
    for path in ("/v1/nope", "/v1/projects-x/1/2", "/v1"):
        response = api.get(path)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json() == {
            "status": 404,
            "code": "not_found",
            "message": "No such endpoint.",
        }


def test_unknown_v1_path_without_credentials_is_still_json(db):
    from django.test import Client

    response = Client().get("/v1/unknown/thing")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_unknown_page_is_html_404(db):
    from django.test import Client

    response = Client().get("/nothing-here/")
    assert response.status_code == 404
    assert b"Not found" in response.content


def test_wrong_method_is_405_in_the_error_shape(api):
    response = api.delete("/v1/limits")
    assert response.status_code == 405
    assert response.json()["status"] == 405
    assert set(response.json()) == {"status", "code", "message"}


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_unexpected_error_is_bare_internal_error(api):
    api.raise_request_exception = False
    response = api.get("/v1/_test/broken")
    assert response.status_code == 500
    assert response.json() == {
        "status": 500,
        "code": "internal_error",
        "message": "An internal error occurred.",
    }
    assert b"hunter2" not in response.content and b"SELECT" not in response.content


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_malformed_json_is_400_naming_the_body(api):
    response = api.post("/v1/_test/echo", '{"name": "x",', content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "bad_request" and body["status"] == 400
    assert body["violations"][0]["field"] == "body"


@pytest.mark.urls("archsvc.tests.urls_faulty")
@pytest.mark.parametrize("payload", ["[1, 2]", '"text"', "42", "null"])
def test_body_that_is_not_an_object_is_a_violation(api, payload):
    response = api.post("/v1/_test/echo", payload, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_failed"
    assert response.json()["violations"][0]["field"] == "body"


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_nan_is_not_json(api):
    response = api.post("/v1/_test/echo", '{"name": NaN}', content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_violations_name_json_paths_and_unknown_properties_at_every_depth(api):
    response = api.post(
        "/v1/_test/echo",
        {
            "name": "far-too-long-name",
            "surprise": 1,
            "produces": [{"name": "ok"}, {"name": "too-long", "colour": "red"}],
            "extras": {"owner-team": "abcdef"},
        },
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "validation_failed"
    fields = {v["field"]: v for v in body["violations"]}
    assert set(fields) == {
        "name",
        "surprise",
        "produces[1].name",
        "produces[1].colour",
        "extras.owner-team",
    }
    assert fields["name"]["rejectedValue"] == "far-too-long-name"
    assert fields["surprise"]["message"] == "Unknown property."
    assert fields["produces[1].colour"]["rejectedValue"] == "red"


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_json_body_without_content_type_is_read(api):
    response = api.post(
        "/v1/_test/echo", '{"name": "abc"}', content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert response.json() == {"name": "abc"}


def test_security_headers_on_api_and_pages(api):
    from django.test import Client

    for response in (
        api.get("/v1/limits"),
        Client().get("/accounts/login/"),
        # refused before any view: a Host that is not ours (contract 14: every response)
        Client().get("/v1/limits", HTTP_HOST="evil.example"),
        Client().get("/accounts/login/", HTTP_HOST="evil.example"),
    ):
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["X-Request-Id"]


@pytest.mark.parametrize("raw", ['"\\ud800x"', '"bell\\u0007"', '"esc\\u001b[31m"'])
def test_text_that_cannot_be_stored_or_drawn_is_a_violation(api, raw):
    body = '{"name": ' + raw + ', "description": ""}'
    response = api.post("/v1/projects", body, content_type="application/json")
    assert response.status_code == 400
    assert [v["field"] for v in response.json()["violations"]][0] == "name"
    assert api.get("/v1/projects").json()["total"] == 0


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_unknown_property_named_with_a_lone_surrogate_is_a_violation(api):
    response = api.post(
        "/v1/_test/echo", '{"name": "ok", "\\ud800": 1}', content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["violations"][0]["field"] == "\ufffd"


@pytest.mark.urls("archsvc.tests.urls_faulty")
def test_property_names_that_look_like_paths_are_still_violations(api):
    """Found by schema fuzzing: names holding `[` or `.` once broke the error handler."""
    response = api.post(
        "/v1/_test/echo",
        '{"name": "ok", "produces": [{"name": "t", "[x": 1, "a.b]": 2}]}',
        content_type="application/json",
    )
    assert response.status_code == 400
    fields = {v["field"] for v in response.json()["violations"]}
    assert fields == {"produces[0].[x", "produces[0].a.b]"}


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_unknown_v1_path_is_json_404_for_writes_too(api, method):
    """Not Django's HTML CSRF page: a script that mistypes a path learns that it did."""
    from django.test import Client

    for client in (api, Client(enforce_csrf_checks=True)):
        for path in ("/v1/nope", "/v1/projects/", "/v1"):
            response = getattr(client, method)(path, "{}", content_type="application/json")
            assert response.status_code == 404, (method, path)
            assert response.json()["code"] == "not_found"


def test_a_body_nested_deeper_than_the_decoder_follows_is_400(api):
    for depth in (1_000, 100_000):
        body = '{"name": ' + "[" * depth + "]" * depth + "}"
        response = api.post("/v1/projects", body, content_type="application/json")
        assert response.status_code == 400
        assert response.json()["code"] == "bad_request"
        assert response.json()["violations"][0]["field"] == "body"
    assert api.get("/v1/projects").json()["total"] == 0


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/v1/projects", '{"name": 1e400, "description": ""}', "name"),
        ("/v1/projects", '{"name": "Shop", "description": -1e999}', "description"),
        ("/v1/pinned", '{"projectId": 1e400}', "projectId"),
    ],
)
def test_a_number_too_big_for_a_float_is_a_violation_naming_it(api, path, body, field):
    """1e400 is valid JSON that Python reads as infinity, which JSON cannot carry back: the
    violation names the field and leaves the value out instead of failing to answer."""
    response = api.post(path, body, content_type="application/json")
    assert response.status_code == 400
    violation = response.json()["violations"][0]
    assert violation["field"] == field and "rejectedValue" not in violation
    assert api.get("/v1/projects").json()["total"] == 0


def test_a_known_path_with_a_trailing_slash_says_the_path_meant(api):
    """`/v1/projects/` is 404 (the API's paths have no trailing slash, and a redirect would
    lose a POST's body), and the message gives the path without it; every 404 body is
    written like every other error body."""
    response = api.get("/v1/projects/")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "message": "No such endpoint. The API's paths end without a slash: /v1/projects",
    }
    assert response.content.startswith(b'{"status":404,"code":"not_found"')
    assert api.get("/v1/nope/").json()["message"] == "No such endpoint."


def test_a_body_over_the_size_limit_is_a_violation_naming_the_limit(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = '{"name": "Shop", "description": "' + "x" * 20_000 + '"}'
    response = api.post("/v1/projects", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "bad_request",
        "message": "The request body is too large.",
        "violations": [
            {"field": "body", "message": "The body is larger than the limit of 10,000 bytes."}
        ],
    }
    assert api.get("/v1/projects").json()["total"] == 0


def test_a_number_with_too_many_digits_is_named_without_python_advice(api):
    response = api.post("/v1/projects", '{"name": ' + "9" * 5000 + "}", "application/json")
    assert response.status_code == 400
    [violation] = response.json()["violations"]
    assert violation == {
        "field": "body",
        "message": "JSON parse error - a number has more than 4300 digits.",
    }


@pytest.mark.parametrize(
    "key, message",
    [
        ("k" * 101, "Keys must be at most 100 characters."),
        ("bell\x07here", "Keys may not contain control characters or invalid Unicode."),
    ],
)
def test_an_extras_key_at_fault_is_the_rejected_value_not_its_value(api, key, message):
    """The key is what the client must change: the violation says it back, not the value
    beside it (which was valid), at the top level and inside a topic alike."""
    response = api.post(
        "/v1/projects", {"name": "Shop", "description": ""}, content_type="application/json"
    )
    pid = response.json()["id"]
    body = {
        "name": "A",
        "extras": {key: "fine", "ok": "fine"},
        "produces": [{"name": "t", "extras": {key: "also fine"}}],
    }
    response = api.post(f"/v1/projects/{pid}/services", body, content_type="application/json")
    assert response.status_code == 400, response.content
    violations = {v["field"]: v for v in response.json()["violations"]}
    assert set(violations) == {f"extras.{key}", f"produces[0].extras.{key}"}
    for violation in violations.values():
        assert violation["message"] == message
        assert violation["rejectedValue"] == key
    assert api.get(f"/v1/projects/{pid}/services").json() == []


@pytest.mark.parametrize("charset", ["utf8", "latin1", "utf-16"])
def test_a_form_in_another_charset_is_a_400_page_not_a_500(db, charset):
    """Django refuses a form whose charset is not UTF-8 with a 400; its own 400 handler read
    the form again for the CSRF check, which raised once more: a 500 on every form."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/",
        data=f"email=a%40example.com&password=x&csrfmiddlewaretoken={token}",
        content_type=f"application/x-www-form-urlencoded; charset={charset}",
    )
    assert response.status_code == 400
    assert "could not be read" in response.content.decode()
    assert response["Content-Type"].startswith("text/html")
