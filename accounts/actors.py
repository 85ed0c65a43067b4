"""The actor of a request: a member (recorded by e-mail) or an API key (recorded by name),
always inside one organization. Permission rules of interface §3 live here, once."""

from dataclasses import dataclass, field

from accounts.models import ApiKey, Membership, Organization

MEMBER = "MEMBER"
API_KEY = "API_KEY"


@dataclass(frozen=True, eq=False)
class Actor:
    organization: Organization
    type: str
    name: str
    user_id: int | None = None
    api_key_id: str | None = None
    role: str | None = None
    permissions: frozenset[str] = field(default_factory=frozenset)

    # DRF and Django read these on request.user.
    is_authenticated = True
    is_anonymous = False

    @property
    def organization_id(self) -> int:
        return self.organization.pk

    @property
    def ref(self) -> str:
        """A stable identity for pins and rate limits: `member:<user id>` or `key:<id>`."""
        return f"member:{self.user_id}" if self.type == MEMBER else f"key:{self.api_key_id}"

    @property
    def rate_key(self) -> str:
        return self.ref

    @property
    def is_api_key(self) -> bool:
        return self.type == API_KEY

    @property
    def is_admin(self) -> bool:
        return self.type == MEMBER and self.role == Membership.ROLE_ADMIN

    def is_creator(self, created_by_ref: str) -> bool:
        return created_by_ref == self.ref

    def can_manage_project(self, *, created_by_ref: str) -> bool:
        """Update, delete, share-token create and delete (interface §3)."""
        if self.is_admin or self.is_creator(created_by_ref):
            return True
        return self.type == API_KEY and ApiKey.PERMISSION_PROJECTS_MANAGE in self.permissions

    def can_manage_billing(self) -> bool:
        """Portal session and switch-cycle (interface §3)."""
        if self.type == MEMBER:
            return self.is_admin
        return ApiKey.PERMISSION_BILLING_MANAGE in self.permissions


def actor_for_membership(membership: Membership) -> Actor:
    return Actor(
        organization=membership.organization,
        type=MEMBER,
        name=membership.user.email,
        user_id=membership.user_id,
        role=membership.role,
    )


def actor_for_api_key(api_key: ApiKey) -> Actor:
    return Actor(
        organization=api_key.organization,
        type=API_KEY,
        name=api_key.name,
        api_key_id=str(api_key.pk),
        permissions=frozenset(api_key.permissions or ()),
    )
