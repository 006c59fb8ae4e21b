"""Session > Run collection… (inspector/ui/collections): each request's outcome and each expectation's, as the
answers come; the Explorer history's "Save to collection…" writes calls a run can use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qt_loop import open_test_window
from window_views_support import shot, versioned_target

from inspector.core.collections.format import load
from inspector.core.explore.history import Call
from inspector.ui.explorer.save_to_collection import save_call

pytestmark = pytest.mark.integration


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def test_a_collection_run_shows_each_expectation_and_opens_the_failures(window, qloop, tmp_path: Path):
    path = tmp_path / "smoke.json"
    path.write_text(json.dumps({"format": "mcp-inspector-collection", "version": 1, "name": "smoke", "requests": [
        {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
         "expect": {"isError": False, "equals": {"/structuredContent/result": 5}, "outputSchema": True}},
        {"name": "echo says bye", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}},
         "expect": {"textContains": "bye"}},
    ]}))
    view = qloop.run_until_complete(window.collection_runs.run_collection_view(versioned_target(1), path))
    window.resize(1200, 650)
    rows = [view.tree.topLevelItem(i) for i in range(view.tree.topLevelItemCount())]
    assert [(r.text(0), r.text(1)) for r in rows] == [("add", "passed"), ("echo says bye", "FAILED")]
    assert [rows[0].child(i).text(0) for i in range(rows[0].childCount())] == [
        "answered", "isError", "equals /structuredContent/result", "outputSchema"]
    assert not rows[0].isExpanded() and rows[1].isExpanded()
    assert rows[1].child(1).text(2) == 'the text does not contain "bye"; it is "hi"'
    view.tree.setCurrentItem(rows[1])
    assert '"text": "hi"' in view.answer.toPlainText()
    assert view.summary.text().startswith("smoke: 1 of 2 requests failed (1 expectation)")
    shot(window, tmp_path, "collection-run.png")


def test_history_calls_saved_to_a_collection_keep_what_they_gave(tmp_path: Path):
    path = tmp_path / "saved.json"
    assert save_call(Call("echo", {"message": "hi"}, "hi"), path) == "saved echo to saved.json (1 requests)"
    save_call(Call("fail", {}, "tool error: nope"), path)
    save_call(Call("explode", {}, "error: boom"), path)
    expects = [r.expect.to_json() for r in load(path).requests]
    assert expects == [{"status": "result", "isError": False}, {"status": "result", "isError": True},
                       {"status": "error"}]


def test_the_explorer_history_has_the_save_button(window, qloop):
    from PySide6.QtWidgets import QPushButton

    tab = window.open_live(versioned_target(1))
    buttons = [b.text() for b in tab.explorer.findChildren(QPushButton)]
    assert "Save to collection…" in buttons
