"""The demo architecture seeded by `manage.py seed_demo`."""

from accounts.actors import actor_for_membership
from accounts.models import Membership, Organization
from diagrams.models import Project
from diagrams.services import project_create

DEMO_PROJECT_NAME = "Online shop"


def demo_seed(*, organization: Organization, membership: Membership) -> None:
    """Idempotent: the sample project is made once, by the demo member."""
    if Project.objects.filter(organization=organization, name=DEMO_PROJECT_NAME).exists():
        return
    actor = actor_for_membership(membership)
    project_create(actor=actor, name=DEMO_PROJECT_NAME,
                   description="An e-commerce system: orders, payments, stock and shipping.")
