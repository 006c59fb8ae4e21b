"""The suite imports test modules by their base name (pytest's default "prepend" import mode, no __init__.py in
tests/): two test files of one name in different folders stop collection with "import file mismatch" on whichever
worker meets both (it stopped CI once: tests/core/test_spans.py and tests/otel/test_spans.py)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_two_test_modules_share_a_base_name() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):  # what pytest imports (servers beside them are run, not imported)
        if "__pycache__" not in path.parts:
            by_name[path.name].append(str(path.relative_to(TESTS)))
    shared = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert not shared, f"rename one of each: {shared}"
