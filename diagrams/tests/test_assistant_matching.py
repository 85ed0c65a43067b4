"""Finding the entities a question names (diagrams/assistant/matching.py): the same matches
as comparing every name with every window of the question, at a cost bounded whatever the
message (a security review timed 27 s of CPU for "svc-00001 " x 400 on 1,000 services).
Bounds are asserted on the work done (difflib comparisons, windows), never on time."""

import random
from difflib import SequenceMatcher

import pytest

from diagrams.assistant import matching
from diagrams.assistant.analyst import analyst_answer
from diagrams.assistant.context import Turn
from diagrams.assistant.evaluation import (
    architecture_context,
    evaluation_context,
    load_evaluation,
    question_turns,
)
from diagrams.assistant.matching import (
    MAX_COMPARISONS,
    MAX_EXACT_CANDIDATES,
    MAX_EXACT_WORDS,
    MAX_FILTER_STEPS,
    MAX_FUZZY_CANDIDATES,
    MAX_FUZZY_PLACES,
    MAX_FUZZY_WINDOWS,
    MatchWork,
    Mention,
    find_mentions,
    words,
)

NOUNS = ["ticket", "order", "cart", "stock", "price", "refund", "review", "device", "account"]
ROLES = ["api", "worker", "processor", "service"]
VERBS = ["placed", "settled", "failed", "approved", "cancelled", "shipped"]


def generated_architecture(services: int = 1000, seed: int = 7) -> dict:
    """ServiceCreate bodies like ../shared/bench/architectures' random-1000 and domains-1000
    mixed: half "svc-00042" producing and consuming "topic-00420"s, half "cart-api-0043" in
    a domain (category, team, flow) producing "domain-003.cart.placed.v2"s."""
    rng = random.Random(seed)
    topics = [f"topic-{i:05d}" for i in range(services)]
    domains = max(1, services // 25)
    bodies, domain_topics = [], []
    for i in range(services):
        if i % 2 == 0:
            body = {
                "name": f"svc-{i:05d}",
                "produces": [{"name": t} for t in rng.sample(topics, rng.randint(1, 3))],
                "consumes": [{"name": t} for t in rng.sample(topics, rng.randint(1, 3))],
            }
        else:
            domain = f"domain-{i % domains:03d}"
            produced = f"{domain}.{rng.choice(NOUNS)}.{rng.choice(VERBS)}.v{rng.randint(1, 3)}"
            body = {
                "name": f"{rng.choice(NOUNS)}-{rng.choice(ROLES)}-{i:04d}",
                "category": domain,
                "owner": f"team-{i % domains:03d}",
                "flows": [f"flow-{domain}"],
                "produces": [{"name": produced}],
                "consumes": [{"name": t} for t in rng.sample(domain_topics or topics, 1)],
            }
            domain_topics.append(produced)
        bodies.append(body)
    return {"name": f"generated {services}", "services": bodies}


@pytest.fixture(scope="module")
def large():
    return architecture_context(generated_architecture(1000))


HOSTILE = [
    "repeated name, 4,000 chars",
    "repeated name, 1,000 chars",
    "repeated words",
    "every name",
    "every name with a typo",
    "distinct near-misses",
    "one long word",
]


def hostile_messages(context) -> dict[str, str]:
    """Messages up to 4,000 characters built to make matching expensive (HOSTILE)."""
    names = [e["name"] for group in context.entities.values() for e in group.values()]
    typos = " ".join(n[:-2] + n[-1] for n in names if len(n) > 5)
    return {
        "repeated name, 4,000 chars": ("svc-00001 " * 400)[:4000],
        "repeated name, 1,000 chars": "svc-00001 " * 100,
        "repeated words": "what changed " * 300,
        "every name": " ".join(names)[:4000],
        "every name with a typo": typos[:4000],
        "distinct near-misses": " ".join(f"svc-{i:04d}" for i in range(400))[:4000],
        "one long word": "x" * 4000,
    }


class CountingMatcher(SequenceMatcher):
    made = 0

    def __init__(self, *args, **kwargs):
        CountingMatcher.made += 1
        super().__init__(*args, **kwargs)


@pytest.fixture
def comparisons(monkeypatch):
    """How many difflib comparisons matching made (every one, not what it reports)."""
    monkeypatch.setattr(matching, "SequenceMatcher", CountingMatcher)
    CountingMatcher.made = 0
    return lambda: CountingMatcher.made


def exhaustive_mentions(context, text: str) -> list[Mention]:
    """The matching the index replaced: every name against every window of its word count
    +- 1, exactly or by difflib ratio, then the same ranking and choice."""
    tokens = words(text)
    catalog = []
    for group, kind in matching.KINDS.items():
        for entity_id, entity in context.entities[group].items():
            for name in [entity["name"], entity.get("slug") if kind == "service" else None]:
                if name and words(name):
                    catalog.append((" ".join(words(name)), entity_id, kind, entity["name"]))
    candidates = []
    for target, entity_id, kind, display in catalog:
        size = target.count(" ") + 1
        for span in {size, size - 1, size + 1} - {0}:
            for start in range(0, max(0, len(tokens) - span + 1)):
                window = " ".join(tokens[start : start + span])
                if window == target:
                    score = 1.0
                elif len(target) >= 5 and abs(len(window) - len(target)) <= 3:
                    score = SequenceMatcher(None, window, target).ratio()
                    if score < 0.86:
                        continue
                else:
                    continue
                candidates.append(Mention(entity_id, kind, display, start, span, score))
    present = set(tokens)
    anywhere = {kind for kind, hints in matching.HINTS.items() if present & hints}
    candidates.sort(
        key=lambda m: (
            -m.score,
            -m.length,
            -matching._hint(tokens, m.start, m.length, m.kind, anywhere),
            matching.DEFAULT_RANK[m.kind],
            m.start,
            m.entity_id,
        )
    )
    taken, seen, chosen = set(), set(), []
    for m in candidates:
        cells = set(range(m.start, m.start + m.length))
        if cells & taken or m.entity_id in seen:
            continue
        taken |= cells
        seen.add(m.entity_id)
        chosen.append(m)
    return sorted(chosen, key=lambda m: m.start)


def typo(rng: random.Random, name: str) -> str:
    chars = list(name)
    at = rng.randrange(len(chars))
    action = rng.choice(["drop", "add", "change", "case"])
    if action == "drop" and len(chars) > 1:
        del chars[at]
    elif action == "add":
        chars.insert(at, rng.choice("abcdefghijklmnopqrstuvwxyz0123456789.-"))
    elif action == "change":
        chars[at] = rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
    else:
        chars = [c.upper() if rng.random() < 0.5 else c for c in chars]
    return "".join(chars)


def questions(context, count: int, seed: int) -> list[str]:
    """Questions of up to 15 words naming entities, often with a typo."""
    rng = random.Random(seed)
    names = [e["name"] for group in context.entities.values() for e in group.values()]
    filler = (
        "who what does the a flow team topic service consumes produces if fails and from "
        "to path between owns in category events queue app domain squad it"
    ).split()
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 15)):
            roll, name = rng.random(), rng.choice(names)
            if roll < 0.3:
                parts.append(name)
            elif roll < 0.55:
                parts.append(typo(rng, name))
            else:
                parts.append(rng.choice(filler))
        out.append(" ".join(parts))
    return out


def test_the_evaluation_questions_match_as_an_exhaustive_search_does():
    data = load_evaluation()
    context = evaluation_context(data)
    texts = [q["question"] for q in data["questions"]]
    texts += [t.content for q in data["questions"] for t in question_turns(q)]
    for text in texts:
        assert find_mentions(context, text) == exhaustive_mentions(context, text), text


@pytest.mark.parametrize("services", [20, 100])
def test_questions_with_typos_match_as_an_exhaustive_search_does(services):
    if services == 20:
        context = evaluation_context(load_evaluation())
    else:
        context = architecture_context(generated_architecture(services, seed=services))
    for text in questions(context, 50 if services > 20 else 150, seed=services):
        work = MatchWork()
        assert find_mentions(context, text, work) == exhaustive_mentions(context, text), text
        assert not work.capped, text


def test_the_prefilter_never_drops_a_fuzzy_match():
    """A name the character (pair) counts rule out never reaches 0.86 with difflib."""
    rng = random.Random(3)
    alphabet = "abcdeo0123 "
    names = {
        "".join(rng.choice(alphabet) for _ in range(rng.randint(5, 14))).strip() or "abcde"
        for _ in range(400)
    }
    entities = {group: {} for group in matching.KINDS}
    for i, name in enumerate(sorted(names)):
        entities["topics"][f"messaging--t{i}"] = {"name": name}
    index = matching.NameIndex(entities)
    matched = 0
    for _ in range(300):
        window = " ".join(words(typo(rng, typo(rng, rng.choice(sorted(names))))))
        if not window:
            continue
        span = window.count(" ") + 1
        work = MatchWork()
        found = {e.target for e, _ in index.fuzzy_matches(window, span, set(), work)}
        assert not work.capped
        expected = {
            e.target
            for e in index.entries
            if len(e.target) >= 5
            and abs(len(e.target) - len(window)) <= 3
            and abs(e.size - span) <= 1
            and e.target != window
            and SequenceMatcher(None, window, e.target).ratio() >= 0.86
        }
        assert found == expected, window
        matched += bool(expected)
    assert matched > 100  # the typos mostly still match something


def test_typos_case_and_punctuation_do_not_matter():
    context = evaluation_context(load_evaluation())
    for text, entity in [
        ("who consumes ORDERS placed?", "messaging--orders-placed"),
        ("who consumes Orders.Placed", "messaging--orders-placed"),
        ("who consumes ordrs.placed", "messaging--orders-placed"),
    ]:
        assert [m.entity_id for m in find_mentions(context, text)] == [entity]


@pytest.mark.parametrize("label", HOSTILE)
def test_a_hostile_message_does_bounded_work(large, comparisons, label):
    message = hostile_messages(large)[label]
    assert len(message) <= 4000
    work = MatchWork()
    find_mentions(large, message, work)
    assert comparisons() == work.comparisons <= work.comparison_cost <= MAX_COMPARISONS + 200
    assert work.filter_steps <= MAX_FILTER_STEPS + 50_000
    assert work.windows <= MAX_FUZZY_WINDOWS
    # every candidate is an exact match of a word, or one of the capped fuzzy ones
    assert work.candidates <= 2 * len(words(message)) + MAX_FUZZY_CANDIDATES
    assert analyst_answer(large, message, []).reply


def test_a_repeated_window_is_compared_once(large):
    few, many = MatchWork(), MatchWork()
    find_mentions(large, "svc-00001 " * 10, few)
    find_mentions(large, ("svc-00001 " * 400)[:4000], many)
    assert many.windows == few.windows and many.comparisons == few.comparisons
    assert few.comparisons < 200


def test_texts_sharing_a_match_work_share_its_bounds(large, comparisons):
    typos = hostile_messages(large)["every name with a typo"]
    work = MatchWork()
    for _ in range(3):
        find_mentions(large, typos, work)
    assert comparisons() == work.comparisons <= MAX_COMPARISONS
    assert work.windows <= MAX_FUZZY_WINDOWS and work.capped


def test_a_question_and_the_history_it_looks_back_at_share_the_bounds(large, comparisons):
    typos = hostile_messages(large)["every name with a typo"]
    history = [Turn("user" if i % 2 == 0 else "assistant", typos) for i in range(20)]
    assert analyst_answer(large, "and who consumes it?", history).reply
    assert comparisons() <= MAX_COMPARISONS


def test_the_index_is_built_once_a_context(large, monkeypatch):
    large.names  # noqa: B018 - built
    monkeypatch.setattr(matching, "NameIndex", None)  # would fail if built again
    assert find_mentions(large, "who consumes topic-00042?")[0].entity_id == (
        "messaging--topic-00042"
    )


# --- names many entities share, or nested in one another ------------------------------------
# (a security re-check: one service producing 1,000 topics "a" + X + "a", X 1,000 different
# non-alphanumeric characters, all "a a" as words: 6.15 s of CPU for "a a a ..." x 2,000
# through the API, 30.9 s for "what is in that flow?" after 20 turns of it; 31 services
# "a", "a a", ..., "a" x 31: 2.2 s)


def separators(count: int) -> list[str]:
    """`count` characters that are not a word's ("a" + X + "a" is the words "a a")."""
    found, code = [], 0x21
    while len(found) < count:
        char, code = chr(code), code + 1
        if char.isprintable() and words(f"a{char}a") == ["a", "a"]:
            found.append(char)
    return found


@pytest.fixture(scope="module")
def namesakes():
    topics = [{"name": f"a{x}a"} for x in separators(1000)]
    return architecture_context(
        {"name": "namesakes", "services": [{"name": "s", "produces": topics}]}
    )


@pytest.fixture(scope="module")
def nested():
    return architecture_context(
        {"name": "nested", "services": [{"name": " ".join("a" * n)} for n in range(1, 32)]}
    )


class CountingMention(Mention):
    made = 0

    def __init__(self, *args, **kwargs):
        CountingMention.made += 1
        super().__init__(*args, **kwargs)


@pytest.fixture
def mentions_made(monkeypatch):
    """How many candidate mentions matching made (every one, not what it reports)."""
    monkeypatch.setattr(matching, "Mention", CountingMention)
    CountingMention.made = 0
    return lambda: CountingMention.made


def assert_within_bounds(work: MatchWork) -> None:
    assert work.exact_words <= MAX_EXACT_WORDS
    assert work.exact_candidates <= MAX_EXACT_CANDIDATES
    assert work.places <= MAX_FUZZY_PLACES
    assert work.windows <= MAX_FUZZY_WINDOWS
    assert work.comparison_cost <= MAX_COMPARISONS + 200
    assert work.filter_steps <= MAX_FILTER_STEPS + 50_000


def test_the_namesake_projects_name_every_entity_as_a_a(namesakes, nested):
    assert len(namesakes.entities["topics"]) == 1000
    assert {" ".join(words(t["name"])) for t in namesakes.entities["topics"].values()} == {"a a"}
    assert len(nested.entities["services"]) == 31


@pytest.mark.parametrize("project", ["namesakes", "nested"])
def test_a_name_many_entities_share_repeated_does_bounded_work(
    project, request, comparisons, mentions_made
):
    context = request.getfixturevalue(project)
    message = " ".join(["a"] * 2000)
    work = MatchWork()
    found = find_mentions(context, message, work)
    assert found and work.capped
    assert_within_bounds(work)
    # before: 1,999,000 exact candidates (namesakes), 61,535 and ~1M words joined (nested)
    # + the fuzzy one past the bound, + each mention found remade once with its rivals
    assert mentions_made() <= work.candidates + 1 + len(found)
    assert work.candidates <= MAX_EXACT_CANDIDATES + MAX_FUZZY_CANDIDATES
    assert comparisons() == work.comparisons


@pytest.mark.parametrize("project", ["namesakes", "nested"])
def test_history_of_shared_names_does_bounded_work(project, request, monkeypatch, mentions_made):
    """Up to six history turns are matched; they share the question's bounds."""
    context = request.getfixturevalue(project)
    from diagrams.assistant import analyst

    works, found, find = [], [], analyst.find_mentions

    def recording(context, text, work=None):
        works.append(work)
        found.append(find(context, text, work))
        return found[-1]

    monkeypatch.setattr(analyst, "find_mentions", recording)
    turns = " ".join(["a"] * 2000)
    history = [Turn("user" if i % 2 == 0 else "assistant", turns) for i in range(20)]
    assert analyst_answer(context, "what is in that flow?", history).reply
    assert len(works) == 7 and all(w is works[0] for w in works)  # the question, six turns
    assert_within_bounds(works[0])
    assert works[0].candidates <= MAX_EXACT_CANDIDATES + 7 * MAX_FUZZY_CANDIDATES
    assert mentions_made() <= works[0].candidates + 7 + sum(map(len, found))


def test_within_the_bounds_shared_and_nested_names_match_as_an_exhaustive_search_does(
    namesakes, nested
):
    for context, text in [
        (namesakes, "who produces a.a?"),
        (namesakes, "does a a consume a b?"),
        (nested, "a a a a and a " * 4),
        (nested, " ".join(["a"] * 40)),
    ]:
        work = MatchWork()
        assert find_mentions(context, text, work) == exhaustive_mentions(context, text), text
        assert not work.capped, text


# --- through the API, on a large project ---------------------------------------------------


@pytest.fixture
def large_project(factory, org):
    from accounts.actors import actor_for_membership
    from diagrams.project_writes import project_create
    from diagrams.service_writes import service_create

    actor = actor_for_membership(factory.member(org, role="admin"))
    project = project_create(actor=actor, name="Large", description="")
    for body in generated_architecture(1000)["services"]:
        service_create(actor=actor, project_id=project.id, data=body)
    return project.id


def test_hostile_chats_on_a_large_project_are_answered_with_bounded_work(
    api, large_project, comparisons, settings
):
    settings.RATE_LIMIT_AI = "100/m"
    messages = hostile_messages(architecture_context(generated_architecture(1000)))
    assert list(messages) == HOSTILE
    for label, message in messages.items():
        before = comparisons()
        response = api.post(
            f"/v1/projects/{large_project}/ai/chat",
            {"message": message, "history": [{"role": "user", "content": message}] * 20},
            content_type="application/json",
        )
        assert response.status_code == 200, label
        assert response.json()["reply"], label
        assert comparisons() - before <= MAX_COMPARISONS, label
