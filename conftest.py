"""Fixtures shared by every app's tests: organizations, members, API keys and clients that
authenticate as them. Everything goes through the real services, database and cache."""

import os

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client

from accounts.models import Membership, Organization
from accounts.services import api_key_create, member_create, session_start


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2 at full strength costs ~0.2 s a hash; tests log in hundreds of times."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate-limit counters, cached renders (shared and per-worker) and the assistant's kept
    contexts do not leak from one test into the next."""
    from diagrams.assistant.project_context import assistant_contexts
    from diagrams.render_cache import local_renders

    cache.clear()
    local_renders.clear()
    assistant_contexts.clear()
    yield


def is_postgres() -> bool:
    return connection.vendor == "postgresql"


requires_postgres = pytest.mark.skipif(
    "postgres" not in os.environ.get("DATABASE_URL", ""),
    reason="needs PostgreSQL (row locks under concurrency)",
)
requires_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis shared by several processes"
)


class Factory:
    """Makes tenants and credentials for a test."""

    def __init__(self):
        self._count = 0

    def org(self, slug: str | None = None) -> Organization:
        self._count += 1
        slug = slug or f"org-{self._count}"
        return Organization.objects.create(slug=slug, name=slug.title())

    def member(
        self,
        org: Organization,
        email: str | None = None,
        role: str = "member",
        password: str = "correct-horse-battery",
    ) -> Membership:
        self._count += 1
        email = email or f"user{self._count}@example.com"
        return member_create(email=email, org_slug=org.slug, role=role, password=password)

    def key(self, org: Organization, name: str | None = None, permissions=()) -> str:
        self._count += 1
        _, token = api_key_create(
            organization=org, name=name or f"key-{self._count}", permissions=list(permissions)
        )
        return token

    def key_client(self, org: Organization, name: str | None = None, permissions=()) -> Client:
        return Client(HTTP_AUTHORIZATION=f"Bearer {self.key(org, name, permissions)}")

    def member_client(self, membership: Membership, *, enforce_csrf: bool = True) -> Client:
        client = Client(enforce_csrf_checks=enforce_csrf)
        client.cookies["__session"] = session_start(membership=membership)
        return client


@pytest.fixture
def factory(db) -> Factory:
    return Factory()


@pytest.fixture
def org(factory) -> Organization:
    return factory.org("acme")


@pytest.fixture
def operator(db) -> Client:
    """A superuser logged in to Django admin (operators' own log-in, not a member's)."""
    from accounts.models import User

    user = User.objects.create_superuser(email="op@example.com", password="op-password-1")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def api(factory, org) -> Client:
    """An API-key client of `org` with no extra permissions."""
    return factory.key_client(org, "ci")


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
requires_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"
)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, for a module of browser tests. Playwright's sync
    API keeps an event loop in this thread, so while it runs the ORM calls of these tests
    (and their database teardown) are let through Django's async guard; the variable is
    removed again afterwards (`check --deploy` rightly refuses it). Pages send a CSP that
    forbids eval: wait with locators, not wait_for_function."""
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A test that drives Chromium (the `browser` fixture above, at any depth) is a browser
    test, marked or not: CI's SQLite pass leaves them out with `-m "not browser"` (.ci/run).
    The name alone is not enough: test_projects_pages.py and test_editor_pages.py have a
    `browser` of their own, a Django test client, and those tests are not browser tests."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.get("browser", ()) if info else ()
        if defs and defs[-1].func.__module__ == __name__:  # the one this test gets
            item.add_marker(pytest.mark.browser)
