"""Responses cached whole (renders, service lists) go gzip-compressed to clients that accept
it, compressed once and cached beside the plain bytes; with entity tags and 304s."""

import re

from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers


def accepts_gzip(request) -> bool:
    """Whether `Accept-Encoding` allows gzip (RFC 9110 12.5.3: `gzip`, `x-gzip` or `*`, each
    refused by q=0)."""
    header = request.META.get("HTTP_ACCEPT_ENCODING", "")
    if not header or len(header) > 1000:
        return False
    allowed: dict[str, bool] = {}
    for item in header.split(","):
        coding, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        allowed[coding.strip().lower()] = quality > 0
    for coding in ("gzip", "x-gzip"):
        if coding in allowed:
            return allowed[coding]
    return allowed.get("*", False)


def encoded_response(body: str | bytes, *, content_type: str, gzipped: bool) -> HttpResponse:
    """`body` (already compressed when `gzipped`) with the headers that say so."""
    response = HttpResponse(body, content_type=content_type)
    if gzipped:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ["Accept-Encoding"])
    return response


# One member of an If-Match or If-None-Match list (RFC 9110 8.8.3): an entity tag, whose
# quotes may hold a comma (`W/"a,b"`), then a comma or the end; or anything else up to the
# next comma, which is skipped.
_LIST_MEMBER = re.compile(
    r'\s*(?:((?:W/)?"[\x21\x23-\x7e\x80-\U0010ffff]*")\s*(?:,|$)'  # a tag
    r"|[^,]*(?:,|$))"  # anything else
)


def entity_tags(header: str) -> list[str]:
    """The entity tags a conditional header lists, `["*"]` for `*`, non-tags left out (not
    Django's parse_etags, which splits at commas inside a tag's quotes too)."""
    if header.strip() == "*":
        return ["*"]
    tags, position = [], 0
    while position < len(header):
        match = _LIST_MEMBER.match(header, position)
        if match[1]:
            tags.append(match[1])
        position = match.end() if match.end() > position else len(header)
    return tags


def not_modified(request, etag: str) -> bool:
    """Whether the request's If-None-Match names `etag` or is `*` (RFC 9110 13.1.2, weak
    comparison); non-tags are skipped, and an overlong header matches nothing."""
    header = request.META.get("HTTP_IF_NONE_MATCH", "")
    if not header or len(header) > 4000:
        return False
    tags = entity_tags(header)
    if tags == ["*"]:
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == opaque for tag in tags)


def cached_response(request, cached, *, content_type: str) -> HttpResponse:
    """A read kept whole in the render cache (a CachedRead): 304 without its bytes when the
    client's If-None-Match names its tag, else 200 with them; both carry the tag."""
    tag = cached.etag
    if not_modified(request, tag):
        response = HttpResponseNotModified()
        patch_vary_headers(response, ["Accept-Encoding"])
    else:
        response = encoded_response(
            cached.body(), content_type=content_type, gzipped=cached.gzipped
        )
    response["ETag"] = tag
    # an API key's client may keep the bytes and revalidate each time; a member's browser
    # (perhaps a shared one) keeps nothing after log-out; shared caches never keep anything
    by_key = getattr(request.user, "is_api_key", False)  # accounts.actors.Actor
    response["Cache-Control"] = "private, no-cache" if by_key else "private, no-store"
    return response
