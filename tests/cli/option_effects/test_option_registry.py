"""Every documented option of record, call (and the other one-shot commands), replay, check and tap has a test
that proves it reaches its effect (option_effects_registry.py): an option added to a parser fails here, naming
it, until such a test is registered; a row whose option or test is gone fails too. docs/option-effects.md is
the registry's table, regenerated with python scripts/option_effects.py."""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from helpers import ROOT
from option_effects_registry import EFFECTS, documented_options

from inspector.cli.main import build_parser


def test_every_documented_option_has_a_test_of_its_effect():
    registered = {(e.command, e.option) for e in EFFECTS}
    missing = [f"{command} {option}" for command, option in documented_options(build_parser())
               if (command, option) not in registered]
    assert not missing, ("these options have no test proving their effect; add one and its row in "
                         "tests/cli/option_effects/option_effects_registry.py: " + ", ".join(missing))


def test_every_row_names_an_option_the_command_still_has_once():
    documented = set(documented_options(build_parser()))
    stale = [f"{e.command} {e.option}" for e in EFFECTS if (e.command, e.option) not in documented]
    assert not stale, "option_effects_registry.py has rows for options the parsers no longer have: " + \
        ", ".join(stale)
    twice = [f"{command} {option}" for (command, option), n in Counter((e.command, e.option) for e in EFFECTS).items()
             if n > 1]
    assert not twice, "option_effects_registry.py has more than one row for: " + ", ".join(twice)


def test_every_registered_test_exists():
    """The file, the test function and, for a parametrized one, the parameter named."""
    problems = [problem for test_id in sorted({e.test for e in EFFECTS}) if (problem := _missing(test_id))]
    assert not problems, "option_effects_registry.py names tests that do not exist:\n" + "\n".join(problems)


def _missing(test_id: str) -> str | None:
    path, _, rest = test_id.partition("::")
    name, _, param = rest.partition("[")
    file = ROOT / path
    if not file.is_file():
        return f"{test_id}: no file {path}"
    functions = {node.name for node in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                 if isinstance(node, ast.FunctionDef)}
    if name not in functions or not name.startswith("test_"):
        return f"{test_id}: {path} has no test function {name}"
    if param and param.rstrip("]") not in (ids := parameter_ids(file, name)):
        return f"{test_id}: {name} is parametrized with {sorted(ids)}"
    return None


def parameter_ids(file: Path, name: str) -> set[str]:
    """The ids of ``name``'s parameters (one parametrize), from the module's own marks."""
    spec = importlib.util.spec_from_file_location(f"_registered_{file.stem}", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(file.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(file.parent))
    ids: set[str] = set()
    for mark in getattr(getattr(module, name), "pytestmark", []):
        if mark.name == "parametrize":
            ids.update(_id(value) for value in mark.args[1])
    return ids


def _id(value: Any) -> str:
    if hasattr(value, "id") and hasattr(value, "values"):  # pytest.param(...)
        return str(value.id if value.id is not None else "-".join(map(str, value.values)))
    return str(value)


def test_the_option_effects_page_is_what_the_generator_writes_now():
    spec = importlib.util.spec_from_file_location("option_effects_script", ROOT / "scripts" / "option_effects.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "option-effects.md").read_text(encoding="utf-8") == module.render(), \
        "docs/option-effects.md is out of date: run python scripts/option_effects.py"
