"""Django admin for the accounts: organizations, users, memberships, API keys, sessions, with
the operator's safety rules (the last-admin rule, no silent deletes, keys revoked first)."""

# Over 500 lines: Django admin's whole configuration of five models, each page's guards kept
# beside the page they guard; split by model if it grows further.

import uuid

import jwt
from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm, AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.forms.models import BaseInlineFormSet
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.text import slugify

from accounts.actors import API_KEY
from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from accounts.services import is_needed_admin
from archsvc.admin_base import (
    ExplainedDeleteMixin,
    NoBulkDeleteMixin,
    SupportAdmin,
    SupportAdminMixin,
    empty_filter,
    project_id_in,
)
from archsvc.api.serializers import text_problem
from billing.models import Subscription
from billing.selectors import PAID_STATUSES, limits_get, plan_of, subscription_get
from billing.services import ai_credits_current
from diagrams.models import Project, PublicShareToken

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


def _only_admin_of(user) -> list[str]:
    """The organizations whose only admin who has joined is this user."""
    return sorted(
        m.organization.slug
        for m in Membership.objects.filter(user=user, role=Membership.ROLE_ADMIN).select_related(
            "organization", "user"
        )
        if is_needed_admin(m)
    )


class UserPasswordForm(AdminPasswordChangeForm):
    """Refuses "Disabled" for an organization's only joined admin (passwordless, none could
    act)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "usable_password" in self.fields:
            # Django's words speak of single sign-on and LDAP, which this product has none
            # of; a forgotten password's way through was only hinted at
            self.fields["usable_password"].help_text = (
                "Disabled: the user cannot log in until they choose a password. For a member "
                "who forgot theirs, choose Disabled and disable it: an admin of their organization "
                "then makes them a new invitation link (Settings, Members: New invitation "
                "link), where they choose a new one (the admin sends it: no e-mail goes from "
                "here). Or set a password here and tell it to them: they keep it until they "
                "change it."
            )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("set_usable_password") is False:
            needed = _only_admin_of(self.user)
            if needed:  # said under the choice (the page shows no form-wide errors)
                self.add_error(
                    "usable_password",
                    f"{LAST_ADMIN} This user is the only one of {', '.join(needed)}.",
                )
        return cleaned


class UserEditForm(UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"

    def clean_email(self):
        return _email(self)

    def clean_is_active(self):
        """Not the only admin of an organization: deactivated, they could log in nowhere and
        the organization would have no one to manage it (make someone else admin first)."""
        active = self.cleaned_data.get("is_active")
        if self.instance.pk and self.instance.is_active and not active:
            needed = _only_admin_of(self.instance)
            if needed:
                raise ValidationError(
                    f"{LAST_ADMIN} This user is the only one of {', '.join(needed)}."
                )
        return active


def _has_admin(organization_id) -> bool:
    """Whether the organization has an admin who has joined and can log in."""
    return (
        Membership.objects.joined()
        .filter(organization_id=organization_id, role=Membership.ROLE_ADMIN)
        .exists()
    )


class MembershipInline(admin.TabularInline):
    """The organization's members, read-only with their user (one query); roles change and
    members go on the membership's own page, under the last-admin rule."""

    # `invited_at` is what an invitation link is checked against: never edited.

    model = Membership
    extra = 0
    fields = ["user", "role", "created_at", "invited_at", "accepted_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True
    verbose_name_plural = "members"

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("user", "organization")
            .order_by("user__email")
        )


class NewMembershipFormSet(BaseInlineFormSet):
    @classmethod
    def get_default_prefix(cls):
        return "new_memberships"  # beside MembershipInline's "memberships"

    def clean(self):
        super().clean()
        # a row added here is accepted (an operator's word); an organization given members
        # has an admin among them, or already
        added = [f for f in self.forms if f.cleaned_data and not f.cleaned_data.get("DELETE")]
        if not added and self.instance.pk is None:
            # made here with nobody in it, no one could ever log in to it or be added by it
            raise ValidationError(
                "A new organization needs its first admin: add a member with the role admin."
            )
        if not added:
            return
        # the rows above list who is in already (this inline shows none of them, so Django's
        # own uniqueness check never saw them: saving one again was a 500)
        existing = set()
        if self.instance.pk is not None:
            existing = set(
                Membership.objects.filter(organization=self.instance).values_list(
                    "user_id", flat=True
                )
            )
        for form in added:  # (one added twice is Django's own "duplicate data" error)
            user = form.cleaned_data.get("user")
            if user is not None and user.pk in existing:
                form.add_error("user", f"{user.email} is a member already: change their row above.")
        admin_added = any(
            f.cleaned_data.get("role") == Membership.ROLE_ADMIN
            and f.cleaned_data.get("user") is not None
            and f.cleaned_data["user"].is_active
            and f.cleaned_data["user"].has_usable_password()  # one who can log in
            for f in added
        )
        if not admin_added and not (self.instance.pk and _has_admin(self.instance.pk)):
            raise ValidationError(LAST_ADMIN)


class NewMembershipInline(admin.TabularInline):
    model = Membership
    formset = NewMembershipFormSet
    extra = 0
    autocomplete_fields = ["user"]
    fields = ["user", "role"]
    verbose_name = "new member"
    verbose_name_plural = "add members"

    def get_queryset(self, request):
        return super().get_queryset(request).none()

    def has_change_permission(self, request, obj=None):
        return False


class OrganizationForm(forms.ModelForm):
    class Meta:
        model = Organization
        fields = ["slug", "name"]  # its time of creation is the save's

    def clean_slug(self):
        """As sign-up makes one: lower-case letters, digits and hyphens, at most 50, unique in
        any case."""
        slug = (self.cleaned_data.get("slug") or "").strip()
        if slugify(slug) != slug or not slug:
            raise ValidationError(
                "Lower-case letters, digits, hyphens and underscores only, as sign-up makes one "
                f"(“{slugify(slug)[:50] or 'org'}”)."
            )
        if len(slug) > 50:
            raise ValidationError("At most 50 characters, as sign-up makes one.")
        others = Organization.objects.exclude(pk=self.instance.pk)
        if others.filter(slug__iexact=slug).exists():
            raise ValidationError("Another organization has this slug.")
        return slug

    def clean_name(self):
        """As sign-up takes one: shown in every member's header and on invitations."""
        name = self.cleaned_data.get("name") or ""
        problem = text_problem(name)
        if problem:
            raise ValidationError(problem)
        return name


class PlanFilter(admin.SimpleListFilter):
    """The plan in force: a subscription's while it is paid for, else free (as the app
    reads it: billing.selectors.plan_of)."""

    title = "plan"
    parameter_name = "plan"

    def lookups(self, request, model_admin):
        return [(plan, plan) for plan in settings.PLANS]

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        paid = Q(subscription__status__in=PAID_STATUSES)
        if self.value() == "free":
            return queryset.exclude(paid)
        return queryset.filter(paid, subscription__plan=self.value())


def _count_of(rows, field: str, **where):
    """A per-organization count of `rows` (a model or a queryset) as a subquery (joining
    projects and members both would multiply their rows)."""
    rows = rows.objects.all() if isinstance(rows, type) else rows
    rows = rows.filter(**{field: OuterRef("pk")}, **where).order_by()
    return Coalesce(Subquery(rows.values(field).annotate(n=Count("pk")).values("n")[:1]), Value(0))


@admin.register(Organization)
class OrganizationAdmin(ExplainedDeleteMixin, NoBulkDeleteMixin, SupportAdmin):
    form = OrganizationForm
    # what an operator looks an organization up for: its plan, its size, its people
    list_display = ["slug", "name", "plan", "projects", "members", "created_at"]
    list_filter = [PlanFilter]
    # a customer writes in with their e-mail, or a project's id or address
    search_fields = ["slug", "name", "memberships__user__email", "=projects__id"]
    inlines = [MembershipInline, NewMembershipInline]

    def get_search_results(self, request, queryset, search_term):
        return super().get_search_results(request, queryset, project_id_in(search_term))

    def has_add_permission(self, request):
        """An organization is made with its first admin among its members, as sign-up makes one."""
        return super().has_add_permission(request) and request.user.has_perm(
            f"{Membership._meta.app_label}.add_membership"
        )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("subscription")
            .annotate(
                project_count=_count_of(Project, "organization"),
                # who is in (joined(): an address never come to is no member yet)
                member_count=_count_of(Membership.objects.joined(), "organization"),
            )
        )

    @admin.display(description="plan")
    def plan(self, obj):
        try:
            subscription = obj.subscription
        except Organization.subscription.RelatedObjectDoesNotExist:
            subscription = None
        return plan_of(subscription)

    @admin.display(description="projects", ordering="project_count")
    def projects(self, obj):
        return getattr(obj, "project_count", None)

    @admin.display(description="members who joined", ordering="member_count")
    def members(self, obj):
        return getattr(obj, "member_count", None)

    def get_readonly_fields(self, request, obj=None):
        """The slug is chosen once: the billing provider's checkout and webhooks find the
        organization by it."""
        if obj is None:
            return ["summary", "related"]
        return ["slug", "created_at", "summary", "related"]

    @admin.display(description="Plan and use")
    def summary(self, obj):
        if obj is None or not obj.pk:
            return "-"

        subscription = subscription_get(organization=obj)
        limits = limits_get(organization=obj)
        # the balance as the app reads it: an organization that never asked had no row yet,
        # shown as "none yet" (it has the plan's whole amount) with nothing to grant onto
        credits = ai_credits_current(organization=obj)
        return format_html(
            "{} plan{} · {} of {} projects · AI credits: {} left, refill {}",
            plan_of(subscription),
            f" (subscription {subscription.status})" if subscription else "",
            limits["currentProjects"],
            limits["maxProjects"],
            credits.remaining,
            f"{credits.resets_at:%Y-%m-%d}",
        )

    @admin.display(description="Its records")
    def related(self, obj):
        """Links to the organization's projects, keys, sessions and billing records, filtered by
        the organization itself (a slug search would match `acme-50` for `acme-5`)."""
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

    def delete_refusal(self, obj) -> str | None:
        """Not while it holds projects or a subscription not canceled (the provider would not be
        told; a paused one may resume and its events must find it)."""
        projects = Project.objects.filter(organization=obj).count()
        if projects:
            return (
                f"Not deleted: “{obj.name}” has projects ({projects:,}), and each would take "
                "its whole history with it. Its members or an operator delete them first."
            )
        subscription = (
            Subscription.objects.filter(organization=obj)
            .exclude(status=Subscription.STATUS_CANCELED)
            .first()
        )
        if subscription is not None:
            return (
                f"Not deleted: the subscription of “{obj.name}” is {subscription.status}, and "
                "the billing provider would not be told. Cancel it there first "
                "(`set_subscription --status canceled` where the provider is local)."
            )
        return None

    def get_deleted_objects(self, objs, request):
        """Its members, keys, sessions, canceled subscription and credits go with it (their own
        pages refuse a delete alone); whether it may go is has_delete_permission's."""
        deleted, counts, _needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected


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
class UserAdmin(ExplainedDeleteMixin, NoBulkDeleteMixin, SupportAdminMixin, BaseUserAdmin):
    form = UserEditForm
    add_form = UserAddForm
    change_password_form = UserPasswordForm
    ordering = ["email"]
    list_display = ["email", "is_active", "is_staff", "date_joined"]
    search_fields = ["email"]
    list_filter = ["is_active", "is_staff"]
    fieldsets = [
        (None, {"fields": ["email", "password", "can_log_in"]}),
        ("Access", {"fields": ["is_active", "is_staff", "is_superuser", "groups"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    readonly_fields = ["can_log_in", "last_login", "date_joined"]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2"]})]
    filter_horizontal = ["groups"]
    inlines = [MembershipOfUserInline]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []  # a new user has no memberships

    def delete_refusal(self, obj) -> str | None:
        """Not the only admin of an organization: deleting the user would leave it without
        one (demote or replace them there first)."""
        admin_of = Membership.objects.filter(user=obj, role=Membership.ROLE_ADMIN)
        for membership in admin_of.select_related("user", "organization"):
            if is_needed_admin(membership):
                return (
                    f"Not deleted: {obj.email} is the only admin of "
                    f"{membership.organization.name}: make another member admin there first. "
                    + LAST_ADMIN
                )
        return None

    @admin.display(description="Can log in")
    def can_log_in(self, obj):
        """Why a person can or cannot log in to the app ("I can't log in" is the usual
        ticket), with the way to their sessions."""
        if obj is None or obj.pk is None:
            return "-"
        joined = Membership.objects.accepted().filter(user=obj).count()
        pending = Membership.objects.filter(user=obj, accepted_at__isnull=True).count()
        if not obj.is_active:
            said = "No: deactivated (Is active, below)."
        elif not obj.has_usable_password():
            said = (
                "No: no password chosen yet. An invitation link from an organization's "
                "members page sets one, or set one here (Password)."
            )
        elif joined:
            said = f"Yes: a member of {joined} organization{'s' if joined != 1 else ''}."
        elif pending:
            said = (
                "Only to join: invited to an organization (not joined yet), it opens its join "
                "link, logged in."
            )
        else:
            said = (
                "With the right password it is told it is in no organization, and can sign up "
                "with it to start one."
            )
        sessions = AuthSession.objects.filter(membership__user=obj, ended_at__isnull=True)
        return format_html(
            '{} <a href="{}?{}">Its sessions</a> ({} open).',
            said,
            "/admin/accounts/authsession/",
            # the user's own, not a search by e-mail: bob@ would list jbob@'s too
            urlencode({"membership__user__exact": obj.pk}),
            sessions.count(),
        )

    def save_model(self, request, obj, form, change):
        """Deactivating ends the user's sessions (reactivating must not give them back)."""
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            ended = AuthSession.objects.filter(
                membership__user_id=obj.pk, ended_at__isnull=True
            ).update(ended_at=timezone.now())
            if ended:
                messages.info(request, f"{ended} session(s) of this user in the app were ended.")

    def user_change_password(self, request, id, form_url=""):
        """A password set by an operator ends the user's sessions in the app, as their own
        password change ends their other ones: the old password may be known to someone."""
        # one transaction, as Django's change pages: the last-admin rule's row locks
        # (UserPasswordForm) hold until the password is saved
        with transaction.atomic():
            response = super().user_change_password(request, id, form_url)
            if request.method == "POST" and response.status_code == 302:
                ended = AuthSession.objects.filter(
                    membership__user_id=id, ended_at__isnull=True
                ).update(ended_at=timezone.now())
                if ended:
                    messages.info(
                        request, f"{ended} session(s) of this user in the app were ended."
                    )
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
            and is_needed_admin(self.instance)
        ):
            raise ValidationError(LAST_ADMIN)
        return data


@admin.register(Membership)
class MembershipAdmin(ExplainedDeleteMixin, NoBulkDeleteMixin, SupportAdmin):
    form = MembershipForm
    list_display = ["user", "organization", "role", "created_at", "accepted_at"]
    list_filter = [
        "role",
        ("accepted_at", empty_filter("joined", "invited, not joined yet", "joined")),
    ]
    search_fields = ["user__email", "organization__slug"]
    list_select_related = ["user", "organization"]
    autocomplete_fields = ["user", "organization"]

    def get_readonly_fields(self, request, obj=None):
        return ["user", "organization"] if obj else []

    def delete_refusal(self, obj) -> str | None:
        if is_needed_admin(obj):
            return (
                f"Not deleted: {obj.user.email} is the only admin of {obj.organization.name}. "
                + LAST_ADMIN
            )
        return None


class ApiKeyForm(forms.ModelForm):
    """Permissions as the app knows them, not free JSON (a string or a number there made
    every request with the key a 500)."""

    permissions = forms.MultipleChoiceField(
        choices=[(p, p) for p in ApiKey.PERMISSIONS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    revoke = forms.BooleanField(
        required=False,
        label="Revoke this key",
        help_text="Its bearers are refused at once; it cannot be undone. (Delete removes the "
        "record that projects' and pins' `key:<id>` point to: revoke instead.)",
    )

    class Meta:
        model = ApiKey
        fields = ["name", "permissions"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.revoked_at is not None:  # revoked already: nothing to tick
            self.fields["revoke"].disabled = True
            self.fields["revoke"].initial = True
            self.fields["revoke"].help_text = "Revoked already (Revoked at, below)."

    def clean_permissions(self):
        return sorted(self.cleaned_data.get("permissions") or [])

    def clean_name(self):
        """One active key of a name per organization (a database constraint, which would
        otherwise be a 500); a name as the app takes one."""
        name = (self.cleaned_data.get("name") or "").strip()
        problem = text_problem(name)
        if problem:
            raise ValidationError(problem)
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


@admin.action(
    description="Revoke the selected keys (their bearers are refused at once)",
    permissions=["change"],  # staff who may only look do not see it (nor may post it)
)
def revoke_keys(modeladmin, request, queryset):
    keys = list(queryset.filter(revoked_at__isnull=True))
    ApiKey.objects.filter(pk__in=[key.pk for key in keys]).update(revoked_at=timezone.now())
    for key in keys:  # in each key's history and Recent actions, as an edit is
        modeladmin.log_change(request, key, "Revoked.")
    modeladmin.message_user(request, f"{len(keys)} key(s) revoked.")


class KeyStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("active", "active"), ("expired", "expired"), ("revoked", "revoked")]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True).exclude(expires_at__lte=now)
        if self.value() == "expired":
            return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(ApiKey)
class ApiKeyAdmin(ExplainedDeleteMixin, NoBulkDeleteMixin, SupportAdmin):
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
    list_filter = [KeyStateFilter, "revoked_at"]
    search_fields = ["name", "organization__slug"]
    readonly_fields = [
        "id",
        "organization",
        "created_at",
        "expires_at",
        "revoked_at",
        "share_links",
    ]
    list_select_related = ["organization"]
    actions = [revoke_keys]

    @admin.display(description="share links it made")
    def share_links(self, obj):
        """A leaked key's links stay open when it is revoked (they are the projects'): here is
        what it shared, to delete what should not stay public."""
        count = PublicShareToken.objects.filter(
            project__organization=obj.organization_id,
            created_by_type=API_KEY,
            created_by=obj.name,
        ).count()
        if not count:
            return "none"
        query = urlencode(
            {
                "project__organization__exact": obj.organization_id,
                "created_by_type__exact": API_KEY,
                "created_by__exact": obj.name,
            }
        )
        return format_html(
            '<a href="/admin/diagrams/publicsharetoken/?{}">{} link{}</a> (they stay open '
            "when the key is revoked: delete those that should not)",
            query,
            count,
            "" if count == 1 else "s",
        )

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

    def delete_refusal(self, obj) -> str | None:
        """A key in use is revoked first, so its bearers and the history say it is refused."""
        if obj.revoked_at is None:
            return (
                f"Not deleted: the key “{obj.name}” is in use. Revoke it first (the Revoke "
                "action on the list): its bearers are then refused, and the history says so."
            )
        return None

    def get_search_results(self, request, queryset, search_term):
        """A key is found by its id (`key:<uuid>` as the app writes it, or bare) and by the key
        itself (a leaked one is reported as its token): its `jti` names the row."""
        term = (search_term or "").strip()
        if term.lower().startswith("authorization:"):  # the header as a log has it
            term = term[len("authorization:") :].strip()
        term = term.removeprefix("Bearer ").strip()
        key_id = _token_key_id(term)
        if key_id is not None:
            return queryset.filter(pk=key_id), False
        found, duplicates = super().get_search_results(request, queryset, search_term)
        try:
            key_id = uuid.UUID(term.removeprefix("key:"))
        except ValueError:
            return found, duplicates
        return found | queryset.filter(pk=key_id), duplicates

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.cleaned_data.get("revoke") and obj.revoked_at is None:
            obj.revoked_at = timezone.now()
            obj.save(update_fields=["revoked_at"])
            self.message_user(
                request, f"The key “{obj.name}” is revoked: its bearers are refused from now on."
            )


@admin.action(description="End the selected sessions (logged out at once)", permissions=["change"])
def end_sessions(modeladmin, request, queryset):
    sessions = list(queryset.filter(ended_at__isnull=True))
    AuthSession.objects.filter(pk__in=[s.pk for s in sessions]).update(ended_at=timezone.now())
    for session in sessions:
        modeladmin.log_change(request, session, "Ended.")
    modeladmin.message_user(request, f"{len(sessions)} session(s) ended.")


def _token_key_id(term: str):
    """The key id a token names (its `jti`), read without checking the signature: a search
    only, which finds the row the token claims; None for anything that is no JWT."""
    if term.count(".") != 2 or len(term) > 4096:
        return None
    try:
        claims = jwt.decode(term, options={"verify_signature": False})
        return uuid.UUID(str(claims["jti"]))
    except (jwt.PyJWTError, KeyError, TypeError, ValueError):
        return None


@admin.register(AuthSession)
class AuthSessionAdmin(NoBulkDeleteMixin, SupportAdmin):
    """Sessions begin at log-in and end with the End action; `ended_at` is read-only (emptied,
    it would revive a session logged out of, or ended by a password reset)."""

    actions = [end_sessions]
    list_filter = [("ended_at", empty_filter("state", "open", "ended"))]

    def has_change_permission(self, request, obj=None):
        # a session's page is a view: every field is read-only, and its Save said "changed
        # successfully" of nothing. The list's End action still needs the permission.
        return obj is None and super().has_change_permission(request, obj)

    list_display = ["id", "membership", "created_at", "last_seen_at", "ended_at"]
    readonly_fields = ["id", "membership", "created_at", "last_seen_at", "ended_at"]
    list_select_related = ["membership__user", "membership__organization"]
    search_fields = ["membership__user__email", "membership__organization__slug"]
    ordering = ["-created_at"]

    def has_add_permission(self, request):
        return False

    def lookup_allowed(self, lookup, value, request=None):
        # the organization's and the user's pages' links to their sessions
        return lookup in (
            "membership__organization__exact",
            "membership__user__exact",
        ) or super().lookup_allowed(lookup, value, request)
