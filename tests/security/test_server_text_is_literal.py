"""Every widget shows server-supplied text literally: nothing a server (or a capture someone sent you) says is
interpreted as markup (README: "All text that comes from a server is shown as plain text").

A real server (servers/html_server.py) puts ``<b>x</b><img src=q>`` in its name, version, instructions, tool,
resource and prompt names and descriptions, results, error messages, a log notification, a wrong ``"jsonrpc"``
value (which lands in a finding, hence in a tooltip), stderr, a line of plain text on stdout, and the
elicitation and sampling requests it sends. The real window shows all of it; then the session is replayed and
its capture reopened. After each step every widget of the application is read the way Qt will render it: a
label's text through its text format, a tooltip (which Qt sniffs for rich text) through
``Qt.mightBeRichText``, a view's cells for every row, column and role. Text that would be rendered as rich
text and lose the payload is a failure; where the payload is read literally is recorded, and the views that
must show it are checked to have shown it. Message boxes about captures (a file name, a recorded command or
transport that look like HTML) are checked the same way.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import until
from PySide6.QtCore import QModelIndex, QObject, QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItemModel, QTextDocument
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QTabBar,
    QTableWidget,
    QTextEdit,
    QTreeWidget,
    QWidget,
)
from qt_loop import open_test_window

from inspector.core.capture.writer import make_header
from inspector.ui.main_window import MainWindow
from inspector.ui.panels.detail import DetailView
from inspector.ui.panels.json_tree import JsonTreeModel
from inspector.ui.panels.replay import ReplayView
from inspector.ui.panels.server_requests import ServerRequestsPanel
from inspector.ui.panels.stderr import StderrPane
from inspector.ui.session.live import READY, Target
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import TimelineModel

PAYLOAD = "<b>x</b><img src=q>"
#: A file name cannot hold "/", so a capture's name carries this instead.
FILE_PAYLOAD = "<b>x<img src=q>"
SERVER = Path(__file__).resolve().parent / "servers" / "html_server.py"
AREAS = (DetailView, StderrPane, ServerRequestsPanel, ReplayView)


def rendered(text: str, text_format: Qt.TextFormat) -> str:
    """What a user reads when Qt shows ``text`` in this format (AutoText: rich if Qt.mightBeRichText says so)."""
    if text_format == Qt.TextFormat.RichText or (text_format == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)):
        document = QTextDocument()
        document.setHtml(text)
        return document.toPlainText()
    return text


class Audit:
    """Reads every widget; collects where a payload is shown literally and where it would not be."""

    def __init__(self, payloads: tuple[str, ...] = (PAYLOAD,)) -> None:
        self.payloads = payloads
        self.shown: dict[str, set[str]] = defaultdict(set)  #: area -> the kinds of widget that showed it
        self.problems: list[str] = []
        self.boxes: list[tuple[str, Qt.TextFormat]] = []

    def text(self, widget: QWidget | None, what: str, text: Any, text_format: Qt.TextFormat) -> None:
        if not isinstance(text, str) or not any(p in text for p in self.payloads):
            return
        seen = rendered(text, text_format)
        lost = [p for p in self.payloads if p in text and p not in seen]
        if lost:
            self.problems.append(f"{what} renders {text[:120]!r} as {seen[:120]!r}")
        else:
            self.shown[area_of(widget)].add(what)

    def tooltip(self, widget: QWidget | None, what: str, text: Any) -> None:
        # a tooltip made rich on purpose, with the payload escaped, renders it literally: that counts as shown
        if isinstance(text, str) and text:
            seen = rendered(text, Qt.TextFormat.AutoText)
            for payload in self.payloads:
                if payload in seen:
                    self.shown[area_of(widget)].add(what + " tooltip")
            self.text(widget, what + " tooltip", text, Qt.TextFormat.AutoText)

    def model(self, view: QAbstractItemView) -> None:
        """Every cell of a view, Display and ToolTip roles. Read without QModelIndex.data(): with PySide6 6.12 on
        Python 3.11 every call of it that yields no value drops a reference to None (enough of them and the
        interpreter aborts), so Python models are asked directly and Qt's item widgets through their items."""
        name = type(view).__name__
        model = view.model()
        if isinstance(view, QHeaderView):
            return  # the header of a table whose cells are read with the table
        if isinstance(view, QListWidget):
            cells = [(view.item(r).text(), view.item(r).toolTip()) for r in range(view.count())]
        elif isinstance(view, QTableWidget):
            cells = [(item.text(), item.toolTip()) for r in range(view.rowCount()) for c in range(view.columnCount())
                     if (item := view.item(r, c)) is not None]
        elif isinstance(view, QTreeWidget):
            items, cells = [view.topLevelItem(r) for r in range(view.topLevelItemCount())], []
            while items:
                item = items.pop()
                cells += [(item.text(c), item.toolTip(c)) for c in range(view.columnCount())]
                items += [item.child(r) for r in range(item.childCount())]
        elif isinstance(model, QStandardItemModel):
            cells = [(model.item(r, c).text(), model.item(r, c).toolTip()) for r in range(model.rowCount())
                     for c in range(model.columnCount()) if model.item(r, c) is not None]
        elif isinstance(model, (TimelineModel, QSortFilterProxyModel)):
            source = model.sourceModel() if isinstance(model, QSortFilterProxyModel) else model
            if source is None:
                return
            assert isinstance(source, TimelineModel), type(source)
            cells = []
            for row in range(model.rowCount()):
                for column in range(model.columnCount()):
                    index = model.index(row, column)
                    if isinstance(model, QSortFilterProxyModel):
                        index = model.mapToSource(index)
                    cells.append((source.data(index, Qt.ItemDataRole.DisplayRole),
                                  source.data(index, Qt.ItemDataRole.ToolTipRole)))
        elif isinstance(model, JsonTreeModel):  # every row fetched so far, at every depth (the rest are not shown)
            cells, parents = [], [QModelIndex()]
            while parents:
                parent = parents.pop()
                for row in range(model.rowCount(parent)):
                    for column in range(model.columnCount(parent)):
                        index = model.index(row, column, parent)
                        cells.append((model.data(index, Qt.ItemDataRole.DisplayRole),
                                      model.data(index, Qt.ItemDataRole.ToolTipRole)))
                    parents.append(model.index(row, 0, parent))
        else:
            raise AssertionError(f"this audit cannot read a {name} showing a {type(model).__name__}: teach it how")
        for display, tooltip in cells:
            self.text(view, name, display, Qt.TextFormat.PlainText)
            self.tooltip(view, name, tooltip)

    def everything(self) -> Audit:
        for widget in QApplication.allWidgets():
            name = type(widget).__name__
            self.tooltip(widget, name, widget.toolTip())
            if isinstance(widget, QLabel):
                self.text(widget, name, widget.text(), widget.textFormat())
            elif isinstance(widget, (QAbstractButton, QLineEdit)):
                self.text(widget, name, widget.text(), Qt.TextFormat.PlainText)
            elif isinstance(widget, QPlainTextEdit):
                self.text(widget, name, widget.toPlainText(), Qt.TextFormat.PlainText)
            elif isinstance(widget, QTextEdit):
                self.text(widget, name, widget.toHtml() if widget.acceptRichText() else widget.toPlainText(),
                          Qt.TextFormat.RichText if widget.acceptRichText() else Qt.TextFormat.PlainText)
            elif isinstance(widget, QComboBox):
                self.text(widget, name, widget.currentText(), Qt.TextFormat.PlainText)
            elif isinstance(widget, QTabBar):
                for i in range(widget.count()):
                    self.text(widget, name, widget.tabText(i), Qt.TextFormat.PlainText)
                    self.tooltip(widget, name, widget.tabToolTip(i))
            if isinstance(widget, QAbstractItemView) and widget.model() is not None:
                self.model(widget)
        return self

    def box(self, text: str, text_format: Qt.TextFormat) -> None:
        self.boxes.append((text, text_format))
        self.text(None, "QMessageBox", text, text_format)

    def merge(self, other: Audit) -> None:
        for area, whats in other.shown.items():
            self.shown[area] |= whats
        self.problems += other.problems


def area_of(widget: QWidget | None) -> str:
    """The part of the window a widget belongs to: a view of the session tab, or the widget's own class."""
    if widget is None:
        return "message box"
    node: QObject | None = widget
    while node is not None:
        if isinstance(node, AREAS):
            return type(node).__name__
        if isinstance(node, SessionTab):
            return {id(node.table): "timeline", id(node.status): "status line"}.get(id(widget), type(widget).__name__)
        node = node.parent()
    return type(widget).__name__


@pytest.fixture
def window(qapp, qloop, tmp_path, monkeypatch):
    with open_test_window(qloop, tmp_path) as win:
        yield from _audited(win, monkeypatch)


def _audited(win: MainWindow, monkeypatch: Any) -> Iterator[MainWindow]:
    audit = Audit((PAYLOAD, FILE_PAYLOAD))
    # message boxes: record what they would show, and how, instead of waiting for a click
    win.boxes = audit  # type: ignore[attr-defined]  # the tests read the audit from the window

    def exec_box(box: QMessageBox) -> int:
        audit.box(box.text(), box.textFormat())
        audit.box(box.informativeText(), box.textFormat())
        return QMessageBox.StandardButton.Yes

    def static_box(_parent: Any, _title: str, text: str, *args: Any, **kwargs: Any) -> Any:
        audit.box(text, Qt.TextFormat.AutoText)  # the static helpers show AutoText
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "exec", exec_box)
    for name in ("warning", "information", "critical", "question"):
        monkeypatch.setattr(QMessageBox, name, static_box)
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("the same server", True))
    yield win


def call(method: str, **params: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params})


REQUESTS = [call("tools/list"), call("resources/list"), call("prompts/list"),
            call("resources/read", uri=f"file:///{PAYLOAD}"), call("tools/call", name=f"tool{PAYLOAD}", arguments={}),
            call(f"nope{PAYLOAD}")]


def answers(tab: SessionTab) -> int:
    return sum(1 for e in tab.events if "reply_to" in e.data)


def audit_each_event(tab: SessionTab) -> Audit:
    """Select every event in turn (the detail view shows it) and read the whole application each time."""
    total = Audit()
    for event in list(tab.events):
        if tab.timeline.select_seq(event.seq):
            total.merge(Audit().everything())
    return total


@pytest.mark.report("security", "server text that looks like HTML is shown literally in every widget (timeline, "
                                "tooltips, detail, stderr, status line, server requests, replay, capture tabs, "
                                "message boxes)", surface="GUI")
def test_server_text_that_looks_like_html_is_shown_literally_in_every_widget(window, qloop, tmp_path, report):
    target = Target(name="html", argv=[sys.executable, str(SERVER), PAYLOAD], handshake="legacy")

    async def live() -> tuple[SessionTab, Audit]:
        tab = window.open_live(target)
        await until(lambda: tab.live.state == READY, 30, "the handshake")
        for number, text in enumerate(REQUESTS, start=answers(tab) + 1):
            tab.composer.set_text(text)
            assert tab.composer.send(), text
            await until(lambda n=number: answers(tab) >= n, 10, f"the answer to {text}")
        tab.composer.set_text(call("tools/call", name="ask", arguments={}))
        assert tab.composer.send()
        await until(lambda: tab.requests.count() == 2, 10, "the server's elicitation and sampling requests")
        await until(lambda: tab.stderr.lines > 0, 10, "the server's stderr line")
        audit = audit_each_event(tab)
        for pending in tab.requests.pending():
            tab.requests.select(pending.key)
            audit.merge(Audit().everything())
        elicitation, sampling = tab.requests.pending()
        assert tab.requests.elicitation_action("decline", elicitation.key)
        assert tab.requests.answer({"role": "assistant", "content": {"type": "text", "text": PAYLOAD},
                                    "model": PAYLOAD}, sampling.key)
        await until(lambda: any(b"you answered" in e.raw for e in tab.events), 10, "the answer to ask")
        await tab.close()
        return tab, audit

    tab, audit = qloop.run_until_complete(live())
    replay = qloop.run_until_complete(window.runs.run_replay(tab.capture_path, target))
    assert isinstance(replay, ReplayView)
    for row in range(replay.steps.count()):
        replay.steps.setCurrentRow(row)
        audit.merge(Audit().everything())
    reopened = window.open_capture(tab.capture_path)
    assert reopened is not None
    audit.merge(audit_each_event(reopened))

    assert audit.problems == [], "\n".join(audit.problems)
    must_show = {"timeline", "status line", "DetailView", "StderrPane", "ServerRequestsPanel", "ReplayView"}
    assert must_show <= set(audit.shown), f"the payload never showed in {must_show - set(audit.shown)}"
    assert any("tooltip" in what for what in audit.shown["timeline"]), "no timeline tooltip carried server text"
    report.saw(f"`{PAYLOAD}` read back literally from " + "; ".join(
        f"{area}: {', '.join(sorted(whats))}" for area, whats in sorted(audit.shown.items())))


def hostile_capture(path: Path, target: dict[str, Any]) -> Path:
    path.write_text(json.dumps(make_header(target)) + "\n")
    return path


def replay_refused(window: MainWindow, qloop: Any, capture: Path, says: str) -> None:
    """Open ``capture`` and ask to replay it against "the same server"; wait for the box that says ``says``."""
    audit: Audit = window.boxes
    assert window.open_capture(capture) is not None
    window.runs.replay_current()
    qloop.run_until_complete(until(lambda: any(says in text for text, _ in audit.boxes), 10,
                                   f"a message box saying {says!r}"))


@pytest.mark.report("security", "text from a capture that looks like HTML (its file name, a recorded command) is "
                                "shown literally in message boxes and tab tooltips", surface="GUI")
def test_capture_text_that_looks_like_html_is_shown_literally_in_message_boxes_and_tab_tooltips(window, qloop,
                                                                                               tmp_path, report):
    audit: Audit = window.boxes
    # a file that is not a capture, with a name that looks like HTML
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / f"{FILE_PAYLOAD}.jsonl").write_text("not a capture\n")
    assert window.open_capture(bad / f"{FILE_PAYLOAD}.jsonl") is None
    # a capture with such a name: its tab
    good = hostile_capture(tmp_path / f"{FILE_PAYLOAD}.jsonl", {"transport": "stdio", "argv": ["server"]})
    assert window.open_capture(good) is not None
    audit.merge(Audit((FILE_PAYLOAD,)).everything())
    # a capture whose recorded command looks like HTML and had a secret redacted: it cannot be rerun
    replay_refused(window, qloop, hostile_capture(tmp_path / "redacted.jsonl", {
        "transport": "stdio", "argv": [PAYLOAD, "--token", "[redacted]"], "cwd": None, "env": {}, "redacted": True}),
        "secrets redacted")
    shown = [text for text, _ in audit.boxes if PAYLOAD in text or FILE_PAYLOAD in text]
    assert audit.problems == [], "\n".join(audit.problems)
    assert len(shown) >= 2, audit.boxes
    assert "QTabBar tooltip" in audit.shown["QTabBar"], audit.shown
    report.saw(f"{len(shown)} message boxes and the capture's tab tooltip quote `{FILE_PAYLOAD}` and `{PAYLOAD}` "
               "literally (plain text, or escaped for the tooltip)")


@pytest.mark.report("security", "a capture naming a transport that looks like HTML: its replay and reconnection are "
                                "refused with a sentence that quotes it literally", surface="GUI")
def test_replaying_or_reconnecting_to_a_capture_that_names_an_unknown_transport_says_so_literally(window, qloop,
                                                                                                  tmp_path, report):
    audit: Audit = window.boxes
    capture = hostile_capture(tmp_path / "transport.jsonl", {"transport": PAYLOAD, "url": "http://127.0.0.1:9/mcp"})
    replay_refused(window, qloop, capture, "unknown transport")
    boxes = len(audit.boxes)
    window.runs.reconnect_current()  # the confirmation is answered Yes
    assert audit.problems == [], "\n".join(audit.problems)
    said = next(text for text, _ in audit.boxes if "unknown transport" in text)
    assert PAYLOAD in said
    # reconnecting opens a tab that failed before starting anything, its status line saying why (in plain text)
    tabs = [window.tabs.widget(i) for i in range(window.tabs.count())]
    failed = [tab for tab in tabs if isinstance(tab, SessionTab) and "unknown transport" in tab.status.text()]
    assert len(failed) == 1, f"reconnecting said nothing: {audit.boxes[boxes:]}"
    status = failed[0].status
    assert status.text().startswith("failed: ") and PAYLOAD in status.text()
    assert status.textFormat() == Qt.TextFormat.PlainText
    assert failed[0].live is None or failed[0].live.session is None, "a session started with no transport"
    report.saw(f"the replay and the reconnection were refused with: `{said[:120]}`")
