"""The public pages of a shared project (interface §12): its graph as it is now, nothing else,
to anyone with the token; the token is looked up on every request, and nothing is stored."""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from archsvc.api.encoding import accepts_gzip, encoded_response
from archsvc.api.errors import rate_limited_json, wants_page
from archsvc.api.ratelimit import client_ip, rate_limit_hit, seconds_text
from archsvc.exceptions import ApiError
from archsvc.render_budget import RenderBudgetSpent, charge_renders_to
from diagrams.api.graph_views import graph_aspect, graph_query
from diagrams.drawings import project_entities_cached, project_render
from diagrams.sharing import shared_project
from diagrams.views import entity_names, focus_options, focus_words, graph_size, with_chosen

PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors {ancestors}"
)
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"
# said of a malformed, unknown, replaced or revoked token alike: which one it was is not known
# (an unknown token never was a share) and not the visitor's business
LINK_DEAD = (
    "This link does not work (it may have been replaced or turned off): ask whoever shared it "
    "for a new one."
)
# what a shared page's Show menu lists (not the flows: interface §12)
_SHARED_KINDS = ("categories", "owners", "services", "topics")


class _Refused(Exception):
    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def _graph_query(request) -> tuple[list[str], int]:
    """The API's focus parameters, refused as a plain 400; `at` is refused too, as history is
    not shared (interface §12)."""
    if "at" in request.GET:
        raise _Refused(
            400, "A shared link shows the project as it is now; past states are not shared."
        )
    try:
        filtered_ids, depth, _at = graph_query(request)
    except ApiError as error:
        raise _Refused(400, error.message) from None
    # nor are flows (the drawing does not show them, and the Show menu leaves them out): a
    # focus on one drew its services, so a guessed name said which services carry it
    if any(entity_id.startswith("flow--") for entity_id in filtered_ids):
        raise _Refused(
            400,
            "A shared link does not show flows: focus on a category, owner, service or topic.",
        )
    return filtered_ids, depth


def _shared(request, token: str):
    retry_after = rate_limit_hit(
        request, group="public", key=f"ip:{client_ip(request)}", rate=settings.RATE_LIMIT_PUBLIC
    )
    if retry_after:
        raise _Refused(429, "Too many requests; retry later.", retry_after)
    charge_renders_to(f"ip:{client_ip(request)}")  # anonymous: each address its own budget
    project = shared_project(token=token)
    if project is None:
        raise _Refused(404, LINK_DEAD)
    return project


def _shared_render(
    project, filtered_ids: list[str], depth: int, *, gzipped: bool, aspect: float | None = None
) -> bytes:
    """The shared SVG, or a 429 when this address's render budget for the minute is spent."""
    try:
        return project_render(
            project=project,
            at=None,
            filtered_ids=filtered_ids,
            depth=depth,
            kind="svg",
            gzipped=gzipped,
            aspect=aspect,
        )
    except RenderBudgetSpent as spent:
        raise _Refused(
            429,
            "Too many new drawings from this address; retry in a minute.",
            spent.retry_after,
        ) from None


def _private(response: HttpResponse, csp: str) -> HttpResponse:
    response["Content-Security-Policy"] = csp
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"  # the token is in the URL
    # not for search engines: the pages say it in a meta tag, the bare SVG could not
    response["X-Robots-Tag"] = "noindex"
    return response


def _refusal(
    request, refused: _Refused, *, page: str | None, ancestors: str = "'none'"
) -> HttpResponse:
    """`page`: the template saying why (the embed's has no site chrome: it sits inside
    someone else's page), else plain text."""
    if refused.status == 429 and not (page and wants_page(request)):
        # RateLimitError, as every 429 (interface §11); a browser's page says it in words
        response = rate_limited_json(refused.message, refused.retry_after or 1)
    elif page:
        message = refused.message
        if refused.status == 429:  # how long, as the member's pages say it
            wait = seconds_text(refused.retry_after or 1)
            message = f"{message.split(';')[0]}: try again in {wait}."
        context = {
            "message": message,
            # a view the link cannot show (a past moment, a mistyped focus) is a way on to
            # the whole project as it is now, not a dead end
            "way_on": request.path if refused.status == 400 else None,
            "status": refused.status,
        }
        response = render(request, page, context, status=refused.status)
    else:
        response = HttpResponse(
            refused.message, status=refused.status, content_type="text/plain; charset=utf-8"
        )
    if refused.retry_after:
        response["Retry-After"] = str(refused.retry_after)
    return _private(response, PAGE_CSP.format(ancestors=ancestors))


def _share_options(entities: dict) -> str:
    """A shared page's Show menu: what its drawing names, each group by name; not the flows,
    which the drawing does not show (interface §12)."""
    return focus_options(entities, _SHARED_KINDS, by_name=True)


def _page(
    request, token: str, template: str, ancestors: str, unavailable: str, *, menu: bool = False
) -> HttpResponse:
    """`menu`: with the Show menu's options (the shared page; the embed has no toolbar)."""
    try:
        project = _shared(request, token)
        filtered_ids, depth = _graph_query(request)
        svg = _shared_render(project, filtered_ids, depth, gzipped=False)
    except _Refused as refused:  # an embed says so inside the embedding page
        return _refusal(request, refused, page=unavailable, ancestors=ancestors)
    entities = project_entities_cached(project=project) if menu else None
    words = (
        focus_words(",".join(filtered_ids), svg, entity_names(entities, _SHARED_KINDS))
        if menu
        else {}
    )
    options = (
        with_chosen(_share_options(entities), ",".join(filtered_ids), words.get("focus_name", ""))
        if menu
        else ""
    )
    # A big graph is not inlined: every anonymous view would compress it anew inside the
    # page (11 MB and 0.2 s of CPU a view for 3,000 services); the page fetches it from
    # the SVG address instead, whose compressed bytes are cached.
    load = len(svg) > settings.SHARE_INLINE_SVG_BYTES
    response = render(
        request,
        template,
        {
            "project_name": project.name,
            "token": token,
            "svg": "" if load else svg.decode(),
            "load": load,
            **({} if load else graph_size(svg)),
            "filtered_ids": ",".join(filtered_ids),
            "depth": depth,
            "depths": range(6),
            "focus_options": options,
            # named as its Show menu names them (graph-viewer.js reads the names there)
            **words,
        },
    )
    return _private(response, PAGE_CSP.format(ancestors=ancestors))


# read-only: a POST is 405 (it was the CSRF check's 403 "This form expired")
@csrf_exempt
@require_safe
def share_page(request, token: str):
    """The shared project's graph as it is now, pannable and zoomable, with focus and depth."""
    return _page(
        request,
        token,
        "diagrams/share.html",
        "'none'",
        "diagrams/share_unavailable.html",
        menu=True,
    )


@csrf_exempt
@require_safe
@xframe_options_exempt
def share_embed(request, token: str):
    """The graph alone, frameable by any site."""
    return _page(
        request, token, "diagrams/share_embed.html", "*", "diagrams/share_embed_unavailable.html"
    )


@csrf_exempt
@require_safe
def share_svg(request, token: str):
    """The bare SVG as it is now, with the same focus and depth parameters as the API."""
    gzipped = accepts_gzip(request)
    try:
        project = _shared(request, token)
        filtered_ids, depth = _graph_query(request)
        try:
            aspect = graph_aspect(request)
        except ApiError as error:
            raise _Refused(400, error.message) from None
        svg = _shared_render(project, filtered_ids, depth, gzipped=gzipped, aspect=aspect)
    except _Refused as refused:
        return _refusal(request, refused, page=None)
    response = encoded_response(svg, content_type="image/svg+xml", gzipped=gzipped)
    return _private(response, SVG_CSP)
