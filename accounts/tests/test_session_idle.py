"""A short idle expiry, in real time, through the real middleware: activity keeps the
session however short SESSION_IDLE_SECONDS is, and idleness still ends it."""

import time

from django.test import Client

from accounts.tests.test_session_auth import login

PAGE = "/"  # the projects list, a member's page: the log-in page without a session
API = "/v1/limits"  # authenticated by the __session cookie alone


def test_a_session_shorter_than_the_touch_interval_slides_while_in_use(factory, org, settings):
    """SESSION_IDLE_SECONDS under SESSION_TOUCH_SECONDS (a kiosk): the touch came only every
    SESSION_TOUCH_SECONDS, so the session was never slid and ended while in use."""
    settings.SESSION_IDLE_SECONDS = 4
    settings.SESSION_TOUCH_SECONDS = 60
    factory.member(org, email="kiosk@example.com")
    client = Client()
    assert login(client, "kiosk@example.com").status_code == 302

    def page_is_logged_in(when):
        response = client.get(PAGE)
        assert response.status_code == 200, f"{when}: {response.status_code}"
        assert "kiosk@example.com" in response.content.decode(), when

    def api_is_logged_in(when):
        response = client.get(API)
        assert response.status_code == 200, f"{when}: {response.status_code}"

    # a request every 1.25 s for 7.5 s, the page's and the API's in turns first (the first
    # request past the touch interval slides the expiry: both paths get to do it)
    start = time.monotonic()
    for tick in range(1, 7):
        time.sleep(max(0.0, start + 1.25 * tick - time.monotonic()))
        when = f"after {time.monotonic() - start:.2f} s of use"
        checks = (page_is_logged_in, api_is_logged_in)
        for check in checks if tick // 2 % 2 else reversed(checks):
            check(when)

    # then 5.5 s without a request: ended, for the pages and the API alike
    time.sleep(5.5)
    page = client.get(PAGE)
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
    assert client.get(API).status_code == 401
