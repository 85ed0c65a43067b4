"""Compression of the HTML pages (the API compresses its own big bodies, once, in the render
cache: archsvc/api/encoding.py)."""

import gzip
import secrets

from django.utils.cache import patch_vary_headers

from archsvc.api.encoding import accepts_gzip

# Level 4, not gzip's default 6: on a 3.9 MB page (1,000 services) 32 ms instead of 73 for
# 639 KB instead of 617 (levels 1 to 6: 19, 22, 29, 32, 51, 73 ms).
LEVEL = 4
MAX_RANDOM_BYTES = 100


def compress_page(content: bytes) -> bytes:
    """`content` gzip-compressed with 0 to 99 filler bytes as the member's file name, so the length
    does not tell how well a guessed secret matched (BREACH, as Django's GZipMiddleware)."""
    packed = bytearray(gzip.compress(content, compresslevel=LEVEL, mtime=0))
    packed[3] |= gzip.FNAME
    return bytes(packed[:10]) + b"a" * secrets.randbelow(MAX_RANDOM_BYTES) + b"\0" + packed[10:]


class CompressPagesMiddleware:
    """HTML pages (a project page inlines its SVG) gzip-compressed for browsers that accept it,
    with BREACH mitigation; the API's big bodies are compressed once in the render cache."""

    MIN_BYTES = 1024

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.streaming
            or response.has_header("Content-Encoding")
            or not response.get("Content-Type", "").startswith("text/html")
        ):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        if len(response.content) < self.MIN_BYTES or not accepts_gzip(request):
            return response
        compressed = compress_page(response.content)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):  # RFC 9110 8.8.1: another encoding, a weak tag
            response.headers["ETag"] = f"W/{etag}"
        response.headers["Content-Encoding"] = "gzip"
        return response
