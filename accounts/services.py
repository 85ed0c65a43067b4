"""Writes for accounts: sign-up, members, sessions, API keys."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.text import slugify

from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from accounts.tokens import api_key_token_encode, session_token_encode
from archsvc.api.errors import BadRequest, Forbidden, NotFound, ResourceAlreadyExists


def organization_create(*, name: str, slug: str | None = None) -> Organization:
    """A new organization; its slug comes from the name and is made unique."""
    base = slugify(slug or name)[:50] or "org"
    candidate = base
    while Organization.objects.filter(slug=candidate).exists():
        candidate = f"{base}-{get_random_string(6, 'abcdefghijklmnopqrstuvwxyz0123456789')}"
    return Organization.objects.create(slug=candidate, name=name.strip() or candidate)


EMAIL_TAKEN = "An account with this e-mail exists; log in instead."


def email_taken(*, email: str) -> bool:
    return User.objects.filter(email=User.objects.normalize_email(email).strip().lower()).exists()


@transaction.atomic
def user_signup(*, email: str, password: str, organization_name: str) -> Membership:
    """Sign-up (CONTRACT 2): the user, a new organization, and an admin membership."""
    email = User.objects.normalize_email(email).strip().lower()
    if email_taken(email=email):
        raise ResourceAlreadyExists(EMAIL_TAKEN)
    user = User(email=email)
    validate_password(password, user)
    user.set_password(password)
    user.save()
    organization = organization_create(name=organization_name)
    return Membership.objects.create(
        user=user, organization=organization, role=Membership.ROLE_ADMIN
    )


@transaction.atomic
def member_create(
    *, email: str, org_slug: str, role: str = Membership.ROLE_MEMBER, password: str | None = None
) -> Membership:
    """For operators: make the organization and the user when missing, then the membership
    (its role is set to `role` when it exists already)."""
    if role not in dict(Membership.ROLES):
        raise BadRequest(f"role must be one of: {', '.join(dict(Membership.ROLES))}")
    organization, _ = Organization.objects.get_or_create(
        slug=slugify(org_slug) or org_slug, defaults={"name": org_slug}
    )
    email = User.objects.normalize_email(email).strip().lower()
    user = User.objects.filter(email=email).first()
    if user is None:
        user = User.objects.create_user(email=email, password=password)
    elif password:
        user.set_password(password)
        user.save(update_fields=["password"])
    membership, created = Membership.objects.get_or_create(
        user=user, organization=organization, defaults={"role": role}
    )
    if not created and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


def session_start(*, membership: Membership) -> str:
    """A new server-side session and the `__session` JWT that names it."""
    now = timezone.now()
    session = AuthSession.objects.create(membership=membership, created_at=now, last_seen_at=now)
    return session_token_encode(
        user_id=membership.user_id,
        org_id=membership.organization_id,
        session_id=str(session.pk),
        now=now,
    )


def session_touch(*, session: AuthSession) -> str:
    """Slide the idle expiry: record the activity and issue a fresh cookie token."""
    now = timezone.now()
    AuthSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(last_seen_at=now)
    membership = session.membership
    return session_token_encode(
        user_id=membership.user_id,
        org_id=membership.organization_id,
        session_id=str(session.pk),
        now=now,
    )


def session_end(*, session_id: str) -> None:
    """Log-out: the session row is ended, so its cookie is refused everywhere at once."""
    AuthSession.objects.filter(pk=session_id, ended_at__isnull=True).update(ended_at=timezone.now())


def api_key_create(
    *,
    organization: Organization,
    name: str,
    permissions: list[str],
    expires_in_days: int | None = None,
) -> tuple[ApiKey, str]:
    """A new API key and its JWT, which is shown once and never stored."""
    name = name.strip()
    if not name or len(name) > 100:
        raise BadRequest("The key's name must be 1 to 100 characters.")
    unknown = sorted(set(permissions) - set(ApiKey.PERMISSIONS))
    if unknown:
        raise BadRequest(f"Unknown permission(s): {', '.join(unknown)}")
    if expires_in_days is not None and expires_in_days <= 0:
        raise BadRequest("expires-in-days must be positive.")
    now = timezone.now()
    expires_at = now + timedelta(days=expires_in_days) if expires_in_days else None
    try:
        with transaction.atomic():
            key = ApiKey.objects.create(
                organization=organization,
                name=name,
                permissions=sorted(set(permissions)),
                created_at=now,
                expires_at=expires_at,
            )
    except IntegrityError as exc:
        raise ResourceAlreadyExists("An active API key with this name exists.") from exc
    token = api_key_token_encode(
        key_id=str(key.pk), org_id=organization.pk, issued_at=now, expires_at=expires_at
    )
    return key, token


def api_key_revoke(*, organization: Organization, name: str) -> int:
    """Revoke the organization's active key of that name; its bearer is refused at once."""
    return ApiKey.objects.filter(
        organization=organization, name=name, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())


# --- members, for the organization's settings pages -----------------------------------------


def _admin_required(actor) -> None:
    if not actor.is_admin:
        raise Forbidden("Only an admin of the organization can manage its members.")


def _role_checked(role: str) -> str:
    if role not in dict(Membership.ROLES):
        raise BadRequest(f"role must be one of: {', '.join(dict(Membership.ROLES))}")
    return role


def _membership_of_org(actor, membership_id) -> Membership:
    """The organization's membership, locked; another organization's answers as missing."""
    try:
        return (
            Membership.objects.select_for_update()
            .select_related("user")
            .get(pk=int(membership_id), organization_id=actor.organization_id)
        )
    except (Membership.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("No such member in this organization.") from exc


def _other_admins_exist(membership: Membership) -> bool:
    # Lock every admin row of the organization so two admins removing each other at once
    # cannot both succeed and leave it without one.
    admins = list(
        Membership.objects.select_for_update()
        .filter(organization_id=membership.organization_id, role=Membership.ROLE_ADMIN)
        .values_list("pk", flat=True)
    )
    return any(pk != membership.pk for pk in admins)


@transaction.atomic
def membership_add(*, actor, email: str, role: str = Membership.ROLE_MEMBER) -> Membership:
    """An admin adds someone by e-mail. A user who does not exist yet is created without a
    usable password: they choose one through an invitation link (`invite_path`)."""
    _admin_required(actor)
    _role_checked(role)
    email = User.objects.normalize_email((email or "").strip()).lower()
    try:
        validate_email(email)
    except ValidationError as exc:
        raise BadRequest("Enter a valid e-mail address.") from exc
    user = User.objects.filter(email=email).first()
    if user is None:
        user = User(email=email)
        user.set_unusable_password()
        user.save()
    elif Membership.objects.filter(user=user, organization_id=actor.organization_id).exists():
        raise ResourceAlreadyExists(f"{email} is already a member of this organization.")
    try:
        with transaction.atomic():
            return Membership.objects.create(
                user=user, organization_id=actor.organization_id, role=role
            )
    except IntegrityError as exc:  # added concurrently
        raise ResourceAlreadyExists(f"{email} is already a member of this organization.") from exc


@transaction.atomic
def membership_set_role(*, actor, membership_id, role: str) -> Membership:
    """An admin changes a member's role; the last admin cannot be demoted."""
    _admin_required(actor)
    _role_checked(role)
    membership = _membership_of_org(actor, membership_id)
    if membership.role == role:
        return membership
    if membership.role == Membership.ROLE_ADMIN and not _other_admins_exist(membership):
        raise BadRequest(
            "The organization needs at least one admin; make someone else admin first."
        )
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_remove(*, actor, membership_id) -> Membership:
    """An admin removes a member of the organization (their sessions go with the row, so
    they are logged out at once); the last admin cannot be removed."""
    _admin_required(actor)
    membership = _membership_of_org(actor, membership_id)
    if membership.role == Membership.ROLE_ADMIN and not _other_admins_exist(membership):
        raise BadRequest(
            "The organization needs at least one admin; the last one cannot be removed."
        )
    membership.delete()
    return membership


# --- invitations ------------------------------------------------------------------------------

INVITE_SALT = "archsvc.accounts.invite"


def _invite_refusal(membership: Membership) -> str | None:
    """Why no invitation link may set this member's password, or None. The link's holder
    chooses the password of the whole account, so the account must belong to this
    organization alone: otherwise an admin of one organization could take over a person's
    access to another (an operator sets such a password: `create_member --password`)."""
    user = membership.user
    if user.has_usable_password():
        return f"{user.email} has a password already and can log in."
    if not user.is_active:
        return f"{user.email} is deactivated."
    if (
        Membership.objects.filter(user_id=user.pk)
        .exclude(organization_id=membership.organization_id)
        .exists()
    ):
        return (
            f"{user.email} has an account with another organization too, so its password "
            "is not set through this organization: ask an operator."
        )
    return None


def invite_path(*, actor, membership_id) -> tuple[Membership, str]:
    """An admin's link for a member of the organization who has no password yet: the path
    of the page where they choose one, sent by the admin (no mail is sent from here). A
    new link ends the earlier ones."""
    _admin_required(actor)
    try:
        membership_pk = int(membership_id)
    except (TypeError, ValueError):
        raise NotFound("No such member.") from None
    membership = (
        Membership.objects.select_related("user")
        .filter(pk=membership_pk, organization_id=actor.organization_id)
        .first()
    )
    if membership is None:
        raise NotFound("No such member.")
    refusal = _invite_refusal(membership)
    if refusal:
        raise BadRequest(refusal)
    membership.invited_at = timezone.now()
    membership.save(update_fields=["invited_at"])
    token = signing.dumps(
        {"m": membership.pk, "at": membership.invited_at.isoformat()}, salt=INVITE_SALT
    )
    return membership, f"/accounts/welcome/{token}/"


def invited_membership(*, token: str, lock: bool = False) -> Membership | None:
    """The membership an invitation link names while the link holds: signed by us, at most
    PASSWORD_RESET_TIMEOUT old (3 days), the latest made for it, its account still without
    a password and still of this organization alone."""
    try:
        data = signing.loads(token, salt=INVITE_SALT, max_age=settings.PASSWORD_RESET_TIMEOUT)
        membership_pk, made_at = int(data["m"]), str(data["at"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    memberships = Membership.objects.select_related("user", "organization")
    if lock:
        memberships = memberships.select_for_update()
    membership = memberships.filter(pk=membership_pk).first()
    if membership is None or membership.invited_at is None:
        return None
    if membership.invited_at.isoformat() != made_at or _invite_refusal(membership):
        return None
    return membership


@transaction.atomic
def invitation_accept(*, token: str, password: str) -> Membership:
    """Set the first password (the password rules apply) and return the membership the link
    was made for, to log in with. Locked, so two submits of one link set it once."""
    membership = invited_membership(token=token, lock=True)
    if membership is None:
        raise NotFound("This invitation link no longer works.")
    user = User.objects.select_for_update().get(pk=membership.user_id)
    if user.has_usable_password():
        raise NotFound("This invitation link no longer works.")
    validate_password(password, user)
    user.set_password(password)
    user.save(update_fields=["password"])
    membership.invited_at = None
    membership.save(update_fields=["invited_at"])
    return membership


WRONG_PASSWORD = "That is not your current password."


def password_change(*, user: User, current: str, new: str, keep_session_id=None) -> int:
    """A member changes their password: the current one first, the password rules for the
    new one. Every other session of theirs ends (a password is changed because it may be
    known to someone else); the one they are using stays. The number of sessions ended."""
    if not user.check_password(current):
        raise BadRequest(WRONG_PASSWORD)
    validate_password(new, user)
    user.set_password(new)
    user.save(update_fields=["password"])
    return (
        AuthSession.objects.filter(membership__user=user, ended_at__isnull=True)
        .exclude(pk=keep_session_id)
        .update(ended_at=timezone.now())
    )
