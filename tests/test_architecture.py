"""The layering docs/architecture.md describes, kept by the code: which package may import which, and every
package of inspector/ named in the architecture page.

Imports are read from the source (every ``import`` and ``from ... import``, at module level or inside a
function: a lazy import is still a dependency), so nothing is imported to check.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "inspector"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: (importer prefix, imported prefix, why): an importer under the first may not import anything under the second.
FORBIDDEN = (
    ("inspector.core", "inspector.ui", "the core runs headless: the CLI, the tap and the tests sit on it"),
    ("inspector.core", "inspector.cli", "the core is what the CLI is built on, not the other way round"),
    ("inspector.core.transports", "inspector.core.session", "a transport moves bytes; the session owns it"),
    ("inspector.core.transports", "inspector.core.capture", "a transport reports events; saving them is the "
                                                           "pipeline's"),
    ("inspector.core.transports", "inspector.ui", "a transport knows no window"),
    ("inspector.ui", "inspector.cli", "the window is started by the CLI, never the reverse"),
    ("inspector.demo", "inspector", "the demo server shares no code with the inspector it is inspected by"),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The modules a source file imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_each_layer_imports_only_what_it_may() -> None:
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        for imported in imports_of(path):
            for low, high, why in FORBIDDEN:
                if under(importer, low) and under(imported, high) and not under(imported, low):
                    broken.append(f"{importer} imports {imported}: {why}")
    assert not broken, "\n".join(sorted(set(broken)))


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
