"""Reads for billing: the plan in force, limits, the subscription (interface §4)."""

from django.conf import settings

from accounts.models import Organization
from billing.models import Subscription

# Statuses under which the subscribed plan applies; otherwise (none, paused, canceled) the
# organization is on the free plan. past_due keeps the plan while the provider retries.
PAID_STATUSES = {
    Subscription.STATUS_ACTIVE,
    Subscription.STATUS_TRIALING,
    Subscription.STATUS_PAST_DUE,
}


def subscription_get(*, organization: Organization) -> Subscription | None:
    return Subscription.objects.filter(organization=organization).first()


def plan_of(subscription: Subscription | None) -> str:
    if subscription is not None and subscription.status in PAID_STATUSES:
        return subscription.plan
    return "free"


def organization_plan(*, organization: Organization) -> str:
    """The plan in force: the subscription's while it is paid for, else free."""
    return plan_of(subscription_get(organization=organization))


def plan_limits(*, plan: str) -> dict:
    return settings.PLANS[plan]


def bigger_plan_exists(*, plan: str, limit: str) -> bool:
    """Whether another plan gives more of `limit` (max_projects, ai_credits): on the biggest
    there is none to point to."""
    have = settings.PLANS[plan][limit]
    return any(limits[limit] > have for limits in settings.PLANS.values())


def limits_get(*, organization: Organization) -> dict:
    """`GET /v1/limits`: projects now in the organization and the plan's maximum."""
    plan = organization_plan(organization=organization)
    return {
        # archived ones too (interface §4); diagrams' Project, through its reverse relation
        "currentProjects": organization.projects.count(),
        "maxProjects": plan_limits(plan=plan)["max_projects"],
    }


def limits_for_page(*, organization: Organization) -> dict:
    """`limits_get` with `over`: how many projects more than the plan allows, as after a
    downgrade (they stay and can be edited; none can be created until enough are deleted)."""
    limits = limits_get(organization=organization)
    return {
        **limits,
        "over": max(0, limits["currentProjects"] - limits["maxProjects"]),
        # whether "see the plans" leads anywhere (on the biggest plan it offered nothing)
        "bigger_plan": any(
            plan["max_projects"] > limits["maxProjects"] for plan in settings.PLANS.values()
        ),
    }
