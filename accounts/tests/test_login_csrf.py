"""Logging in gives the browser a new CSRF token, as Django's own login() does: a token
planted before the log-in (by someone who could set a cookie for the site) is worth
nothing after it."""

from django.test import Client


def test_logging_in_replaces_the_csrf_token(factory, org):
    factory.member(org, email="ada@example.com")
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")
    planted = client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/",
        {
            "email": "ada@example.com",
            "password": "correct-horse-battery",
            "csrfmiddlewaretoken": planted,
        },
    )
    assert response.status_code == 302
    fresh = response.cookies["csrftoken"].value
    assert fresh and fresh != planted
    # the browser now holds the new one: a form posted with the planted token is refused
    refused = client.post("/accounts/logout/", {"csrfmiddlewaretoken": planted})
    assert refused.status_code == 403
