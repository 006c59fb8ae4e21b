"""The detail pane's tree: a JSON message browsed a level at a time, however big (issue 17).

The parsed message stays in the process that parsed it (the worker process for a message over
:data:`IN_PLACE_BYTES`, see :mod:`inspector.core.present.json_tree`); the model asks it for one level at a time,
at most :data:`PAGE_ROWS` rows per request, and creates rows only when a node is expanded (``canFetchMore`` /
``fetchMore``: a view fetches the next page when it scrolls to the end of the rows it has). So an array of
100,000 items costs a page of rows, and selecting a 50 MB message never parses it on the event loop.

Everything a server sent is shown as plain text: keys and string values in cells (strings quoted and escaped
as JSON writes them, cut at :data:`CELL_CHARS` characters) and in tooltips (escaped HTML). "Copy value" (the
context menu, or the copy shortcut) puts the whole value on the clipboard, fetched from where it was parsed.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import shiboken6
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QColor, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QLabel, QTreeView, QVBoxLayout, QWidget

from inspector.core import offload
from inspector.core.present import json_tree
from inspector.core.present.json_tree import Row
from inspector.ui.json_highlighter import COLOURS, is_dark
from inspector.ui.timeline.model import plain_tooltip

#: Messages up to this size are parsed in this process (a few milliseconds); bigger ones in the worker.
IN_PLACE_BYTES = 1024 * 1024
#: Rows fetched per request: a view shows a few dozen, and 100,000 at once would take seconds to lay out.
PAGE_ROWS = 500
#: A string's characters shown in its cell (the rest is in its tooltip, up to ROW_TEXT_CHARS, and copied).
CELL_CHARS = 200
#: A tooltip shows at most this many characters of a string.
TIP_CHARS = 2000

_Index = QModelIndex | QPersistentModelIndex
_KIND_COLOUR = {"string": "string", "number": "number", "boolean": "constant", "null": "constant"}
_tokens = itertools.count(1)


class _Node:
    __slots__ = ("parent", "row", "path", "info", "children", "pending")

    def __init__(self, parent: _Node | None, row: int, info: Row) -> None:
        self.parent = parent
        self.row = row
        self.info = info
        if parent is None or info.key is None:
            self.path: tuple[str | int, ...] = ()
        else:
            self.path = (*parent.path, info.key)
        self.children: list[_Node] = []
        self.pending = False

    @property
    def container(self) -> bool:
        return self.info.kind in ("object", "array")


class _Relay(QObject):
    """The one object a pool thread emits on: created in the GUI thread and kept for the process's life.

    A pool thread must never emit on a pane's own objects: the GUI thread may be deleting that pane at the same
    moment (a window closed, a tab dropped), and a signal emitted from another thread on a QObject under
    destruction is a use after free."""

    arrived = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.arrived.connect(lambda call: call())


_relay: _Relay | None = None


def _gui_relay() -> _Relay:
    """The relay, made on first use (from an :class:`_Inbox`, so in the GUI thread)."""
    global _relay
    if _relay is None:
        _relay = _Relay()
    return _relay


class _Inbox(QObject):
    """Carries a worker's answer to the GUI thread (a future's callback runs in a pool thread), and drops it if
    the inbox (so its pane) is gone by then."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay = _gui_relay()

    def deliver(self, future: Future[Any], callback: Callable[[Any, BaseException | None], None]) -> None:
        relay = self._relay

        def done(finished: Future[Any]) -> None:  # in a pool thread: touches nothing of the pane
            if finished.cancelled():
                return
            error = finished.exception()
            result = None if error is not None else finished.result()
            relay.arrived.emit(lambda: self._hand(callback, result, error))

        future.add_done_callback(done)

    def _hand(self, callback: Callable[[Any, BaseException | None], None], result: Any,
              error: BaseException | None) -> None:
        """In the GUI thread: the answer to its pane, if the pane still exists."""
        if shiboken6.isValid(self):
            callback(result, error)


def _in_place(fn: Callable[..., Any], *args: Any) -> Future[Any]:
    future: Future[Any] = Future()
    try:
        future.set_result(fn(*args))
    except Exception as exc:
        future.set_exception(exc)
    return future


def cell_text(row: Row) -> str:
    """What the value column shows for ``row``: plain text, one line."""
    if row.kind == "object":
        return "{" + f"{row.size:,} member{'s' if row.size != 1 else ''}" + "}"
    if row.kind == "array":
        return f"[{row.size:,} item{'s' if row.size != 1 else ''}]"
    if row.kind == "string":
        shown = json.dumps(row.text[:CELL_CHARS], ensure_ascii=False)
        return shown if row.size <= CELL_CHARS else shown[:-1] + f"…\" ({row.size:,} characters)"
    return row.text


def key_text(row: Row) -> str:
    if isinstance(row.key, int):
        return f"[{row.key}]"
    if row.key is None:
        return "(message)"
    return json.dumps(row.key, ensure_ascii=False)[1:-1]


class JsonTreeModel(QAbstractItemModel):
    """Name and value columns over a parsed message that lives elsewhere; rows made as nodes are expanded.

    ``loaded`` is emitted when the top level's first rows are in (the message is browsable); ``failed`` with a
    sentence when the message cannot be read or a level could not be fetched."""

    loaded = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root: _Node | None = None
        self._token = ""
        self._raw = b""
        self._run: Callable[..., Future[Any]] = _in_place
        self._inbox = _Inbox(self)
        self._dark = is_dark(QGuiApplication.palette())

    # -- loading ---------------------------------------------------------------------------------------

    def clear(self) -> None:
        self.beginResetModel()
        self._root = None
        self._token = ""
        self._raw = b""
        self.endResetModel()

    def load(self, raw: bytes) -> None:
        """Parse ``raw`` (in the worker process when it is over IN_PLACE_BYTES) and show its top level."""
        self.clear()
        token = self._token = f"{os.getpid()}-{id(self)}-{next(_tokens)}"
        self._raw = raw  # the message's own bytes (the event holds them): to open it again if the worker forgot it
        self._run = offload.submit if len(raw) > IN_PLACE_BYTES else _in_place
        self._inbox.deliver(self._run(json_tree.open_document, token, raw),
                            lambda row, error: self._opened(token, row, error))

    @property
    def token(self) -> str:
        return self._token

    @property
    def parsed_in_worker(self) -> bool:
        """The message is parsed and kept in the worker process (as :attr:`token`)."""
        return self._root is not None and self._run is offload.submit and offload.workers_enabled()

    def _opened(self, token: str, row: Row | None, error: BaseException | None) -> None:
        if token != self._token:
            return  # another message was selected meanwhile
        if error is not None or row is None:
            self.failed.emit(_sentence(error))
            return
        self.beginResetModel()
        self._root = _Node(None, 0, row)
        self.endResetModel()
        if self._root.container:
            self.fetchMore(QModelIndex())
        else:  # a bare scalar: one row
            self._got(self._root, token, [Row(None, row.kind, row.text, row.size)], None)

    def _node(self, index: _Index) -> _Node | None:
        if not index.isValid():
            return self._root
        node = index.internalPointer()
        return node if isinstance(node, _Node) else None

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:
        node = self._node(parent)
        return node is not None and node.container and not node.pending and len(node.children) < node.info.size

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:
        node = self._node(parent)
        if node is None or not self.canFetchMore(parent):
            return
        node.pending = True
        self._fetch(node, self._token, reopened=False)

    def _fetch(self, node: _Node, token: str, *, reopened: bool) -> None:
        future = self._run(json_tree.children, token, node.path, len(node.children), PAGE_ROWS)
        self._inbox.deliver(future, lambda rows, error: self._got(node, token, rows, error, reopened))

    def _got(self, node: _Node, token: str, rows: list[Row] | None, error: BaseException | None,
             reopened: bool = False) -> None:
        if token != self._token:
            node.pending = False
            return
        if isinstance(error, KeyError) and not reopened and self._raw:
            # the worker keeps the last KEEP_DOCUMENTS messages of every pane: another one's pushed this out
            self._inbox.deliver(self._run(json_tree.open_document, token, self._raw),
                                lambda _row, again: self._got(node, token, None, again, True) if again
                                else self._fetch(node, token, reopened=True))
            return
        node.pending = False
        if error is not None or rows is None:
            self.failed.emit(_sentence(error))
            return
        parent = self._index_of(node)
        first = len(node.children)
        self.beginInsertRows(parent, first, first + len(rows) - 1)
        node.children.extend(_Node(node, first + i, row) for i, row in enumerate(rows))
        self.endInsertRows()
        if node is self._root and first == 0:
            self.loaded.emit()

    def _index_of(self, node: _Node) -> QModelIndex:
        if node is self._root or node.parent is None:
            return QModelIndex()
        return self.createIndex(node.row, 0, node)

    def copy_value(self, index: _Index, done: Callable[[str | None, str | None], None]) -> None:
        """Fetch the whole value at ``index`` and call ``done(text, None)``, or ``done(None, sentence)``."""
        node = self._node(index)
        if node is None or not index.isValid():
            return
        if node.info.kind not in ("object", "array") and node.info.size <= len(node.info.text):
            done(node.info.text, None)
            return
        future = self._run(json_tree.value_text, self._token, node.path)
        self._inbox.deliver(future, lambda text, error: done(text, None) if error is None
                            else done(None, _sentence(error)))

    # -- the model -------------------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        node = self._node(parent)
        if node is None or not (0 <= row < len(node.children)) or not (0 <= column < 2):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        node = self._node(index) if index.isValid() else None
        if node is None or node.parent is None:
            return QModelIndex()
        return self._index_of(node.parent)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        node = self._node(parent)
        return len(node.children) if node is not None else 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 2

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:
        node = self._node(parent)
        if node is None or (parent.isValid() and parent.column() != 0):
            return False
        return bool(node.children) or (node.container and node.info.size > 0)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return ("Name", "Value")[section] if 0 <= section < 2 else None
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self._node(index) if index.isValid() else None
        if node is None:
            return None
        row = node.info
        if role == Qt.ItemDataRole.DisplayRole:
            return key_text(row) if index.column() == 0 else cell_text(row)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 1 and row.kind == "string":
            more = f"\n… ({row.size:,} characters: Copy value copies them all)" if row.size > TIP_CHARS else ""
            return plain_tooltip(row.text[:TIP_CHARS] + more)
        if role == Qt.ItemDataRole.ForegroundRole:
            kind = "key" if index.column() == 0 and isinstance(row.key, str) else \
                _KIND_COLOUR.get(row.kind) if index.column() == 1 else None
            if kind is not None:
                return QColor(COLOURS[kind][1 if self._dark else 0])
        return None


def _sentence(error: BaseException | None) -> str:
    if isinstance(error, KeyError):
        return "The worker no longer keeps this message (newer ones were opened since): select it again."
    if isinstance(error, ValueError):
        return f"This message is not JSON, so it has no tree: {error}."
    if isinstance(error, RecursionError):
        return "This message nests too deeply to show as a tree."
    return f"The message could not be read as a tree: {error or 'no answer'}."


class JsonTreeView(QWidget):
    """A status line over a tree view of :class:`JsonTreeModel`; ``browsable`` when the first rows are in."""

    browsable = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = JsonTreeModel(self)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.tree = QTreeView(self)
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)  # lets the view skip measuring every row
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.tree.header().resizeSection(0, 260)
        self.copy_action = QAction("Copy value", self.tree)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_current)
        self.tree.addAction(self.copy_action)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status)
        layout.addWidget(self.tree)
        self.model.loaded.connect(self._loaded)
        self.model.failed.connect(self._failed)
        # QTreeView.expand() fetches a node's rows only when the node is laid out already: expanded while a
        # relayout is pending (rows just arrived), it would stay empty. Pending nodes are not fetched twice.
        self.tree.expanded.connect(self._fetch_expanded)
        self.clear()

    def _fetch_expanded(self, index: QModelIndex) -> None:
        if self.model.canFetchMore(index):
            self.model.fetchMore(index)

    def clear(self) -> None:
        self.model.clear()
        self.status.setText("Nothing to show yet.")
        self.status.show()

    def load(self, raw: bytes, reading: bool = True) -> None:
        """Show ``raw``'s tree; ``reading`` says so in the status line until its first rows are in."""
        self.say(f"Reading {len(raw):,} bytes in the background…" if reading else "")
        self.model.load(raw)  # a small message's rows (or its failure) come at once, and say so

    def say(self, text: str) -> None:
        self.status.setText(text)
        self.status.show()

    def _loaded(self) -> None:
        self.status.hide()
        self.browsable.emit()

    def _failed(self, sentence: str) -> None:
        self.say(sentence)

    def copy_current(self) -> None:
        index = self.tree.currentIndex()
        if index.isValid():
            self.model.copy_value(index.siblingAtColumn(1), self._copied)

    def _copied(self, text: str | None, problem: str | None) -> None:
        if text is not None:
            QGuiApplication.clipboard().setText(text)
        else:
            self.say(problem or "")
