"""Organizations (tenants), users who log in by e-mail, memberships with roles, API keys and
server-side sessions behind the `__session` cookie."""

import uuid

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Organization(models.Model):
    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class UserManager(BaseUserManager):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra):
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra):
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    email = models.EmailField(max_length=254, unique=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False, help_text="Can log in to Django admin.")
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    def __str__(self) -> str:
        return self.email


class MembershipQuerySet(models.QuerySet):
    def accepted(self) -> "MembershipQuerySet":
        """Memberships that grant something: not an existing account's pending one."""
        return self.filter(accepted_at__isnull=False)

    def joined(self) -> "MembershipQuerySet":
        """Memberships of someone who is in: accepted, of an active account that has a password
        (one added by address is not in until its owner chooses one)."""
        return (
            self.accepted()
            .filter(user__is_active=True)
            .exclude(user__password__startswith=UNUSABLE_PASSWORD_PREFIX)
        )

    def invited(self) -> "MembershipQuerySet":
        """Memberships of an active account not in yet: pending, or added by address and
        without a password (an organization's other active ones are `joined`)."""
        return self.filter(
            Q(accepted_at__isnull=True) | Q(user__password__startswith=UNUSABLE_PASSWORD_PREFIX),
            user__is_active=True,
        )


class Membership(models.Model):
    """A user's place in an organization. One added for an existing account is pending
    (`accepted_at` None) and grants nothing until its owner accepts the join link, logged in."""

    ROLE_ADMIN = "admin"
    ROLE_MEMBER = "member"
    ROLES = [(ROLE_ADMIN, "admin"), (ROLE_MEMBER, "member")]

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=ROLES, default=ROLE_MEMBER)
    created_at = models.DateTimeField(default=timezone.now)
    # when the latest invitation link was made: a link names it, so a new link ends the old
    invited_at = models.DateTimeField(null=True, blank=True)
    # when its user joined; None while an existing account's membership waits for their
    # consent through a join link (every other way of making one accepts it at once)
    accepted_at = models.DateTimeField(null=True, blank=True, default=timezone.now)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "organization"], name="membership_unique"),
        ]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        pending = ", not joined yet" if self.is_pending else ""
        return f"{self.user} in {self.organization} ({self.role}{pending})"

    @property
    def is_pending(self) -> bool:
        return self.accepted_at is None

    @property
    def has_joined(self) -> bool:
        """As `MembershipQuerySet.joined`: accepted, and its user can log in."""
        return not self.is_pending and self.user.is_active and self.user.has_usable_password()


class ApiKey(models.Model):
    """The row behind a bearer key. The JWT itself is never stored: it names this row by
    `jti`, and revoking or deleting the row refuses the key at once."""

    PERMISSION_PROJECTS_MANAGE = "projects:manage"
    PERMISSION_BILLING_MANAGE = "billing:manage"
    PERMISSIONS = [PERMISSION_PROJECTS_MANAGE, PERMISSION_BILLING_MANAGE]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100)
    permissions = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "name"],
                condition=Q(revoked_at__isnull=True),
                name="api_key_active_name_unique",
            ),
        ]
        ordering = ["organization", "name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.organization})"

    @property
    def is_active(self) -> bool:
        now = timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


class AuthSession(models.Model):
    """One log-in: the `sid` of the `__session` JWT. Idle past SESSION_IDLE_SECONDS, ended
    at log-out, or gone with its membership, and the cookie is refused."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    membership = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="sessions")
    created_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["membership", "ended_at"], name="session_membership")]

    def __str__(self) -> str:
        return f"session {self.id} of {self.membership}"
