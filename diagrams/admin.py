from django.contrib import admin
from django.utils import timezone

from archsvc.admin_base import ReadOnlyAdmin, SupportAdmin
from diagrams.models import Pin, Project, PublicShareToken, Service, ServiceSnapshot


@admin.register(Project)
class ProjectAdmin(SupportAdmin):
    """Projects are made in the app or the API (its id, plan limit and creator); here an
    operator renames, describes, archives or deletes one, within its organization."""

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

    def save_model(self, request, obj, form, change):
        """An operator's edit is a write like any other: it moves `updated_at`, so renders
        and ETags of the old name are not served again."""
        if change:
            obj.updated_at = timezone.now()
        super().save_model(request, obj, form, change)


@admin.register(Pin)
class PinAdmin(ReadOnlyAdmin):
    list_display = ["project", "actor_ref", "pinned_at"]
    search_fields = ["project__id", "actor_ref"]
    list_select_related = ["project"]


@admin.register(Service)
class ServiceAdmin(ReadOnlyAdmin):
    list_display = ["id", "project", "created_by", "created_at"]
    search_fields = ["id", "project__id", "created_by"]
    list_select_related = ["project"]
    ordering = ["-created_at"]


@admin.register(ServiceSnapshot)
class ServiceSnapshotAdmin(ReadOnlyAdmin):
    list_display = [
        "slug",
        "name",
        "version",
        "action",
        "deleted",
        "project",
        "actor",
        "valid_from",
        "valid_until",
    ]
    list_filter = ["action", "deleted", "actor_type"]
    search_fields = ["slug", "name", "project__id", "actor"]
    date_hierarchy = "valid_from"
    list_select_related = ["project"]
    ordering = ["-valid_from", "-version"]


@admin.register(PublicShareToken)
class PublicShareTokenAdmin(SupportAdmin):
    """Sharing is the customer's decision (CONTRACT 3, 12): an operator sees a project's
    link and can revoke it (delete), never make one or point it at another project."""

    list_display = ["project", "token", "created_by", "created_at"]
    search_fields = ["project__id", "token"]
    readonly_fields = ["project", "token", "created_at", "created_by", "created_by_type"]
    list_select_related = ["project"]

    def has_add_permission(self, request):
        return False
