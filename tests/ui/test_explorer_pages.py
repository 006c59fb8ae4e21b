"""The Explorer's pages without its panel (inspector/ui/explorer/shared.py): a page is given a PageContext and
asks another page nothing; what it wants of another it says with a signal of its own, which the panel connects."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from inspector.core.explore.catalog import Catalog
from inspector.core.explore.history import Call, History
from inspector.ui.explorer.history_page import HistoryPage
from inspector.ui.explorer.roots_page import RootsPage
from inspector.ui.explorer.shared import PageContext


class FakeContext:
    """An Explorer that is ready, has no catalog, and keeps what it was told."""

    def __init__(self) -> None:
        self.catalog: Catalog | None = None
        self.ready = True
        self.said: list[str] = []
        self.shown: list[QWidget] = []

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> None:
        coro.close()

    def say(self, text: str, *, failure: bool = False) -> None:
        self.said.append(text)

    def copy(self, text: str) -> None:
        self.said.append(f"copied {text}")

    def command(self, tool: str, arguments: dict[str, Any]) -> str:
        return f"call {tool}"

    def asker(self, ask: Callable[[str], None], name: str) -> Callable[[str], None] | None:
        return None

    def complete(self, field: Any, ref: dict[str, Any], name: str, others: dict[str, str]) -> None:
        pass

    def as_task(self) -> bool:
        return False

    def show_page(self, page: QWidget) -> None:
        self.shown.append(page)


@pytest.fixture
def context(qapp: Any) -> FakeContext:
    fake = FakeContext()
    _: PageContext = fake  # the fake is a page context as mypy sees it
    return fake


def test_run_again_on_the_history_page_asks_for_the_call_without_reaching_the_tools_page(context, tmp_path):
    store = History(tmp_path / "history.json")
    store.add("demo", Call("add", {"a": 2, "b": 3}, "5"))
    page = HistoryPage(context)
    page.show_calls(store, "demo")
    asked: list[tuple[str, dict[str, Any]]] = []
    page.rerun_requested.connect(lambda tool, arguments: asked.append((tool, arguments)))
    page.rerun()
    assert asked == [("add", {"a": 2, "b": 3})]


def test_run_again_before_the_session_is_ready_asks_nothing(context, tmp_path):
    context.ready = False
    page = HistoryPage(context)
    page.remember("add", {"a": 1}, "1")
    asked: list[Any] = []
    page.rerun_requested.connect(lambda *call: asked.append(call))
    page.rerun()
    assert asked == []


def test_roots_edited_on_their_page_are_its_own_signal(context):
    page = RootsPage(context)
    edited: list[list[str]] = []
    page.edited.connect(edited.append)
    page.set_roots(["/srv/a", "/srv/b"])
    assert edited == [["/srv/a", "/srv/b"]]
    assert page.roots() == ["/srv/a", "/srv/b"]
