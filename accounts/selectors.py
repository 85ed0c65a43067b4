"""Reads for accounts: turning a token into an actor, and a user's memberships."""

import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import authenticate
from django.db.models import QuerySet
from django.utils import timezone

from accounts.actors import Actor, actor_for_api_key, actor_for_membership
from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from accounts.tokens import InvalidToken, api_key_token_decode, session_token_decode
from archsvc.hotpath import Columns, build, fetch_row, param, reconnecting, select_list

_KEY_FIELDS = [
    ApiKey._meta.get_field(name)
    for name in ("id", "organization", "name", "permissions", "expires_at", "revoked_at")
]
_ORG_FIELDS = Organization._meta.concrete_fields

# The key behind a bearer token with its organization, as parts another hot-path statement
# can extend (diagrams.selectors adds the project in the path): names from model metadata,
# every value a parameter.
API_KEY_ROW_FIELDS = [*_KEY_FIELDS, *_ORG_FIELDS]
API_KEY_ROW_COLUMNS = f"{select_list('k', _KEY_FIELDS)}, {select_list('o', _ORG_FIELDS)}"
API_KEY_ROW_FROM = (
    f'"{ApiKey._meta.db_table}" k JOIN "{Organization._meta.db_table}" o '
    'ON o."id" = k."organization_id"'
)
API_KEY_ROW_WHERE = 'k."id" = %s'
_API_KEY_SQL = (
    f"SELECT {API_KEY_ROW_COLUMNS} FROM {API_KEY_ROW_FROM} "  # noqa: S608
    f"WHERE {API_KEY_ROW_WHERE}"
)
API_KEY_ROW = Columns(API_KEY_ROW_FIELDS)


@dataclass(frozen=True)
class ApiKeyToken:
    """A bearer token whose signature, kind and expiry checked out: what is left to look up
    is its key (revoked, deleted, expired since, or moved organization)."""

    claims: dict
    key_id: object  # the key's primary key, as the database takes it
    actor_ref: str  # Actor.ref of the key's actor


def api_key_token(*, token: str) -> ApiKeyToken:
    """A verified bearer token, or InvalidToken."""
    claims = api_key_token_decode(token)
    try:
        key_uuid = uuid.UUID(str(claims["jti"]))
    except (ValueError, TypeError, AttributeError) as exc:
        raise InvalidToken() from exc
    return ApiKeyToken(
        claims=claims, key_id=param(ApiKey, "id", key_uuid), actor_ref=f"key:{key_uuid}"
    )


def api_key_actor_from_row(*, token: ApiKeyToken, row: list | None) -> Actor:
    """The actor of a row of API_KEY_ROW_FIELDS found for `token`, or InvalidToken."""
    if row is None:
        raise InvalidToken()
    key = build(ApiKey, _KEY_FIELDS, row[: len(_KEY_FIELDS)])
    key.organization = build(Organization, _ORG_FIELDS, row[len(_KEY_FIELDS) :])
    if str(key.organization_id) != str(token.claims["org"]) or not key.is_active:
        raise InvalidToken()
    return actor_for_api_key(key)


def api_key_actor(*, token: str) -> Actor:
    """The actor of a bearer key, or InvalidToken (bad signature, wrong kind, expired, revoked,
    deleted, another organization's); one hand-written query (archsvc/hotpath.py)."""
    verified = api_key_token(token=token)
    row = reconnecting(lambda: fetch_row(_API_KEY_SQL, [verified.key_id], API_KEY_ROW))
    return api_key_actor_from_row(token=verified, row=row)


def session_lookup(*, token: str) -> AuthSession:
    """The live session a `__session` cookie names, or InvalidToken: ended, idle past
    SESSION_IDLE_SECONDS, or its membership removed."""
    claims = session_token_decode(token)
    try:
        session_id = uuid.UUID(str(claims["sid"]))
    except ValueError:  # signed by us, so never in practice: still a 401, not a 500
        raise InvalidToken() from None
    idle_since = timezone.now() - timedelta(seconds=settings.SESSION_IDLE_SECONDS)
    try:
        session = reconnecting(
            lambda: AuthSession.objects.select_related(
                "membership__user", "membership__organization"
            ).get(pk=session_id, ended_at__isnull=True, last_seen_at__gt=idle_since)
        )
    except (AuthSession.DoesNotExist, ValueError, TypeError) as exc:
        raise InvalidToken() from exc
    membership = session.membership
    if (
        str(membership.user_id) != str(claims["sub"])
        or str(membership.organization_id) != str(claims["org"])
        or not membership.user.is_active
        or membership.is_pending  # never given a session; refused all the same
    ):
        raise InvalidToken()
    return session


def session_actor(*, session: AuthSession) -> Actor:
    return actor_for_membership(session.membership)


def session_needs_touch(*, session: AuthSession) -> bool:
    """Whether this request slides the session's expiry: once the last touch is
    min(SESSION_TOUCH_SECONDS, SESSION_IDLE_SECONDS / 2) old, so any activity keeps a session."""
    age = (timezone.now() - session.last_seen_at).total_seconds()
    return age >= min(settings.SESSION_TOUCH_SECONDS, settings.SESSION_IDLE_SECONDS / 2)


def user_memberships(*, user_id: int) -> QuerySet[Membership]:
    """The memberships a user has joined, oldest first (a log-in starts in the first); pending ones
    grant nothing and are left out."""
    return Membership.objects.accepted().filter(user_id=user_id).select_related("organization")


def user_has_pending_memberships(*, user_id: int) -> bool:
    return Membership.objects.filter(user_id=user_id, accepted_at__isnull=True).exists()


def user_authenticate(*, email: str, password: str) -> User | None:
    return authenticate(username=(email or "").strip().lower(), password=password or "")
