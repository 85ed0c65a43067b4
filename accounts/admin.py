from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.utils.html import format_html_join
from django.utils.http import urlencode

from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from archsvc.admin_base import NoBulkDeleteMixin, SupportAdmin, SupportAdminMixin

LAST_ADMIN = "An organization keeps at least one admin (as in its settings pages)."


def _email(form) -> str:
    """E-mails are stored lower-case (log-in, sign-up and create_member look them up so):
    one typed with capitals here would make an account nobody can log in to."""
    email = User.objects.normalize_email(form.cleaned_data.get("email") or "").strip().lower()
    taken = User.objects.filter(email__iexact=email)
    if form.instance.pk:
        taken = taken.exclude(pk=form.instance.pk)
    if taken.exists():
        raise ValidationError("A user with this e-mail exists.")
    return email


class UserAddForm(AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("email",)

    def clean_email(self):
        return _email(self)


class UserEditForm(UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"

    def clean_email(self):
        return _email(self)


def _other_admins(membership: Membership) -> bool:
    return (
        Membership.objects.filter(
            organization_id=membership.organization_id, role=Membership.ROLE_ADMIN
        )
        .exclude(pk=membership.pk)
        .exists()
    )


class MembershipInlineFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        kept = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE")
        ]
        had_members = any(form.instance.pk for form in self.forms)
        if had_members and not any(data.get("role") == Membership.ROLE_ADMIN for data in kept):
            raise ValidationError(LAST_ADMIN)


class MembershipInline(admin.TabularInline):
    model = Membership
    formset = MembershipInlineFormSet
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Organization)
class OrganizationAdmin(NoBulkDeleteMixin, SupportAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]
    inlines = [MembershipInline]
    readonly_fields = ["related"]

    @admin.display(description="Its records")
    def related(self, obj):
        """Links to this organization's projects, keys, sessions and billing records (each
        list searched by the organization's slug)."""
        if obj is None or not obj.pk:
            return "-"
        pages = [
            ("diagrams/project", "projects"),
            ("accounts/apikey", "API keys"),
            ("accounts/authsession", "sessions"),
            ("billing/subscription", "subscription"),
            ("billing/aicredits", "AI credits"),
        ]
        return format_html_join(
            " · ",
            '<a href="/admin/{}/?{}">{}</a>',
            ((page, urlencode({"q": obj.slug}), label) for page, label in pages),
        )

    def has_delete_permission(self, request, obj=None):
        """Not while it holds projects or pays: deleting takes their whole history, and
        the billing provider would not be told (cancel first, and delete the projects)."""
        if obj is None:
            return super().has_delete_permission(request)
        from billing.models import Subscription
        from billing.selectors import PAID_STATUSES
        from diagrams.models import Project

        if Project.objects.filter(organization=obj).exists():
            return False
        if Subscription.objects.filter(organization=obj, status__in=PAID_STATUSES).exists():
            return False
        return super().has_delete_permission(request, obj)


class MembershipOfUserInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ["organization", "role", "created_at"]
    readonly_fields = ["organization", "role", "created_at"]
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(User)
class UserAdmin(NoBulkDeleteMixin, SupportAdminMixin, BaseUserAdmin):
    form = UserEditForm
    add_form = UserAddForm
    ordering = ["email"]
    list_display = ["email", "is_active", "is_staff", "date_joined"]
    search_fields = ["email"]
    list_filter = ["is_active", "is_staff"]
    fieldsets = [
        (None, {"fields": ["email", "password"]}),
        ("Access", {"fields": ["is_active", "is_staff", "is_superuser", "groups"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2"]})]
    filter_horizontal = ["groups"]
    inlines = [MembershipOfUserInline]

    def has_delete_permission(self, request, obj=None):
        """Not the only admin of an organization: deleting the user would leave it without
        one (demote or replace them there first)."""
        if obj is not None:
            for membership in Membership.objects.filter(user=obj, role=Membership.ROLE_ADMIN):
                if not _other_admins(membership):
                    return False
        return super().has_delete_permission(request, obj)

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []  # a new user has no memberships


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["user", "organization", "role"]

    def clean(self):
        data = super().clean()
        if (
            self.instance.pk
            and self.instance.role == Membership.ROLE_ADMIN
            and data.get("role") != Membership.ROLE_ADMIN
            and not _other_admins(self.instance)
        ):
            raise ValidationError(LAST_ADMIN)
        return data


@admin.register(Membership)
class MembershipAdmin(NoBulkDeleteMixin, SupportAdmin):
    form = MembershipForm
    list_display = ["user", "organization", "role", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__email", "organization__slug"]
    list_select_related = ["user", "organization"]
    autocomplete_fields = ["user", "organization"]

    def get_readonly_fields(self, request, obj=None):
        return ["user", "organization"] if obj else []

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.role == Membership.ROLE_ADMIN and not _other_admins(obj):
            return False
        return super().has_delete_permission(request, obj)


class ApiKeyForm(forms.ModelForm):
    """Permissions as the app knows them, not free JSON (a string or a number there made
    every request with the key a 500)."""

    permissions = forms.MultipleChoiceField(
        choices=[(p, p) for p in ApiKey.PERMISSIONS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = ApiKey
        fields = ["name", "permissions", "expires_at", "revoked_at"]

    def clean_permissions(self):
        return sorted(self.cleaned_data.get("permissions") or [])


@admin.register(ApiKey)
class ApiKeyAdmin(SupportAdmin):
    form = ApiKeyForm
    list_display = ["name", "organization", "permissions", "created_at", "expires_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "organization__slug"]
    readonly_fields = ["id", "organization", "created_at"]
    list_select_related = ["organization"]

    def has_add_permission(self, request):
        # A key's JWT is shown once, at creation: use `manage.py create_api_key`.
        return False


@admin.register(AuthSession)
class AuthSessionAdmin(SupportAdmin):
    """Sessions begin at log-in; an operator ends one by setting `ended_at`."""

    list_display = ["id", "membership", "created_at", "last_seen_at", "ended_at"]
    readonly_fields = ["id", "membership", "created_at", "last_seen_at"]
    list_select_related = ["membership__user", "membership__organization"]
    search_fields = ["membership__user__email", "membership__organization__slug"]
    ordering = ["-created_at"]

    def has_add_permission(self, request):
        return False
