from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import Membership, Organization, User
from accounts.services import member_create


class Command(BaseCommand):
    help = "The demo organization, demo@example.com (password: demo) and a sample project."

    @transaction.atomic
    def handle(self, *args, **options):
        user = User.objects.filter(email="demo@example.com").first()
        if user is None:
            # "demo" is shorter than the sign-up form allows; this account is for trying out.
            member_create(email="demo@example.com", org_slug="demo", role="admin", password="demo")
        else:
            member_create(email="demo@example.com", org_slug="demo", role="admin")
        organization = Organization.objects.get(slug="demo")
        if organization.name == "demo":
            organization.name = "Demo"
            organization.save(update_fields=["name"])
        from diagrams.demo import demo_seed  # diagrams imports accounts: the app above

        demo_seed(
            organization=organization,
            membership=Membership.objects.get(
                organization=organization, user__email="demo@example.com"
            ),
        )
        self.stdout.write("Demo ready: log in as demo@example.com / demo")
