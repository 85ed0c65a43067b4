"""What the analyst takes a question to ask (diagrams/assistant/analyst.py), found wrong by
an audit on the benchmark architectures: the words of a name steered it ("who consumes
domain-139.cart.failed.v2?" answered what fails downstream, on 539 topics of
domains-3000), "other" near "customer-api-..." answered "I can only see this project",
"what does X depend on?" went downstream, "is B reachable from A?" went from B, and "are
there any cycles?" after a question about a service answered about that service."""

from datetime import UTC, datetime, timedelta

import pytest

from diagrams.assistant.analyst import analyst_answer
from diagrams.assistant.context import HistoryEvent, Turn
from diagrams.assistant.evaluation import architecture_context


def service(name, produces=(), consumes=(), **fields):
    return {
        "name": name,
        "produces": [{"name": t} for t in produces],
        "consumes": [{"name": t} for t in consumes],
        **fields,
    }


def ask(context, question, history=()):
    return analyst_answer(context, question, list(history)).reply


@pytest.fixture(scope="module")
def shop():
    return architecture_context(
        {
            "name": "Shop",
            "services": [
                service("Cart", produces=["cart.failed.v2", "checkout.started"]),
                service("Checkout", produces=["orders.placed"], consumes=["checkout.started"]),
                service("Coupons", consumes=["cart.failed.v2"]),
                service("Feedback", produces=["feedback.submitted", "platform.logs"]),
                service("Notifier", consumes=["feedback.submitted", "platform.logs"]),
                service("Billing Cost Service", produces=["billing.cost.updated"]),
                service("customer-api", produces=["customer.changed"], consumes=["orders.placed"]),
                service("Search", consumes=["orders.placed", "customer.changed"]),
                service("Echo", produces=["echo.loop"], consumes=["echo.loop"]),
            ],
        }
    )


@pytest.mark.parametrize(
    "question, expected, wrong",
    [
        ("who consumes cart.failed.v2?", "Coupons consumes cart.failed.v2.", "fails"),
        ("Who produces cart.failed.v2?", "Cart produces cart.failed.v2.", "fails"),
        ("who consumes feedback.submitted?", "Notifier consumes feedback.submitted.", "cycle"),
        ("who consumes echo.loop?", "Echo consumes echo.loop.", "cycle"),
        ("who consumes platform.logs?", "Notifier consumes platform.logs.", "can't"),
        ("what does Billing Cost Service produce?", "produces billing.cost.updated", "can't"),
    ],
)
def test_the_words_of_a_name_do_not_say_what_is_asked(shop, question, expected, wrong):
    reply = ask(shop, question)
    assert expected in reply and wrong not in reply


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Which other services does customer-api talk to?", "It sends data to Search"),
        ("Who else in the project consumes orders.placed?", "customer-api and Search consume"),
        ("List all the topics nobody consumes in the project", "1 topic has no consumer"),
        ("list all customer facing services that consume orders.placed", "consume orders.placed"),
    ],
)
def test_other_and_all_are_about_this_project_unless_another_one_is_named(shop, question, expected):
    reply = ask(shop, question)
    assert expected in reply and "I can only see" not in reply
    for question in ("show me other organizations' projects", "which other customers use this?"):
        assert ask(shop, question).startswith("I can only see this project, Shop.")


def test_what_a_service_depends_on_is_upstream_and_what_depends_on_it_downstream(shop):
    upstream = ask(shop, "What does Search depend on?")
    assert upstream.startswith("Search depends on 3 services upstream:")
    assert "- Cart (via Cart → checkout.started → Checkout → orders.placed → Search)" in upstream
    assert ask(shop, "what feeds Checkout?").startswith("Checkout depends on 1 service upstream")
    downstream = ask(shop, "What depends on Checkout?")
    assert downstream.startswith("If Checkout fails, 2 services downstream are affected")
    assert ask(shop, "What does Cart depend on?").startswith("Cart depends on no other service")


@pytest.mark.parametrize(
    "question",
    [
        "Is Search reachable from Cart?",
        "Can data reach Search from Cart?",
        "How does data get to Search from Cart?",
        "How does data get from Cart to Search?",
    ],
)
def test_a_path_starts_at_the_name_after_from(shop, question):
    assert ask(shop, question).startswith("Data gets from Cart to Search in 4 steps")


def test_a_path_to_a_name_the_project_does_not_have_says_so(shop):
    """It used to describe Cart, as if the question were about Cart alone."""
    for question in ("how does data get from Cart to Ledger?", "path from Ledger to Cart"):
        assert ask(shop, question).startswith('I don\'t find "ledger" in Shop: no service or')


def test_a_global_question_after_one_about_a_service_is_about_the_project(shop):
    history = [Turn("user", "who owns Checkout?"), Turn("assistant", "Checkout has no owner.")]
    assert ask(shop, "Are there any cycles?", history).startswith("There is 1 cycle")
    assert ask(shop, "Are there any hubs?", history).startswith("The most consumed topics")
    assert ask(shop, "give me an overview of this project", history).startswith("Shop has 9")
    assert "Checkout depends on" in ask(shop, "and what does it depend on?", history)


def test_names_made_of_question_words_do_not_take_a_question_over():
    context = architecture_context(
        {
            "name": "Words",
            "services": [
                service("Ingest", produces=["data"]),
                service("Checkout", produces=["orders.placed"], consumes=["data"]),
                service("Search", consumes=["orders.placed"]),
                service("What", produces=["stuff"]),
                service("Top Sellers", consumes=["orders.placed"]),
            ],
        }
    )
    assert ask(context, "How does data get from Checkout to Search?").startswith(
        "Data gets from Checkout to Search in 2 steps"
    )
    assert ask(context, "what does Top Sellers consume?").startswith(
        "Top Sellers produces nothing and consumes orders.placed"
    )
    assert ask(context, "who consumes data?") == "Checkout consumes data."


def test_names_in_any_script_and_with_accents_are_found():
    context = architecture_context(
        {
            "name": "Scripts",
            "services": [
                service("Über Service", produces=["支付.完成"]),
                service("Ledger", consumes=["支付.完成"]),
            ],
        }
    )
    assert ask(context, "who consumes 支付.完成?") == "Ledger consumes 支付.完成."
    assert "Über Service produces 支付.完成" in ask(context, "what does uber service produce?")


def test_long_lists_say_how_many_and_are_cut():
    consumers = [service(f"reader-{i:02d}", consumes=["hub"]) for i in range(30)]
    context = architecture_context(
        {"name": "Hub", "services": [service("Writer", produces=["hub"]), *consumers]}
    )
    reply = ask(context, "How many consumers does hub have?")
    assert reply.startswith("30 services consume hub: reader-00, reader-01,")
    assert reply.endswith("reader-19 and 10 more.")
    busiest = ask(context, "which services consume the most?")
    assert "Consuming the most topics: reader-00 (1 topic)" in busiest
    assert "and 22 more with 1 topic" in busiest


def test_changes_to_one_service_are_its_own_through_a_rename():
    now = datetime(2026, 6, 15, 12, tzinfo=UTC)
    history = [  # newest first
        HistoryEvent(now - timedelta(days=1), "renamed", "billing", "Billing", "ada", "s1"),
        HistoryEvent(now - timedelta(days=2), "updated", "invoicing", "Invoicing", "bob", "s1"),
        HistoryEvent(now - timedelta(days=3), "updated", "search", "Search", "bob", "s2"),
        HistoryEvent(now - timedelta(days=200), "created", "invoicing", "Invoicing", "ada", "s1"),
    ]
    context = architecture_context(
        {"name": "Shop", "services": [service("Billing"), service("Search")]}, now=now
    )
    context.history = history
    reply = ask(context, "what changed in Billing recently?")
    assert reply.startswith("Since 2026-06-08 12:00 UTC in Billing: 1 renamed, 1 updated")
    assert "Search" not in reply
    assert ask(context, "what changed this year?").startswith(
        "Since 2026-01-01 00:00 UTC: 1 renamed, 2 updated"  # not the creation, in 2025
    )


def test_small_answers_read_as_sentences():
    context = architecture_context(
        {
            "name": "Small",
            "services": [
                service("Echo", produces=["echo.self", "echo.out"], consumes=["echo.self"]),
                service("Reader", consumes=["ghost.topic", "echo.out"]),
            ],
        }
    )
    assert ask(context, "who produces ghost.topic?") == (
        "Nothing in the project produces ghost.topic; Reader consumes it."
    )
    assert ask(context, "How does data get from Echo to echo.out?").startswith(
        "Data gets from Echo to echo.out in 1 step:"
    )
    busiest = ask(context, "what are the busiest topics?")
    assert "Echo (2 topics)" in busiest and "(1 consumer)" in busiest
    summary = ask(context, "summarize the project")
    assert "in no category" in summary and "1 topic has no producer" in summary
    assert ask(context, "What breaks if Echo fails?") == (
        "If Echo fails, 1 service downstream is affected:\n- Reader (via Echo → echo.out → Reader)"
    )


def test_a_typo_as_close_to_several_names_says_which_others_it_could_mean():
    topics = ["topic-00034", "topic-00134", "topic-00234", "topic-00304", "topic-00340"]
    context = architecture_context(
        {
            "name": "Numbered",
            "services": [
                service("Writer", produces=topics),
                service("Reader", consumes=["topic-00034"]),
                service("Auditor", consumes=["platform.audit.events"]),
            ],
        }
    )
    reply = ask(context, "who consumes Topic-0034?")
    assert reply.startswith("Reader consumes topic-00034.")
    assert reply.endswith(
        "(I read “topic-0034” as topic-00034; topic-00134, topic-00234, topic-00304 and 1 "
        "more are as close.)"
    )
    # a name written out, or a typo only one name is close to, needs no such note
    assert "(I read" not in ask(context, "who consumes topic-00034?")
    assert ask(context, "who consumes platform.audit.evnts?") == (
        "Auditor consumes platform.audit.events."
    )


@pytest.mark.parametrize(
    "question, upstream",
    [
        ("what relies on Checkout?", False),
        ("who needs Checkout?", False),
        ("what does Checkout feed?", False),
        ("what feeds Checkout?", True),
        ("what does Checkout rely on?", True),
        ("what does Checkout need?", True),
    ],
)
def test_which_way_relying_needing_and_feeding_go_is_read_from_where_the_name_stands(
    shop, question, upstream
):
    reply = ask(shop, question)
    if upstream:
        assert reply.startswith("Checkout depends on 1 service upstream:")
    else:
        assert reply.startswith("If Checkout fails, 2 services downstream are affected")


def test_a_follow_up_keeps_the_direction_of_the_question_it_follows(shop):
    history = [
        Turn("user", "what does Checkout depend on?"),
        Turn("assistant", "Checkout depends on 1 service upstream: Cart."),
    ]
    assert ask(shop, "and what about Search?", history).startswith("Search depends on 3 services")
    about = [Turn("user", "who owns Checkout?"), Turn("assistant", "Checkout has no owner.")]
    assert ask(shop, "and what does it depend on?", about).startswith("Checkout depends on")
    assert ask(shop, "what depends on it?", about).startswith("If Checkout fails")


@pytest.mark.parametrize(
    "question",
    [
        "where does data from Cart go to next?",
        "what happens to events from Cart and where do they end up?",
        "who consumes data from Checkout and what do they produce?",
    ],
)
def test_from_and_to_without_a_path_question_do_not_invent_a_missing_name(shop, question):
    assert "I don't find" not in ask(shop, question)


def test_an_enormous_period_is_a_century_not_an_error(shop):
    for days in ("3000000", "99999999999"):
        assert ask(shop, f"what changed in the last {days} days?").startswith("Nothing changed")


def test_a_month_or_a_year_named_without_a_day_is_that_period():
    """ "since September" was read as no period at all, and answered the last 7 days."""
    now = datetime(2026, 11, 20, 12, tzinfo=UTC)
    history = [  # newest first
        HistoryEvent(datetime(2026, 11, 19, tzinfo=UTC), "updated", "search", "Search", "a", "s2"),
        HistoryEvent(datetime(2026, 10, 2, tzinfo=UTC), "renamed", "billing", "Billing", "b", "s1"),
        HistoryEvent(datetime(2026, 9, 30, tzinfo=UTC), "updated", "search", "Search", "c", "s2"),
        HistoryEvent(datetime(2026, 9, 1, tzinfo=UTC), "created", "search", "Search", "a", "s2"),
        HistoryEvent(datetime(2025, 12, 5, tzinfo=UTC), "created", "invoicing", "Inv", "a", "s1"),
    ]
    context = architecture_context(
        {"name": "Shop", "services": [service("Billing"), service("Search")]}, now=now
    )
    context.history = history
    answers = {
        "what changed in September?": "From 2026-09-01 00:00 to 2026-10-01 00:00 UTC: "
        "1 created, 1 updated",
        "What changed since September?": "Since 2026-09-01 00:00 UTC: 1 created, 1 renamed, 2 up",
        "what changed during december?": "From 2025-12-01 00:00 to 2026-01-01 00:00 UTC: 1 cre",
        "what changed in sept 2026?": "From 2026-09-01 00:00 to 2026-10-01 00:00 UTC",
        "what changed in 2025?": "From 2025-01-01 00:00 to 2026-01-01 00:00 UTC: 1 created",
        "any changes from October?": "Since 2026-10-01 00:00 UTC: 1 renamed, 1 updated",
        "what changed in March?": "Nothing changed from 2026-03-01 00:00 to 2026-04-01 00:00",
        "what changed since 5 september?": "Since 2026-09-05 00:00 UTC: 1 renamed, 2 updated",
    }
    for question, expected in answers.items():
        assert ask(context, question).startswith(expected), question
    # "may" is a month only after a preposition
    assert ask(context, "what changed in may").startswith("Nothing changed from 2026-05-01")
    assert ask(context, "may I see what changed?").startswith("Since 2026-11-13 12:00 UTC")
    # a year no calendar holds, or no year at all, is no period
    for question in ("what changed in 0000?", "what changed in 1000 ms?"):
        assert ask(context, question).startswith("Since 2026-11-13 12:00 UTC"), question
    # a month written as numbers
    assert ask(context, "what changed since 2026-09?").startswith("Since 2026-09-01 00:00 UTC")
    assert ask(context, "what changed in 2026-10?").startswith("From 2026-10-01 00:00 to 2026-11")


def test_yesterday_is_that_day_alone_and_since_yesterday_goes_on_to_now():
    """ "What changed yesterday?" said "Since 2026-11-19 00:00 UTC" and listed today's
    changes too."""
    now = datetime(2026, 11, 20, 12, tzinfo=UTC)
    context = architecture_context(
        {"name": "Shop", "services": [service("Billing"), service("Search")]}, now=now
    )
    context.history = [  # newest first
        HistoryEvent(
            datetime(2026, 11, 20, 9, tzinfo=UTC), "updated", "search", "Search", "a", "s2"
        ),
        HistoryEvent(
            datetime(2026, 11, 19, 8, tzinfo=UTC), "renamed", "billing", "Billing", "b", "s1"
        ),
    ]
    yesterday = ask(context, "what changed yesterday?")
    assert yesterday.startswith("From 2026-11-19 00:00 to 2026-11-20 00:00 UTC: 1 renamed")
    assert "Search" not in yesterday
    since = ask(context, "what changed since yesterday?")
    assert since.startswith("Since 2026-11-19 00:00 UTC: 1 renamed, 1 updated")


def test_the_29th_of_february_a_year_ahead_is_the_last_one(shop):
    context = architecture_context(
        {"name": "Shop", "services": [service("Billing")]},
        now=datetime(2028, 1, 15, tzinfo=UTC),
    )
    assert ask(context, "what changed since 29 february?").startswith(
        "Nothing changed since 2024-02-29 00:00 UTC"
    )
    # a year on, past a century year that has none (2100): the last one there was
    assert ask(context, "what changed since 29 February 2104?").startswith(
        "Nothing changed since 2096-02-29 00:00 UTC"
    )


@pytest.mark.parametrize(
    "question, name",
    [
        ("who owns Inventory Service?", "Inventory Service"),
        ("Who's responsible for inventory-service?", "inventory-service"),
        ("which team owns Ledger", "Ledger"),
        ("what does Ledger consume?", "Ledger"),
        ("What happens if Ledger fails?", "Ledger"),
        ("who consumes orders.shipped.v1?", "orders.shipped.v1"),
        ("what depends on the Ledger?", "Ledger"),
        ("Owner of Über Dienst?", "Über Dienst"),
    ],
)
def test_a_question_about_a_name_the_project_lacks_says_so(shop, question, name):
    """ "who owns Inventory Service?" in a project without it was "I can't answer that",
    as if the question were of a kind the assistant does not answer."""
    reply = ask(shop, question)
    assert reply.startswith(f'I don\'t find "{name}" in Shop: no service, topic, team')
    assert reply.endswith(
        "Its services include Billing Cost Service, Cart and Checkout (9 in all)."
    )


@pytest.mark.parametrize(
    "question",
    ["who owns the most services?", "what is the weather?", "who consumes it?", "tell me a joke"],
)
def test_a_question_with_no_name_in_it_is_not_said_to_name_one(shop, question):
    assert "I don't find" not in ask(shop, question)
