"""What every admin page of archsvc shares: searches cut to a size the database can plan, and
no bulk "delete selected" where a delete must be looked at one object at a time."""

import re

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.shortcuts import redirect
from django.urls import reverse

# SQLite refuses a huge LIKE pattern with an error, which the admin would show as a 500
SEARCH_MAX_CHARS = 200
SEARCH_MAX_WORDS = 10


class SupportAdminMixin:
    def get_search_results(self, request, queryset, search_term):
        words = (search_term or "")[:SEARCH_MAX_CHARS].split()[:SEARCH_MAX_WORDS]
        return super().get_search_results(request, queryset, " ".join(words))


class SupportAdmin(SupportAdminMixin, admin.ModelAdmin):
    pass


class ReadOnlyAdmin(SupportAdmin):
    """Rows written by the app only (history, pins, webhook events): operators read them, never
    add, edit or delete them (a deleted snapshot would break a service's history)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class NoBulkDeleteMixin:
    """No "Delete selected" action on the changelist: each delete is confirmed alone, so
    the model admin's `has_delete_permission(request, obj)` rules apply to it."""

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class ExplainedDeleteMixin:
    """Deletes the rules refuse, each with its reason (`delete_refusal`: None if allowed): no
    Delete on the object's page, and its delete address goes back to that page saying why."""

    def delete_refusal(self, obj) -> str | None:
        return None

    def has_delete_permission(self, request, obj=None):
        if obj is not None and self.delete_refusal(obj):
            return False
        return super().has_delete_permission(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        # said only to staff who may delete such objects (the reason names the object);
        # the others get the permission's 403 as before
        allowed = obj is not None and super().has_delete_permission(request, obj)
        reason = self.delete_refusal(obj) if allowed else None
        if reason:
            messages.error(request, reason)
            meta = self.opts
            return redirect(
                reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
            )
        return super().delete_view(request, object_id, extra_context)


def empty_filter(title: str, empty: str, filled: str):
    """An empty-or-not filter on a date field with its title and two choices in words; the
    address keeps Django's `<field>__isempty`."""

    class Named(admin.EmptyFieldListFilter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.title = title

        def choices(self, changelist):
            names = {"1": empty, "0": filled}
            for choice in super().choices(changelist):
                for flag, name in names.items():  # "All" drops the parameter
                    if f"__isempty={flag}" in choice.get("query_string", ""):
                        choice = {**choice, "display": name}
                yield choice

    return Named


# a project's address in the app (/projects/<id>/services/...) or the API (/v1/projects/<id>)
_PROJECT_ADDRESS = re.compile(r"/(?:v1/)?projects/([a-z0-9][a-z0-9-]{1,68}[a-z0-9])(?=[/?#]|$)")


def project_id_in(term: str) -> str:
    """The project id in a pasted address (an operator is sent a customer's link), or the
    search as typed."""
    match = _PROJECT_ADDRESS.search((term or "").strip())
    return match.group(1) if match else term
