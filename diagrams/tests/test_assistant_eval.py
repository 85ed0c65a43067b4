"""A representative subset of the analyst's evaluation set (diagrams/assistant/evaluation.json):
the first two questions of every kind must be answered correctly, scored the same way as
bench/assistant_eval.py scores the whole set (diagrams/assistant/evaluation.py)."""

import pytest

from diagrams.assistant.evaluation import (
    evaluation_context,
    load_evaluation,
    questions_by_kind,
    representative_subset,
    run_question,
)

DATA = load_evaluation()
SUBSET = representative_subset(DATA, per_kind=2)
KINDS = {
    "producers",
    "consumers",
    "service_io",
    "impact",
    "path",
    "owner_of",
    "team_owns",
    "flow_members",
    "category_members",
    "orphans",
    "cycles",
    "busiest",
    "changes",
    "summary",
    "follow_up",
    "unknown",
    "isolation",
}


@pytest.mark.parametrize("question", SUBSET, ids=[q["id"] for q in SUBSET])
def test_analyst_answers_the_evaluation_question(question):
    result = run_question(evaluation_context(DATA), question)
    if not result.correct:
        pytest.fail(result.explain(), pytrace=False)


def test_the_set_covers_every_kind_with_several_phrasings():
    kinds = questions_by_kind(DATA)
    assert set(kinds) == KINDS
    assert all(len(questions) >= 4 for questions in kinds.values())
    assert len(DATA["questions"]) >= 60
    ids = [q["id"] for q in DATA["questions"]]
    assert len(ids) == len(set(ids))


def test_every_expected_reference_is_an_entity_of_the_demo_project():
    entities = evaluation_context(DATA).entities
    known = {i for group in entities.values() for i in group}
    for question in DATA["questions"]:
        assert set(question["expect_references"]) <= known, question["id"]
