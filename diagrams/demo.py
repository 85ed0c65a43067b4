"""The demo architecture seeded by `manage.py seed_demo`: an online shop of 20 services."""

from accounts.actors import actor_for_membership
from accounts.models import Membership, Organization
from diagrams.models import Project
from diagrams.service_writes import service_create
from diagrams.services import project_create

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


def demo_seed(*, organization: Organization, membership: Membership) -> None:
    """Idempotent: the sample project and its services are made once, by the demo member."""
    if Project.objects.filter(organization=organization, name=DEMO_PROJECT_NAME).exists():
        return
    actor = actor_for_membership(membership)
    project = project_create(
        actor=actor,
        name=DEMO_PROJECT_NAME,
        description="An e-commerce system: orders, payments, stock, shipping and returns.",
    )
    for service in DEMO_SERVICES:
        service_create(actor=actor, project_id=project.id, data=service)
