"""Django admin's log-in is rate limited as the app's is (RATE_LIMIT_LOGIN per client IP, one
budget with the app's log-in): operators' passwords could be guessed without end."""

from django.test import Client

from accounts.models import User


def admin_login(client: Client, password: str):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "op@example.com", "password": password, "next": "/admin/"},
    )


def test_admin_log_in_attempts_over_the_limit_are_429_with_a_page_saying_to_wait(db, settings):
    settings.RATE_LIMIT_LOGIN = "3/h"
    User.objects.create_superuser(email="op@example.com", password="op-password-1")
    guesser = Client()
    for _ in range(3):
        response = admin_login(guesser, "wrong-password")
        assert response.status_code == 200  # the admin's own "enter a correct email..."
        assert "correct email" in response.content.decode()
    refused = admin_login(guesser, "op-password-1")  # even the right password now
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 3600
    page = refused.content.decode()
    assert "Too many log-in attempts. Try again in" in page and 'id="login-form"' in page
    assert "sessionid" not in refused.cookies
    # one budget with the app's log-in: guessing there next is refused too
    response = guesser.post(
        "/accounts/login/", {"email": "op@example.com", "password": "wrong-password"}
    )
    assert response.status_code == 429
    # another address logs in; and looking at the log-in page is not counted
    assert guesser.get("/admin/login/").status_code == 200
    operator = Client(REMOTE_ADDR="10.9.8.7")
    response = admin_login(operator, "op-password-1")
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert operator.get("/admin/").status_code == 200
