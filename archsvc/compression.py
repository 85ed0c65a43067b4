"""Compression of the HTML pages (the API compresses its own big bodies, once, in the render
cache: archsvc/api/encoding.py)."""

from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string

from archsvc.api.encoding import accepts_gzip


class CompressPagesMiddleware:
    """HTML pages go out gzip-compressed to browsers that accept it. A project page inlines
    its SVG: 625 KB for 200 services, 3.9 MB for 1,000, which compress to 76 KB and 617 KB
    (9 and 74 ms of CPU here, against a transfer of a second or more on an office link).
    Compressed as Django's GZipMiddleware does, with its BREACH mitigation (up to 100
    random bytes in the gzip header; CSRF tokens are masked per response as well), and
    `Accept-Encoding` read as the API reads it (q=0 refuses, `*` accepts). Only text/html:
    the API's big bodies (renders, service lists, entities) are compressed once in the
    render cache and sent as they are, and its small ones are not worth compressing on
    every request."""

    MIN_BYTES = 1024
    MAX_RANDOM_BYTES = 100

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
        compressed = compress_string(response.content, max_random_bytes=self.MAX_RANDOM_BYTES)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):  # RFC 9110 8.8.1: another encoding, a weak tag
            response.headers["ETag"] = f"W/{etag}"
        response.headers["Content-Encoding"] = "gzip"
        return response
