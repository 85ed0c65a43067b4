"""The `__session` cookie: log-in, sign-up, CSRF on writes, idle expiry, log-out."""

import re
from datetime import timedelta

import jwt
import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import AuthSession, Membership, Organization, User
from accounts.services import session_start

PASSWORD = "correct-horse-battery"


def login(client: Client, email: str, password: str = PASSWORD, **extra):
    client.get("/accounts/login/")
    csrf = client.cookies["csrftoken"].value
    return client.post(
        "/accounts/login/",
        {"email": email, "password": password, "csrfmiddlewaretoken": csrf},
        **extra,
    )


def test_login_sets_httponly_lax_session_cookie_that_authenticates(factory, org):
    membership = factory.member(org, email="ada@example.com")
    client = Client(enforce_csrf_checks=True)
    response = login(client, "ADA@example.com")
    assert response.status_code == 302
    cookie = response.cookies["__session"]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"
    assert not cookie["secure"]
    claims = jwt.decode(cookie.value, options={"verify_signature": False})
    assert {"sub", "org", "sid", "iat", "exp"} <= set(claims)
    assert claims["org"] == str(org.pk) and claims["sub"] == str(membership.user_id)
    assert client.get("/v1/limits").status_code == 200
    assert "ada@example.com" in client.get("/").content.decode()


def test_wrong_password_is_refused_without_saying_which_part(factory, org):
    factory.member(org, email="ada@example.com")
    client = Client(enforce_csrf_checks=True)
    response = login(client, "ada@example.com", "wrong-password")
    assert response.status_code == 400
    assert "__session" not in response.cookies
    assert "do not match" in response.content.decode()
    response = login(client, "nobody@example.com")
    page = response.content.decode()
    assert "do not match" in page
    # the password box, where the cursor is put back, is said to be wrong and says why (a
    # screen reader heard "Password, edit" alone: the alert was in the page as it loaded)
    password = re.search(r'<input id="id_password"[^>]*>', page).group(0)
    assert "autofocus" in password and 'aria-invalid="true"' in password
    assert 'aria-describedby="form-errors"' in password
    assert re.search(
        r'<div class="alert" role="alert" id="form-errors"[^>]*>\s*<p>That e-mail', page
    )


def test_login_post_without_csrf_is_403(factory, org):
    factory.member(org, email="ada@example.com")
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"email": "ada@example.com", "password": PASSWORD})
    assert response.status_code == 403


def test_user_in_several_organizations_starts_in_the_oldest(factory):
    first, second = factory.org("first"), factory.org("second")
    factory.member(first, email="ada@example.com")
    factory.member(second, email="ada@example.com", role="admin")
    client = Client()
    login(client, "ada@example.com")
    claims = jwt.decode(client.cookies["__session"].value, options={"verify_signature": False})
    assert claims["org"] == str(first.pk)
    client.post("/accounts/switch/", {"organization": "second"})
    claims = jwt.decode(client.cookies["__session"].value, options={"verify_signature": False})
    assert claims["org"] == str(second.pk)
    assert AuthSession.objects.filter(ended_at__isnull=True).count() == 1


def test_the_log_in_and_sign_up_pages_offer_the_other_not_themselves(db):
    """The sign-up page's header offered "Sign up", its own page, as its primary button."""
    signup = Client().get("/accounts/signup/").content.decode()
    header = signup[signup.index("<header") : signup.index("</header>")]
    assert 'href="/accounts/login/"' in header and 'href="/accounts/signup/"' not in header
    # its button says what the heading does ("Create account" under "Create your organization")
    assert "<h1>Create your organization</h1>" in signup
    assert '<button type="submit" class="button">Create organization</button>' in signup
    login = Client().get("/accounts/login/").content.decode()
    header = login[login.index("<header") : login.index("</header>")]
    assert 'href="/accounts/signup/"' in header and 'href="/accounts/login/"' not in header


def test_signup_creates_user_organization_and_admin_membership(db):
    client = Client()
    client.get("/accounts/signup/")
    response = client.post(
        "/accounts/signup/",
        {
            "email": "new@example.com",
            "password": "a-long-password",
            "organization": "Globex Corp",
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert response.status_code == 302
    membership = Membership.objects.get(user__email="new@example.com")
    assert membership.role == "admin"
    assert membership.organization.name == "Globex Corp"
    assert membership.organization.slug == "globex-corp"
    assert client.get("/v1/limits").status_code == 200


def test_signup_with_taken_email_or_short_password_explains(factory, org):
    factory.member(org, email="ada@example.com")
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"email": "ada@example.com", "password": "a-long-password", "organization": "X Co"},
    )
    assert response.status_code == 400
    assert "exists" in response.content.decode()
    response = client.post(
        "/accounts/signup/",
        {"email": "bob@example.com", "password": "short", "organization": "X Co"},
    )
    assert response.status_code == 400
    assert "too short" in response.content.decode()
    assert "At least 8 characters." not in response.content.decode()  # said once, in the error
    assert not User.objects.filter(email="bob@example.com").exists()
    assert Organization.objects.count() == 1


def test_cookie_write_without_csrf_header_is_403(factory, org):
    client = factory.member_client(factory.member(org))
    response = client.post("/v1/limits", "{}", content_type="application/json")
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert response.json()["status"] == 403


def test_cookie_write_with_csrf_header_passes_the_check(factory, org):
    client = factory.member_client(factory.member(org))
    client.get("/")  # any page with a form sets the csrftoken cookie
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/v1/limits", "{}", content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 405  # past CSRF: only the method is wrong here


def test_api_key_write_needs_no_csrf(api):
    assert api.post("/v1/limits", "{}", content_type="application/json").status_code == 405


def test_idle_session_expires(factory, org, settings):
    settings.SESSION_IDLE_SECONDS = 600
    membership = factory.member(org)
    client = factory.member_client(membership)
    assert client.get("/v1/limits").status_code == 200
    AuthSession.objects.update(last_seen_at=timezone.now() - timedelta(seconds=601))
    response = client.get("/v1/limits")
    assert response.status_code == 401
    assert response["WWW-Authenticate"]


def test_activity_slides_the_expiry(factory, org, settings):
    settings.SESSION_IDLE_SECONDS = 600
    settings.SESSION_TOUCH_SECONDS = 60
    client = factory.member_client(factory.member(org))
    AuthSession.objects.update(last_seen_at=timezone.now() - timedelta(seconds=500))
    response = client.get("/v1/limits")
    assert response.status_code == 200
    assert "__session" in response.cookies  # a fresh token with a later exp
    session = AuthSession.objects.get()
    assert (timezone.now() - session.last_seen_at).total_seconds() < 5
    AuthSession.objects.update(last_seen_at=timezone.now() - timedelta(seconds=500))
    assert client.get("/v1/limits").status_code == 200


def test_logout_ends_the_session_everywhere(factory, org):
    membership = factory.member(org)
    token = session_start(membership=membership)
    client = Client()
    client.cookies["__session"] = token
    assert client.get("/v1/limits").status_code == 200
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response.cookies["__session"].value == ""
    replay = Client()
    replay.cookies["__session"] = token
    assert replay.get("/v1/limits").status_code == 401


def test_removed_membership_ends_its_sessions(factory, org):
    membership = factory.member(org)
    client = factory.member_client(membership)
    assert client.get("/v1/limits").status_code == 200
    membership.delete()
    assert client.get("/v1/limits").status_code == 401


def test_expired_jwt_is_401_even_with_live_row(factory, org, settings):
    membership = factory.member(org)
    settings.SESSION_IDLE_SECONDS = -10
    token = session_start(membership=membership)
    settings.SESSION_IDLE_SECONDS = 43200
    client = Client()
    client.cookies["__session"] = token
    assert client.get("/v1/limits").status_code == 401


def test_pages_redirect_to_login_without_session(db):
    response = Client().get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_login_redirect_stays_on_this_site(factory, org):
    factory.member(org, email="ada@example.com")
    client = Client()
    client.get("/accounts/login/")
    response = client.post(
        "/accounts/login/",
        {"email": "ada@example.com", "password": PASSWORD, "next": "https://evil.example/"},
    )
    assert response["Location"] == "/"


@pytest.mark.parametrize("target", ["dashboard", "project-page", "settings-members", "-1"])
def test_a_next_that_is_not_a_path_logs_in_to_the_projects(factory, org, target):
    """A word in `next` was looked up as a URL name: a 500 after the right password, or a
    page of Django's choosing (`settings-members`). It is not a path: the projects."""
    membership = factory.member(org, email="ada@example.com")
    client = Client()
    client.get("/accounts/login/")
    response = client.post(
        f"/accounts/login/?next={target}",
        {"email": "ada@example.com", "password": PASSWORD, "next": target},
    )
    assert response.status_code == 302 and response["Location"] == "/"
    # logged in already, the log-in page sends on the same way
    logged_in = Client()
    logged_in.cookies["__session"] = session_start(membership=membership)
    again = logged_in.get(f"/accounts/login/?next={target}")
    assert again.status_code == 302 and again["Location"] == "/"


def test_a_signed_session_token_naming_no_real_session_is_refused(factory, org):
    """A token with our signature but a `sid` that is not a session id at all (only someone
    holding the signing key could make one) is refused like any other: 401, and the login
    page for pages, never a 500."""
    from accounts.tokens import session_token_encode

    membership = factory.member(org)
    for sid in ("garbage", [1], 7, None, ""):
        token = session_token_encode(
            user_id=membership.user_id, org_id=org.id, session_id=sid, now=timezone.now()
        )
        client = Client()
        client.cookies["__session"] = token
        response = client.get("/v1/limits")
        assert response.status_code == 401, sid
        assert response.json()["code"] == "unauthorized"
        page = client.get("/")
        assert page.status_code == 302 and "/accounts/login/" in page["Location"], sid


def test_signup_says_every_problem_at_once(factory, org):
    factory.member(org, email="ada@example.com")
    response = Client().post(
        "/accounts/signup/",
        {"email": "ada@example.com", "password": "short", "organization": "X"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "An account with this e-mail exists" in page  # not hidden by the other two
    assert "too short" in page and "at least 2 characters" in page
    response = Client().post(
        "/accounts/signup/",
        {"email": "not-an-email", "password": "short", "organization": "X Co"},
    )
    page = response.content.decode()
    assert "valid email" in page and "too short" in page


def test_an_empty_login_form_says_what_is_missing(db):
    response = Client().post("/accounts/login/", {"email": "", "password": ""})
    assert response.status_code == 400
    page = response.content.decode()
    assert page.count("This field is required.") == 2
    assert 'aria-invalid="true"' in page


def test_an_expired_form_gets_the_sites_page_not_djangos(factory, org):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"email": "a@example.com", "password": "x"})
    assert response.status_code == 403
    page = response.content.decode()
    assert "This form expired" in page and "Nothing was saved" in page
    assert "CSRF verification failed" not in page
