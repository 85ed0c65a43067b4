from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify

from accounts.models import Organization, User
from accounts.services import member_create
from archsvc.exceptions import ApiError


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
        # as member_create finds it ("Acme" is acme)
        new_organization = not Organization.objects.filter(slug=slugify(org) or org).exists()
        try:
            membership = member_create(email=email, org_slug=org, role=role, password=password)
        except (ApiError, ValidationError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{membership.user.email} is {membership.role} of {membership.organization.slug}"
        )
        if new_organization and role != "admin":
            # a mistyped slug makes a new organization, and one with no admin: nobody can
            # invite, share or pay in it
            self.stderr.write(
                f"Note: {membership.organization.slug} is a new organization, and has no admin. "
                "If the slug is mistyped, delete it in Django admin; else give it one: "
                f"create_member EMAIL --org {membership.organization.slug} --role admin."
            )
