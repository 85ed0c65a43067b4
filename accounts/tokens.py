"""The two JWTs of interface §2, each with its own signing key (derived from JWT_SIGNING_KEY),
issuer and `typ`; decoding always names the algorithm and the required claims."""

import hashlib
import hmac
import logging
import time
from datetime import datetime, timedelta
from functools import lru_cache

import jwt
from django.conf import settings

from archsvc.logging import Every

ALGORITHM = "HS256"
SESSION_ISSUER = "archsvc/session"
SESSION_TYP = "session+jwt"
API_KEY_ISSUER = "archsvc/api-key"
API_KEY_TYP = "apikey+jwt"


class InvalidToken(Exception):
    """Any reason a token is refused; callers answer 401 without saying which."""


# A token of our kind (its header ours) whose signature does not check out: a forgery, or,
# when a server refuses every token, a server whose SECRET_KEY (JWT_SIGNING_KEY) is not the
# others' (its /healthz is fine, and its logs said only "Unauthorized"). Said once a minute.
_bad_signature = Every(
    logging.getLogger("archsvc.auth"),
    60,
    "%d token(s) of ours refused for their signature in this process since the last such "
    "warning (%s): if this server refuses every session and API key that another accepts, "
    "its SECRET_KEY or JWT_SIGNING_KEY differs from theirs",
)


def _key(purpose: str) -> bytes:
    return _derived_key(settings.JWT_SIGNING_KEY, purpose)


@lru_cache(maxsize=16)
def _derived_key(secret: str, purpose: str) -> bytes:
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).digest()


def _decode(token: str, *, purpose: str, issuer: str, typ: str, required: list[str]) -> dict:
    if not token or len(token) > settings.MAX_AUTH_HEADER_BYTES:
        raise InvalidToken()
    try:
        claims = _verified(token, _key(purpose), issuer, typ, tuple(required))
    except jwt.InvalidSignatureError as exc:
        _bad_signature(f"{purpose} token")
        raise InvalidToken() from exc
    except (jwt.PyJWTError, ValueError, TypeError, OverflowError) as exc:
        raise InvalidToken() from exc
    if "exp" in claims and int(claims["exp"]) <= time.time():  # as PyJWT: expired at exp
        raise InvalidToken()
    return dict(claims)


@lru_cache(maxsize=2048)
def _verified(token: str, key: bytes, issuer: str, typ: str, required: tuple) -> dict:
    """The claims of a token whose header, signature, issuer and required claims check out."""
    # These depend on the token and the key alone, so each worker keeps tokens that passed
    # (refusals are never kept); expiry is checked by the caller at every use, revocation
    # by the database.
    header = jwt.get_unverified_header(token)
    if header.get("alg") != ALGORITHM or header.get("typ") != typ:
        raise InvalidToken()
    claims = jwt.decode(
        token,
        key,
        algorithms=[ALGORITHM],
        issuer=issuer,
        leeway=0,
        options={"require": list(required), "verify_signature": True, "verify_exp": False},
    )
    if "exp" in claims:
        int(claims["exp"])  # a malformed expiry is refused here (ValueError, TypeError, ...)
    return claims


def session_token_encode(*, user_id: int, org_id: int, session_id: str, now: datetime) -> str:
    payload = {
        "iss": SESSION_ISSUER,
        "sub": str(user_id),
        "org": str(org_id),
        "sid": session_id,
        "iat": int(now.timestamp()),
        "exp": int((now + timedelta(seconds=settings.SESSION_IDLE_SECONDS)).timestamp()),
    }
    return jwt.encode(payload, _key("session"), algorithm=ALGORITHM, headers={"typ": SESSION_TYP})


def session_token_decode(token: str) -> dict:
    return _decode(
        token,
        purpose="session",
        issuer=SESSION_ISSUER,
        typ=SESSION_TYP,
        required=["iss", "sub", "org", "sid", "iat", "exp"],
    )


def api_key_token_encode(
    *, key_id: str, org_id: int, issued_at: datetime, expires_at: datetime | None
) -> str:
    payload = {
        "iss": API_KEY_ISSUER,
        "jti": key_id,
        "org": str(org_id),
        "iat": int(issued_at.timestamp()),
    }
    if expires_at is not None:
        payload["exp"] = int(expires_at.timestamp())
    return jwt.encode(payload, _key("api-key"), algorithm=ALGORITHM, headers={"typ": API_KEY_TYP})


def api_key_token_decode(token: str) -> dict:
    return _decode(
        token,
        purpose="api-key",
        issuer=API_KEY_ISSUER,
        typ=API_KEY_TYP,
        required=["iss", "jti", "org", "iat"],
    )
