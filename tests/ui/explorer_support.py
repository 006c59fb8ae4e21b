"""Shared by the explorer's GUI tests: a window with a live server-everything session whose explorer is filled."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from helpers import until
from npm_servers import install_everything
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.explorer.result_view import ResultView, SafeBrowser

#: server-everything (Node) starts, shakes hands and is listed well within this on a loaded machine
BOUND = 60


@contextmanager
def everything_tab(qtbot: Any, qloop: Any, folder: Path) -> Iterator[Any]:
    """The window's tab of a live server-everything (stdio), once its explorer lists the tools."""
    node, entry = install_everything()
    with open_test_window(qloop, folder) as win:
        tab = win.open_live(Target(name="everything", argv=[node, str(entry), "stdio"]))
        if not tab.explorer.isVisible():  # the test screen is small: the Explorer starts folded, opened as a user would
            tab.explorer_toggle.click()
        # everything listed, nothing in flight: Qt events the test processes itself (key clicks) run outside the
        # asyncio loop, where a task step would find no running loop
        wait(qloop, lambda: tab.explorer.tools.tool_list.count() > 0 and tab.explorer.catalog.settled
             and tab.explorer.prompts.prompt_list.count() > 0, "the explorer filled")
        yield tab


def wait(qloop: Any, condition: Callable[[], bool], what: str) -> None:
    """Run the window's loop (sessions are asyncio tasks on it) until ``condition`` holds; fail after BOUND."""
    qloop.run_until_complete(until(condition, BOUND, what))


def shown_text(view: ResultView) -> str:
    """Every text block the result view shows."""
    return "\n".join(browser.toPlainText() for browser in view.findChildren(SafeBrowser))


def rows(tab: Any, method: str) -> list[Any]:
    """The timeline's events of ``method`` (requests and their responses)."""
    return [e for e in tab.events if e.kind == "message" and (e.method == method
                                                               or e.data.get("request_method") == method)]
