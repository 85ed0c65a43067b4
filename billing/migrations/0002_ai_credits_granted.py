from django.conf import settings
from django.db import migrations, models

# billing.selectors' paid statuses, and "paused": a paused subscription's plan is the one
# its resume brings back, and what its month gave (a resume must not give it again)
STATUSES = {"trialing", "active", "past_due", "paused"}


def granted_so_far(apps, schema_editor):
    """What this month has given, for the rows there are: the plan in force's amount, or the
    balance where it is more (carried over from a bigger plan), so that no later plan change
    gives again what was given."""
    AiCredits = apps.get_model("billing", "AiCredits")
    Subscription = apps.get_model("billing", "Subscription")
    plans = {
        subscription.organization_id: subscription.plan
        for subscription in Subscription.objects.filter(status__in=STATUSES)
    }
    for row in AiCredits.objects.all():
        plan = settings.PLANS.get(plans.get(row.organization_id, "free")) or settings.PLANS["free"]
        amount = plan["ai_credits"]
        row.granted = max(amount, row.remaining)
        row.save(update_fields=["granted"])


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="aicredits",
            name="granted",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.RunPython(granted_so_far, migrations.RunPython.noop),
    ]
