"""The two authentication schemes of the API (interface §2): a bearer API key, or the
`__session` cookie with Django's CSRF check; a refusal says what to fix, not which check failed."""

import jwt
from django.conf import settings
from django.middleware.csrf import CsrfViewMiddleware
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from accounts.selectors import api_key_actor, session_actor, session_lookup, session_needs_touch
from accounts.services import session_touch
from accounts.tokens import API_KEY_TYP, InvalidToken
from archsvc.api.errors import WWW_AUTHENTICATE

SESSION_COOKIE = "__session"
BAD_SCHEME = "Send the API key as `Authorization: Bearer <key>`."
KEY_REFUSED = "The API key was not accepted: it is malformed, expired or revoked."
SESSION_ENDED = "Your session has ended: log in again."


class ApiKeyAuthentication(BaseAuthentication):
    """`Authorization: Bearer <key>`. When the header is present it alone decides."""

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION")
        if header is None:
            return None
        if len(header) > settings.MAX_AUTH_HEADER_BYTES:
            raise exceptions.AuthenticationFailed(KEY_REFUSED, code="explained")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise exceptions.AuthenticationFailed(BAD_SCHEME, code="explained")
        try:
            actor = self.actor(request, token.strip())
        except InvalidToken:
            raise exceptions.AuthenticationFailed(KEY_REFUSED, code="explained") from None
        return actor, None

    @staticmethod
    def actor(request, token: str):
        """The actor of `token`, or InvalidToken. A view with `actor_for_api_key` reads it
        itself, with whatever else it needs in the same query (diagrams/api/base.py)."""
        view = request.parser_context.get("view") if request.parser_context else None
        read = getattr(view, "actor_for_api_key", None)
        return read(request, token) if read else api_key_actor(token=token)

    def authenticate_header(self, request):
        return WWW_AUTHENTICATE


def _looks_like_api_key(token: str) -> bool:
    try:
        return jwt.get_unverified_header(token).get("typ") == API_KEY_TYP
    except Exception:  # noqa: BLE001 - anything unreadable is no key
        return False


class _CSRFCheck(CsrfViewMiddleware):
    def _reject(self, request, reason):
        return reason


class SessionCookieAuthentication(BaseAuthentication):
    """The `__session` cookie of a logged-in member; unsafe methods need `X-CSRFToken`."""

    def authenticate(self, request):
        token = request.COOKIES.get(SESSION_COOKIE)
        if token is None:
            return None
        try:
            session = session_lookup(token=token)
        except InvalidToken:
            # an API key put in the cookie by a script: say where it goes (its header's
            # typ says what it is, whether or not it is valid: nothing about the key leaks)
            message = BAD_SCHEME if _looks_like_api_key(token) else SESSION_ENDED
            raise exceptions.AuthenticationFailed(message, code="explained") from None
        self._enforce_csrf(request)
        if session_needs_touch(session=session):
            request._request.archsvc_session_refresh = session_touch(session=session)
        return session_actor(session=session), None

    def authenticate_header(self, request):
        return WWW_AUTHENTICATE

    @staticmethod
    def _enforce_csrf(request):
        check = _CSRFCheck(lambda req: None)
        check.process_request(request)
        reason = check.process_view(request, None, (), {})
        if reason:
            raise exceptions.PermissionDenied(f"CSRF check failed: {reason}")


class IsActor(BasePermission):
    """Every /v1 operation needs an authenticated actor."""

    def has_permission(self, request, view) -> bool:
        return bool(getattr(request, "user", None) and request.user.is_authenticated)
