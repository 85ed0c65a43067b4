"""Cached-whole responses (renders, service lists, entities) go out gzip-compressed to
clients that ask for it, byte-for-byte the plain response once decompressed; clients that do
not ask, or refuse gzip, get the plain bytes."""

import gzip

import pytest
from django.test import Client

from diagrams.tests.helpers import new_service, topic_ring_project

ENDPOINTS = ["graph", "graph/svg", "graph/mermaid", "services", "entities"]


@pytest.fixture
def project(api):
    return topic_ring_project(api, "Compressed <shop> & co", 12)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_gzip_when_asked_is_the_plain_body_compressed(api, project, endpoint):
    url = f"/v1/projects/{project}/{endpoint}"
    plain = api.get(url)
    packed = api.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    assert packed["Content-Type"] == plain["Content-Type"]
    assert "Accept-Encoding" in plain["Vary"] and "Accept-Encoding" in packed["Vary"]
    assert gzip.decompress(packed.content) == plain.content
    assert len(packed.content) < len(plain.content) / 3


@pytest.mark.parametrize(
    "header",
    ["identity", "gzip;q=0", "br", "deflate", "*;q=0", "gzip;q=0, *", "gzip;q=abc", "x" * 2000],
)
def test_no_gzip_unless_accepted(api, project, header):
    response = api.get(f"/v1/projects/{project}/graph/svg", HTTP_ACCEPT_ENCODING=header)
    assert response.status_code == 200 and "Content-Encoding" not in response
    assert response.content.startswith(b"<svg")


@pytest.mark.parametrize(
    "header", ["GZIP", "x-gzip", "*", "br;q=1, gzip;q=0.5", "deflate, gzip;q=0.001"]
)
def test_gzip_spellings(api, project, header):
    response = api.get(f"/v1/projects/{project}/graph/svg", HTTP_ACCEPT_ENCODING=header)
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content).startswith(b"<svg")


def test_compressed_render_follows_writes(api, project):
    url = f"/v1/projects/{project}/graph/svg"
    before = gzip.decompress(api.get(url, HTTP_ACCEPT_ENCODING="gzip").content)
    new_service(api, project, {"name": "Late arrival"})
    after = gzip.decompress(api.get(url, HTTP_ACCEPT_ENCODING="gzip").content)
    assert b"service--late-arrival" not in before and b"service--late-arrival" in after
    assert after == api.get(url).content


def test_compression_is_deterministic(api, project):
    url = f"/v1/projects/{project}/graph"
    first = api.get(url, HTTP_ACCEPT_ENCODING="gzip").content
    from diagrams.render_cache import local_renders

    local_renders.clear()
    from django.core.cache import cache

    cache.clear()
    assert api.get(url, HTTP_ACCEPT_ENCODING="gzip").content == first


def test_shared_svg_is_compressed_too(factory, org, project):
    manager = factory.key_client(org, "m", ["projects:manage"])
    token = manager.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    plain = Client().get(f"/share/{token}/graph.svg")
    packed = Client().get(f"/share/{token}/graph.svg", HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    assert packed["Cache-Control"] == plain["Cache-Control"]


def test_errors_are_never_compressed(api):
    response = api.get("/v1/projects/no-such-project/graph/svg", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 404 and "Content-Encoding" not in response
    assert response.json()["code"] == "project_not_found"


def test_pages_are_compressed_for_browsers(factory, org, project):
    """A project page inlines its whole SVG (625 KB for 200 services): browsers, which all
    accept gzip, get it compressed; a client that does not accept gzip gets it plain."""
    member = factory.member_client(factory.member(org))
    url = f"/projects/{project}/"
    plain = member.get(url)
    packed = member.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br, zstd")
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in plain["Vary"] and "Accept-Encoding" in packed["Vary"]
    page = gzip.decompress(packed.content)
    assert int(packed["Content-Length"]) == len(packed.content) < len(page) / 4
    assert b'data-entity-id="service--service-11"' in page and page.rstrip().endswith(b"</html>")
    for refused in ("gzip;q=0", "identity"):
        response = member.get(url, HTTP_ACCEPT_ENCODING=refused)
        assert "Content-Encoding" not in response and b"<svg" in response.content


def test_shared_pages_are_compressed_too(api, project, factory, org):
    manager = factory.key_client(org, "m", ["projects:manage"])
    token = manager.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    response = Client().get(f"/share/{token}/", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    assert b"<svg" in gzip.decompress(response.content)


def test_small_api_bodies_are_not_compressed_on_every_request(api, project):
    """The API compresses only what it keeps whole in the render cache (compressed once);
    a project or the project list is small and changes per caller: sent as it is."""
    for url in (f"/v1/projects/{project}", "/v1/projects", "/v1/limits"):
        response = api.get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200 and "Content-Encoding" not in response


def test_compressed_page_lengths_are_padded_at_random():
    """BREACH reads secrets off compressed lengths; each compressed page carries 0 to 99
    filler bytes in its gzip header, so the same page comes out at different lengths, and
    every one of them decompresses to the page."""
    from archsvc.compression import compress_page

    page = b"<html><body>" + b"csrf token abc123 " * 500 + b"</body></html>"
    packed = [compress_page(page) for _ in range(20)]
    assert len({len(p) for p in packed}) > 5
    assert all(gzip.decompress(p) == page for p in packed)
