"""The assistant's context of a project, read from the database: its current graph and its
history. Each worker keeps it for the next question on the same state."""

from django.utils import timezone

from archsvc.api.params import iso
from diagrams.assistant.context import AssistantContext, HistoryEvent
from diagrams.history import change_words
from diagrams.models import Project, ServiceSnapshot
from diagrams.render_cache import LocalRenders, gc_paused
from diagrams.rendering.graph import project_graph
from diagrams.selectors import project_state


def _services_known(context) -> int:
    """A kept context's size in services' worth of memory: its services, and its history events
    at about a twelfth of a service each."""
    return 1 + len(context.entities["services"]) + len(context.history) // 12


assistant_contexts = LocalRenders("ASSISTANT_KEPT_SERVICES", size=_services_known, largest=0.5)


def assistant_context(*, project: Project):
    """The project's current graph and latest history: all the assistant may read. Each worker
    keeps it for a chat's next question, keyed by `updated_at`, which every write moves."""
    key = (project.id, iso(project.updated_at))
    kept = assistant_contexts.get(key)
    if kept is None:
        with gc_paused():  # as a render: objects that all live on, nothing to collect
            kept = _assistant_context_built(project=project)
            kept.names  # noqa: B018 - built now, so that it is kept with the rest
        assistant_contexts.put(key, kept)
    return kept.asked_at(timezone.now())


def _assistant_context_built(*, project: Project):
    graph, entities = project_graph(project_state(project=project))
    snapshots = list(
        ServiceSnapshot.objects.filter(project=project).order_by("-valid_from", "-version")[:5000]
    )
    # each snapshot's previous version (the next older one of its service in the list)
    before: dict = {}
    previous: dict = {}
    for snapshot in reversed(snapshots):
        previous[snapshot.pk] = before.get(snapshot.service_id)
        before[snapshot.service_id] = snapshot
    events = [
        HistoryEvent(
            at=s.valid_from,
            action=s.action,
            service_slug=s.slug,
            service_name=s.name,
            actor=s.actor,
            service=str(s.service_id),
            what=change_words(previous[s.pk], s),
        )
        for s in snapshots
    ]
    return AssistantContext(
        project_name=project.name, graph=graph, entities=entities, history=events
    )
