"""AI credits: the plan's amount a month, the refill at the period boundary, spending, the
difference added on an upgrade, and parallel spends that never go below zero."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from archsvc.exceptions import InsufficientAiCredits
from billing.models import AiCredits
from billing.services import ai_credits_spend, next_month_start
from billing.tests.helpers import subscribe
from conftest import requires_postgres

CREDITS = "/v1/billing/ai-credits"


def next_month_iso() -> str:
    return next_month_start(timezone.now()).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def credits(client) -> dict:
    response = client.get(CREDITS)
    assert response.status_code == 200
    return response.json()


def balance(org) -> int:
    return AiCredits.objects.get(organization=org).remaining


def test_a_new_organization_has_the_free_plans_credits_until_next_month(api):
    now = datetime.now(UTC)
    body = credits(api)
    assert body["remaining"] == 50
    resets_at = datetime.fromisoformat(body["resetsAt"].replace("Z", "+00:00"))
    assert resets_at > now
    assert (
        resets_at.day,
        resets_at.hour,
        resets_at.minute,
        resets_at.second,
        resets_at.microsecond,
    ) == (1, 0, 0, 0, 0)
    assert body["resetsAt"] == next_month_iso()


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (datetime(2025, 1, 31, 23, 59, 59, tzinfo=UTC), datetime(2025, 2, 1, tzinfo=UTC)),
        (datetime(2025, 12, 15, 8, 0, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)),
        (datetime(2025, 3, 1, 0, 0, tzinfo=UTC), datetime(2025, 4, 1, tzinfo=UTC)),
        # 23:30 on 31 Jan in New York is already February in UTC
        (
            datetime(2025, 2, 1, 4, 30, tzinfo=UTC).astimezone(timezone.get_fixed_timezone(-300)),
            datetime(2025, 3, 1, tzinfo=UTC),
        ),
    ],
)
def test_the_reset_is_the_first_instant_of_the_next_calendar_month_utc(now, expected):
    assert next_month_start(now) == expected


def test_credits_of_a_paid_plan(api, org):
    subscribe(org, plan="business")
    assert credits(api)["remaining"] == 10000


def test_credits_belong_to_the_organization(factory, api, org):
    other = factory.org("other")
    credits(api)
    ai_credits_spend(organization=other, amount=7)
    assert credits(api)["remaining"] == 50
    assert balance(other) == 43


def test_credits_refill_to_the_plans_amount_at_the_period_boundary(api, org):
    credits(api)
    AiCredits.objects.filter(organization=org).update(
        remaining=2, resets_at=timezone.now() - timedelta(seconds=1)
    )
    body = credits(api)
    assert body["remaining"] == 50
    assert body["resetsAt"] == next_month_iso()


def test_credits_refill_to_the_paid_plans_amount(api, org):
    subscribe(org, plan="team")
    credits(api)
    AiCredits.objects.filter(organization=org).update(
        remaining=0, resets_at=datetime(2024, 1, 1, tzinfo=UTC)
    )
    assert credits(api) == {"remaining": 1000, "resetsAt": next_month_iso()}


def test_credits_do_not_refill_before_the_boundary(api, org):
    credits(api)
    later = timezone.now() + timedelta(minutes=5)
    AiCredits.objects.filter(organization=org).update(remaining=2, resets_at=later)
    assert credits(api)["remaining"] == 2


def test_a_spend_after_the_boundary_refills_first(org):
    ai_credits_spend(organization=org)
    AiCredits.objects.filter(organization=org).update(
        remaining=0, resets_at=timezone.now() - timedelta(days=3)
    )
    assert ai_credits_spend(organization=org) == 49


def test_spending_decrements_the_balance(api, org):
    assert ai_credits_spend(organization=org) == 49
    assert ai_credits_spend(organization=org, amount=9) == 40
    assert credits(api)["remaining"] == 40


def test_spending_the_last_credit_then_one_more_is_refused_with_nothing_spent(api, org):
    ai_credits_spend(organization=org)
    AiCredits.objects.filter(organization=org).update(remaining=1)
    assert ai_credits_spend(organization=org) == 0
    with pytest.raises(InsufficientAiCredits) as refused:
        ai_credits_spend(organization=org)
    assert refused.value.status == 402
    assert refused.value.code == "insufficient_ai_credits"
    assert credits(api)["remaining"] == 0


@pytest.mark.parametrize("plan, bigger", [(None, True), ("team", True), ("business", False)])
def test_out_of_credits_points_to_a_bigger_plan_only_where_there_is_one(org, plan, bigger):
    if plan:
        subscribe(org, plan=plan)
    AiCredits.objects.filter(organization=org).update(remaining=0)
    ai_credits_spend(organization=org, amount=0)  # the row, as the plan made it
    AiCredits.objects.filter(organization=org).update(remaining=0)
    with pytest.raises(InsufficientAiCredits) as refused:
        ai_credits_spend(organization=org)
    assert ("a bigger plan has more" in refused.value.details) is bigger


def test_spending_more_than_is_left_spends_nothing(org):
    ai_credits_spend(organization=org)
    AiCredits.objects.filter(organization=org).update(remaining=3)
    with pytest.raises(InsufficientAiCredits):
        ai_credits_spend(organization=org, amount=4)
    assert balance(org) == 3


def test_an_upgrade_from_free_to_team_adds_the_difference(api, org):
    assert credits(api)["remaining"] == 50
    subscribe(org, plan="team")
    assert credits(api)["remaining"] == 1000


def test_an_upgrade_keeps_what_was_spent(api, org):
    ai_credits_spend(organization=org, amount=10)
    subscribe(org, plan="team")
    assert credits(api)["remaining"] == 990
    subscribe(org, plan="business")
    assert credits(api)["remaining"] == 9990


def test_a_downgrade_keeps_the_balance_until_the_next_refill(api, org):
    subscribe(org, plan="business")
    assert credits(api)["remaining"] == 10000
    subscribe(org, plan="team")
    assert credits(api)["remaining"] == 10000
    subscribe(org, plan="team", status="canceled")
    assert credits(api)["remaining"] == 10000
    AiCredits.objects.filter(organization=org).update(
        resets_at=timezone.now() - timedelta(seconds=1)
    )
    assert credits(api)["remaining"] == 50


def test_pausing_and_resuming_does_not_mint_credits(api, org):
    """A resume counted as an upgrade from free: what had been spent came back (995 ->
    1,000; on business, 9,999 credits a pause and a resume)."""
    subscribe(org, plan="team", status="active")
    assert credits(api)["remaining"] == 1000
    ai_credits_spend(organization=org, amount=5)
    for _ in range(3):
        subscribe(org, plan="team", status="paused")
        assert credits(api)["remaining"] == 995
        subscribe(org, plan="team", status="active")
        assert credits(api)["remaining"] == 995


def test_subscribing_again_keeps_a_balance_carried_over_from_a_bigger_plan(api, org):
    """Subscribing to team after a canceled business subscription cut the 10,000 credits
    carried over to team's 1,000: paying for a plan took 9,000 away."""
    subscribe(org, plan="business")
    ai_credits_spend(organization=org, amount=1)
    subscribe(org, plan="business", status="canceled")
    assert credits(api)["remaining"] == 9999
    subscribe(org, plan="team", status="active")
    assert credits(api)["remaining"] == 9999
    subscribe(org, plan="business", status="active")  # given this month already
    assert credits(api)["remaining"] == 9999
    # the next month gives the plan in force's amount, and an upgrade then the difference
    AiCredits.objects.filter(organization=org).update(
        resets_at=timezone.now() - timedelta(seconds=1)
    )
    subscribe(org, plan="team", status="active")
    assert credits(api)["remaining"] == 1000
    subscribe(org, plan="business", status="active")
    assert credits(api)["remaining"] == 10000


# --- parallel spends (PostgreSQL) ---------------------------------------------------------------


def _spend_in_parallel(org, threads: int) -> list:
    barrier = threading.Barrier(threads)

    def spend(_):
        try:
            barrier.wait(timeout=10)
            try:
                return ai_credits_spend(organization=org)
            except InsufficientAiCredits as refused:
                return refused
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(spend, range(threads)))


@requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("threads", "left"), [(12, 5), (4, 6)])
def test_parallel_spends_take_exactly_what_is_left(factory, threads, left):
    org = factory.org("spenders")
    ai_credits_spend(organization=org)
    AiCredits.objects.filter(organization=org).update(remaining=left)
    results = _spend_in_parallel(org, threads)
    spent = [r for r in results if isinstance(r, int)]
    refused = [r for r in results if isinstance(r, InsufficientAiCredits)]
    assert len(spent) == min(threads, left)
    assert len(refused) == threads - len(spent)
    assert all(value >= 0 for value in spent)
    assert balance(org) == left - len(spent)
    assert balance(org) >= 0


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_spends_at_the_period_boundary_refill_once(factory):
    org = factory.org("boundary")
    ai_credits_spend(organization=org)
    AiCredits.objects.filter(organization=org).update(
        remaining=0, resets_at=timezone.now() - timedelta(seconds=1)
    )
    results = _spend_in_parallel(org, 12)
    assert all(isinstance(r, int) for r in results), results
    assert balance(org) == 50 - 12


@pytest.mark.django_db(transaction=True)
def test_the_migration_remembers_what_this_month_gave_each_organization():
    """billing.0002: a row's `granted` is the plan's amount (a paused subscription's plan
    too: its resume must not give again), or the balance where that is more (carried over
    from a bigger plan). With 0, the first plan change would have given a whole month."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = ("billing", "0001_initial"), ("billing", "0002_ai_credits_granted")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    organization = old.get_model("accounts", "Organization")
    credits = old.get_model("billing", "AiCredits")
    subscription = old.get_model("billing", "Subscription")
    resets = next_month_start(timezone.now())
    rows = {"free": (30, None), "team": (995, "active"), "paused": (400, "paused")}
    rows["carried"] = (9000, "canceled")
    for slug, (remaining, status) in rows.items():
        org = organization.objects.create(slug=slug, name=slug)
        credits.objects.create(organization=org, remaining=remaining, resets_at=resets)
        if status:
            subscription.objects.create(
                organization=org, plan="team", status=status, billing_cycle="monthly"
            )
    executor = MigrationExecutor(connection)
    executor.migrate([after])
    executor.loader.build_graph()
    granted = dict(AiCredits.objects.values_list("organization__slug", "granted"))
    assert granted == {"free": 50, "team": 1000, "paused": 1000, "carried": 9000}
