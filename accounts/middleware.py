"""For the HTML pages: `request.actor` is the member behind a valid `__session` cookie (or
None). For every response: a session whose expiry slid gets its fresh cookie."""

from urllib.parse import quote

from django.conf import settings
from django.middleware.csrf import rotate_token
from django.shortcuts import redirect, render

from accounts.selectors import session_actor, session_lookup, session_needs_touch
from accounts.services import session_start, session_touch
from accounts.tokens import InvalidToken
from archsvc.api.errors import rate_limited_json, wants_page
from archsvc.api.ratelimit import rate_limit_hit, seconds_text

SESSION_COOKIE = "__session"


def set_session_cookie(response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.SESSION_IDLE_SECONDS,
        httponly=True,
        samesite="Lax",
        secure=settings.HTTPS,
        path="/",
    )


def begin_session(request, response, membership) -> None:
    """Log in to `membership`: a new session cookie and CSRF token, as Django's login() does."""
    # the new CSRF token: one planted before the log-in (CSRF cookie fixation) is worth nothing
    rotate_token(request)
    set_session_cookie(response, session_start(membership=membership))


def clear_session_cookie(response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", samesite="Lax")


def page_session(request):
    """The live session of a page request (cached on the request), or None."""
    if not hasattr(request, "_archsvc_page_session"):
        request._archsvc_page_session = _page_session(request)
    return request._archsvc_page_session


def login_redirect(request):
    """To the log-in page, and back to this address, query included (a link to a focus or a
    past moment leads there once logged in)."""
    return redirect(f"/accounts/login/?next={quote(request.get_full_path())}")


def page_actor(request):
    """The member of a page request, or None when not logged in."""
    session = page_session(request)
    return session_actor(session=session) if session else None


def _page_session(request):
    token = request.COOKIES.get(SESSION_COOKIE)
    if not token:
        return None
    try:
        session = session_lookup(token=token)
    except InvalidToken:
        return None
    if session_needs_touch(session=session):
        request.archsvc_session_refresh = session_touch(session=session)
    return session


class SessionTokenMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        refreshed = getattr(request, "archsvc_session_refresh", None)
        if refreshed and not getattr(request, "archsvc_session_cleared", False):
            set_session_cookie(response, refreshed)
        return response


class PagesNotStoredMiddleware:
    """Pages are `Cache-Control: no-store` unless a view says otherwise (the API, static files and
    permanent redirects are left alone)."""

    # a page shows one member's data, and a kept redirect outlives its session (Back after
    # logging out replayed a 302 into a log-in loop)

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        path = request.path
        if (
            not path.startswith(("/v1/", "/static/"))
            and response.status_code not in (301, 308)
            and not response.has_header("Cache-Control")
        ):
            response["Cache-Control"] = "no-store"
        return response


# Posts that count against other budgets, or none: the API (its throttle), Django admin
# (operators), log-in and sign-up (RATE_LIMIT_LOGIN), the password change (a budget of its
# own: whoever holds a stolen session must not keep its owner from the one change that
# ends it), and what only moves a session or ends it (log-out, the organization switch, an
# invitation's or a join link's acceptance); and the billing provider's webhooks.
_NOT_PAGE_WRITES = ("/v1/", "/admin/", "/accounts/", "/settings/account/", "/webhooks/")


class PageWritesRateLimitMiddleware:
    """A member's posts through the pages count against their RATE_LIMIT_WRITE budget, as API
    writes do (interface §11); runs after the CSRF check, so a refused forgery counts nothing."""

    # without it the pages were a way around the limit, and the Members form an unlimited
    # oracle of which addresses have accounts

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method != "POST" or request.path.startswith(_NOT_PAGE_WRITES):
            return None
        actor = page_actor(request)
        if actor is None:
            return None
        wait = rate_limit_hit(
            request, group="api-write", key=actor.rate_key, rate=settings.RATE_LIMIT_WRITE
        )
        if wait is None:
            return None
        wait = max(1, int(wait))
        if not wants_page(request):
            return rate_limited_json(
                f"Too many changes for now; retry in {seconds_text(wait)}.", wait
            )
        response = render(
            request,
            "429.html",
            {"message": f"Nothing was saved: try again in {seconds_text(wait)}."},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
