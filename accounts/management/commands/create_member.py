from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.services import member_create
from archsvc.api.errors import ApiError


class Command(BaseCommand):
    help = "Make the organization and the user when missing, and the membership."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--role", choices=["admin", "member"], default="member")
        parser.add_argument("--password", default=None)

    def handle(self, *args, email, org, role, password, **options):
        try:
            membership = member_create(email=email, org_slug=org, role=role, password=password)
        except (ApiError, ValidationError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{membership.user.email} is {membership.role} of {membership.organization.slug}"
        )
