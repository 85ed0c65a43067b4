"""Reads for diagrams: projects, services and their history."""

from accounts.models import Organization


def project_count(*, organization: Organization) -> int:
    """How many projects the organization has, archived ones included (CONTRACT 4)."""
    return 0
