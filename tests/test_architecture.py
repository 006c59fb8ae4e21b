"""The architecture page and the code agree: the layers' picture in docs/architecture.md is drawn from the
import contracts that ``lint-imports`` keeps (pyproject.toml, ``[tool.importlinter]``; CI runs it), and every
package of inspector/ and every command is named in the page.

Which package may import which is import-linter's to check, not a hand-written walk here: the tests below show
the contracts are the ones the page draws, and that a broken layer is caught.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "inspector"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _script():  # scripts/ is no package: the drawing script is loaded from its file
    spec = importlib.util.spec_from_file_location("layers_diagram", ROOT / "scripts" / "layers_diagram.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_layers = _script()
contracts, diagram, page_with_diagram = _layers.contracts, _layers.diagram, _layers.page_with_diagram


def test_the_architecture_pages_diagram_is_drawn_from_the_import_contracts() -> None:
    page = ARCHITECTURE.read_text(encoding="utf-8")
    assert page_with_diagram(page, contracts()) == page, \
        "docs/architecture.md's layers diagram is out of date: run python scripts/layers_diagram.py"


def test_the_diagram_draws_every_layer_of_every_contract() -> None:
    drawn = diagram(contracts())
    layers = [layer for contract in contracts() if contract["type"] == "layers" for layer in contract["layers"]]
    assert len(layers) > 10
    assert all(layer in drawn for layer in layers)


def test_the_core_layers_forbid_the_edges_that_made_one_cycle_of_the_core() -> None:
    """Issue 39: each edge that closed the core's import cycle goes up a layer or across independent siblings."""
    core = next(c for c in contracts() if c.get("containers") == ["inspector.core"])
    rank = {}
    for number, layer in enumerate(core["layers"]):
        independent = "|" in layer
        for name in layer.replace(":", "|").split("|"):
            rank[name.strip()] = (number, independent)
    closed = [("capture", "present"), ("present", "apps"), ("present", "explore"), ("present", "protocol"),
              ("protocol", "capture"), ("protocol", "present"), ("urls", "present"), ("clients", "tap"),
              ("session", "interop"), ("session", "auth"), ("session", "clients"), ("transports", "auth")]
    allowed = [(a, b) for a, b in closed
               if rank[a][0] < rank[b][0] or (rank[a][0] == rank[b][0] and not rank[a][1])]
    assert not allowed, f"the contract lets these imports through: {allowed}"


@pytest.mark.parametrize("container", ["inspector.core", "inspector.ui"])
def test_every_module_at_the_top_of_a_layered_package_has_its_layer(container: str) -> None:
    """A module the layers do not name is bound by nothing: every package and module directly under
    inspector/core and inspector/ui is in its contract's layers."""
    layered = next(c for c in contracts() if c["type"] == "layers" and c.get("containers") == [container])
    named = {name.strip() for layer in layered["layers"] for name in layer.replace(":", "|").split("|")}
    folder = ROOT / container.replace(".", "/")
    present = {path.stem for path in folder.glob("*.py") if path.stem != "__init__"} | \
        {path.name for path in folder.iterdir() if (path / "__init__.py").exists()}
    assert sorted(present - named) == [], f"pyproject.toml's layers of {container} do not name these"


@pytest.mark.integration
def test_lint_imports_fails_on_an_import_that_breaks_a_layer(tmp_path: Path) -> None:
    """The contracts are live: a copy of the package where the session imports OAuth breaks one, by name."""
    import shutil

    copy = tmp_path / "tree"
    shutil.copytree(PACKAGE, copy / "inspector", ignore=shutil.ignore_patterns("__pycache__", "resources"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    handshake = copy / "inspector" / "core" / "session" / "handshake.py"
    handshake.write_text(handshake.read_text(encoding="utf-8") + "\nfrom inspector.core.auth import model\n",
                         encoding="utf-8")
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint), "--no-cache"], cwd=copy, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "inspector.core.session is not allowed to import inspector.core.auth" in run.stdout


def packages() -> list[str]:
    """Every package under inspector/ (a folder of Python modules), as a path like ``core/session``."""
    folders = {module.parent for module in PACKAGE.rglob("*.py") if "__pycache__" not in module.parts}
    return sorted(str(folder.relative_to(PACKAGE)) for folder in folders
                  if folder != PACKAGE and folder.name != "resources")


def test_every_package_under_inspector_is_named_in_the_architecture_page() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    missing = [package for package in packages() if f"`{package}`" not in text and f"`{package}/`" not in text]
    assert not missing, f"docs/architecture.md names no package {', '.join(missing)}: add one sentence for each"


def test_every_command_is_named_in_the_architecture_page() -> None:
    import argparse

    from inspector.cli.main import build_parser

    commands = next(action.choices for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    text = ARCHITECTURE.read_text(encoding="utf-8")
    missing = [name for name in commands if f"`{name}`" not in text]
    assert not missing, f"docs/architecture.md names no command {', '.join(missing)}: add one sentence for each"
