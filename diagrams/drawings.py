"""The project's drawings (JSON, Mermaid, SVG) and its cached reads (services, entities):
what the graph views and the pages read, through the render cache."""

import math
from datetime import datetime

import networkx as nx

from archsvc.api.params import iso
from diagrams.drawing_history import followed_layout
from diagrams.history import is_current
from diagrams.models import Project
from diagrams.render_cache import CachedRead, json_bytes, json_value, layout_cached, render_key
from diagrams.rendering.document import project_graph_json
from diagrams.rendering.graph import graph_filter, project_graph
from diagrams.rendering.layout import DEFAULT_ASPECT, Layout
from diagrams.rendering.mermaid import mermaid_flowchart
from diagrams.rendering.svg import graph_origin, svg_document, svg_size
from diagrams.selectors import project_entities_at, project_state


def project_graph_view(
    *,
    project: Project,
    at: datetime | None,
    filtered_ids: list[str],
    depth: int | None,
    aspect: float | None = None,
) -> tuple[nx.DiGraph, Layout, dict]:
    """The project's graph as of `at`, focused on `filtered_ids` within `depth` hops, its layout
    (for a screen of `aspect`) and the header texts; category ids in a focus are those of
    /entities (the whole project). The whole project's drawing follows the moments before it
    (what did not change stays put); a focus is laid out afresh, compactly."""
    aspect = aspect or DEFAULT_ASPECT
    header = {"title": project.name, "when": _when_label(project, at)}
    if filtered_ids:
        graph = project_graph_only(project=project, at=at, filtered_ids=filtered_ids, depth=depth)
        return graph, layout_cached(graph, origin=graph_origin(), aspect=aspect), header
    graph, layout = followed_layout(project=project, at=at, origin=graph_origin(), aspect=aspect)
    return graph, layout, header


def project_graph_only(
    *, project: Project, at: datetime | None, filtered_ids: list[str], depth: int | None
) -> nx.DiGraph:
    """The project's graph as of `at`, focused when `filtered_ids` are given."""
    graph, entities = project_graph(project_state(project=project, at=at))
    if filtered_ids:
        graph = graph_filter(graph, entities, filtered_ids, depth if depth is not None else 1)
    return graph


def _when_label(project: Project, at: datetime | None) -> str:
    if at is not None and not is_current(at):
        if at < project.created_at:  # "Nothing to show yet" would not say why
            return (
                f"As of {at.year:04d}-{at:%m-%d %H:%M:%S} UTC, before the project was created "
                f"({project.created_at:%Y-%m-%d %H:%M} UTC)"
            )
        return f"As of {at.year:04d}-{at:%m-%d %H:%M:%S} UTC"  # %Y writes the year 1 as "1"
    return f"Current state · last change {project.updated_at:%Y-%m-%d %H:%M} UTC"


def _read_label(project: Project, at, kind: str, filtered_ids: list[str], depth) -> str:
    """What the render cache's logs call a cached read: "svg of <project id>", with its
    `at` and filters when it has them."""
    label = f"{kind} of {project.id}"
    if at is not None:
        label += f" at {iso(at)}"
    if filtered_ids:
        label += f", {len(filtered_ids)} filtered ids, depth {depth}"
    return label


def project_render(
    *,
    project: Project,
    at: datetime | None,
    filtered_ids: list[str],
    depth: int | None,
    kind: str,
    query_echo: str | None = None,
    gzipped: bool = False,
    aspect: float | None = None,
) -> bytes:
    """The project's graph rendered as `svg`, `mermaid` or `json` (ProjectGraph), as UTF-8 or
    (`gzipped`) gzip bytes, from the shared cache when this state was rendered before."""
    return project_rendering(
        project=project,
        at=at,
        filtered_ids=filtered_ids,
        depth=depth,
        kind=kind,
        query_echo=query_echo,
        gzipped=gzipped,
        aspect=aspect,
    ).body()


def project_rendering(
    *,
    project: Project,
    at: datetime | None,
    filtered_ids: list[str],
    depth: int | None,
    kind: str,
    query_echo: str | None = None,
    gzipped: bool = False,
    aspect: float | None = None,
):
    """project_render as a render_cache.CachedRead: its entity tag, and its bytes when
    asked for. `aspect`: the screen's shape (None: 16:9), to the nearest of ASPECTS."""
    if kind == "mermaid":
        aspect = None  # Mermaid lays itself out
    elif aspect is not None:
        aspect = aspect_step(aspect)
        if aspect == DEFAULT_ASPECT:
            aspect = None  # the default's own cache entries

    def compute():
        if kind == "mermaid":
            return mermaid_flowchart(
                project_graph_only(project=project, at=at, filtered_ids=filtered_ids, depth=depth)
            )
        graph, layout, header = project_graph_view(
            project=project, at=at, filtered_ids=filtered_ids, depth=depth, aspect=aspect
        )
        if kind == "svg":
            return svg_document(graph, layout, **header, focused=bool(filtered_ids))
        width, height = svg_size(graph, layout, **header)
        return json_bytes(
            project_graph_json(
                graph,
                layout,
                project_id=project.id,
                at=query_echo,
                filtered_ids=filtered_ids,
                depth=depth if filtered_ids else None,
                width=width,
                height=height,
            )
        )

    key = render_key(
        project=project, at=at, filtered_ids=filtered_ids, depth=depth, kind=kind, aspect=aspect
    )
    label = _read_label(project, at, kind, filtered_ids, depth)
    return CachedRead(key, compute, gzipped=gzipped, label=label)


# Shapes asked for are taken to the nearest (in ratio) of a few screens' shapes, so that
# windows of about one shape share their drawings, their cache entries and their history of
# drawings (each shape's drawings follow each other); 16:9 is the default.
ASPECTS = (0.25, 0.4, 9 / 16, 3 / 4, 1.0, 4 / 3, 16 / 9, 2.4, 3.5, 5.0)


def aspect_step(aspect: float) -> float:
    return min(ASPECTS, key=lambda shape: abs(math.log(aspect / shape)))


def project_read_cached(
    *, project: Project, at: datetime | None, kind: str, compute, gzipped: bool = False
):
    """A read of the project's state (services, entities) as a CachedRead of encoded JSON, keyed
    by the project's state like the renders, so any write to the project makes it unreachable."""
    # a time to come is the current state (interface §7), and these bodies do not echo `at`:
    # one key for all of them, so each `at` to come is not a computation of its own
    current = is_current(at)
    key = render_key(
        project=project, at=None if current else at, filtered_ids=[], depth=None, kind=kind
    )
    label = _read_label(project, at, kind, [], None)
    return CachedRead(
        key,
        lambda: json_bytes(compute()),
        gzipped=gzipped,
        label=label,
        # the current state is made even past the render budget (still charged): it is data,
        # one per write at most, and a read after a write must not fail for others' time travel
        refusable=not current,
    )


def project_entities_cached(*, project: Project, at: datetime | None = None) -> dict:
    """The project's ProjectEntities (now, or as of `at`) for the pages, through the render cache
    under the key of `GET .../entities`, so one render serves the pages and the API."""
    read = project_read_cached(
        project=project,
        at=at,
        kind="entities",
        compute=lambda: project_entities_at(project=project, at=at),
    )
    return json_value(read.body())
