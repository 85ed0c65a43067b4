"""Writes for accounts: sign-up, members, sessions, API keys."""

import logging
from datetime import timedelta

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.text import slugify

from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from accounts.tokens import api_key_token_encode, session_token_encode
from archsvc.api.serializers import text_problem
from archsvc.exceptions import BadRequest, Forbidden, NotFound, ResourceAlreadyExists

logger = logging.getLogger("archsvc.accounts")


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


def _held_by_no_organization(user: User) -> bool:
    """No organization holds the account: it has no accepted membership anywhere (it was
    removed from its last one, or never joined one)."""
    return not Membership.objects.accepted().filter(user_id=user.pk).exists()


def _organizationless_owner(user: User, password: str) -> bool:
    """Whether a sign-up with a taken address is its owner's, back after leaving their last
    organization: an active account no organization holds, with its own password."""
    return (
        user.is_active
        and user.has_usable_password()
        and _held_by_no_organization(user)
        and user.check_password(password)
    )


@transaction.atomic
def user_signup(*, email: str, password: str, organization_name: str) -> Membership:
    """Sign-up (interface §2): the user, a new organization and an admin membership; an account
    in no organization signs up again with its own password."""
    email = User.objects.normalize_email(email).strip().lower()
    user = User.objects.filter(email=email).first()
    if user is not None:
        if not _organizationless_owner(user, password):
            raise ResourceAlreadyExists(EMAIL_TAKEN)
        organization = organization_create(name=organization_name)
        return Membership.objects.create(
            user=user, organization=organization, role=Membership.ROLE_ADMIN
        )
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
    """For operators: the organization and the user when missing, then the membership (its role
    set, a pending one accepted: the operator's word stands for the person's)."""
    if role not in dict(Membership.ROLES):
        raise BadRequest(f"role must be one of: {', '.join(dict(Membership.ROLES))}")
    organization, _ = Organization.objects.get_or_create(
        slug=slugify(org_slug) or org_slug, defaults={"name": org_slug}
    )
    email = User.objects.normalize_email(email).strip().lower()
    user = User.objects.filter(email=email).first()
    if user is None:
        user = User.objects.create_user(email=email, password=password)
    elif password and not user.check_password(password):  # the same one again ends nothing
        user.set_password(password)
        user.save(update_fields=["password"])
        # as a password an operator sets in Django admin: the old one may be known to
        # someone, whose sessions in the app had stayed open (up to 12 hours, renewed)
        AuthSession.objects.filter(membership__user=user, ended_at__isnull=True).update(
            ended_at=timezone.now()
        )
    membership, created = Membership.objects.get_or_create(
        user=user, organization=organization, defaults={"role": role}
    )
    if not created and (membership.role != role or membership.is_pending):
        changed = ["role"]
        membership.role = role
        if membership.is_pending:
            membership.accepted_at, membership.invited_at = timezone.now(), None
            changed += ["accepted_at", "invited_at"]
        membership.save(update_fields=changed)
    return membership


def session_start(*, membership: Membership) -> str:
    """A new server-side session and the `__session` JWT that names it. Never for a pending
    membership: it grants nothing until its user joins."""
    if membership.is_pending:
        raise Forbidden("You have not joined this organization yet: open its join link.")
    now = timezone.now()
    session = AuthSession.objects.create(membership=membership, created_at=now, last_seen_at=now)
    # Django admin's "Last login", for an operator answering "I can't log in" (it stayed
    # empty: the app's sessions are its own, not django.contrib.auth's login())
    User.objects.filter(pk=membership.user_id).update(last_login=now)
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
    problem = text_problem(name)
    if problem:
        raise BadRequest(f"The key's name: {problem[0].lower()}{problem[1:]}")
    unknown = sorted(set(permissions) - set(ApiKey.PERMISSIONS))
    if unknown:
        raise BadRequest(f"Unknown permission(s): {', '.join(unknown)}")
    if expires_in_days is not None and expires_in_days <= 0:
        raise BadRequest("expires-in-days must be positive.")
    now = timezone.now()
    expires_at = now + timedelta(days=expires_in_days) if expires_in_days else None
    try:
        with transaction.atomic():
            # a key that has expired works nowhere and never will again: it gives its name
            # up to the new one (a CI key rotated under its name was refused while the
            # expired one, which no page lists as active, held it)
            expired = ApiKey.objects.filter(
                organization=organization, name=name, revoked_at__isnull=True, expires_at__lte=now
            ).update(revoked_at=now)
            if expired:
                logger.info(
                    "api key expired and replaced: organization=%s name=%r", organization.pk, name
                )
            key = ApiKey.objects.create(
                organization=organization,
                name=name,
                permissions=sorted(set(permissions)),
                created_at=now,
                expires_at=expires_at,
            )
    except IntegrityError as exc:
        raise ResourceAlreadyExists(
            f"An active API key is named “{name}” already: choose another name, or revoke "
            "that key first."
        ) from exc
    token = api_key_token_encode(
        key_id=str(key.pk), org_id=organization.pk, issued_at=now, expires_at=expires_at
    )
    return key, token


def api_key_revoke_one(*, organization: Organization, key_id) -> ApiKey | None:
    """Revoke one of the organization's unrevoked keys by id (by name, a new key given an expired
    one's name would be revoked instead); None when there is none."""
    key = ApiKey.objects.filter(
        organization=organization, revoked_at__isnull=True, pk=key_id
    ).first()
    if key is not None:
        ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    return key


def api_key_revoke(*, organization: Organization, name: str) -> int:
    """Revoke the organization's active key of that name; its bearer is refused at once."""
    return ApiKey.objects.filter(
        organization=organization, name=name, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())


# --- members, for the organization's settings pages -----------------------------------------


def admin_required(actor) -> None:
    if not actor.is_admin:
        raise Forbidden("Only an admin of the organization can manage its members.")


def _role_checked(role: str) -> str:
    if role not in dict(Membership.ROLES):
        raise BadRequest(f"role must be one of: {', '.join(dict(Membership.ROLES))}")
    return role


NO_SUCH_MEMBER = "No such member in this organization."


def membership_pk(raw) -> int:
    """A membership's id as a form sends it: ASCII digits only. int() alone would also read
    "٣" or "1_0" or " 3 " as a member's id; anything else names no member (404)."""
    text = raw if isinstance(raw, str) else str(raw) if isinstance(raw, int) else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise NotFound(NO_SUCH_MEMBER)
    return int(text)


def _membership_of_org(actor, membership_id) -> Membership:
    """The organization's membership, locked; another organization's answers as missing."""
    pk = membership_pk(membership_id)
    try:
        return (
            Membership.objects.select_for_update()
            .select_related("user")
            .get(pk=pk, organization_id=actor.organization_id)
        )
    except Membership.DoesNotExist as exc:
        raise NotFound(NO_SUCH_MEMBER) from exc


def is_needed_admin(membership: Membership) -> bool:
    """The last-admin rule, for the app and Django admin: whether the organization would be
    left without an admin who has joined (a pending one may never come) if this one went."""
    if membership.role != Membership.ROLE_ADMIN or not membership.has_joined:
        return False
    # Every admin row of the organization locked, so two admins removing each other at once
    # cannot both succeed (savepoint=False: no savepoint inside the caller's transaction).
    with transaction.atomic(savepoint=False):
        admins = list(
            Membership.objects.select_for_update(of=("self",))
            .joined()
            .filter(organization_id=membership.organization_id, role=Membership.ROLE_ADMIN)
            .values_list("pk", flat=True)
        )
    return not any(pk != membership.pk for pk in admins)


def _unclaimed(user: User) -> bool:
    """An account added by address that its owner never claimed and no organization holds: added
    again, it is a new account's case (a member at once, with an invitation link)."""
    # One another organization holds keeps the join link: an invitation link sets the password
    # of the whole account (`invitations._invite_refusal`).
    return user.is_active and not user.has_usable_password() and _held_by_no_organization(user)


@transaction.atomic
def membership_add(*, actor, email: str, role: str = Membership.ROLE_MEMBER) -> Membership:
    """An admin adds someone by e-mail: a new account is a member at once and chooses a
    password by invitation link; an existing one gets a pending membership until its join link."""
    # Addresses are not verified: finding an account under one proves nothing about who reads
    # the admin's messages there, so its owner must accept while logged in.
    admin_required(actor)
    _role_checked(role)
    email = User.objects.normalize_email((email or "").strip()).lower()
    try:
        validate_email(email)
    except ValidationError as exc:
        raise BadRequest("Enter a valid e-mail address.") from exc
    user = User.objects.filter(email=email).first()
    accepted_at = timezone.now()
    if user is None:
        user = User(email=email)
        user.set_unusable_password()
        user.save()
    else:
        existing = Membership.objects.filter(
            user=user, organization_id=actor.organization_id
        ).first()
        if existing is not None and existing.is_pending:
            raise ResourceAlreadyExists(
                f"{email} is invited already and has not joined yet: make a new join link "
                "from the list if the first one was lost."
            )
        if existing is not None and not user.has_usable_password():
            # added before by address alone: a member, but one who never came to set a
            # password ("already a member" read as if they had)
            raise ResourceAlreadyExists(
                f"{email} is invited already and has not joined yet: make a new "
                "invitation link from the list if the first one was lost."
            )
        if existing is not None and user.pk == actor.user_id:
            raise ResourceAlreadyExists(
                f"{email} is your own address: you are a member of this organization already."
            )
        if existing is not None:
            raise ResourceAlreadyExists(f"{email} is already a member of this organization.")
        if not _unclaimed(user):
            accepted_at = None
    try:
        with transaction.atomic():
            return Membership.objects.create(
                user=user,
                organization_id=actor.organization_id,
                role=role,
                accepted_at=accepted_at,
            )
    except IntegrityError as exc:  # added concurrently
        raise ResourceAlreadyExists(f"{email} is already a member of this organization.") from exc


@transaction.atomic
def membership_set_role(*, actor, membership_id, role: str) -> Membership:
    """An admin changes a member's role (a pending one's too: it is theirs once they join);
    the last admin who has joined cannot be demoted."""
    admin_required(actor)
    _role_checked(role)
    membership = _membership_of_org(actor, membership_id)
    membership.previous_role = membership.role  # for the page to say whether it changed
    if membership.role == role:
        return membership
    if is_needed_admin(membership):
        raise BadRequest(
            "The organization needs at least one admin; make someone else admin first."
        )
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_remove(*, actor, membership_id) -> Membership:
    """An admin removes a member (their sessions go with the row) or withdraws a pending one; the
    last joined admin cannot be removed."""
    admin_required(actor)
    membership = _membership_of_org(actor, membership_id)
    if is_needed_admin(membership):
        raise BadRequest(
            "The organization needs at least one admin; the last one cannot be removed."
        )
    membership.delete()
    return membership


WRONG_PASSWORD = "That is not your current password."


def password_change(*, user: User, current: str, new: str, keep_session_id=None) -> int:
    """A member changes their password (current one first); their other sessions end, this one
    stays. Returns how many ended."""
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
