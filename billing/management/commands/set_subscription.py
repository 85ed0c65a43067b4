import logging

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Organization
from archsvc.exceptions import ApiError
from billing.models import Subscription
from billing.services import subscription_set

logger = logging.getLogger("archsvc.billing")


class Command(BaseCommand):
    help = "Write an organization's subscription as the billing provider would."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--plan", required=True, choices=["team", "business"])
        parser.add_argument(
            "--status", required=True, choices=[s for s, _ in Subscription.STATUSES]
        )
        parser.add_argument("--cycle", default="monthly", choices=["monthly", "annual"])
        parser.add_argument(
            "--force",
            action="store_true",
            help="write over a subscription the payment provider keeps (Paddle's): its next "
            "event puts its own state back",
        )

    def handle(self, *args, org, plan, status, cycle, force=False, **options):
        organization = Organization.objects.filter(slug=org).first()
        if organization is None:
            raise CommandError(f"No organization with slug {org!r}.")
        current = Subscription.objects.filter(organization=organization).first()
        # a provider's canceled subscription is over: a plan given by hand now is the local
        # provider's, with ids of its own (the portal and the cycle switch had called Paddle
        # about the dead one)
        given = {}
        if current is not None and current.provider != "local" and current.status == "canceled":
            given = {
                "provider": "local",
                "customer_id": f"ctm_local_{organization.slug}",
                "subscription_id": f"sub_local_{organization.slug}",
            }
        elif current is not None and current.provider != "local" and not force:
            # the provider still bills what it has, and its next event writes it back
            raise CommandError(
                f"{org}'s subscription is {current.provider.title()}'s "
                f"({current.provider_subscription_id}: {current.plan}, {current.status}): "
                "change it there, where the customer pays; its next event would put this "
                "back. --force writes it here anyway."
            )
        try:
            subscription = subscription_set(
                organization=organization, plan=plan, status=status, cycle=cycle, **given
            )
        except ApiError as error:
            raise CommandError(error.message) from error
        # the admin's history of a subscription is empty (it is the provider's to write):
        # the log says who gave an organization which plan, and when
        logger.info(
            "set_subscription: %s now %s %s %s (was %s)",
            org,
            subscription.plan,
            subscription.billing_cycle,
            subscription.status,
            f"{current.plan} {current.billing_cycle} {current.status}" if current else "none",
        )
        self.stdout.write(
            f"{org}: {subscription.plan} {subscription.billing_cycle}, "
            f"{subscription.status} (customer {subscription.provider_customer_id},"
            f" subscription {subscription.provider_subscription_id})"
        )
