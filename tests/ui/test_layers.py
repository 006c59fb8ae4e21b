"""The window's layers (pyproject.toml's ``ui:`` import contracts, checked by ``lint-imports``): no two modules or
packages at the top of inspector/ui import each other, however indirectly, lazily or for type checking only."""

from __future__ import annotations

import grimp

from inspector.ui.actions import menu_path
from inspector.ui.timeout_dialog import TIMEOUT_SETTING


def top(module: str) -> str:
    return ".".join(module.split(".")[:3])


def test_no_two_parts_of_the_window_import_each_other() -> None:
    graph = grimp.build_graph("inspector")
    parts = sorted({top(m) for m in graph.modules if m.startswith("inspector.ui.")})
    cycles = [f"{a} <-> {b}" for i, a in enumerate(parts) for b in parts[i + 1:]
              if graph.chain_exists(a, b, as_packages=True) and graph.chain_exists(b, a, as_packages=True)]
    assert not cycles, "\n".join(cycles)


def test_the_sessions_name_the_timeout_setting_as_the_menu_does() -> None:
    assert menu_path("timeout") == TIMEOUT_SETTING
