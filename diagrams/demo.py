"""The demo architecture seeded by `manage.py seed_demo`: an online shop with months of history
(DEMO_HISTORY), so a newcomer's first look at time travel, history and diffs shows something."""

import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.actors import actor_for_membership
from accounts.models import Membership, Organization
from accounts.services import member_create
from diagrams.models import Project, Service, ServiceSnapshot
from diagrams.project_writes import project_create
from diagrams.service_writes import service_create, service_delete, service_update

DEMO_PROJECT_NAME = "Online shop"


def _t(name: str, **attributes) -> dict:
    return {"name": name, **attributes}


DEMO_SERVICES = [
    {
        "name": "Storefront BFF",
        "category": "edge",
        "owner": "web-team",
        "flows": ["checkout"],
        "description": "Backend for the web and mobile storefronts.",
        "produces": [_t("cart.events", category="commerce", owner="cart-team")],
        "consumes": [_t("catalog.updated"), _t("prices.changed")],
    },
    {
        "name": "Cart",
        "category": "commerce",
        "owner": "cart-team",
        "flows": ["checkout"],
        "consumes": [_t("cart.events"), _t("prices.changed")],
        "produces": [_t("checkout.started", flows=["checkout"])],
    },
    {
        "name": "Checkout",
        "category": "commerce",
        "owner": "checkout-team",
        "flows": ["checkout"],
        "consumes": [_t("checkout.started"), _t("payments.settled")],
        "produces": [
            _t(
                "orders.placed",
                category="commerce",
                owner="checkout-team",
                flows=["checkout", "fulfilment"],
            )
        ],
    },
    {
        "name": "Order Service",
        "category": "commerce",
        "owner": "orders-team",
        "flows": ["checkout", "fulfilment"],
        "extras": {"repo": "git.example.com/shop/orders"},
        "consumes": [_t("orders.placed"), _t("shipments.dispatched"), _t("refunds.issued")],
        "produces": [
            _t("orders.confirmed", category="commerce"),
            _t("orders.cancelled", category="commerce"),
        ],
    },
    {
        "name": "Payment Gateway",
        "category": "payments",
        "owner": "payments-team",
        "flows": ["checkout"],
        "consumes": [_t("orders.placed")],
        "produces": [
            _t("payments.authorized", category="payments"),
            _t("payments.failed", category="payments"),
        ],
    },
    {
        "name": "Payment Settlement",
        "category": "payments",
        "owner": "payments-team",
        "consumes": [_t("payments.authorized")],
        "produces": [_t("payments.settled")],
    },
    {
        "name": "Fraud Check",
        "category": "payments",
        "owner": "risk-team",
        "consumes": [_t("orders.placed"), _t("payments.failed")],
        "produces": [_t("fraud.flagged", category="payments", owner="risk-team")],
    },
    {
        "name": "Refunds",
        "category": "payments",
        "owner": "payments-team",
        "flows": ["returns"],
        "consumes": [_t("returns.received"), _t("fraud.flagged")],
        "produces": [_t("refunds.issued", flows=["returns"])],
    },
    {
        "name": "Inventory",
        "category": "fulfilment",
        "owner": "stock-team",
        "flows": ["fulfilment"],
        "consumes": [_t("orders.confirmed"), _t("orders.cancelled"), _t("stock.received")],
        "produces": [
            _t("stock.reserved", category="fulfilment"),
            _t("stock.low", category="fulfilment"),
        ],
    },
    {
        "name": "Warehouse",
        "category": "fulfilment",
        "owner": "stock-team",
        "flows": ["fulfilment"],
        "consumes": [_t("stock.reserved")],
        "produces": [_t("parcels.packed", category="fulfilment")],
    },
    {
        "name": "Shipping",
        "category": "fulfilment",
        "owner": "logistics-team",
        "flows": ["fulfilment"],
        "consumes": [_t("parcels.packed")],
        "produces": [_t("shipments.dispatched", category="fulfilment", owner="logistics-team")],
    },
    {
        "name": "Carrier Tracking",
        "category": "fulfilment",
        "owner": "logistics-team",
        "consumes": [_t("shipments.dispatched")],
        "produces": [_t("shipments.delivered", category="fulfilment")],
    },
    {
        "name": "Returns",
        "category": "fulfilment",
        "owner": "logistics-team",
        "flows": ["returns"],
        "consumes": [_t("shipments.delivered")],
        "produces": [_t("returns.received", flows=["returns"])],
    },
    {
        "name": "Purchasing",
        "category": "fulfilment",
        "owner": "stock-team",
        "consumes": [_t("stock.low")],
        "produces": [_t("stock.received")],
    },
    {
        "name": "Catalog",
        "category": "catalog",
        "owner": "catalog-team",
        "produces": [_t("catalog.updated", category="catalog", owner="catalog-team")],
    },
    {
        "name": "Pricing",
        "category": "catalog",
        "owner": "catalog-team",
        "consumes": [_t("catalog.updated"), _t("stock.low")],
        "produces": [_t("prices.changed", category="catalog")],
    },
    {
        "name": "Search Indexer",
        "category": "catalog",
        "owner": "search-team",
        "consumes": [_t("catalog.updated"), _t("prices.changed"), _t("stock.reserved")],
    },
    {
        "name": "Notifications",
        "category": "engagement",
        "owner": "crm-team",
        "consumes": [
            _t("orders.confirmed"),
            _t("shipments.dispatched"),
            _t("shipments.delivered"),
            _t("refunds.issued"),
        ],
        "produces": [_t("emails.sent", category="engagement")],
    },
    {
        "name": "Loyalty",
        "category": "engagement",
        "owner": "crm-team",
        "consumes": [_t("orders.confirmed"), _t("orders.cancelled")],
        "produces": [_t("points.awarded", category="engagement")],
    },
    {
        "name": "Analytics Pipeline",
        "category": "data",
        "owner": "data-team",
        "consumes": [
            _t("orders.placed"),
            _t("payments.settled"),
            _t("emails.sent"),
            _t("points.awarded"),
            _t("cart.events"),
        ],
    },
]


# Two colleagues of the demo member, who made some of the later changes (members of the demo
# organization without a password: nobody logs in as them).
DEMO_COLLEAGUES = ("ana@example.com", "ben@example.com")

# How some services looked when they were first written down (DEMO_SERVICES is how they look
# now), and one that is gone. Keyed by the service's name of today.
_FIRST_VERSIONS = {
    "Fraud Check": {"consumes": [_t("orders.placed")]},
    "Inventory": {"consumes": [_t("orders.confirmed"), _t("orders.cancelled")]},
    "Search Indexer": {"name": "Search Worker", "consumes": [_t("catalog.updated")]},
    "Notifications": {
        "consumes": [
            _t("orders.confirmed"),
            _t("shipments.dispatched"),
            _t("shipments.delivered"),
        ]
    },
    "Pricing": {"consumes": [_t("catalog.updated")]},
    "Loyalty": {"consumes": [_t("orders.confirmed")]},
}
_LEGACY_MAILER = {
    "name": "Legacy Mailer",
    "category": "engagement",
    "owner": "crm-team",
    "description": "Sends refund e-mails; Notifications takes this over.",
    "consumes": [_t("refunds.issued")],
}

# What happened after the first services were written down, oldest first: (days before the
# seeding, hour, minute, who, what, the service's name of today). Each change brings the
# service to its DEMO_SERVICES form; "created" is Legacy Mailer's, "deleted" its end.
DEMO_HISTORY = [
    (132, 10, 0, "demo@example.com", "created", "Legacy Mailer"),
    (68, 15, 20, "ben@example.com", "updated", "Fraud Check"),
    (54, 11, 5, "demo@example.com", "updated", "Inventory"),
    (26, 13, 40, "ana@example.com", "renamed", "Search Indexer"),
    (18, 8, 15, "ana@example.com", "updated", "Notifications"),
    (14, 10, 0, "ana@example.com", "deleted", "Legacy Mailer"),
    (5, 14, 0, "ben@example.com", "updated", "Pricing"),
    (3, 16, 45, "ana@example.com", "updated", "Loyalty"),
]
_FIRST_DAY = 163  # the project is made then; its services over the next two weeks


def demo_seed(*, organization: Organization, membership: Membership) -> None:
    """Idempotent: the sample project and its history, made once through the API's own writes
    (so it holds every invariant a real history does), then moved back to DEMO_HISTORY's days."""
    if Project.objects.filter(organization=organization, name=DEMO_PROJECT_NAME).exists():
        return
    now = timezone.now()
    actors = {"demo@example.com": actor_for_membership(membership)}  # whoever seeds it
    for email in DEMO_COLLEAGUES:
        # A password nobody knows: they are members who have logged in, not invitations.
        colleague = member_create(
            email=email, org_slug=organization.slug, password=secrets.token_urlsafe()
        )
        actors[email] = actor_for_membership(colleague)

    def day(days_ago: int, hour: int, minute: int) -> datetime:
        return (now - timedelta(days=days_ago)).replace(
            hour=hour, minute=minute, second=0, microsecond=0
        )

    with transaction.atomic():
        actor = actors["demo@example.com"]
        project = project_create(
            actor=actor,
            name=DEMO_PROJECT_NAME,
            description="An e-commerce system: orders, payments, stock, shipping and returns.",
        )
        moments = {project.updated_at: day(_FIRST_DAY, 9, 0)}

        def happened(when: datetime) -> None:
            """The write just made (it moved the project's `updated_at`) belongs at `when`."""
            project.refresh_from_db(fields=["updated_at"])
            moments[project.updated_at] = when

        slugs = {}
        for index, service in enumerate(DEMO_SERVICES):
            first = {**service, **_FIRST_VERSIONS.get(service["name"], {})}
            slugs[first["name"]] = _create(actor, project, first)
            happened(day(_FIRST_DAY - 1 - index * 2 // 3, 9 + index % 3 * 2, 7 * index % 60))
        final = {service["name"]: service for service in DEMO_SERVICES}
        for days_ago, hour, minute, who, what, name in DEMO_HISTORY:
            by = actors[who]
            if what == "created":
                slugs[name] = _create(by, project, _LEGACY_MAILER)
            elif what == "deleted":
                service_delete(actor=by, project_id=project.id, slug=slugs[name])
            else:
                slug = slugs[_FIRST_VERSIONS[name].get("name", name)]
                service_update(actor=by, project_id=project.id, slug=slug, data=final[name])
            happened(day(days_ago, hour, minute))
        _backdate(project, moments)
        # Everyone who changed the project was a member before its first day.
        Membership.objects.filter(
            organization=organization,
            user__email__in=[a.name for a in actors.values()],
            created_at__gt=day(_FIRST_DAY + 1, 9, 0),
        ).update(created_at=day(_FIRST_DAY + 1, 9, 0))


def _create(actor, project, data: dict) -> str:
    return service_create(actor=actor, project_id=project.id, data=data).slug


def _backdate(project: Project, moments: dict[datetime, datetime]) -> None:
    """Every time the demo's writes recorded moved to its day in `moments`, which keeps their
    order, so each snapshot still ends where the next begins."""
    ordered = sorted(moments)
    assert all(moments[a] < moments[b] for a, b in zip(ordered, ordered[1:], strict=False))
    snapshots = list(project.snapshots.all())
    for snapshot in snapshots:
        snapshot.valid_from = moments[snapshot.valid_from]
        if snapshot.valid_until is not None:
            snapshot.valid_until = moments[snapshot.valid_until]
    ServiceSnapshot.objects.bulk_update(snapshots, ["valid_from", "valid_until"])
    services = list(Service.objects.filter(project=project))
    for service in services:
        service.created_at = moments[service.created_at]
    Service.objects.bulk_update(services, ["created_at"])
    Project.objects.filter(pk=project.pk).update(
        created_at=moments[ordered[0]], updated_at=moments[ordered[-1]]
    )
