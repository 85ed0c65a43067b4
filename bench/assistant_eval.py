#!/usr/bin/env python
"""Ask the built-in analyst (diagrams/assistant/analyst.py) every question of the evaluation
set (diagrams/assistant/evaluation.json: the demo architecture, a synthetic history and
questions with the entity ids and facts a correct answer must contain); print the share
answered correctly per kind and overall, and every failure (question, reply, what is
missing); write the scores into docs/benchmarks.md. Target: at least 90%.

    .venv/bin/python bench/assistant_eval.py              # all questions, docs updated
    .venv/bin/python bench/assistant_eval.py --no-write   # all questions, docs untouched
    .venv/bin/python bench/assistant_eval.py --kind impact --kind path   # some (no write)
"""

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
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


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


if __name__ == "__main__":
    main()
