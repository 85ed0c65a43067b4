"""The demo architecture seeded by `manage.py seed_demo`."""

from accounts.models import Membership, Organization


def demo_seed(*, organization: Organization, membership: Membership) -> None:
    """Idempotent: the sample project is made once (filled in as projects land)."""
