"""The organization's settings pages (members, API keys, billing, the member's account), scoped
to the session's organization; writes go through the API's services, so its permissions hold."""

# Over 500 lines: four small sections of one family of pages (one URL module,
# accounts/settings_urls.py); billing, the biggest, is the one to move out if it grows.
# Who may do what (interface §3):
# - members: everyone sees the list; admins add, change roles and remove;
# - API keys: everyone sees the active keys; admins create and revoke;
# - billing: everyone sees plan, limits and credits; admins switch cycle and open the portal.

import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.password_validation import ValidationError as PasswordError
from django.contrib.auth.password_validation import validate_password
from django.db.models import Q
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.actors import actor_for_membership
from accounts.invitations import invite_path, join_path
from accounts.middleware import page_session
from accounts.models import ApiKey, Membership
from accounts.pages import member_page
from accounts.selectors import user_memberships
from accounts.services import (
    WRONG_PASSWORD,
    api_key_create,
    api_key_revoke_one,
    membership_add,
    membership_remove,
    membership_set_role,
    password_change,
)
from archsvc.api.ratelimit import rate_limit_hit, seconds_text
from archsvc.exceptions import ApiError, BadRequest, Forbidden, NotFound
from billing.providers import provider_get
from billing.selectors import limits_for_page, plan_limits, plan_of, subscription_get
from billing.services import (
    ai_credits_current,
    billing_manager_required,
    checkout_url,
    plan_change_refusal,
    portal_session_url,
    subscription_change_plan,
    subscription_switch_cycle,
)
from diagrams.models import PublicShareToken

MAX_EXPIRY_DAYS = 3650


# --- overview ---------------------------------------------------------------------------------


@never_cache
@require_GET
@member_page
def settings_index(request, actor):
    organization = actor.organization
    plan = plan_of(subscription_get(organization=organization))
    return render(
        request,
        "settings/index.html",
        {
            "section": "overview",
            # those who are in, and those invited who have not come yet (they were counted
            # as members: "3 members" over a list of one who had joined)
            "member_count": Membership.objects.joined().filter(organization=organization).count(),
            "invited_count": Membership.objects.invited().filter(organization=organization).count(),
            "key_count": _active_keys(actor).count(),
            "plan": plan,
            # what anyone holding a link can see, in one place (each project's Share page
            # was the only way to tell)
            "shared": PublicShareToken.objects.filter(project__organization=organization)
            .select_related("project")
            .order_by("project__name", "project_id"),
        },
    )


# --- members ----------------------------------------------------------------------------------


def _members_page(
    request,
    actor,
    *,
    message=None,
    error=None,
    error_field=None,
    status=200,
    form=None,
    invite=None,
    join=None,
):
    memberships = (
        Membership.objects.filter(organization_id=actor.organization_id)
        .select_related("user")
        .order_by("created_at", "id")
    )
    # those who have joined: an invited admin may never come, so is no admin for this rule
    admin_count = sum(1 for m in memberships if m.role == Membership.ROLE_ADMIN and m.has_joined)
    # until when a link not yet used works (a member was told "three days", and the list
    # never said when they ended)
    now = timezone.now()
    for m in memberships:
        m.link_until = None
        if not m.has_joined and m.invited_at is not None:
            m.link_until = m.invited_at + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
            m.link_expired = m.link_until <= now
    return render(
        request,
        "settings/members.html",
        {
            "section": "members",
            "memberships": memberships,
            "admin_count": admin_count,
            "roles": [role for role, _ in Membership.ROLES],
            "is_admin": actor.is_admin,
            "message": message,
            "error": error,
            "error_field": error_field,  # the field of the form the error is about
            # said under that field (a phone scrolled to it does not see the page's top)
            "error_inline": error_field in ("email", "role"),
            "form": form or {"email": "", "role": Membership.ROLE_MEMBER},
            "invite": invite,  # (e-mail, link) to show once, for the admin to send
            "join": join,  # the same, for someone whose account existed
        },
        status=status,
    )


@never_cache
@require_http_methods(["GET", "POST"])
@member_page
def members_view(request, actor):
    if request.method == "GET":
        return _members_page(request, actor)
    action = request.POST.get("action", "")
    form = invite = join = None
    try:
        if action == "add":
            form = {
                "email": request.POST.get("email", "").strip(),
                "role": request.POST.get("role", Membership.ROLE_MEMBER),
            }
            if not form["email"]:
                raise BadRequest("Enter the e-mail address of the person to add.")
            membership = membership_add(actor=actor, email=form["email"], role=form["role"])
            form = None
            message = f"{membership.user.email} is now a member ({membership.role})."
            if membership.is_pending:
                # an account existed: it is theirs to accept, through a link the admin sends
                message = f"{membership.user.email} is invited ({membership.role})"
                try:
                    _, path = join_path(actor=actor, membership_id=membership.pk)
                    join = (membership.user.email, request.build_absolute_uri(path))
                    message = (
                        f"{message}: they join when they open the link below while logged in "
                        "with that e-mail."
                    )
                except BadRequest as refusal:  # a deactivated account
                    message = f"{message}. {refusal.message}"
            elif not membership.user.has_usable_password():
                # a new account: a member once they choose a password through the link
                message = (
                    f"{membership.user.email} is invited ({membership.role}): send them the "
                    "link below; they choose a password there and are in."
                )
                try:
                    _, path = invite_path(actor=actor, membership_id=membership.pk)
                    invite = (membership.user.email, request.build_absolute_uri(path))
                except BadRequest as refusal:  # the account is not this organization's alone
                    message = f"{message} {refusal.message}"
        elif action == "invite":
            membership, path = invite_path(
                actor=actor, membership_id=request.POST.get("membership")
            )
            message = f"A new invitation link for {membership.user.email}."
            invite = (membership.user.email, request.build_absolute_uri(path))
        elif action == "join-link":
            membership, path = join_path(actor=actor, membership_id=request.POST.get("membership"))
            message = (
                f"A new join link for {membership.user.email}; the earlier one no longer works."
            )
            join = (membership.user.email, request.build_absolute_uri(path))
        elif action == "role":
            membership = membership_set_role(
                actor=actor,
                membership_id=request.POST.get("membership"),
                role=request.POST.get("role", ""),
            )
            if membership.previous_role == membership.role:
                message = f"{membership.user.email} is already {membership.role}; nothing changed."
            elif membership.is_pending:
                message = f"{membership.user.email} will be {membership.role} when they join."
            elif membership.user_id == actor.user_id:
                # the page is drawn for the role they have now (it offered an admin's
                # controls, each of which then answered 403)
                actor = actor_for_membership(membership)
                message = f"You are now {membership.role}" + (
                    ": only admins add and remove members." if not actor.is_admin else "."
                )
            else:
                message = f"{membership.user.email} is now {membership.role}."
        elif action == "remove":
            membership = membership_remove(
                actor=actor, membership_id=request.POST.get("membership")
            )
            if membership.user_id == actor.user_id:
                # The actor removed themselves: their session went with the membership.
                return redirect("/accounts/login/")
            if membership.is_pending or not membership.user.has_usable_password():
                link = "join" if membership.is_pending else "invitation"
                message = (
                    f"{membership.user.email} is no longer invited; their {link} link no "
                    "longer works."
                )
            else:
                message = f"{membership.user.email} was removed from the organization."
        else:
            raise NotFound("Unknown action.")
    except ApiError as error:
        field = None
        if action == "add" and form is not None:
            field = "email" if form["role"] in dict(Membership.ROLES) else "role"
        return _members_page(
            request, actor, error=error.message, error_field=field, status=error.status, form=form
        )
    return _members_page(request, actor, message=message, invite=invite, join=join)


# --- API keys ---------------------------------------------------------------------------------


def _active_keys(actor):
    now = timezone.now()
    return ApiKey.objects.filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now),
        organization_id=actor.organization_id,
        revoked_at__isnull=True,
    ).order_by("name")


def _expired_keys(actor):
    """Keys past their expiry and not revoked: listed apart, so that a script refused since
    its key expired can be told why, and removed (revoked) to tidy the list."""
    return ApiKey.objects.filter(
        organization_id=actor.organization_id,
        revoked_at__isnull=True,
        expires_at__lte=timezone.now(),
    ).order_by("-expires_at", "name")


def _keys_page(
    request,
    actor,
    *,
    message=None,
    error=None,
    error_field=None,
    status=200,
    new_key=None,
    form=None,
):
    return render(
        request,
        "settings/api_keys.html",
        {
            "section": "api_keys",
            "keys": _active_keys(actor),
            "expired_keys": _expired_keys(actor),
            "permissions": ApiKey.PERMISSIONS,
            "can_manage": actor.is_admin,
            "message": message,
            "error": error,
            "error_field": error_field,  # the field of the form the error is about
            # said under that field (a phone scrolled to it does not see the page's top)
            "error_inline": error_field in ("name", "expires_in_days"),
            "new_key": new_key,
            "form": form or {"name": "", "permissions": [], "expires_in_days": ""},
            "max_expiry_days": MAX_EXPIRY_DAYS,
        },
        status=status,
    )


def _expiry_days(raw: str) -> int | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        days = int(raw)
    except ValueError:
        days = 0
    if not 1 <= days <= MAX_EXPIRY_DAYS:
        raise BadRequest(
            f"Expiry must be a whole number of days from 1 to {MAX_EXPIRY_DAYS}, "
            "or empty for a key that does not expire."
        )
    return days


@never_cache
@require_http_methods(["GET", "POST"])
@member_page
def api_keys_view(request, actor):
    if request.method == "GET":
        return _keys_page(request, actor)
    action = request.POST.get("action", "")
    form = None
    field = None
    try:
        if not actor.is_admin:
            raise Forbidden("Only an admin of the organization can create or revoke API keys.")
        if action == "create":
            form = {
                "name": request.POST.get("name", ""),
                "permissions": request.POST.getlist("permissions"),
                "expires_in_days": request.POST.get("expires_in_days", ""),
            }
            field = "expires_in_days"
            days = _expiry_days(form["expires_in_days"])
            unknown = set(form["permissions"]) - set(ApiKey.PERMISSIONS)
            field = "permissions" if unknown else "name"
            if not form["name"].strip():
                raise BadRequest("Give the key a name, e.g. the script or job that uses it.")
            key, token = api_key_create(
                organization=actor.organization,
                name=form["name"],
                permissions=form["permissions"],
                expires_in_days=days,
            )
            return _keys_page(request, actor, new_key={"key": key, "token": token})
        if action == "revoke":
            key = api_key_revoke_one(
                organization=actor.organization, key_id=_uuid_or_none(request.POST.get("key"))
            )
            if key is None:
                raise NotFound("No such API key in this organization, or it is revoked already.")
            expired = key.expires_at is not None and key.expires_at <= timezone.now()
            said = (
                f"The expired key “{key.name}” is removed."
                if expired
                else f"The key “{key.name}” is revoked; it no longer works."
            )
            return _keys_page(request, actor, message=said)
        raise NotFound("Unknown action.")
    except ApiError as error:
        return _keys_page(
            request, actor, error=error.message, error_field=field, status=error.status, form=form
        )


def _uuid_or_none(value):
    try:
        return uuid.UUID(str(value))
    except (ValueError, TypeError):
        return None


# --- billing ----------------------------------------------------------------------------------


# a subscription's status in words (Paddle's own names: "past_due" read as code)
STATUS_WORDS = {
    "active": "active",
    "trialing": "in its trial",
    "past_due": "payment overdue",
    "paused": "paused",
    "canceled": "canceled",
}
NO_CHECKOUT = (
    "Plans are not sold online on this server yet: ask the people who run it to set your "
    "organization's plan."
)


def _billing_page(request, actor, *, message=None, error=None, status=200):
    organization = actor.organization
    subscription = subscription_get(organization=organization)
    plan = plan_of(subscription)
    limits = limits_for_page(organization=organization)
    # a plan to choose: offered only where this server can sell one (Paddle without a
    # checkout page cannot), instead of a button that can only say it cannot
    checkout = (
        actor.can_manage_billing()
        and (subscription is None or subscription.status == "canceled")
        and provider_get().checkout_url(organization, base_url=request.build_absolute_uri("/"))
        is not None
    )
    return render(
        request,
        "settings/billing.html",
        {
            "section": "billing",
            "subscription": subscription,
            "plan": plan,
            "plan_credits": plan_limits(plan=plan)["ai_credits"],
            "limits": limits,
            "credits": ai_credits_current(organization=organization),
            "can_manage": actor.can_manage_billing(),
            "cycle_switch": _cycle_switch(subscription),
            "plan_refusal": plan_change_refusal(subscription)
            if subscription is not None and subscription.status != "canceled"
            else None,
            "status_words": STATUS_WORDS.get(subscription.status) if subscription else None,
            "checkout": checkout,
            "no_checkout": NO_CHECKOUT,
            "plans": [
                {
                    "name": name,
                    **limits_of_plan,
                    "move": _plan_move(subscription, name, projects=limits["currentProjects"]),
                }
                for name, limits_of_plan in settings.PLANS.items()
                if name != "free"
            ],
            "message": message,
            "error": error,
        },
        status=status,
    )


def _plan_move(subscription, plan: str, *, projects: int = 0) -> str | None:
    """The question a move of a live subscription to `plan` asks first (None: no move); a
    move to a plan of fewer projects than the organization has says what that leaves."""
    if subscription is None or subscription.status == "canceled" or subscription.plan == plan:
        return None
    if plan_change_refusal(subscription):  # said once under the plans instead
        return None
    limits, now = settings.PLANS[plan], settings.PLANS[subscription.plan]
    up = limits["max_projects"] >= now["max_projects"]
    if subscription.status == "paused":
        return (
            f"Move the paused subscription to the {plan} plan? Nothing is charged now; it is "
            f"billed at the {plan} plan's price from when it resumes."
        )
    over = projects - limits["max_projects"]
    leaves = ""
    if over > 0:
        leaves = (
            f" This organization has {projects:,} projects, {over:,} more than that: they all "
            f"stay open and editable, but none can be created until {over + 1:,} are deleted."
        )
    elif over == 0:
        leaves = (
            f" This organization has {projects:,} projects, all that plan allows: none can be "
            "created until one is deleted."
        )
    return (
        f"Move to the {plan} plan now? The billing provider charges the difference for the "
        f"rest of this period at once, prorated{'' if up else ', or credits it'}; its limits "
        f"apply at once: {limits['max_projects']:,} projects, {limits['ai_credits']:,} AI "
        f"credits a month.{leaves}"
    )


def _cycle_switch(subscription) -> dict | None:
    """The billing page's one switch: to the other cycle, asking first, as with Paddle it is
    a prorated charge at once."""
    if subscription is None:
        return None
    if subscription.status == "paused":  # nothing is charged while it is paused
        to, now = (
            ("monthly", "annually")
            if subscription.billing_cycle == "annual"
            else ("annual", "monthly")
        )
        billed = "monthly" if to == "monthly" else "annually"
        return {
            "now": now,
            "to": to,
            "question": f"Bill the {subscription.plan} subscription {billed} once it resumes? "
            "It is paused: nothing is charged now, and its billing from when it resumes is by "
            "the new cycle.",
        }
    if subscription.billing_cycle == "annual":
        return {
            "now": "annually",
            "to": "monthly",
            "question": f"Bill the {subscription.plan} subscription monthly from now? A "
            "monthly period starts at once; the unused part of the annual one is credited "
            "or charged, prorated, by the billing provider.",
        }
    return {
        "now": "monthly",
        "to": "annual",
        "question": f"Bill the {subscription.plan} subscription annually from now? An annual "
        "period starts at once and its price, less the unused part of this month, is "
        "charged, prorated, by the billing provider.",
    }


@never_cache
@require_http_methods(["GET", "POST"])
@member_page
def billing_view(request, actor):
    if request.method == "GET":
        return _billing_page(request, actor)
    try:
        cycle = request.POST.get("cycle", "")
        subscription = subscription_switch_cycle(actor=actor, cycle=cycle)
    except ApiError as error:
        return _billing_page(request, actor, error=error.message, status=error.status)
    # then a GET: reloading the page does not switch again
    billed = "annually" if subscription.billing_cycle == "annual" else "monthly"
    if subscription.status == "paused":  # no new period: it is billed so once it resumes
        said = f"The subscription will be billed {billed} from when it resumes."
    elif subscription.current_period_end:
        said = (
            f"The subscription is billed {billed}; the new period ends "
            f"{subscription.current_period_end:%Y-%m-%d}."
        )
    else:
        said = f"The subscription is billed {billed}."
    messages.success(request, said)
    return redirect("/settings/billing/")


@never_cache
@require_POST
@member_page
def billing_plan_view(request, actor):
    """An admin moves the subscription to another plan (Paddle's portal changes none)."""
    try:
        subscription = subscription_change_plan(actor=actor, plan=request.POST.get("plan", ""))
    except ApiError as error:
        return _billing_page(request, actor, error=error.message, status=error.status)
    limits = settings.PLANS[subscription.plan]
    said = (
        f"The organization is on the {subscription.plan} plan: "
        f"{limits['max_projects']:,} projects, {limits['ai_credits']:,} AI credits a month."
    )
    if plan_of(subscription) != subscription.plan:  # paused, or past its end
        said = (
            f"The subscription is on the {subscription.plan} plan; its limits apply once it "
            f"is {'resumed' if subscription.status == 'paused' else 'active'}."
        )
    messages.success(request, said)
    return redirect("/settings/billing/")


@never_cache
@require_POST
@member_page
def billing_portal_view(request, actor):
    try:
        billing_manager_required(actor=actor)
        url = portal_session_url(actor=actor, base_url=request.build_absolute_uri("/"))
    except ApiError as error:
        return _billing_page(request, actor, error=error.message, status=error.status)
    return redirect(url)


@never_cache
@require_POST
@member_page
def billing_checkout_view(request, actor):
    """An organization without a subscription goes to choose a plan."""
    try:
        url = checkout_url(actor=actor, base_url=request.build_absolute_uri("/"))
    except ApiError as error:
        return _billing_page(request, actor, error=error.message, status=error.status)
    if url is None:
        return _billing_page(
            request,
            actor,
            error=NO_CHECKOUT,
            status=503,
        )
    return redirect(url)


# --- your account -----------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
@member_page
def account_view(request, actor):
    """The member's own account: their e-mail, their organizations, their password."""
    session = page_session(request)
    user = session.membership.user
    message = None
    errors: dict[str, str] = {}
    status = 200
    retry_after = None
    if request.method == "POST":
        current = request.POST.get("current", "")
        new = request.POST.get("password", "")
        # the current password may not be guessed here faster than at the log-in form
        retry_after = rate_limit_hit(
            request, group="password", key=f"user:{user.pk}", rate=settings.RATE_LIMIT_LOGIN
        )
        if retry_after:
            errors["current"] = f"Too many attempts; try again in {seconds_text(retry_after)}."
        else:
            # every problem at once, the current password's included
            if not current:
                errors["current"] = "Enter your current password."
            if not new:
                errors["password"] = "Enter a new password."
            else:
                try:  # the rules too, not only after the two copies agree
                    validate_password(new, user)
                except PasswordError as failure:
                    errors["password"] = " ".join(failure.messages)
                if new != request.POST.get("password2", ""):
                    errors["password2"] = "The two new passwords differ."
            if errors and current and not user.check_password(current):
                errors["current"] = WRONG_PASSWORD
        if not errors:
            try:
                ended = password_change(
                    user=user, current=current, new=new, keep_session_id=session.pk
                )
            except BadRequest as failure:
                errors["current"] = failure.message
            except PasswordError as failure:
                errors["password"] = " ".join(failure.messages)
            else:
                message = "Your password is changed." + (
                    f" {ended} other session{'s' if ended != 1 else ''} logged out."
                    if ended
                    else ""
                )
        status = 429 if retry_after else 400 if errors else 200
    response = render(
        request,
        "settings/account.html",
        {
            "section": "account",
            "user_email": user.email,
            "memberships": user_memberships(user_id=user.pk),
            "message": message,
            "errors": errors,
        },
        status=status,
    )
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response
