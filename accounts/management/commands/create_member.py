from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
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
        if password is not None:
            # the rules a person's own password is held to (sign-up, invitations, changes)
            try:
                validate_password(password, user=User(email=email.strip().lower()))
            except ValidationError as exc:
                raise CommandError(f"--password: {' '.join(exc.messages)}") from None
        try:
            membership = member_create(email=email, org_slug=org, role=role, password=password)
        except (ApiError, ValidationError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{membership.user.email} is {membership.role} of {membership.organization.slug}"
        )
