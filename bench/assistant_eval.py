#!/usr/bin/env python
"""Ask the built-in analyst (diagrams/assistant/analyst.py) every question of the evaluation
set (diagrams/assistant/evaluation.json: the demo architecture, a synthetic history and
questions with the entity ids and facts a correct answer must contain); print the share
answered correctly per kind and overall, and every failure (question, reply, what is
missing); write the scores into docs/benchmarks.md. Target: at least 90%.

    .venv/bin/python bench/assistant_eval.py              # all questions, docs updated
    .venv/bin/python bench/assistant_eval.py --no-write   # all questions, docs untouched
    .venv/bin/python bench/assistant_eval.py --kind impact --kind path   # some (no write)
    .venv/bin/python bench/assistant_eval.py --hostile    # the cost of hostile messages

--hostile times (CPU) the analyst's answer to messages built to make name matching expensive,
on the 1,000-service architectures of ../shared/bench/architectures, and counts the fuzzy
comparisons each made; it writes nothing (the figures are in docs/assistant.md).
"""

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.seeds import ARCHITECTURES, architecture  # noqa: E402

HOSTILE_ARCHITECTURES = ("random-1000", "domains-1000")

TARGET = 0.9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    parser.add_argument(
        "--kind",
        action="append",
        default=[],
        help="only questions of this kind (repeatable); implies --no-write",
    )
    parser.add_argument(
        "--id",
        action="append",
        default=[],
        dest="ids",
        help="only this question (repeatable); implies --no-write",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the failures")
    parser.add_argument(
        "--hostile", action="store_true", help="time hostile messages instead (no write)"
    )
    parser.add_argument(
        "--architecture",
        action="append",
        default=[],
        help=f"with --hostile: an architecture of {ARCHITECTURES} (repeatable; default "
        f"{' and '.join(HOSTILE_ARCHITECTURES)})",
    )
    parser.add_argument("--repeat", type=int, default=3, help="with --hostile: runs a message")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    if args.hostile:
        hostile(args.architecture or list(HOSTILE_ARCHITECTURES), args.repeat)
        return
    from diagrams.assistant.evaluation import (
        EVALUATION_PATH,
        evaluation_context,
        load_evaluation,
        run_question,
    )

    data = load_evaluation()
    questions = [
        q
        for q in data["questions"]
        if (not args.kind or q["kind"] in args.kind) and (not args.ids or q["id"] in args.ids)
    ]
    if not questions:
        parser.error("no question matches")

    results = []
    for question in questions:
        # a fresh context per question: nothing one answer does can help the next
        results.append(run_question(evaluation_context(data), question, catch=True))

    kinds: dict[str, list] = {}
    for result in results:
        kinds.setdefault(result.question["kind"], []).append(result)
    correct = sum(r.correct for r in results)
    share = correct / len(results)
    times = [r.seconds * 1000 for r in results]

    failures = [r for r in results if not r.correct]
    if failures and not args.quiet:
        print(f"Failures ({len(failures)}):\n")
        for result in failures:
            print(result.explain(), end="\n\n")

    rows = [
        f"| {kind} | {len(rs)} | {sum(r.correct for r in rs)} | "
        f"{_percent(sum(r.correct for r in rs) / len(rs))} |"
        for kind, rs in kinds.items()
    ]
    print("| kind | questions | correct | share |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    verdict = "meets" if share >= TARGET else "below"
    print(
        f"\nOverall: {correct} / {len(results)} = {_percent(share)} "
        f"({verdict} the {_percent(TARGET)} target); answer time median "
        f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms"
    )

    if args.no_write or args.kind or args.ids:
        return
    from bench.report import write_section

    relative = EVALUATION_PATH.relative_to(ROOT)
    failing = ", ".join(f"`{r.question['id']}`" for r in failures) or "none"
    text = "\n".join(
        [
            "## Assistant: built-in analyst on the evaluation set",
            "",
            f"`bench/assistant_eval.py` asks the built-in analyst "
            f"(`diagrams/assistant/analyst.py`) the {len(results)} questions of `{relative}` about "
            f"the demo architecture (`diagrams/demo.py`, 20 services) with a synthetic history "
            f"(now = {data['now']}). A question counts as answered correctly when the answer "
            f"cites every expected entity id, its reply contains every expected fact, and no "
            f"forbidden one. Every expectation is computed from the demo data (networkx on "
            f"`project_graph`).",
            "",
            "| kind | questions | correct | share |",
            "|---|---|---|---|",
            *rows,
            "",
            f"Overall: **{correct} / {len(results)} = {_percent(share)}** "
            f"(target >= {_percent(TARGET)}). Answer time: median "
            f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms.",
            "",
            f"Failing: {failing}.",
        ]
    )
    write_section("assistant_eval", text)


def hostile_messages(data: dict) -> dict[str, tuple[str, list]]:
    """Messages (with their history) built to make name matching expensive, all within the
    4,000 characters a message may have."""
    from diagrams.assistant.context import Turn

    names = [s["name"] for s in data["services"]]
    names += list(dict.fromkeys(t["name"] for s in data["services"] for t in s["produces"]))
    # every name once; then each with one letter dropped (typos: fuzzy matches everywhere)
    every = " ".join(names)[:4000]
    typos = " ".join(n[:-2] + n[-1] for n in names if len(n) > 5)[:4000]
    own = names[1]
    return {
        '"svc-00001 " x 400 (4,000 chars)': (("svc-00001 " * 400)[:4000], []),
        '"svc-00001 " x 100 (1,000 chars)': ("svc-00001 " * 100, []),
        '"what changed " x 300 (3,900 chars)': ("what changed " * 300, []),
        f'"{own} " repeated (4,000 chars)': (((own + " ") * 4000)[:4000], []),
        "every name once (4,000 chars)": (every, []),
        "every name with a typo (4,000 chars)": (typos, []),
        "one 4,000-letter word": ("x" * 4000, []),
        "a follow-up after 20 turns of typos": (
            "and who consumes it?",
            [Turn("user" if i % 2 == 0 else "assistant", typos) for i in range(20)],
        ),
    }


def hostile(architectures: list[str], repeat: int) -> None:
    """The worst CPU time of `repeat` answers to each hostile message, each on a fresh
    context (as a request builds one), and the fuzzy comparisons it made."""
    from diagrams.assistant import matching
    from diagrams.assistant.analyst import analyst_answer
    from diagrams.assistant.evaluation import architecture_context

    comparisons = 0
    original = matching.SequenceMatcher

    class Counting(original):
        def __init__(self, *args, **kwargs):
            nonlocal comparisons
            comparisons += 1
            super().__init__(*args, **kwargs)

    matching.SequenceMatcher = Counting
    try:
        for name in architectures:
            data = architecture(name)
            print(f"\n{name} ({len(data['services'])} services)")
            print("| message | worst CPU seconds | comparisons | reply |")
            print("|---|---|---|---|")
            worst = 0.0
            for label, (message, history) in hostile_messages(data).items():
                seconds = []
                for _ in range(repeat):
                    context = architecture_context(data)  # as a request builds it
                    gc.collect()
                    comparisons = 0
                    started = time.process_time()
                    answer = analyst_answer(context, message, history)
                    seconds.append(time.process_time() - started)
                worst = max(worst, *seconds)
                reply = answer.reply.split("\n")[0][:50]
                print(f"| {label} | {max(seconds):.3f} | {comparisons:,} | {reply} |", flush=True)
            print(f"worst: {worst:.3f} s")
    finally:
        matching.SequenceMatcher = original


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


if __name__ == "__main__":
    main()
