from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from archsvc.admin_base import NoBulkDeleteMixin, SupportAdmin, SupportAdminMixin

LAST_ADMIN = "An organization keeps at least one admin who has joined (as in its settings pages)."


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
    """Whether the organization keeps an admin without this one. A pending admin (an account
    that has not accepted its join link) is none: it may never join."""
    return (
        Membership.objects.accepted()
        .filter(organization_id=membership.organization_id, role=Membership.ROLE_ADMIN)
        .exclude(pk=membership.pk)
        .exists()
    )


def _needed_admin(membership: Membership) -> bool:
    return (
        membership.role == Membership.ROLE_ADMIN
        and not membership.is_pending
        and not _other_admins(membership)
    )


class MembershipInlineFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        # a row added here is accepted (an operator's word), a pending one is no admin
        kept_admins = [
            form
            for form in self.forms
            if form.cleaned_data
            and not form.cleaned_data.get("DELETE")
            and form.cleaned_data.get("role") == Membership.ROLE_ADMIN
            and not (form.instance.pk and form.instance.is_pending)
        ]
        had_members = any(form.instance.pk for form in self.forms)
        if had_members and not kept_admins:
            raise ValidationError(LAST_ADMIN)


class MembershipInline(admin.TabularInline):
    """`invited_at` is what an invitation link is checked against (to the microsecond, which
    the admin's widget drops): read-only, so saving a role here keeps a pending link working."""

    model = Membership
    formset = MembershipInlineFormSet
    extra = 0
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at", "invited_at", "accepted_at"]
    readonly_fields = ["created_at", "invited_at", "accepted_at"]


@admin.register(Organization)
class OrganizationAdmin(NoBulkDeleteMixin, SupportAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]
    inlines = [MembershipInline]

    def get_readonly_fields(self, request, obj=None):
        """The slug is the organization's key for the billing provider (checkout's
        `custom_data.organization`, webhooks): renamed here, a pending checkout's events would
        find no organization. Chosen once, at creation."""
        if obj is None:
            return ["summary", "related"]
        return ["slug", "created_at", "summary", "related"]

    @admin.display(description="Plan and use")
    def summary(self, obj):
        if obj is None or not obj.pk:
            return "-"
        from billing.models import AiCredits
        from billing.selectors import limits_get, plan_of, subscription_get

        subscription = subscription_get(organization=obj)
        limits = limits_get(organization=obj)
        credits = AiCredits.objects.filter(organization=obj).first()
        return format_html(
            "{} plan{} · {} of {} projects · AI credits: {}",
            plan_of(subscription),
            f" (subscription {subscription.status})" if subscription else "",
            limits["currentProjects"],
            limits["maxProjects"],
            f"{credits.remaining} left, refill {credits.resets_at:%Y-%m-%d}"
            if credits
            else "none yet",
        )

    @admin.display(description="Its records")
    def related(self, obj):
        """Links to this organization's projects, keys, sessions and billing records, each
        list filtered by the organization itself (a search by slug would also match
        `acme-50` for `acme-5`)."""
        if obj is None or not obj.pk:
            return "-"
        pages = [
            ("diagrams/project", "organization__exact", "projects"),
            ("accounts/apikey", "organization__exact", "API keys"),
            ("accounts/authsession", "membership__organization__exact", "sessions"),
            ("billing/subscription", "organization__exact", "subscription"),
            ("billing/aicredits", "organization__exact", "AI credits"),
            ("billing/webhookevent", "organization__exact", "webhook events"),
        ]
        return format_html_join(
            " · ",
            '<a href="/admin/{}/?{}">{}</a>',
            ((page, urlencode({lookup: obj.pk}), label) for page, lookup, label in pages),
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
    fields = ["organization", "role", "created_at", "accepted_at"]
    readonly_fields = ["organization", "role", "created_at", "accepted_at"]
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
                if _needed_admin(membership):
                    return False
        return super().has_delete_permission(request, obj)

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []  # a new user has no memberships

    def user_change_password(self, request, id, form_url=""):
        """A password set by an operator ends the user's sessions in the app, as their own
        password change ends their other ones: the old password may be known to someone."""
        response = super().user_change_password(request, id, form_url)
        if request.method == "POST" and response.status_code == 302:
            ended = AuthSession.objects.filter(
                membership__user_id=id, ended_at__isnull=True
            ).update(ended_at=timezone.now())
            if ended:
                messages.info(request, f"{ended} session(s) of this user in the app were ended.")
        return response


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["user", "organization", "role"]

    def clean(self):
        data = super().clean()
        if (
            self.instance.pk
            and data.get("role") != Membership.ROLE_ADMIN
            and _needed_admin(self.instance)
        ):
            raise ValidationError(LAST_ADMIN)
        return data


@admin.register(Membership)
class MembershipAdmin(NoBulkDeleteMixin, SupportAdmin):
    form = MembershipForm
    list_display = ["user", "organization", "role", "created_at", "accepted_at"]
    list_filter = ["role", ("accepted_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__email", "organization__slug"]
    list_select_related = ["user", "organization"]
    autocomplete_fields = ["user", "organization"]

    def get_readonly_fields(self, request, obj=None):
        return ["user", "organization"] if obj else []

    def has_delete_permission(self, request, obj=None):
        if obj is not None and _needed_admin(obj):
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
        fields = ["name", "permissions"]

    def clean_permissions(self):
        return sorted(self.cleaned_data.get("permissions") or [])

    def clean_name(self):
        """One active key of a name per organization (a database constraint, which would
        otherwise be a 500)."""
        name = (self.cleaned_data.get("name") or "").strip()
        key = self.instance
        if (
            key.revoked_at is None
            and ApiKey.objects.filter(
                organization_id=key.organization_id, name=name, revoked_at__isnull=True
            )
            .exclude(pk=key.pk)
            .exists()
        ):
            raise ValidationError("An active API key of this organization has this name.")
        return name


@admin.action(description="Revoke the selected keys (their bearers are refused at once)")
def revoke_keys(modeladmin, request, queryset):
    revoked = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
    modeladmin.message_user(request, f"{revoked} key(s) revoked.")


@admin.register(ApiKey)
class ApiKeyAdmin(NoBulkDeleteMixin, SupportAdmin):
    """Revoking is the "Revoke" action (and the app's settings page). The expiry is read-only:
    it is written into the key's token, which a later date here would not extend."""

    form = ApiKeyForm
    list_display = [
        "name",
        "organization",
        "active",
        "permission_list",
        "created_at",
        "expires_at",
        "revoked_at",
    ]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter), "revoked_at"]
    search_fields = ["name", "organization__slug"]
    readonly_fields = ["id", "organization", "created_at", "expires_at", "revoked_at"]
    list_select_related = ["organization"]
    actions = [revoke_keys]

    @admin.display(boolean=True, description="active")
    def active(self, obj):
        return obj.revoked_at is None and (
            obj.expires_at is None or obj.expires_at > timezone.now()
        )

    @admin.display(description="permissions")
    def permission_list(self, obj):
        return ", ".join(obj.permissions or []) or "-"

    def has_add_permission(self, request):
        # A key's JWT is shown once, at creation: use `manage.py create_api_key`.
        return False


@admin.action(description="End the selected sessions (logged out at once)")
def end_sessions(modeladmin, request, queryset):
    ended = queryset.filter(ended_at__isnull=True).update(ended_at=timezone.now())
    modeladmin.message_user(request, f"{ended} session(s) ended.")


@admin.register(AuthSession)
class AuthSessionAdmin(NoBulkDeleteMixin, SupportAdmin):
    """Sessions begin at log-in; an operator ends one with the "End" action (or by setting
    `ended_at`)."""

    actions = [end_sessions]
    list_filter = [("ended_at", admin.EmptyFieldListFilter)]
    list_display = ["id", "membership", "created_at", "last_seen_at", "ended_at"]
    readonly_fields = ["id", "membership", "created_at", "last_seen_at"]
    list_select_related = ["membership__user", "membership__organization"]
    search_fields = ["membership__user__email", "membership__organization__slug"]
    ordering = ["-created_at"]

    def has_add_permission(self, request):
        return False

    def lookup_allowed(self, lookup, value, request=None):
        # the organization page's link to its sessions
        return lookup == "membership__organization__exact" or super().lookup_allowed(
            lookup, value, request
        )
