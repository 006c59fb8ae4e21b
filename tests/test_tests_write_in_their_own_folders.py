"""Tests run in parallel workers (pytest-xdist), so none may write to a fixed path that another worker writes
too: a test's files go in its ``tmp_path`` (or a folder of its worker). This reads the test sources and finds
calls given a fixed path under /tmp (a screenshot saved to /tmp/auth.png, say)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SHARED = "/tmp/"


def fixed_tmp_paths(source: str) -> list[tuple[int, str]]:
    """(line, path) of each call argument that is a literal path under /tmp (an f-string's fixed start too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        for arg in [*node.args, *(keyword.value for keyword in node.keywords)]:
            text = arg.value if isinstance(arg, ast.Constant) else \
                arg.values[0].value if isinstance(arg, ast.JoinedStr) and arg.values and \
                isinstance(arg.values[0], ast.Constant) else None
            if isinstance(text, str) and text.startswith(SHARED):
                found.append((arg.lineno, text))
    return found


def test_the_check_finds_a_screenshot_saved_to_a_fixed_path():
    assert fixed_tmp_paths('widget.grab().save("/tmp/auth.png")\nPath(f"/tmp/x-{n}.json").write_text("")\n') == [
        (1, "/tmp/auth.png"), (2, "/tmp/x-")]
    assert fixed_tmp_paths('widget.grab().save(str(tmp_path / "auth.png"))\nurl = "file:///tmp/a"\n') == []


def test_no_test_writes_to_a_fixed_path_under_tmp():
    offenders = [f"{path.relative_to(TESTS)}:{line}: {text}" for path in sorted(TESTS.rglob("*.py"))
                 for line, text in fixed_tmp_paths(path.read_text(encoding="utf-8"))]
    assert offenders == [], "use tmp_path (or a folder of the worker's own):\n" + "\n".join(offenders)
