from django.core.management.base import BaseCommand, CommandError

from accounts.models import Organization
from archsvc.api.errors import ApiError
from billing.models import Subscription
from billing.services import subscription_set


class Command(BaseCommand):
    help = "Write an organization's subscription as the billing provider would (CONTRACT 13)."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--plan", required=True, choices=["team", "business"])
        parser.add_argument(
            "--status", required=True, choices=[s for s, _ in Subscription.STATUSES]
        )
        parser.add_argument("--cycle", default="monthly", choices=["monthly", "annual"])

    def handle(self, *args, org, plan, status, cycle, **options):
        organization = Organization.objects.filter(slug=org).first()
        if organization is None:
            raise CommandError(f"No organization with slug {org!r}.")
        try:
            subscription = subscription_set(
                organization=organization, plan=plan, status=status, cycle=cycle
            )
        except ApiError as error:
            raise CommandError(error.message) from error
        self.stdout.write(
            f"{org}: {subscription.plan} {subscription.billing_cycle}, "
            f"{subscription.status} (customer {subscription.provider_customer_id},"
            f" subscription {subscription.provider_subscription_id})"
        )
