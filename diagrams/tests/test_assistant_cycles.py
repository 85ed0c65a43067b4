"""The assistant's answers about cycles (diagrams/assistant/tools.py): exact while a project
has few, and still true when it has thousands. It used to list the first 1,000 cycles it
met and answer from those, so "Is X part of a cycle?" said no for a service deep inside a
loop of 900 services on domains-1000."""

import networkx as nx
import pytest

from diagrams.assistant import tools
from diagrams.assistant.analyst import analyst_answer
from diagrams.assistant.evaluation import architecture_context, evaluation_context, load_evaluation
from diagrams.tests.test_assistant_matching import generated_architecture


def ring(services: int, *, chords: int = 0) -> dict:
    """`services` services in a ring (svc-i consumes topic-i, produces topic-(i+1)); every
    chord-th one also produces the topic `services // 3` further on: many more cycles."""
    bodies = []
    for i in range(services):
        produces = [f"topic-{(i + 1) % services:05d}"]
        if chords and i % chords == 0:
            produces.append(f"topic-{(i + services // 3) % services:05d}")
        bodies.append(
            {
                "name": f"svc-{i:05d}",
                "consumes": [{"name": f"topic-{i:05d}"}],
                "produces": [{"name": t} for t in produces],
            }
        )
    return {"name": "ring", "services": bodies}


def cited_cycles(context, reply: str) -> list[list[str]]:
    """The cycles an answer lists ("- a → b → a"), as entity ids."""
    by_label = {data["label"]: node for node, data in context.graph.nodes(data=True)}
    cycles = []
    for line in reply.splitlines():
        if line.startswith("- "):
            labels = line[2:].split(" → ")
            assert labels[0] == labels[-1], line
            cycles.append([by_label[label] for label in labels[:-1]])
    return cycles


def assert_real_cycle(graph: nx.DiGraph, cycle: list[str]) -> None:
    assert len(set(cycle)) == len(cycle), cycle
    for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        assert graph.has_edge(a, b), (a, b)


@pytest.fixture(scope="module")
def large():
    """1,000 services whose loops hold far more than 1,000 cycles."""
    context = architecture_context(generated_architecture(1000, seed=3))
    on_cycles = {
        n for c in nx.strongly_connected_components(context.graph) if len(c) > 1 for n in c
    }
    assert len(on_cycles) > 300
    return context, on_cycles


def test_whether_a_service_is_on_a_cycle_is_true_for_every_service_of_a_large_project(large):
    context, on_cycles = large
    services = sorted(n for n, d in context.graph.nodes(data=True) if d["type"] == "service")
    asked = services[::20]
    assert any(s in on_cycles for s in asked) and any(s not in on_cycles for s in asked)
    for service in asked:
        answer = tools.cycles(context, service)
        if service not in on_cycles:
            assert "not part of any cycle" in answer.reply
            continue
        assert "is part of a cycle" in answer.reply, answer.reply
        cycles = cited_cycles(context, answer.reply)
        assert cycles and all(service in c for c in cycles)
        for cycle in cycles:
            assert_real_cycle(context.graph, cycle)
        # the first shown is the shortest cycle through it
        back = nx.single_source_shortest_path_length(context.graph.reverse(copy=False), service)
        shortest = min(back[s] for s in context.graph.successors(service) if s in back)
        assert len(cycles[0]) == shortest + 1


def test_a_large_project_is_said_to_have_at_least_a_true_number_of_cycles(large):
    context, on_cycles = large
    answer = tools.cycles(context)
    assert answer.reply.startswith("There are at least ")
    claimed = int(answer.reply.split()[4].replace(",", ""))
    listed = sum(1 for _ in zip(range(claimed + 1), nx.simple_cycles(context.graph), strict=False))
    assert listed > claimed >= tools.MAX_CYCLES or listed == claimed
    services = sum(1 for n in on_cycles if context.graph.nodes[n]["type"] == "service")
    assert f"through {services:,} services and {len(on_cycles) - services:,} topics" in answer.reply
    cycles = cited_cycles(context, answer.reply)
    assert len(cycles) == tools.SHOWN_CYCLES
    for cycle in cycles:
        assert_real_cycle(context.graph, cycle)
    assert [len(c) for c in cycles] == sorted(len(c) for c in cycles)
    assert set(answer.references) == {n for c in cycles for n in c}


def test_the_analyst_answers_a_question_about_cycles_from_the_same_tool(large):
    context, on_cycles = large
    inside = sorted(n for n in on_cycles if context.graph.nodes[n]["type"] == "service")[0]
    label = context.graph.nodes[inside]["label"]
    answer = analyst_answer(context, f"Is {label} part of a cycle?", [])
    assert f"{label} is part of a cycle" in answer.reply
    assert inside in answer.references


def test_few_cycles_are_counted_and_listed_exactly():
    context = architecture_context(ring(12, chords=4))
    every = list(nx.simple_cycles(context.graph))
    assert 1 < len(every) < tools.MAX_CYCLES
    answer = tools.cycles(context)
    assert answer.reply.startswith(f"There are {len(every)} cycles in the data flow")
    shown = cited_cycles(context, answer.reply)
    assert [len(c) for c in shown] == sorted(len(c) for c in every)[: len(shown)]
    through = tools.cycles(context, "service--svc-00001")
    assert through.reply.startswith(
        f"svc-00001 is part of {sum('service--svc-00001' in c for c in every)} cycles"
    )


def test_one_long_ring_is_one_cycle():
    context = architecture_context(ring(1500))
    answer = tools.cycles(context)
    assert answer.reply.startswith("There is 1 cycle in the data flow, through 1,500 services")
    assert len(cited_cycles(context, answer.reply)[0]) == 3000


def test_the_demo_architecture_keeps_its_exact_answers():
    context = evaluation_context(load_evaluation())
    assert tools.cycles(context).reply.startswith("There are 18 cycles in the data flow")
    assert "is not part of any cycle" in tools.cycles(context, "service--analytics-pipeline").reply
