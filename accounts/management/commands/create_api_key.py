from django.core.management.base import BaseCommand, CommandError

from accounts.models import ApiKey, Organization
from accounts.services import api_key_create
from archsvc.exceptions import ApiError


class Command(BaseCommand):
    help = "Create an API key; the key itself is printed alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--name", required=True)
        parser.add_argument("--permission", action="append", default=[], choices=ApiKey.PERMISSIONS)
        parser.add_argument("--expires-in-days", type=int, default=None)

    def handle(self, *args, org, name, permission, expires_in_days, **options):
        organization = Organization.objects.filter(slug=org).first()
        if organization is None:
            raise CommandError(f"No organization with slug {org!r}.")
        try:
            key, token = api_key_create(
                organization=organization,
                name=name,
                permissions=permission,
                expires_in_days=expires_in_days,
            )
        except ApiError as exc:
            raise CommandError(exc.message) from exc
        perms = ", ".join(key.permissions) or "no extra permissions"
        expiry = key.expires_at.isoformat() if key.expires_at else "never"
        self.stderr.write(
            f"API key {key.name!r} for {organization.slug} ({perms}; "
            f"expires {expiry}). It is shown only now:"
        )
        self.stdout.write(token)
