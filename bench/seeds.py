"""The seeded test architectures the benchmarks load (ServiceCreate lists, and Graphviz .dot
files for bench/render.py): `../shared/bench/architectures` beside the checkout, as on the
project's machines, or the folder `ARCHITECTURES_DIR` names."""

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURES = Path(
    os.environ.get("ARCHITECTURES_DIR") or ROOT.parent / "shared" / "bench" / "architectures"
)


def architecture(name: str) -> dict:
    """Architecture `name` (domains-200, random-1000, ...): its `services`, as
    ServiceCreate bodies. A clear exit when the folder is not there, not a traceback."""
    path = ARCHITECTURES / f"{name}.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise SystemExit(
            f"{path} not found: the benchmarks load the seeded architectures from "
            f"../shared/bench/architectures beside the checkout, or from ARCHITECTURES_DIR"
        ) from None
