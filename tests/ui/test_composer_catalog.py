"""The composer's templates name what the Explorer's one catalog listed, every page of it, and a reopened
capture's listing is joined the same way (the tab once kept a second catalog where the last page won)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from explorer_support import wait
from qt_loop import open_test_window

from inspector.core.connect.target import Target

#: tools/list in three pages: echo, fail | explode, flags | last-page-tool
PAGING = [sys.executable, str(Path(__file__).resolve().parents[1] / "cli" / "oneshot_servers" / "paging_server.py")]


def _template_tool(tab) -> str:
    box = tab.composer.method_box
    box.setCurrentIndex(box.findData("tools/call"))
    return json.loads(tab.composer.text())["params"]["name"]


@pytest.mark.integration
@pytest.mark.report("faults", "a server that lists its tools in three pages, in the composer and its capture",
                    surface="GUI", group="input")
def test_the_composer_names_the_first_tool_of_a_paged_listing_live_and_in_the_reopened_capture(qloop, tmp_path,
                                                                                                 report):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="paging", argv=PAGING))
        wait(qloop, lambda: tab.explorer.catalog is not None and len(tab.explorer.catalog.items["tools"]) == 5
             and tab.explorer.catalog.settled, "the three pages listed")
        assert _template_tool(tab) == "echo", "the first page's first tool, not the last page's"
        capture = tab.capture_path
        qloop.run_until_complete(tab.close())
        opened = win.open_capture(capture)
        wait(qloop, lambda: not opened.loading, "the capture read")
        assert _template_tool(opened) == "echo"
        assert opened.capture_header is not None and opened.target().argv == PAGING
        report.saw("the tools/call template names echo, the first tool of the first page, as the Explorer lists "
                   "all five")
