"""The detail pane's JSON tree: rows made only as nodes are expanded, a page at a time; the right values, as
plain text; and a big message selected in the detail pane becomes browsable without blocking the window (parsed
in the worker process)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future

import pytest
import shiboken6
from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from inspector.core import offload
from inspector.core.present import json_tree
from inspector.core.present.json_tree import IN_STRING, Formatted
from inspector.core.present.pretty import FOLD_MARK, unfold
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line
from inspector.ui.panels.detail import DetailView
from inspector.ui.panels.json_tree import CELL_CHARS, PAGE_ROWS, JsonTreeModel, JsonTreeView, _gui_relay, _Inbox

#: A worker process starts, imports and parses a few MB in well under this on the loaded 2-core machine.
WORKER_TIMEOUT_MS = 60_000


def child(model: JsonTreeModel, parent: QModelIndex, name: str) -> QModelIndex:
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if model.data(index) == name:
            return index
    raise AssertionError(f"no row {name!r} among {model.rowCount(parent)}")


def value(model: JsonTreeModel, index: QModelIndex) -> str:
    return model.data(index.siblingAtColumn(1))


def fetch(qtbot, model: JsonTreeModel, parent: QModelIndex) -> None:
    """fetchMore, and wait for its rows (in place they come at once; from the worker process later)."""
    before = model.rowCount(parent)
    model.fetchMore(parent)
    qtbot.waitUntil(lambda: model.rowCount(parent) > before, timeout=WORKER_TIMEOUT_MS)


def test_a_100k_item_array_gets_rows_a_page_at_a_time_only_when_expanded(qtbot):
    message = {"jsonrpc": "2.0", "id": 1, "result": {"items": [{"n": i} for i in range(100_000)]}}
    model = JsonTreeModel()
    with qtbot.waitSignal(model.loaded, timeout=WORKER_TIMEOUT_MS):
        model.load(json.dumps(message).encode())
    assert model.rowCount() == 3
    result = child(model, QModelIndex(), "result")
    assert model.hasChildren(result) and model.rowCount(result) == 0  # nothing made below until expanded
    assert model.canFetchMore(result)
    fetch(qtbot, model, result)
    items = child(model, result, "items")
    assert value(model, items) == "[100,000 items]" and model.rowCount(items) == 0
    fetch(qtbot, model, items)
    assert model.rowCount(items) == PAGE_ROWS  # one page, not 100,000 rows
    fetch(qtbot, model, items)
    assert model.rowCount(items) == 2 * PAGE_ROWS and model.canFetchMore(items)
    last = model.index(2 * PAGE_ROWS - 1, 0, items)
    assert model.data(last) == f"[{2 * PAGE_ROWS - 1}]" and model.rowCount(last) == 0
    fetch(qtbot, model, last)
    assert value(model, model.index(0, 0, last)) == str(2 * PAGE_ROWS - 1)


def shown_tree(qtbot, value) -> JsonTreeView:
    """A tree view on screen, browsable, of ``value`` as JSON."""
    view = JsonTreeView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    with qtbot.waitSignal(view.browsable, timeout=10_000):
        view.load(json.dumps(value).encode())
    return view


def test_a_tree_view_expanding_a_node_fetches_its_first_page_only(qtbot):
    view = shown_tree(qtbot, {"list": list(range(100_000))})
    top = view.model.index(0, 0)
    view.tree.expand(top)
    qtbot.waitUntil(lambda: view.model.rowCount(top) > 0, timeout=5_000)
    assert view.model.rowCount(top) == PAGE_ROWS


def test_a_node_expanded_while_the_view_waits_to_lay_out_still_gets_its_rows(qtbot):
    # QTreeView.expand() only stores the expansion while a relayout is pending (rows just arrived): the node
    # stayed empty, which the detail pane's test met once in a loaded full run (60 s waiting for the page)
    view = shown_tree(qtbot, {"list": list(range(1_000))})
    top = view.model.index(0, 0)
    view.tree.scheduleDelayedItemsLayout()
    view.tree.expand(top)
    assert view.model.rowCount(top) == PAGE_ROWS  # a small message answers in place, at once
    qtbot.waitUntil(lambda: view.tree.isExpanded(top), timeout=5_000)
    assert view.model.rowCount(top) == PAGE_ROWS


def test_values_are_shown_as_json_plain_text_with_long_strings_cut_and_whole_in_tooltip_and_copy(qtbot):
    long = "<b>bold</b>\nline two " + "x" * 5000
    message = {"s": "<i>not italic</i>", "long": long, "n": 12345678901234567890123, "f": 1.5, "t": True,
               "z": None, "empty": {}, "a": [1, "two"], "key\nwith newline": 1}
    view = JsonTreeView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.browsable, timeout=10_000):
        view.load(json.dumps(message).encode())
    model = view.model
    root = QModelIndex()
    assert value(model, child(model, root, "s")) == '"<i>not italic</i>"'  # as written, not interpreted
    assert value(model, child(model, root, "n")) == "12345678901234567890123"  # exact beyond 64 bits
    assert value(model, child(model, root, "f")) == "1.5"
    assert value(model, child(model, root, "t")) == "true" and value(model, child(model, root, "z")) == "null"
    assert value(model, child(model, root, "empty")) == "{0 members}"
    assert value(model, child(model, root, "a")) == "[2 items]"
    child(model, root, "key\\nwith newline")  # a key's control characters escaped, on one line
    cell = child(model, root, "long")
    shown = value(model, cell)
    assert shown.startswith('"<b>bold</b>\\nline two xx') and "\n" not in shown
    assert len(shown) < CELL_CHARS + 40 and shown.endswith(f"({len(long):,} characters)")
    tip = model.data(cell.siblingAtColumn(1), Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;bold&lt;/b&gt;" in tip and "<b>" not in tip  # escaped: a tooltip would render HTML
    view.tree.setCurrentIndex(cell)
    view.copy_current()
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == long, timeout=5_000)


def test_text_that_is_not_json_says_so_in_the_tree(qtbot):
    view = JsonTreeView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.model.failed, timeout=10_000):
        view.load(b'{"jsonrpc": "2.0", "id": 1, "result": {')
    assert "not JSON" in view.status.text() and view.model.rowCount() == 0


def test_folded_continuation_lines_inside_a_string_are_marked_and_others_are_not():
    line = json.dumps({"k": "ab\\" * 3000, "after": "x"})
    out = json_tree.formatted("", line.encode(), fold=1000)
    assert isinstance(out, Formatted) and out.parsed
    text = out.text.decode()
    assert json.loads(unfold(text)) == json.loads(line)
    lines = text.split("\n")
    continued = [n for n in range(1, len(lines)) if lines[n - 1].endswith(FOLD_MARK)]
    assert continued and set(out.states) == set(continued)  # every continuation starts inside the string
    assert all(state in (IN_STRING, json_tree.IN_STRING_ESCAPED) for state in out.states.values())
    assert any(state == json_tree.IN_STRING_ESCAPED for state in out.states.values()) == any(
        lines[n - 1][:-1].endswith("\\") and (len(lines[n - 1][:-1]) - len(lines[n - 1][:-1].rstrip("\\"))) % 2
        for n in continued)


@pytest.fixture
def workers():
    offload.use_workers()
    yield
    offload.use_workers(False)


def test_a_big_message_selected_in_the_detail_pane_becomes_browsable_without_blocking(qtbot, workers, tmp_path):
    text = "The quick brown fox. " * (4 * 1024 * 1024 // 21)
    raw = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": text}],
                                                             "items": list(range(20_000))}}).encode()
    event = decode_line(raw, Direction.S2C)
    event.seq = 1
    detail = DetailView()
    qtbot.addWidget(detail)
    detail.resize(900, 600)
    detail.show()
    beats: list[float] = []
    beat = QTimer()
    beat.setInterval(5)
    beat.timeout.connect(lambda: beats.append(time.perf_counter()))
    beat.start()
    with qtbot.waitSignal(detail.tree.browsable, timeout=WORKER_TIMEOUT_MS):
        detail.show_event(event)
        assert not detail.browse.isHidden() and detail.tree.model.rowCount() == 0  # not parsed on the loop
        assert detail.tree.model.parsed_in_worker is False
    beat.stop()
    assert len(beats) >= 2  # the loop kept turning while the worker parsed
    assert detail.tree.model.parsed_in_worker
    detail.browse.click()
    assert detail.tabs.currentWidget() is detail.tree
    model = detail.tree.model
    result = child(model, QModelIndex(), "result")
    detail.tree.tree.expand(result)
    qtbot.waitUntil(lambda: model.rowCount(result) == 2, timeout=WORKER_TIMEOUT_MS)
    items = child(model, result, "items")
    detail.tree.tree.expand(items)
    # a page at least: Qt's tree view may ask for the next one as soon as the first is laid out (from the worker,
    # both can come between two looks; "== PAGE_ROWS" then never held, a 60 s timeout in a loaded CI run)
    qtbot.waitUntil(lambda: model.rowCount(items) >= PAGE_ROWS, timeout=WORKER_TIMEOUT_MS)
    assert value(model, model.index(PAGE_ROWS - 1, 0, items)) == str(PAGE_ROWS - 1)
    assert detail.tree.grab().save(str(tmp_path / "json_tree_view.png"))  # to look at, in this test's own folder
    # Show all reuses the worker's parse and colours the lines on screen
    detail.tabs.setCurrentWidget(detail.pretty)
    with qtbot.waitSignal(detail.text_shown, timeout=WORKER_TIMEOUT_MS):
        detail.show_all.click()
    qtbot.waitUntil(lambda: not detail.formatting, timeout=WORKER_TIMEOUT_MS)
    assert json.loads(unfold(detail.pretty.toPlainText())) == json.loads(raw)
    first = detail.pretty.document().findBlockByNumber(1)  # '  "jsonrpc": "2.0",'
    assert first.layout().formats(), "the lines on screen are coloured"
    assert detail.grab().save(str(tmp_path / "json_tree_detail_show_all.png"))


def test_a_level_of_a_message_the_worker_no_longer_keeps_is_fetched_after_opening_it_again(qtbot):
    # the worker keeps the last two messages of all panes: one pushed out by another pane's is opened again
    view = shown_tree(qtbot, {"list": list(range(1_000))})
    json_tree.forget(view.model.token)  # (in place here: this process is the "worker")
    top = view.model.index(0, 0)
    view.tree.expand(top)
    qtbot.waitUntil(lambda: view.model.rowCount(top) == PAGE_ROWS, timeout=5_000)
    assert value(view.model, view.model.index(PAGE_ROWS - 1, 0, top)) == str(PAGE_ROWS - 1)


# -- the worker's answers reach the GUI thread through one object that outlives every pane ----------------------


def test_a_workers_answer_is_handed_to_its_pane_in_the_gui_thread(qtbot):
    pane = QWidget()
    inbox = _Inbox(pane)
    got: list = []
    future: Future = Future()
    inbox.deliver(future, lambda result, error: got.append((result, error, threading.current_thread())))
    threading.Thread(target=future.set_result, args=("rows",)).start()  # as the pool thread does
    qtbot.waitUntil(lambda: bool(got), timeout=WORKER_TIMEOUT_MS)
    assert got == [("rows", None, threading.main_thread())]


def test_a_workers_answer_for_a_pane_closed_meanwhile_goes_to_the_relay_and_is_dropped(qtbot):
    # a pool thread emitting on the pane's own inbox while the GUI thread may be deleting it is a use after free:
    # the thread emits only on the relay, which lives on
    pane = QWidget()
    inbox = _Inbox(pane)
    got: list = []
    future: Future = Future()
    inbox.deliver(future, lambda result, error: got.append(result))
    relayed: list = []
    _gui_relay().arrived.connect(relayed.append)
    try:
        shiboken6.delete(pane)  # the pane and its inbox are gone before the answer comes
        assert not shiboken6.isValid(inbox)
        thread = threading.Thread(target=future.set_result, args=("rows",))
        thread.start()
        thread.join(WORKER_TIMEOUT_MS / 1000)
        qtbot.waitUntil(lambda: bool(relayed), timeout=WORKER_TIMEOUT_MS)
        assert got == []
    finally:
        _gui_relay().arrived.disconnect(relayed.append)
