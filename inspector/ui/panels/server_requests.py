"""Requests the server sends to the client (sampling, elicitation, roots, anything else), answered by the user.

Each request waits in a list with its method, a one-line summary and how long it has been waiting.
Selecting one shows its params (read-only pretty JSON), a reply form where the request has one, and the answer
editor (the raw JSON result, always there for deliberately odd answers); the user answers with the result, with a
JSON-RPC error, or, for an elicitation, with accept / decline / cancel
(https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).

Reply forms, kept in step with the answer editor both ways:

- form-mode elicitation: the ``requestedSchema`` as a :class:`~inspector.ui.forms.form_widget.SchemaForm`
  (one per request, so a half-filled form survives looking at another request); Accept sends its content.
- URL-mode elicitation: the URL as plain text with a Copy button. It is never opened by the inspector: the
  user decides (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-mode).
- sampling/createMessage: the reply's text, model and stop reason
  (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).

The panel hands out an :class:`asyncio.Future` per request (:meth:`ServerRequestsPanel.add_request`): it gets
the result, or :class:`~inspector.core.session.session.RpcError` for an error answer, or is cancelled when the server
cancels the request. :meth:`ServerRequestsPanel.handler` wraps that as ``Session(server_request_handler=...)``.
Server text is shown as plain text only, never as markup, and never in tooltips (Qt guesses rich text there).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QResizeEvent,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.present.server_requests import one_line, summary, waited
from inspector.core.session import compose
from inspector.core.session.outcomes import RpcError
from inspector.core.session.server_requests import ServerRequestHandler
from inspector.core.wire.ids import same_id
from inspector.ui.forms.form_widget import SchemaForm
from inspector.ui.json_highlighter import JsonHighlighter, is_dark
from inspector.ui.wheel_guard import guard_wheel

if TYPE_CHECKING:
    from inspector.core.session.session import Session

#: Params longer than this are shown cut, with a note (a sampling request can carry megabytes of context).
PARAMS_PREVIEW_CHARS = 256 * 1024
#: How often the "waiting" column is refreshed while something is pending.
TICK_MS = 1000
#: A panel shorter than this many lines does not list a lone waiting request (:meth:`ServerRequestsPanel._fit_list`)
SHORT_PANEL_LINES = 24
#: The height the params, the form and the answer share before the panel is first laid out, in lines
PARTS_NOMINAL_LINES = 30
#: Error answers the user is offered first: sampling's is the spec's own example
#: (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#error-handling).
DEFAULT_ERRORS: dict[str, tuple[int, str]] = {
    "sampling/createMessage": (-1, "User rejected sampling request"),
    "elicitation/create": (-1, "User rejected the elicitation request"),
}
FALLBACK_ERROR = (-32603, "Rejected by the user in mcp-inspector")
#: What this panel lets the client declare (``Session.client_capabilities`` asks the handler).
CAPABILITIES: dict[str, Any] = {"sampling": {}, "elicitation": {"form": {}, "url": {}}}

#: the stop reasons the sampling spec names; the field is an open string, so others can be typed
STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")

COL_METHOD, COL_WAITING, COL_SUMMARY = range(3)
ANSWER_TIP = "Send the result above (Ctrl+Enter)"
ACCEPT_TIP = "Accept with the content above (Ctrl+Enter)"
SEND_AS_TYPED_TIP = ("Send the answer above exactly as typed, although it breaks the schema: to see what the server "
                     "does with it (the timeline flags it)")
STATUS_COLOURS = {"ok": ("#1a7f37", "#7ee787"), "warning": ("#9a6700", "#e3b341"), "error": ("#cf222e", "#ff7b72")}


def labelled(caption: str, editor: QWidget) -> QWidget:
    """``editor`` under a label naming it (the label is the editor's buddy), as one pane of a splitter."""
    pane = QWidget()
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    label = QLabel(caption, pane)
    label.setBuddy(editor)
    layout.addWidget(label)
    layout.addWidget(editor, 1)
    return pane


@dataclass(eq=False)
class PendingRequest:
    """One server request waiting for the user."""

    key: int
    request_id: Any
    has_id: bool
    method: str
    params: Any
    future: asyncio.Future[Any]
    started: float
    item: QTreeWidgetItem
    draft: str = ""
    error: tuple[int, str] = FALLBACK_ERROR
    extra: dict[str, Any] = field(default_factory=dict)


def _loads(text: str) -> tuple[Any, bool]:
    """The JSON of ``text`` and True, or None and False when it does not parse."""
    try:
        return json.loads(text), True
    except ValueError:
        return None, False


class _PanelHandler(ServerRequestHandler):
    """``Session(server_request_handler=...)``: each request waits in the panel until the user answers."""

    #: the session stops the clocks of the requests a server request belongs to while the user is asked
    waits_for_user = True

    def __init__(self, panel: ServerRequestsPanel) -> None:
        self._panel = panel

    async def __call__(self, method: str, params: Any) -> Any:
        # The session does not pass the request's id to handlers: the panel keys it locally.
        return await self._panel.add_request(None, method, params)

    def capabilities(self) -> dict[str, Any]:
        return json.loads(json.dumps(CAPABILITIES))

    def attached(self, session: Session) -> None:
        # answers are judged against the session's revision, as the timeline judges them once sent
        self._panel.revision_of = lambda: session.server.protocol_version if session.server is not None else None


class ServerRequestsPanel(QWidget):
    """Pending server requests and the editor to answer them.

    ``pending_changed(int)`` fires with the number of pending requests whenever it changes.
    """

    pending_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, loop: asyncio.AbstractEventLoop | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._loop = loop
        self._clock = clock
        self._pending: dict[int, PendingRequest] = {}
        self._keys = itertools.count(1)
        self._shown: PendingRequest | None = None
        #: the revision answers are judged by (the session's, once a handler of this panel is attached to one)
        self.revision_of: Callable[[], str | None] = lambda: None
        self._build()
        self._show(None)
        self._update_header()

    # -- construction ----------------------------------------------------------------------------------

    def _build(self) -> None:
        self.header = QLabel(self)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)

        self.list = QTreeWidget(self)
        self.list.setObjectName("pending")
        self.list.setColumnCount(3)
        self.list.setHeaderLabels(["Method", "Waiting", "Summary"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAllColumnsShowFocus(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.list.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(COL_METHOD, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_WAITING, QHeaderView.ResizeMode.ResizeToContents)

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.message = QLabel(self)
        self.message.setObjectName("message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setWordWrap(True)
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.params_view = QPlainTextEdit(self)
        self.params_view.setObjectName("params")
        self.params_view.setReadOnly(True)
        self.params_view.setFont(mono)
        self.params_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.params_highlighter = JsonHighlighter(self.params_view.document(), self.params_view.palette())
        self.answer_editor = QPlainTextEdit(self)
        self.answer_editor.setObjectName("answer")
        self.answer_editor.setFont(mono)
        self.answer_editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.answer_editor.setTabStopDistance(self.answer_editor.fontMetrics().horizontalAdvance(" ") * 2)
        self.answer_highlighter = JsonHighlighter(self.answer_editor.document(), self.answer_editor.palette())
        self.answer_status = QLabel(self)
        self.answer_status.setTextFormat(Qt.TextFormat.PlainText)
        self.answer_status.setWordWrap(True)
        self.answer_status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.answer_button = QPushButton("Answer", self)
        self.answer_button.setToolTip(ANSWER_TIP)
        self.accept_button = QPushButton("Accept", self)
        self.accept_button.setToolTip(ACCEPT_TIP)
        self.decline_button = QPushButton("Decline", self)
        self.decline_button.setToolTip('Answer {"action": "decline"}: the user said no')
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip('Answer {"action": "cancel"}: the user dismissed the request')
        for button in (self.answer_button, self.accept_button, self.decline_button, self.cancel_button):
            button.setAutoDefault(False)
        actions = QHBoxLayout()
        actions.addWidget(self.answer_button)
        actions.addWidget(self.accept_button)
        actions.addWidget(self.decline_button)
        actions.addWidget(self.cancel_button)
        actions.addStretch(1)

        self.error_code = guard_wheel(QSpinBox(self))
        self.error_code.setRange(-2**31, 2**31 - 1)
        self.error_code.setToolTip("JSON-RPC error code")
        self.error_code.setMaximumWidth(self.error_code.fontMetrics().horizontalAdvance("-3260300") + 36)
        self.error_message = QLineEdit(self)
        self.error_message.setPlaceholderText("error message")
        self.error_button = QPushButton("Answer with error", self)
        self.error_button.setAutoDefault(False)
        error_label = QLabel("Error", self)
        error_label.setBuddy(self.error_code)
        errors = QHBoxLayout()
        errors.addWidget(error_label)
        errors.addWidget(self.error_code)
        errors.addWidget(self.error_message, 1)
        errors.addWidget(self.error_button)

        self._build_reply_forms()

        # what is asked, the params, the form and the answer share the height the user gives them (the form the
        # most); the form scrolls its own fields, and what they need is never pushed onto the window (at 1280x720 it
        # made the window taller than the screen). One scroll area: inside a second one that scrolled the whole
        # pane, a 2x screen showed about one field (issue 39). The answer's status and buttons stay in sight below.
        asked = QWidget(self)
        asked_layout = QVBoxLayout(asked)
        asked_layout.setContentsMargins(0, 0, 0, 0)
        asked_layout.addWidget(self.title)
        asked_layout.addWidget(self.message)
        self.parts = QSplitter(Qt.Orientation.Vertical, asked)
        self.parts.addWidget(labelled("Params (from the server)", self.params_view))
        self.parts.addWidget(self.reply_forms)
        self.parts.addWidget(labelled("Answer (result)", self.answer_editor))
        for index, stretch in enumerate((1, 4, 2)):
            self.parts.setStretchFactor(index, stretch)
        asked_layout.addWidget(self.parts, 1)
        self.details = QWidget(self)
        details = QVBoxLayout(self.details)
        details.setContentsMargins(0, 0, 0, 0)
        details.addWidget(asked, 1)
        details.addWidget(self.answer_status)
        details.addLayout(actions)
        details.addLayout(errors)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(self.details)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 4)
        line = self.fontMetrics().height()
        self.list.setMinimumHeight(3 * line)  # its header and a row: the rest of a small screen is the answer's
        self.splitter.setSizes([5 * line, 30 * line])  # a few waiting requests in sight; the rest for the answer
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.splitter, 1)

        self.list.currentItemChanged.connect(lambda current, _previous: self._current_changed(current))
        self.answer_editor.textChanged.connect(self._answer_changed)
        self.answer_button.clicked.connect(lambda: self.answer())
        self.accept_button.clicked.connect(lambda: self.elicitation_action("accept"))
        self.decline_button.clicked.connect(lambda: self.elicitation_action("decline"))
        self.cancel_button.clicked.connect(lambda: self.elicitation_action("cancel"))
        self.error_button.clicked.connect(lambda: self.answer_error())
        self.answer_editor.installEventFilter(self)

        self._ticker = QTimer(self)
        self._ticker.setInterval(TICK_MS)
        self._ticker.timeout.connect(self._tick)

    def _build_reply_forms(self) -> None:
        """The reply forms: a page per elicitation form (added per request), the URL page, the sampling page."""
        self._syncing = False
        self.reply_forms = QStackedWidget(self)
        self.reply_forms.setObjectName("reply-forms")
        self._no_form = QWidget(self.reply_forms)
        self.reply_forms.addWidget(self._no_form)
        self._forms: dict[int, SchemaForm] = {}

        self.url_page = QWidget(self.reply_forms)
        url_layout = QVBoxLayout(self.url_page)
        url_layout.setContentsMargins(0, 0, 0, 0)
        url_note = QLabel("The server asks you to open this URL. mcp-inspector never opens it: copy it into a "
                          "browser if you trust it, then Accept; or Decline or Cancel.", self.url_page)
        url_note.setTextFormat(Qt.TextFormat.PlainText)
        url_note.setWordWrap(True)
        self.url_edit = QLineEdit(self.url_page)
        self.url_edit.setObjectName("url")
        self.url_edit.setReadOnly(True)
        self.copy_url_button = QPushButton("Copy URL", self.url_page)
        self.copy_url_button.setAutoDefault(False)
        self.copy_url_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.url_edit.text()))
        url_row = QHBoxLayout()
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.copy_url_button)
        url_layout.addWidget(url_note)
        url_layout.addLayout(url_row)
        url_layout.addStretch(1)
        self.reply_forms.addWidget(self.url_page)

        self.sampling_page = QWidget(self.reply_forms)
        sampling = QFormLayout(self.sampling_page)
        sampling.setContentsMargins(0, 0, 0, 0)
        self.sampling_text = QPlainTextEdit(self.sampling_page)
        self.sampling_text.setObjectName("sampling-text")
        self.sampling_text.setPlaceholderText("the assistant's reply")
        self.sampling_text.setTabChangesFocus(True)
        self.sampling_model = QLineEdit(self.sampling_page)
        self.sampling_model.setObjectName("sampling-model")
        self.sampling_stop = guard_wheel(QComboBox(self.sampling_page))
        self.sampling_stop.setObjectName("sampling-stop")
        self.sampling_stop.setEditable(True)
        self.sampling_stop.addItems(["", *STOP_REASONS])
        self.sampling_stop.lineEdit().setPlaceholderText("not sent")  # type: ignore[union-attr]  # editable: it has one
        sampling.addRow("Reply text", self.sampling_text)
        sampling.addRow("Model", self.sampling_model)
        sampling.addRow("Stop reason", self.sampling_stop)
        self.reply_forms.addWidget(self.sampling_page)
        self.sampling_text.textChanged.connect(self._sampling_edited)
        self.sampling_model.textEdited.connect(lambda _t: self._sampling_edited())
        self.sampling_stop.currentTextChanged.connect(lambda _t: self._sampling_edited())
        for widget in (self.reply_forms,):
            shortcut = QShortcut(QKeySequence("Ctrl+Return"), widget)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self._answer_shown)

    # -- public API ------------------------------------------------------------------------------------

    def add_request(self, request_id: Any, method: str, params: Any) -> asyncio.Future[Any]:
        """List a server request; the future gets the user's result, or RpcError for an error answer, and is
        cancelled if the server cancels the request (:meth:`cancel`). ``request_id`` None means unknown.

        Futures belong to the loop given to the constructor, else to the running loop.
        """
        loop = self._loop or asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        key = next(self._keys)
        item = QTreeWidgetItem([method, waited(0), summary(method, params)])
        item.setData(COL_METHOD, Qt.ItemDataRole.UserRole, key)
        reply = compose.server_request_reply(method, params)
        form = self._elicitation_form(key, params) if method == "elicitation/create" else None
        if form is not None:
            reply = {"action": "accept", "content": form.arguments()}
        pending = PendingRequest(key, request_id, request_id is not None, method, params, future, self._clock(),
                                 item, draft=json.dumps(reply, indent=2, ensure_ascii=False),
                                 error=DEFAULT_ERRORS.get(method, FALLBACK_ERROR))
        self._pending[key] = pending
        future.add_done_callback(lambda _f: self._forget(key))
        self.list.addTopLevelItem(item)
        if self.list.currentItem() is None:
            self.list.setCurrentItem(item)
        if not self._ticker.isActive():
            self._ticker.start()
        self._update_header()
        self.pending_changed.emit(len(self._pending))
        return future

    def cancel(self, request_id: Any) -> bool:
        """The server cancelled ``request_id`` (notifications/cancelled): drop it and cancel its future."""
        for pending in self._pending.values():
            if pending.has_id and same_id(pending.request_id, request_id):
                self._remove(pending)
                pending.future.cancel()
                return True
        return False

    def cancel_all(self) -> None:
        """The session ended: nothing can be answered any more."""
        for pending in list(self._pending.values()):
            self._remove(pending)
            pending.future.cancel()

    def handler(self) -> _PanelHandler:
        """An async callable ``(method, params) -> result`` for ``Session(server_request_handler=...)``; its
        ``capabilities()`` declares sampling and elicitation (form and URL), which this panel answers."""
        return _PanelHandler(self)

    def count(self) -> int:
        return len(self._pending)

    def pending(self) -> list[PendingRequest]:
        """In arrival order."""
        return list(self._pending.values())

    def current(self) -> PendingRequest | None:
        return self._shown

    def select(self, key: int) -> None:
        pending = self._pending.get(key)
        if pending is not None:
            self.list.setCurrentItem(pending.item)

    def answer(self, result: Any = None, key: int | None = None) -> bool:
        """Answer with ``result``, or with the editor's JSON when None. Returns whether it was answered."""
        pending = self._target(key)
        if pending is None:
            return False
        if result is None:
            validation = self._check(pending)
            if not validation.ok:
                return False
            result = validation.obj
        self._remove(pending)
        if not pending.future.done():
            pending.future.set_result(result)
        return True

    def answer_error(self, code: int | None = None, message: str | None = None, data: Any = None,
                     key: int | None = None) -> bool:
        """Answer with a JSON-RPC error (the code and message fields when not given)."""
        pending = self._target(key)
        if pending is None:
            return False
        if code is None:
            code = self.error_code.value()
        if message is None:
            message = self.error_message.text() or pending.error[1]
        self._remove(pending)
        if not pending.future.done():
            pending.future.set_exception(RpcError(code, message, data))
        return True

    def elicitation_action(self, action: str, key: int | None = None) -> bool:
        """Answer an elicitation: ``accept`` with the editor's content, ``decline`` or ``cancel`` without."""
        if action not in ("accept", "decline", "cancel"):
            raise ValueError(f"unknown elicitation action {action!r}")
        if action != "accept":
            return self.answer({"action": action}, key)
        pending = self._target(key)
        if pending is None:
            return False
        validation = self._check(pending)
        if validation.severity != "ok":  # "Send as typed" (answer()) sends an answer that breaks the schema
            return False
        result = dict(validation.obj) if isinstance(validation.obj, dict) else {"content": validation.obj}
        result["action"] = "accept"
        return self.answer(result, key)

    # -- internals -------------------------------------------------------------------------------------

    def _target(self, key: int | None) -> PendingRequest | None:
        if key is None:
            return self._shown
        return self._pending.get(key)

    def _forget(self, key: int) -> None:
        """Done callback: a future finished elsewhere (its awaiting task was cancelled, ...)."""
        pending = self._pending.get(key)
        if pending is not None:
            try:
                self._remove(pending)
            except RuntimeError:  # the panel's widgets were already deleted (window closed)
                pass

    def _remove(self, pending: PendingRequest) -> None:
        if self._pending.pop(pending.key, None) is None:
            return
        form = self._forms.pop(pending.key, None)
        if form is not None:
            self.reply_forms.removeWidget(form)
            form.deleteLater()
        if self._shown is pending:
            self._shown = None
        index = self.list.indexOfTopLevelItem(pending.item)
        if index >= 0:
            self.list.takeTopLevelItem(index)
        if not self._pending:
            self._ticker.stop()
        neighbour = self.list.topLevelItem(min(index, self.list.topLevelItemCount() - 1))
        if self.list.currentItem() is None and neighbour is not None:
            self.list.setCurrentItem(neighbour)
        elif self.list.currentItem() is None:
            self._show(None)
        self._update_header()
        self.pending_changed.emit(len(self._pending))

    def _current_changed(self, item: QTreeWidgetItem | None) -> None:
        key = item.data(COL_METHOD, Qt.ItemDataRole.UserRole) if item is not None else None
        self._show(self._pending.get(key) if key is not None else None)

    def _show(self, pending: PendingRequest | None) -> None:
        previous = self._shown
        if previous is not None and previous.key in self._pending:
            previous.draft = self.answer_editor.toPlainText()
            previous.error = (self.error_code.value(), self.error_message.text())
        self._shown = pending
        self.details.setVisible(pending is not None)
        if pending is None:
            return
        params = pending.params if isinstance(pending.params, dict) else {}
        ident = f" · request id {one_line(json.dumps(pending.request_id, ensure_ascii=False), 40)}" \
            if pending.has_id else ""
        self.title.setText(f"{pending.method}{ident}")
        message = params.get("message") if pending.method == "elicitation/create" else None
        if isinstance(message, str):
            url = params.get("url") if params.get("mode") == "url" else None
            self.message.setText(f"The server asks: {message}" + (f"\nURL: {url}" if isinstance(url, str) else ""))
        self.message.setVisible(isinstance(message, str))
        text = json.dumps(pending.params, indent=2, ensure_ascii=False)
        if len(text) > PARAMS_PREVIEW_CHARS:
            text = text[:PARAMS_PREVIEW_CHARS] + f"\n… {len(text) - PARAMS_PREVIEW_CHARS:,} more characters"
        self.params_view.setPlainText(text)
        self._syncing = True
        try:
            self.answer_editor.setPlainText(pending.draft)
        finally:
            self._syncing = False
        self._show_reply_form(pending)
        self._share_parts()
        self.error_code.setValue(pending.error[0])
        self.error_message.setText(pending.error[1])
        self.error_message.setCursorPosition(0)
        eliciting = pending.method == "elicitation/create"
        self.answer_button.setVisible(not eliciting)
        self.answer_button.setText("Send as typed" if eliciting else "Answer")
        self.answer_button.setToolTip(SEND_AS_TYPED_TIP if eliciting else ANSWER_TIP)
        for button in (self.accept_button, self.decline_button, self.cancel_button):
            button.setVisible(eliciting)
        self._answer_changed()

    # -- reply forms ----------------------------------------------------------------------------------

    def reply_form(self, key: int | None = None) -> SchemaForm | None:
        """The elicitation form of the request ``key`` (the one shown when None), if it has one."""
        pending = self._target(key)
        return self._forms.get(pending.key) if pending is not None else None

    def _elicitation_form(self, key: int, params: Any) -> SchemaForm | None:
        params = params if isinstance(params, dict) else {}
        schema = params.get("requestedSchema")
        if params.get("mode") == "url" or not isinstance(schema, dict):
            return None
        # as the judge: the server's own defaults; its sentences name result.content, as the answer's check does
        form = SchemaForm(schema, self.reply_forms, trust_defaults=True, named="result.content")
        form.setObjectName("elicitation-form")
        form.changed.connect(lambda args, key=key: self._form_edited(key, args))
        self._forms[key] = form
        self.reply_forms.addWidget(form)
        return form

    def _share_parts(self) -> None:
        """A form gets the height of the params (folded: the question is above it) and all but a few lines of the
        answer's; without a form, the params and the answer share it. The user's splitter drags are kept until
        the next request is shown."""
        line = self.fontMetrics().lineSpacing()
        # not laid out yet (the first request, shown while the details were hidden): shares by nominal sizes,
        # which the splitter scales to its height; a share of 0 would fold a pane for good
        total = sum(self.parts.sizes()) or self.parts.height() or PARTS_NOMINAL_LINES * line
        # a few lines of the answer where there is room; on a small screen the form's fields come first (the
        # answer is folded: dragged open, or the JSON button shows the same arguments)
        answer = 4 * line if total >= 16 * line else 0
        if self.reply_forms.isVisibleTo(self):
            self.parts.setSizes([0, max(total - answer, 0), answer])
        else:
            self.parts.setSizes([total // 3, 0, total - total // 3])

    def _show_reply_form(self, pending: PendingRequest) -> None:
        params = pending.params if isinstance(pending.params, dict) else {}
        form = self._forms.get(pending.key)
        if form is not None:
            self.reply_forms.setCurrentWidget(form)
        elif pending.method == "elicitation/create" and params.get("mode") == "url":
            url = params.get("url")
            self.url_edit.setText(url if isinstance(url, str) else "")
            self.url_edit.setCursorPosition(0)
            self.reply_forms.setCurrentWidget(self.url_page)
        elif pending.method == "sampling/createMessage":
            self._fill_sampling_form(self.answer_editor.toPlainText())
            self.reply_forms.setCurrentWidget(self.sampling_page)
        else:
            self.reply_forms.setCurrentWidget(self._no_form)
        self.reply_forms.setVisible(self.reply_forms.currentWidget() is not self._no_form)

    def _form_edited(self, key: int, args: Any) -> None:
        """An elicitation form changed: its content goes into the answer editor (keeping the rest of it)."""
        if self._syncing or self._shown is None or self._shown.key != key:
            return
        obj, _problem = _loads(self.answer_editor.toPlainText())
        reply = obj if isinstance(obj, dict) else {}
        reply = {"action": "accept", **{k: v for k, v in reply.items() if k != "content"}, "content": args}
        self._set_answer_text(json.dumps(reply, indent=2, ensure_ascii=False))

    def _sampling_edited(self) -> None:
        """The sampling form changed: text, model and stop reason go into the answer editor's result."""
        pending = self._shown
        if self._syncing or pending is None or pending.method != "sampling/createMessage":
            return
        obj, _problem = _loads(self.answer_editor.toPlainText())
        reply = dict(obj) if isinstance(obj, dict) else {}
        reply.setdefault("role", "assistant")
        reply["content"] = {"type": "text", "text": self.sampling_text.toPlainText()}
        reply["model"] = self.sampling_model.text()
        stop = self.sampling_stop.currentText().strip()
        if stop:
            reply["stopReason"] = stop
        else:
            reply.pop("stopReason", None)
        self._set_answer_text(json.dumps(reply, indent=2, ensure_ascii=False))

    def _set_answer_text(self, text: str) -> None:
        """Write the answer editor from a reply form (its textChanged updates the status, not the form)."""
        self._syncing = True
        try:
            self.answer_editor.setPlainText(text)
        finally:
            self._syncing = False

    def _fill_sampling_form(self, text: str) -> None:
        obj, _problem = _loads(text)
        if not isinstance(obj, dict):
            return
        content = obj.get("content")
        self._syncing = True
        try:
            if isinstance(content, dict) and content.get("type") == "text" and isinstance(content.get("text"), str):
                if self.sampling_text.toPlainText() != content["text"]:
                    self.sampling_text.setPlainText(content["text"])
            model = obj.get("model")
            self.sampling_model.setText(model if isinstance(model, str) else "")
            stop = obj.get("stopReason")
            self.sampling_stop.setCurrentText(stop if isinstance(stop, str) else "")
        finally:
            self._syncing = False

    def _answer_edited(self) -> None:
        """The answer editor changed by hand: the shown reply form follows when the JSON parses."""
        pending = self._shown
        if self._syncing or pending is None:
            return
        text = self.answer_editor.toPlainText()
        form = self._forms.get(pending.key)
        if form is not None:
            obj, _problem = _loads(text)
            if isinstance(obj, dict) and isinstance(obj.get("content"), dict):
                self._syncing = True
                try:
                    form.set_arguments(obj["content"])
                finally:
                    self._syncing = False
        elif pending.method == "sampling/createMessage":
            self._fill_sampling_form(text)

    def _answer_shown(self) -> None:
        """Ctrl+Enter in a reply form: accept an elicitation, else answer."""
        pending = self._shown
        if pending is not None and pending.method == "elicitation/create":
            self.elicitation_action("accept")
        elif pending is not None:
            self.answer()

    def _answer_changed(self) -> None:
        pending = self._shown
        if pending is None:
            return
        self._answer_edited()
        validation = self._check(pending)
        self.answer_status.setText(validation.message)
        self.answer_status.setProperty("severity", validation.severity)
        light, dark = STATUS_COLOURS[validation.severity]
        palette = self.answer_status.palette()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(self.palette()) else light))
        self.answer_status.setPalette(palette)
        self.answer_button.setEnabled(validation.ok)
        valid = validation.severity == "ok"
        self.accept_button.setEnabled(valid)
        self.accept_button.setToolTip(ACCEPT_TIP if valid else f"Not while the answer is invalid: "
                                      f"{validation.message.removeprefix('sendable, but ')}. Send as typed sends it "
                                      "anyway, to see what the server does with it.")
        if pending.method == "elicitation/create":  # the raw way out, only when the checked way is closed
            self.answer_button.setVisible(validation.ok and not valid)

    def _check(self, pending: PendingRequest) -> compose.Validation:
        """The editor's answer to ``pending``, judged as the timeline will judge it once sent; for an elicitation,
        the answer Accept sends (the editor's object with ``"action": "accept"``)."""
        text = self.answer_editor.toPlainText()
        if pending.method == "elicitation/create":
            obj, _problem = _loads(text)
            if isinstance(obj, dict) and obj.get("action") != "accept":
                text = json.dumps({**obj, "action": "accept"}, ensure_ascii=False)
        return compose.check_reply(pending.method, text, revision=self.revision_of(), params=pending.params)

    def _update_header(self) -> None:
        count = len(self._pending)
        self._fit_list()
        if count:
            self.header.setText(f"{count} pending server request{'s' if count != 1 else ''}: the server waits "
                                "for your answer")
        else:
            self.header.setText("No pending server requests. Sampling, elicitation and other requests from the "
                                "server appear here to be answered.")

    def _fit_list(self) -> None:
        """In a short panel (a small screen, a large scale), one waiting request is neither listed nor counted in
        the header: the tab's title counts it ("Server requests (1)") and the title above its form names it, and
        their lines go to the answer form (issue 39: at 2x on a 1920x1080 screen the form showed about one field,
        at 1.5x on 1280x720 none). Two or more are listed, to choose between."""
        short = self.height() < SHORT_PANEL_LINES * self.fontMetrics().lineSpacing()
        listed = len(self._pending) != 1 or not short
        self.list.setVisible(listed)
        self.header.setVisible(listed)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_list()

    def _tick(self) -> None:
        now = self._clock()
        for pending in self._pending.values():
            pending.item.setText(COL_WAITING, waited(now - pending.started))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.params_highlighter.set_palette(self.palette())
            self.answer_highlighter.set_palette(self.palette())
            self._answer_changed()
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.answer_editor and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                    and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                pending = self._shown
                if pending is not None and pending.method == "elicitation/create":
                    self.elicitation_action("accept")
                else:
                    self.answer()
                return True
        return super().eventFilter(watched, event)


__all__ = ["ServerRequestsPanel", "PendingRequest", "summary", "CAPABILITIES"]
