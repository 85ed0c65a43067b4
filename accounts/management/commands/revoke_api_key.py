from django.core.management.base import BaseCommand, CommandError

from accounts.models import Organization
from accounts.services import api_key_revoke


class Command(BaseCommand):
    help = "Revoke an organization's API key by name; it is refused at once."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--name", required=True)

    def handle(self, *args, org, name, **options):
        organization = Organization.objects.filter(slug=org).first()
        if organization is None:
            raise CommandError(f"No organization with slug {org!r}.")
        if not api_key_revoke(organization=organization, name=name):
            raise CommandError(f"No active API key named {name!r} in {org}.")
        self.stdout.write(f"Revoked API key {name!r} of {org}.")
