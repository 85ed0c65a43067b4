"""Bearer API keys: every kind of bad key is the same 401 (which check it failed is never
said), a header of the wrong form or no credentials are told what to send, a good key
works. Each check runs on a route without a project and on a project route, where the key
and the project are read in one query (diagrams/api/base.py)."""

import base64
import json
from datetime import timedelta

import jwt
import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ApiKey
from accounts.services import api_key_revoke, session_start
from accounts.tokens import api_key_token_encode

KEY_REFUSED = "The API key was not accepted: it is malformed, expired or revoked."
BAD_SCHEME = "Send the API key as `Authorization: Bearer <key>`."
SESSION_ENDED = "Your session has ended: log in again."
NO_CREDENTIALS = (
    "Authentication required: send `Authorization: Bearer <API key>` "
    "(an organization's admin makes keys under Settings, API keys)."
)


def assert_unauthorized(response, message=KEY_REFUSED):
    assert response.status_code == 401
    assert response.json() == {"status": 401, "code": "unauthorized", "message": message}
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response["Content-Type"] == "application/json"


def bearer(token: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture(params=["plain", "project"])
def route(request, factory, org) -> str:
    """`/v1/limits`, or the services of a project of `org` (made with another key)."""
    if request.param == "plain":
        return "/v1/limits"
    owner = factory.key_client(org, "owner", ["projects:manage"])
    project = owner.post(
        "/v1/projects", {"name": "Routed", "description": "d"}, content_type="application/json"
    )
    assert project.status_code == 200, project.content
    return f"/v1/projects/{project.json()['id']}/services"


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_valid_key_reads_limits(api):
    response = api.get("/v1/limits")
    assert response.status_code == 200
    assert response.json() == {"currentProjects": 0, "maxProjects": 3}


def test_no_credentials_is_401(route):
    assert_unauthorized(Client().get(route), NO_CREDENTIALS)


@pytest.mark.parametrize(
    "header, message",
    [
        ("Bearer", BAD_SCHEME),
        ("Bearer ", BAD_SCHEME),
        ("Bearer garbage", KEY_REFUSED),
        ("Bearer a.b.c", KEY_REFUSED),
        ("Basic dXNlcjpwYXNz", BAD_SCHEME),
        ("bearer " + "x" * 20, KEY_REFUSED),
        ("Token abc", BAD_SCHEME),
    ],
)
def test_garbage_authorization_is_401(db, header, message, route):
    assert_unauthorized(Client(HTTP_AUTHORIZATION=header).get(route), message)


def test_alg_none_is_401(factory, org, route):
    token = factory.key(org)
    claims = jwt.decode(token, options={"verify_signature": False})
    forged = f"{_b64({'alg': 'none', 'typ': 'apikey+jwt'})}.{_b64(claims)}."
    assert_unauthorized(bearer(forged).get(route))


def test_wrong_signature_is_401(factory, org, route):
    token = factory.key(org)
    claims = jwt.decode(token, options={"verify_signature": False})
    forged = jwt.encode(
        claims,
        "another-secret-of-enough-length-0123456789",
        algorithm="HS256",
        headers={"typ": "apikey+jwt"},
    )
    assert_unauthorized(bearer(forged).get(route))
    tampered = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    assert_unauthorized(bearer(tampered).get(route))


def test_expired_key_is_401(org, route):
    key = ApiKey.objects.create(
        organization=org, name="old", expires_at=timezone.now() - timedelta(seconds=5)
    )
    token = api_key_token_encode(
        key_id=str(key.pk),
        org_id=org.pk,
        issued_at=timezone.now() - timedelta(days=2),
        expires_at=key.expires_at,
    )
    assert_unauthorized(bearer(token).get(route))


def test_revoked_key_is_refused_at_once(factory, org, route):
    token = factory.key(org, "ci-deploy")
    assert bearer(token).get(route).status_code == 200
    assert api_key_revoke(organization=org, name="ci-deploy") == 1
    assert_unauthorized(bearer(token).get(route))


def test_deleted_key_is_401(factory, org, route):
    token = factory.key(org, "temp")
    ApiKey.objects.filter(name="temp").delete()
    assert_unauthorized(bearer(token).get(route))


def test_key_claiming_another_organization_is_401(factory, org, route):
    other = factory.org("other")
    key = ApiKey.objects.create(organization=org, name="k")
    token = api_key_token_encode(
        key_id=str(key.pk), org_id=other.pk, issued_at=timezone.now(), expires_at=None
    )
    assert_unauthorized(bearer(token).get(route))


def test_session_token_as_bearer_is_401(factory, org, route):
    token = session_start(membership=factory.member(org))
    assert_unauthorized(bearer(token).get(route))


def test_api_key_in_session_cookie_is_401_saying_where_it_goes(factory, org, route):
    """Refused all the same, but a script that put its key in the cookie is told where it
    goes, not that its "session has ended"."""
    client = Client()
    client.cookies["__session"] = factory.key(org)
    assert_unauthorized(client.get(route), BAD_SCHEME)
    # a revoked or forged key in the cookie is told the same: nothing about the key leaks
    forged = factory.key(org)[:-4] + "AAAA"
    client.cookies["__session"] = forged
    assert_unauthorized(client.get(route), BAD_SCHEME)


def test_oversized_authorization_header_is_401(route):
    assert_unauthorized(Client(HTTP_AUTHORIZATION="Bearer " + "a" * 20000).get(route))


def test_oversized_cookie_is_401(db):
    client = Client()
    client.cookies["__session"] = "a" * 20000
    assert_unauthorized(client.get("/v1/limits"), SESSION_ENDED)


def test_key_with_future_expiry_works(factory, org, route):
    from accounts.services import api_key_create

    _, token = api_key_create(organization=org, name="soon", permissions=[], expires_in_days=1)
    assert jwt.decode(token, options={"verify_signature": False})["exp"] > 0
    assert bearer(token).get(route).status_code == 200


def test_key_without_exp_has_no_exp_claim(factory, org):
    claims = jwt.decode(factory.key(org), options={"verify_signature": False})
    assert "exp" not in claims
    assert set(claims) == {"iss", "jti", "org", "iat"}


def test_token_checked_once_is_still_refused_when_it_expires(org, route):
    """Each worker keeps tokens it has verified; expiry is still checked at every use. The
    key's row has no expiry here, so only the token's `exp` can refuse it."""
    import time

    key = ApiKey.objects.create(organization=org, name="short")
    expires = timezone.now().replace(microsecond=0) + timedelta(seconds=2)
    token = api_key_token_encode(
        key_id=str(key.pk), org_id=org.pk, issued_at=timezone.now(), expires_at=expires
    )
    assert bearer(token).get(route).status_code == 200
    time.sleep(max(0.0, (expires - timezone.now()).total_seconds()) + 0.1)
    assert_unauthorized(bearer(token).get(route))


def test_a_server_whose_secret_differs_says_so_in_its_log(factory, org, settings, caplog):
    """Two app servers given different SECRET_KEYs: the odd one refused every session and
    key with a healthy /healthz, and its log said only "Unauthorized". A signature that does
    not check out is logged, once a minute, with what to look at."""
    from accounts import tokens

    token = factory.key(org)
    settings.JWT_SIGNING_KEY = "another-deployments-secret-of-enough-length-0123456789"
    tokens._bad_signature.last = None  # as in a worker that has not said it yet
    with caplog.at_level("WARNING", logger="archsvc.auth"):
        for _ in range(3):
            assert_unauthorized(bearer(token).get("/v1/limits"))
    said = [r.getMessage() for r in caplog.records if r.name == "archsvc.auth"]
    assert len(said) == 1  # not one a request
    assert "refused for their signature" in said[0] and "SECRET_KEY" in said[0]
