import re
import uuid

from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from accounts.models import ApiKey, User
from archsvc.admin_base import NoBulkDeleteMixin, ReadOnlyAdmin, SupportAdmin, project_id_in
from archsvc.api.serializers import text_problem
from diagrams.history import topic_line
from diagrams.models import Pin, Project, PublicShareToken, Service, ServiceSnapshot
from diagrams.project_writes import project_delete_logged


def _links(pages) -> str:
    return format_html_join(
        " · ",
        '<a href="/admin/{}/?{}">{}</a>',
        ((page, urlencode(query), label) for page, query, label in pages),
    )


PROJECT_FIELDS = ["name", "description", "archived"]


class ProjectForm(forms.ModelForm):
    """A name and description as the API takes them (ProjectUpdateSerializer): a name of 3 to
    60 characters, one visible; neither with control characters, which API answers would carry."""

    # the project's updated_at when the form was drawn: an operator's save does not undo a
    # change made meanwhile in the app or the API (the admin wrote the whole row back)
    seen = forms.CharField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = Project
        fields = PROJECT_FIELDS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.fields["seen"].initial = self.instance.updated_at.isoformat()

    @cached_property
    def changed_data(self):
        # `seen` is the form's own: it differs from its initial at every post (set when the
        # form is drawn only), and the history said "Changed Name and seen."
        return [name for name in super().changed_data if name != "seen"]

    def edited(self) -> list[str]:
        """The project's fields the operator changed."""
        return [name for name in self.changed_data if name in PROJECT_FIELDS]

    def clean(self):
        cleaned = super().clean()
        seen, project = cleaned.get("seen"), self.instance
        if seen and project.pk and project.updated_at.isoformat() != seen and self.edited():
            raise ValidationError(
                f"The project was changed meanwhile, by {project.updated_by} at "
                f"{project.updated_at:%Y-%m-%d %H:%M:%S} UTC. Nothing was saved: open the "
                "project again to see it as it is now, then make your change."
            )
        return cleaned

    def clean_name(self):
        name = (self.cleaned_data.get("name") or "").strip()
        if not 3 <= len(name) <= 60:
            raise ValidationError("A project's name has 3 to 60 characters.")
        problem = text_problem(name)
        if problem:
            raise ValidationError(problem)
        return name

    def clean_description(self):
        description = self.cleaned_data.get("description") or ""
        problem = text_problem(description, name=False)
        if problem:
            raise ValidationError(problem)
        return description


@admin.register(Project)
class ProjectAdmin(NoBulkDeleteMixin, SupportAdmin):
    """Projects are made in the app or the API; here an operator renames, describes, archives or
    deletes one, a delete taking its services, history, pins and share link as in the app."""

    def delete_model(self, request, obj):
        project_delete_logged(obj, by=f"operator {request.user.email}")

    form = ProjectForm
    list_display = [
        "id",
        "name",
        "organization",
        "archived",
        "service_count",
        "created_by",
        "updated_at",
    ]
    list_filter = ["archived", "created_by_type"]
    search_fields = ["id", "name", "organization__slug", "created_by"]
    readonly_fields = [
        "id",
        "organization",
        "related",
        "service_count",
        "created_by",
        "created_by_type",
        "created_by_ref",
        "created_at",
        "updated_by",
        "updated_by_type",
        "updated_at",
    ]
    list_select_related = ["organization"]

    def has_add_permission(self, request):
        return False

    def get_search_results(self, request, queryset, search_term):
        return super().get_search_results(request, queryset, project_id_in(search_term))

    @admin.display(description="Its records")
    def related(self, obj):
        if obj is None or not obj.pk:
            return "-"
        return _links(
            [
                ("diagrams/service", {"project__exact": obj.pk}, "services"),
                ("diagrams/servicesnapshot", {"project__exact": obj.pk}, "history (snapshots)"),
                ("diagrams/publicsharetoken", {"project__exact": obj.pk}, "share link"),
                ("diagrams/pin", {"project__exact": obj.pk}, "pins"),
            ]
        )

    def save_model(self, request, obj, form, change):
        """An operator's edit is a write like any other: it moves `updated_at` (so old renders and
        ETags are not served again) and says who made it; a save changing nothing moves nothing."""
        if not change:
            super().save_model(request, obj, form, change)
            return
        edited = form.edited()
        if not edited:
            return
        obj.updated_at = timezone.now()
        obj.updated_by = f"operator {request.user.get_username()}"[:254]
        obj.updated_by_type = "MEMBER"
        # the fields edited only: the rest of the row (its service count, kept by writes of
        # services) is the database's, not the copy this form was read with
        obj.save(update_fields=[*edited, "updated_at", "updated_by", "updated_by_type"])

    def get_deleted_objects(self, objs, request):
        """The confirmation counts what goes instead of listing every snapshot, and is not refused
        for the history rows, which go with their project as in the app."""
        projects = list(objs)
        ids = [p.pk for p in projects]
        services = Service.objects.filter(project_id__in=ids).count()
        snapshots = ServiceSnapshot.objects.filter(project_id__in=ids).count()
        pins = Pin.objects.filter(project_id__in=ids).count()
        shares = PublicShareToken.objects.filter(project_id__in=ids).count()
        summary = [
            format_html("Project “{}” ({}) of {}", p.name, p.pk, p.organization.slug)
            for p in projects
        ]
        summary.append(
            f"{services} service(s) and their whole history: {snapshots} snapshot(s); "
            f"{pins} pin(s); {shares} share link(s)"
        )
        counts = {
            "projects": len(projects),
            "services": services,
            "service snapshots": snapshots,
            "pins": pins,
            "share links": shares,
        }
        return summary, counts, set(), []


@admin.register(Pin)
class PinAdmin(ReadOnlyAdmin):
    list_display = ["project", "pinned_by", "pinned_at"]
    search_fields = ["project__id", "actor_ref"]
    list_select_related = ["project"]
    readonly_fields = ["project", "pinned_by", "actor_ref", "pinned_at"]

    def get_changelist(self, request, **kwargs):
        return _PinChangeList

    @admin.display(description="Pinned by", ordering="actor_ref")
    def pinned_by(self, obj):
        """Whose pin, in words: the member's e-mail or the key's name, not its raw ref."""
        names = getattr(obj, "actor_names", None)  # the changelist's, for its whole page
        if names is None:  # the pin's own page
            names = _actor_names([obj.actor_ref])
        return names.get(obj.actor_ref, obj.actor_ref)


def _actor_names(refs) -> dict[str, str]:
    """`member:<id>` and `key:<id>` refs as an operator reads them: the member's e-mail, the
    key's name (and that it is a key), in two queries whatever their number."""
    members, keys = {}, {}
    for ref in refs:
        kind, _, value = ref.partition(":")
        if kind == "member" and value.isascii() and value.isdigit():
            members[int(value)] = ref
        elif kind == "key":
            try:
                keys[uuid.UUID(value)] = ref
            except ValueError:
                pass
    names = {}
    for pk, email in User.objects.filter(pk__in=members).values_list("pk", "email"):
        names[members[pk]] = email
    for pk, name in ApiKey.objects.filter(pk__in=keys).values_list("pk", "name"):
        names[keys[pk]] = f"API key “{name}”"
    return names


class _PinChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        names = _actor_names([pin.actor_ref for pin in self.result_list])
        for pin in self.result_list:
            pin.actor_names = names


@admin.register(Service)
class ServiceAdmin(ReadOnlyAdmin):
    """A service's identity; what it is now and was is in its snapshots (linked)."""

    list_display = ["id", "current", "project", "created_by", "created_at"]
    # by a name or slug it has or had ("Payment Gateway", "payment-gateway"), as the list
    # shows it
    search_fields = ["id", "project__id", "created_by", "snapshots__name", "snapshots__slug"]
    list_select_related = ["project"]
    ordering = ["-created_at"]
    readonly_fields = ["current", "history"]

    def get_queryset(self, request):
        """Each row's latest snapshot, in the same query (no query per row)."""
        latest = ServiceSnapshot.objects.filter(service_id=OuterRef("pk"), valid_until__isnull=True)
        return (
            super()
            .get_queryset(request)
            .annotate(
                now_name=Subquery(latest.values("name")[:1]),
                now_slug=Subquery(latest.values("slug")[:1]),
                now_deleted=Subquery(latest.values("deleted")[:1]),
            )
        )

    @admin.display(description="now")
    def current(self, obj):
        if getattr(obj, "now_slug", None) is None:
            return "-"
        if obj.now_deleted:
            return format_html("{} ({}) <strong>deleted</strong>", obj.now_name, obj.now_slug)
        return format_html("{} ({})", obj.now_name, obj.now_slug)

    @admin.display(description="history")
    def history(self, obj):
        return _links([("diagrams/servicesnapshot", {"service__exact": obj.pk}, "its snapshots")])


_SHARE_LINK = re.compile(r"/share/([^/?#\s]+)")


@admin.register(ServiceSnapshot)
class ServiceSnapshotAdmin(ReadOnlyAdmin):
    # who changed what when, first: with nine columns those were past a laptop's edge
    # (a deletion is its action; where a version ends is where the next begins)
    list_display = ["valid_from", "action", "name", "version", "actor", "project"]
    # a date filter, not a date hierarchy: that read every snapshot's month (DISTINCT over
    # the whole table, 5.5 s of a 960,000-row one) to draw its links on each load
    list_filter = ["action", "deleted", "actor_type", "valid_from"]
    search_fields = ["slug", "name", "project__id", "actor"]
    list_select_related = ["project"]
    ordering = ["-valid_from", "-version"]  # the index snapshot_recent
    show_full_result_count = False  # a filtered page counts its own rows only
    # its topics and extras a line each, as the history page says them (they were one line
    # of raw JSON), and its service, linked
    fields = [
        "project",
        "service_link",
        "version",
        "action",
        "actor",
        "actor_type",
        "valid_from",
        "valid_until",
        "slug",
        "name",
        "description",
        "category",
        "owner",
        "flows_list",
        "consumes_list",
        "produces_list",
        "extras_list",
    ]
    readonly_fields = fields

    @admin.display(description="service")
    def service_link(self, obj):
        return format_html(
            '<a href="/admin/diagrams/service/{}/change/">{}</a>', obj.service_id, obj.service_id
        )

    @admin.display(description="flows")
    def flows_list(self, obj):
        return ", ".join(obj.flows or []) or "-"

    @admin.display(description="consumes")
    def consumes_list(self, obj):
        return _lines(topic_line(topic) for topic in obj.consumes or [])

    @admin.display(description="produces")
    def produces_list(self, obj):
        return _lines(topic_line(topic) for topic in obj.produces or [])

    @admin.display(description="extras")
    def extras_list(self, obj):
        return _lines(f"{key} = {value}" for key, value in (obj.extras or {}).items())


def _lines(texts) -> str:
    texts = list(texts)
    return format_html_join("", "<div>{}</div>", ((text,) for text in texts)) if texts else "-"


@admin.register(PublicShareToken)
class PublicShareTokenAdmin(SupportAdmin):
    """Sharing is the customer's decision (interface §3, 12): an operator sees a project's
    link and can revoke it (delete), never make one or point it at another project."""

    list_display = ["project", "token_start", "created_by", "created_at"]
    list_filter = ["created_by_type"]
    # by who made it too: what a leaked key shared is found from its name (its page links here)
    search_fields = [
        "project__id",
        "project__name",
        "project__organization__slug",
        "=token",
        "created_by",
    ]

    def lookup_allowed(self, lookup, value, request=None):
        # an API key's page links to the links it made (its organization, its name)
        return lookup in (
            "project__organization__exact",
            "created_by__exact",
        ) or super().lookup_allowed(lookup, value, request)

    def get_search_results(self, request, queryset, search_term):
        """A link a customer reports finds its token: `https://…/share/<token>/embed/`."""
        match = _SHARE_LINK.search(search_term or "")
        if match:
            search_term = match.group(1)
        return super().get_search_results(request, queryset, search_term)

    def has_change_permission(self, request, obj=None):
        return False  # nothing of a link is editable: its page is a view, Delete turns it off

    fields = ["project", "token_start", "created_at", "created_by", "created_by_type"]
    readonly_fields = fields
    list_select_related = ["project"]

    @admin.display(description="token")
    def token_start(self, obj):
        """Its first characters only: the whole token is the link, which opens the graph to anyone
        (view-only staff included); a search by the whole token finds it."""
        return f"{str(obj.token)[:8]}…"

    def has_add_permission(self, request):
        return False
