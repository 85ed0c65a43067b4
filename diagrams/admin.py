from django.contrib import admin
from django.utils import timezone

from diagrams.models import Pin, Project, PublicShareToken, Service, ServiceSnapshot


class ReadOnlyAdmin(admin.ModelAdmin):
    """History is written by the services only: operators read it, never edit it."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
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


@admin.register(Service)
class ServiceAdmin(ReadOnlyAdmin):
    list_display = ["id", "project", "created_by", "created_at"]
    search_fields = ["id", "project__id", "created_by"]
    list_select_related = ["project"]


@admin.register(ServiceSnapshot)
class ServiceSnapshotAdmin(ReadOnlyAdmin):
    list_display = [
        "slug",
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


@admin.register(PublicShareToken)
class PublicShareTokenAdmin(admin.ModelAdmin):
    list_display = ["project", "token", "created_by", "created_at"]
    search_fields = ["project__id", "token"]
    readonly_fields = ["token", "created_at", "created_by", "created_by_type"]
