"""Reads for billing: the organization's plan and its limits (CONTRACT 4)."""

from django.conf import settings

from accounts.models import Organization


def organization_plan(*, organization: Organization) -> str:
    """The plan in force: free until the billing issue brings subscriptions."""
    return "free"


def plan_limits(*, plan: str) -> dict:
    return settings.PLANS[plan]


def limits_get(*, organization: Organization) -> dict:
    """`GET /v1/limits`: projects now in the organization and the plan's maximum."""
    from diagrams.selectors import project_count

    plan = organization_plan(organization=organization)
    return {
        "currentProjects": project_count(organization=organization),
        "maxProjects": plan_limits(plan=plan)["max_projects"],
    }
