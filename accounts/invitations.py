"""The links an admin passes to someone they added (no mail is sent): an invitation link for a
new account's first password, a join link for an existing account to accept its membership."""

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.db import transaction
from django.utils import timezone

from accounts.models import Membership, User
from accounts.services import NO_SUCH_MEMBER, admin_required, membership_pk
from archsvc.exceptions import BadRequest, Forbidden, NotFound

INVITE_SALT = "archsvc.accounts.invite"
JOIN_SALT = "archsvc.accounts.join"
JOIN_LOGIN_SALT = "archsvc.accounts.join-login"
JOIN_LOGIN_SECONDS = 10 * 60
JOIN_LINK_GONE = "This join link no longer works."
JOIN_LINK_OTHER_ACCOUNT = "This join link is for another account."


def _membership_of_org(actor, membership_id) -> Membership:
    admin_required(actor)
    membership = (
        Membership.objects.select_related("user")
        .filter(pk=membership_pk(membership_id), organization_id=actor.organization_id)
        .first()
    )
    if membership is None:
        raise NotFound(NO_SUCH_MEMBER)
    return membership


def _link_token(membership: Membership, *, salt: str) -> str:
    """A new link for the membership; the earlier ones end, as they name an older time."""
    membership.invited_at = timezone.now()
    membership.save(update_fields=["invited_at"])
    return signing.dumps({"m": membership.pk, "at": membership.invited_at.isoformat()}, salt=salt)


def _linked_membership(*, token: str, salt: str, lock: bool) -> Membership | None:
    """The membership a link names, if the link is ours, young enough and the latest."""
    try:
        data = signing.loads(token, salt=salt, max_age=settings.PASSWORD_RESET_TIMEOUT)
        membership_pk, made_at = int(data["m"]), str(data["at"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    memberships = Membership.objects.select_related("user", "organization")
    if lock:
        memberships = memberships.select_for_update()
    membership = memberships.filter(pk=membership_pk).first()
    if membership is None or membership.invited_at is None:
        return None
    if membership.invited_at.isoformat() != made_at:
        return None
    return membership


def _new_link(actor, membership_id, refusal, salt: str, page: str) -> tuple[Membership, str]:
    """An admin's new link (invitation or join) for a membership of their organization,
    refused with `refusal`'s words when the membership cannot take one."""
    membership = _membership_of_org(actor, membership_id)
    refused = refusal(membership)
    if refused:
        raise BadRequest(refused)
    return membership, f"{page}{_link_token(membership, salt=salt)}/"


def _link_holds(token: str, salt: str, refusal, *, lock: bool) -> Membership | None:
    """The membership a link names while it holds: ours, young enough, the latest made for
    it, and nothing `refusal` says against it."""
    membership = _linked_membership(token=token, salt=salt, lock=lock)
    if membership is None or refusal(membership):
        return None
    return membership


# --- invitation links: a new account's first password ----------------------------------------


def _invite_refusal(membership: Membership) -> str | None:
    """Why no invitation link may set this member's password, or None."""
    # The link sets the whole account's password, so the account must belong to this
    # organization alone, else one organization's admin could take over access to another
    # (an operator sets such a password). Pending memberships elsewhere grant nothing: not counted.
    user = membership.user
    if membership.is_pending:
        return (
            f"{user.email} had an account already: they join through a join link, "
            "opened while logged in."
        )
    if user.has_usable_password():
        return f"{user.email} has a password already and can log in."
    if not user.is_active:
        return f"{user.email} is deactivated."
    if (
        Membership.objects.accepted()
        .filter(user_id=user.pk)
        .exclude(organization_id=membership.organization_id)
        .exists()
    ):
        return (
            f"{user.email} has an account with another organization too, so its password "
            "is not set through this organization: ask an operator."
        )
    return None


def invite_path(*, actor, membership_id) -> tuple[Membership, str]:
    """The path where a member without a password chooses one; a new link ends the earlier ones."""
    return _new_link(actor, membership_id, _invite_refusal, INVITE_SALT, "/accounts/welcome/")


def invited_membership(*, token: str, lock: bool = False) -> Membership | None:
    """The membership an invitation link names while it holds: ours, at most
    PASSWORD_RESET_TIMEOUT old, the latest; its account passwordless, this organization's only."""
    return _link_holds(token, INVITE_SALT, _invite_refusal, lock=lock)


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
    # they join now ("Member since" was the day the admin typed their address)
    membership.accepted_at = timezone.now()
    membership.invited_at = None
    membership.save(update_fields=["accepted_at", "invited_at"])
    return membership


# --- join links: an existing account accepts a membership ------------------------------------


def _join_refusal(membership: Membership) -> str | None:
    user = membership.user
    if not membership.is_pending:
        return f"{user.email} has joined already."
    if not user.is_active:
        return f"{user.email} is deactivated."
    return None


def join_path(*, actor, membership_id) -> tuple[Membership, str]:
    """The path where the owner of an account that existed when added accepts, logged in; a new
    link ends the earlier ones."""
    return _new_link(actor, membership_id, _join_refusal, JOIN_SALT, "/accounts/join/")


def joining_membership(*, token: str, lock: bool = False) -> Membership | None:
    """The pending membership a join link names while it holds: ours, at most
    PASSWORD_RESET_TIMEOUT old, the latest, still pending and of an active account."""
    return _link_holds(token, JOIN_SALT, _join_refusal, lock=lock)


@transaction.atomic
def membership_join(*, token: str, user_id: int) -> Membership:
    """The logged-in owner accepts: holding the link alone is not enough, nor is owning the
    account (its address was never verified)."""
    membership = joining_membership(token=token, lock=True)
    if membership is None:
        raise NotFound(JOIN_LINK_GONE)
    if membership.user_id != user_id:
        raise Forbidden(JOIN_LINK_OTHER_ACCOUNT)
    membership.accepted_at = timezone.now()
    membership.invited_at = None
    membership.save(update_fields=["accepted_at", "invited_at"])
    return membership


def join_login_proof(*, membership: Membership) -> str:
    """A short-lived proof that someone in no organization just gave this account's password, so
    the join page may take them without a session."""
    return signing.dumps({"u": membership.user_id, "m": membership.pk}, salt=JOIN_LOGIN_SALT)


def join_login_user_id(*, proof: str, membership: Membership) -> int | None:
    """The user a `join_login_proof` vouches for, if it was made for this membership within
    JOIN_LOGIN_SECONDS."""
    if not proof:
        return None
    try:
        data = signing.loads(proof, salt=JOIN_LOGIN_SALT, max_age=JOIN_LOGIN_SECONDS)
        user_id, membership_pk = int(data["u"]), int(data["m"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    return user_id if membership_pk == membership.pk else None
