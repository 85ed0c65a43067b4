"""Fixtures of the diagrams browser tests."""

import pytest

from accounts.models import Membership
from diagrams.demo import demo_seed
from diagrams.models import Project


@pytest.fixture
def demo(live_server, factory):
    org = factory.org("demo")
    membership = factory.member(org, role="admin")
    demo_seed(organization=org, membership=Membership.objects.get(pk=membership.pk))
    project = Project.objects.get(organization=org)
    return {
        "url": live_server.url,
        "project": project.id,
        "membership": membership,
        "client": factory.member_client(membership, enforce_csrf=False),
    }
