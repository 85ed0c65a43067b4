"""Benchmarks write their figures into docs/benchmarks.md between markers of their own."""

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def write_section(name: str, text: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    doc = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    block = f"{start}\n{text.strip()}\n{end}"
    if start in doc and end in doc:
        before, rest = doc.split(start, 1)
        doc = before + block + rest.split(end, 1)[1]
    else:
        doc = doc.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(doc)
