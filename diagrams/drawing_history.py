"""The whole project's drawing at a moment, following the drawing of the moment before it, so
what a change did not touch stays where it was (the mental map; diagrams/rendering/stable.py).

A moment is a time some snapshot of the project begins. Moments are taken in epochs of
EPOCH_MOMENTS: the first moment of an epoch is laid out fresh, and each later one follows the
one before. So the drawing of a moment is a function of the history up to it (any worker, any
restart draws the same bytes), and making it replays at most one epoch of changes."""

from datetime import datetime

import networkx as nx

from diagrams.history import is_current
from diagrams.models import Project, ServiceSnapshot
from diagrams.render_cache import followed_get, followed_key, followed_set, layout_cached
from diagrams.rendering.graph import project_graph
from diagrams.rendering.layout import Layout
from diagrams.rendering.stable import layout_next
from diagrams.selectors import service_state, services_at

# A drawing laid out anew every this many changes at least: the bound on a cold cache's
# replay (a 500-service project: some 40 ms a step)
EPOCH_MOMENTS = 50
SHORT_HISTORY = 2000  # snapshots: a history this long is read in one query


def _apply(current: dict, snapshot: ServiceSnapshot) -> None:
    """The state after `snapshot`: its service as it says, or gone."""
    if snapshot.deleted:
        current.pop(snapshot.service_id, None)
    else:
        current[snapshot.service_id] = snapshot


def followed_layout(
    *, project: Project, at: datetime | None, origin: tuple[float, float], aspect: float
) -> tuple[nx.DiGraph, Layout]:
    """The graph of the project as of `at` and its drawing, following the moments before."""
    snapshots = ServiceSnapshot.objects.filter(project=project)
    if not is_current(at):
        snapshots = snapshots.filter(valid_from__lte=at)
    ordered = snapshots.select_related("service").order_by("valid_from", "version", "id")
    # a short history is read whole, in one query; a long one by its last epoch
    history = list(ordered[: SHORT_HISTORY + 1])
    current: dict = {}
    if len(history) <= SHORT_HISTORY:
        moments = sorted({s.valid_from for s in history})
        epoch = moments[len(moments) - 1 - (len(moments) - 1) % EPOCH_MOMENTS :]
        changes = [s for s in history if s.valid_from < epoch[0]] if epoch else []
        for snapshot in changes:
            _apply(current, snapshot)
        history = [s for s in history if epoch and s.valid_from >= epoch[0]]
    else:
        moments_query = snapshots.order_by().values_list("valid_from", flat=True).distinct()
        count = moments_query.count()
        first = count - 1 - (count - 1) % EPOCH_MOMENTS
        epoch = list(moments_query.order_by("valid_from")[first:])
        current = {s.service_id: s for s in services_at(project=project, at=epoch[0])}
        history = list(ordered.filter(valid_from__gt=epoch[0]))
    if not epoch:
        graph = project_graph([])[0]
        return graph, layout_cached(graph, origin=origin, aspect=aspect)
    changes_at: dict[datetime, list[ServiceSnapshot]] = {}
    for snapshot in history:
        changes_at.setdefault(snapshot.valid_from, []).append(snapshot)
    graphs = []
    for moment in epoch:
        for snapshot in changes_at.get(moment, ()):
            _apply(current, snapshot)
        graphs.append((moment, dict(current)))
    # from the last moment back to one drawn before (or the epoch's first), then forward
    keys = [followed_key(project.id, moment, aspect, origin) for moment, _ in graphs]
    start, layout = 0, None
    for index in range(len(graphs) - 1, -1, -1):
        layout = followed_get(keys[index])
        if layout is not None:
            start = index
            break
    graph = None
    for index in range(start, len(graphs)):
        live = sorted(graphs[index][1].values(), key=lambda s: s.slug)
        graph = project_graph([service_state(s) for s in live])[0]
        if layout is None:
            layout = layout_cached(graph, origin=origin, aspect=aspect)
        elif index > start:
            layout = layout_next(layout, graph, origin=origin, aspect=aspect)
    if start != len(graphs) - 1:
        followed_set(keys[-1], layout)
    return graph, layout
