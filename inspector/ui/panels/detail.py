"""The detail pane: one event in full. Pretty JSON, the exact raw text, a hex view, the HTTP exchange, findings.

A message over :data:`PREVIEW_BYTES` shows a preview at once: its first :data:`PREVIEW_TEXT_BYTES`,
re-indented without parsing (:class:`~inspector.core.present.pretty.PrettyPrinter`), so selecting a 50 MB result
costs as much as selecting a small one. A JSON message over :data:`~inspector.ui.panels.json_tree.IN_PLACE_BYTES`
is read (from a capture, a piece per turn of the loop) and parsed in the worker process as soon as it is
selected, and its Tree tab browses it a level at a time ("Browse"); smaller ones get their tree when the tab is
first shown. "Show all" has the worker pretty-print (and fold) the whole message, then appends it to the editor
a chunk per turn of the loop (:data:`FEED_SECONDS`), colouring only the lines on screen
(:class:`~inspector.ui.panels.visible_colours.VisibleColours`): JSON parsing and lexing hold the interpreter
(a worker thread would freeze the window just the same). Long lines are folded (marked ↩), since an editor
lays out a line of millions of characters very slowly. Everything is plain text (QPlainTextEdit, the tree's
cells): server content is never interpreted as markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

import inspector.core.explore.caching  # noqa: F401  (imported for its effect: registers the caching hints' notes)
from inspector.core import offload
from inspector.core.capture.index import PartialEvent
from inspector.core.present import json_tree
from inspector.core.present.annotations import message_notes
from inspector.core.present.describe import describe_http, describe_lifecycle, hexdump
from inspector.core.present.pretty import PrettyPrinter, fold_text
from inspector.core.wire.app_lane import describe as describe_app
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.intercepted import describe, mark_of
from inspector.ui.json_highlighter import JsonHighlighter
from inspector.ui.panels.json_tree import IN_PLACE_BYTES, JsonTreeView, _Inbox
from inspector.ui.panels.visible_colours import VisibleColours

#: Messages up to this size are parsed, pretty-printed and highlighted at once.
PREVIEW_BYTES = 256 * 1024
#: A bigger message's preview: this much of its start, re-indented.
PREVIEW_TEXT_BYTES = 64 * 1024
#: Above this many characters, text set at once is shown without syntax colours.
HIGHLIGHT_LIMIT = 512 * 1024
#: The hex view shows at most this much.
HEX_BYTES = 64 * 1024
#: Reading a capture's long line for the tree or "Show all" takes at most about this long per turn of the loop.
SLICE_SECONDS = 0.01
#: "Show all" appends formatted text for about this long per turn of the loop (an editor's insertion cannot be
#: cut short, so the chunk size is tuned to the time the last one took).
FEED_SECONDS = 0.02
#: The first chunk "Show all" appends, in characters (then tuned to FEED_SECONDS).
FEED_CHARS = 256 * 1024


def pretty(raw: bytes) -> str:
    """Indented JSON, or the text as it is when it is not JSON."""
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return raw.decode("utf-8", errors="replace")


def _invalid_utf8(data: bytes) -> bool:
    """Whether ``data`` is not UTF-8 (a character cut at its end does not count)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.end < len(data) or exc.reason != "unexpected end of data"
    return False


def _about(event: Event) -> str:
    """"about " when an event's size is an estimate (a long capture line not yet read whole)."""
    return "about " if isinstance(event, PartialEvent) else ""


def _append(editor: QPlainTextEdit, text: str) -> None:
    if text:
        cursor = QTextCursor(editor.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)


def _editor(parent: QWidget) -> QPlainTextEdit:
    editor = QPlainTextEdit(parent)
    editor.setReadOnly(True)
    editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    return editor


class DetailView(QWidget):
    #: "Show all"'s formatted text is all in the Message tab, its lines on screen coloured
    text_shown = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.pretty = _editor(self)
        self.highlighter = JsonHighlighter(self.pretty.document())
        self.raw = _editor(self)
        self.hex = _editor(self)
        self.http = _editor(self)
        self.info = _editor(self)
        self.info.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # findings are sentences: read whole
        self.tree = JsonTreeView(self)
        self.colours = VisibleColours(self.pretty, self.highlighter)
        self.tabs.addTab(self.pretty, "Message")
        self.tabs.addTab(self.tree, "Tree")
        self.tabs.addTab(self.raw, "Raw")
        self.tabs.addTab(self.hex, "Hex")
        self.tabs.addTab(self.http, "HTTP")
        self.tabs.addTab(self.info, "Findings")
        self.banner = QLabel(self)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setWordWrap(True)
        self.show_all = QPushButton("Show all", self)
        self.show_all.clicked.connect(self._show_all_clicked)
        self.browse = QPushButton("Browse", self)
        self.browse.setToolTip("The whole message as a tree, expanded a level at a time (the Tree tab)")
        self.browse.clicked.connect(lambda: self.tabs.setCurrentWidget(self.tree))
        bar = QHBoxLayout()
        bar.addWidget(self.banner, 1)
        bar.addWidget(self.browse)
        bar.addWidget(self.show_all)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        #: what a message carries beyond its text: caching hints, trace context (core/present/annotations.py)
        self.notes = QLabel(self)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a line per note, whole (a wrapped label's height is not always given it); cut at the pane's edge, the
        # whole text in its tooltip, and never widening the pane
        self.notes.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.notes)
        layout.addWidget(self.tabs)
        self.current: Event | None = None
        self.lookup_exchange: Any = None  # callable(exchange number) -> list of http events, set by the tab
        #: callable(event) -> the event's raw bytes in pieces, or None (set by a tab showing a capture index)
        self.raw_pieces: Any = None
        #: callable(event) -> findings kept beside it (the protocol judge's), shown after its own; set by the tab
        self.extra_findings: Any = None
        self._later: dict[QPlainTextEdit, tuple[Any, bool]] = {}  # tabs filled when first shown
        self.tabs.currentChanged.connect(self._tab_changed)
        self._inbox = _Inbox(self)
        self._generation = 0  # bumped per event shown: a worker's late answer for another one is dropped
        self._tree_for: Event | None = None  # its tree is made when the Tree tab is first shown
        self._whole: tuple[Event, bytes] | None = None  # the shown event's raw bytes, read whole
        self._collect: Iterator[None] | None = None
        self._waiting: list[Callable[[bytes], None]] = []
        self._collect_timer = QTimer(self)
        self._collect_timer.setInterval(0)
        self._collect_timer.timeout.connect(self._continue_collect)
        self._formatting = False
        self._feed: list[tuple[QPlainTextEdit, bytes, int]] = []  # (editor, UTF-8 text, bytes appended so far)
        self._feed_chars = FEED_CHARS
        self._feed_timer = QTimer(self)
        self._feed_timer.setInterval(0)
        self._feed_timer.timeout.connect(self._continue_feed)
        self.clear()

    def clear(self) -> None:
        self._stop_full()
        self._later.clear()
        self.current = None
        for editor in (self.pretty, self.raw, self.hex, self.http, self.info):
            editor.setPlainText("")
        self.tree.clear()
        self.banner.setText("Select an event in the timeline.")
        self.notes.hide()
        self.show_all.hide()
        self.browse.hide()

    def show_event(self, event: Event) -> None:
        self.current = event
        found = mark_of(event.data) if event.data else None  # what an intercept rule or a breakpoint did to it
        notes = "\n".join(([f"intercepted: {describe(found)}"] if found is not None else []) + message_notes(event))
        self.notes.setText(notes)
        self.notes.setToolTip(notes)
        self.notes.setVisible(bool(notes))
        self._stop_full()
        size = event.size
        big = size > PREVIEW_BYTES
        self.show_all.setVisible(big)
        self.show_all.setEnabled(True)
        self._later.clear()
        self._start_tree(event)
        if big:
            head = event.raw[:PREVIEW_TEXT_BYTES]
            self.banner.setText(self._headline(event) + f" · showing the first {len(head) // 1024} KB of "
                                f"{_about(event)}{size:,} bytes (long lines folded at ↩)")
            printer = PrettyPrinter()
            is_json = event.kind == Kind.MESSAGE or event.rpc is not None
            preview = printer.feed(head) + printer.close() if is_json else \
                fold_text(head.decode("utf-8", errors="replace"))
            self._set_text(self.pretty, preview + "\n…", folded=True)
            self._fill_later(self.raw, lambda: fold_text(head.decode("utf-8", errors="replace")) + "\n…", True)
            invalid_utf8 = _invalid_utf8(head)
        else:
            self.banner.setText(self._headline(event))
            self._set_text(self.pretty, self._pretty_text(event), folded=False)
            self._fill_later(self.raw, lambda: event.raw.decode("utf-8", errors="replace") + self._eol_note(event),
                             False)
            invalid_utf8 = _invalid_utf8(event.raw)
        self._fill_later(self.hex, lambda: hexdump(event.raw[:HEX_BYTES], total=size) if event.raw else "", False)
        self._tab_changed()
        self.http.setPlainText(self._http_text(event))
        extra = self.extra_findings(event) if self.extra_findings is not None else []
        self.info.setPlainText(self._info_text(event, extra))
        if invalid_utf8:
            self.tabs.setCurrentWidget(self.hex)
        elif event.kind == Kind.HTTP:
            self.tabs.setCurrentWidget(self.http)
        elif event.kind in (Kind.LIFECYCLE, Kind.NOTE) or (event.kind == Kind.APP and not event.raw):
            self.tabs.setCurrentWidget(self.info)

    def _pretty_text(self, event: Event) -> str:
        if event.kind in (Kind.MESSAGE,) or (event.kind in (Kind.FRAMING_ERROR, Kind.APP) and event.rpc is not None):
            return pretty(event.raw)
        if event.kind in (Kind.LIFECYCLE, Kind.NOTE, Kind.HTTP, Kind.APP):  # an app event that is no message
            return json.dumps({k: v for k, v in event.data.items() if not isinstance(v, bytes)}, indent=2,
                              ensure_ascii=False, default=str)
        return event.raw.decode("utf-8", errors="replace")

    def _fill_later(self, editor: QPlainTextEdit, text: Any, folded: bool) -> None:
        """Fill ``editor`` with ``text()`` when its tab is first shown (the raw and hex views of a big
        message cost as much as its preview, and are seldom looked at)."""
        editor.clear()
        self._later[editor] = (text, folded)

    def _tab_changed(self) -> None:
        if self.tabs.currentWidget() is self.tree and self._tree_for is not None:
            event, self._tree_for = self._tree_for, None
            self._with_whole(event, lambda raw: self.tree.load(raw, reading=False))
        editor = self.tabs.currentWidget()
        if not isinstance(editor, QPlainTextEdit):
            return
        later = self._later.pop(editor, None)
        if later is not None:
            text, folded = later
            self._set_text(editor, text(), folded=folded)

    def _set_text(self, editor: QPlainTextEdit, text: str, *, folded: bool) -> None:
        """Folded text is wrapped at the widget's width (its lines are short enough to lay out quickly);
        other text keeps its lines as they are."""
        editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if folded
                               else QPlainTextEdit.LineWrapMode.NoWrap)
        if editor is self.pretty:
            self.highlighter.setDocument(self.pretty.document() if len(text) <= HIGHLIGHT_LIMIT else None)
        editor.setPlainText(text)

    # -- the tree ---------------------------------------------------------------------------------------

    def _start_tree(self, event: Event) -> None:
        """A JSON message over IN_PLACE_BYTES is parsed in the worker now (browsable within a second of being
        selected); a smaller one when the Tree tab is first shown."""
        self._tree_for = None
        self.tree.clear()
        is_json = event.kind == Kind.MESSAGE or event.rpc is not None
        big = event.size > IN_PLACE_BYTES
        self.browse.setVisible(is_json and big)
        if not is_json:
            self.tree.say("Only JSON messages have a tree.")
        elif big:
            self.tree.say(f"Reading {_about(event)}{event.size:,} bytes in the background…")
            self._with_whole(event, self.tree.load)
        else:
            self._tree_for = event
            if self.tabs.currentWidget() is self.tree:
                self._tab_changed()

    def _with_whole(self, event: Event, then: Callable[[bytes], None]) -> None:
        """``then(raw)`` with all of the event's raw bytes: at once when it holds them, else once they are
        read from the capture, a piece per turn of the loop."""
        if self._whole is not None and self._whole[0] is event:
            then(self._whole[1])
            return
        pieces = self.raw_pieces(event) if self.raw_pieces is not None else None
        if pieces is None:
            self._whole = (event, event.raw)
            then(event.raw)
            return
        self._waiting.append(then)
        if self._collect is None:
            self._collect = self._collect_steps(event, pieces)
            self._collect_timer.start()
            self._continue_collect()

    def _collect_steps(self, event: Event, pieces: Iterator[bytes]) -> Iterator[None]:
        parts = []
        for piece in pieces:
            parts.append(piece)
            yield
        self._whole = (event, b"".join(parts))
        self._collect = None
        self._collect_timer.stop()
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then(self._whole[1])

    def _continue_collect(self) -> None:
        deadline = time.perf_counter() + SLICE_SECONDS
        while self._collect is not None and time.perf_counter() < deadline:
            try:
                next(self._collect)
            except StopIteration:
                break

    # -- show all ---------------------------------------------------------------------------------------

    def _show_all_clicked(self) -> None:
        event = self.current
        if event is None:
            return
        self.show_all.setEnabled(False)
        self.banner.setText(self._headline(event) + " · formatting all of it in the background…")
        self._later.pop(self.raw, None)
        self._formatting = True
        generation = self._generation
        self._with_whole(event, lambda raw: self._format_whole(event, raw, generation))

    def _format_whole(self, event: Event, raw: bytes, generation: int) -> None:
        if generation != self._generation:
            return
        is_json = event.kind == Kind.MESSAGE or event.rpc is not None
        model = self.tree.model
        kept = self._tree_for is None and model.parsed_in_worker  # the worker has it: not sent again
        future = offload.submit(json_tree.formatted, model.token if kept else "", None if kept else raw, is_json)

        def arrived(result: json_tree.Formatted | None, error: BaseException | None) -> None:
            if kept and isinstance(error, KeyError):  # the worker no longer keeps it: send it
                again = offload.submit(json_tree.formatted, "", raw, is_json)
                self._inbox.deliver(again, lambda result, error: self._formatted(event, generation, result, error,
                                                                                 coloured=is_json))
            else:
                self._formatted(event, generation, result, error, coloured=is_json)

        self._inbox.deliver(future, arrived)

    def _formatted(self, event: Event, generation: int, result: json_tree.Formatted | None,
                   error: BaseException | None, coloured: bool) -> None:
        if generation != self._generation:
            return
        if result is None:
            self.banner.setText(self._headline(event) + f" · could not be formatted: {error}.")
            self._stop_full()
            return
        self.highlighter.setDocument(None)  # colours come line by line as they are shown
        for editor in (self.pretty, self.raw):
            editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            editor.setPlainText("")
        if coloured:
            self.colours.start(result.states)
            self.colours.open_end = True
        self._feed = [(self.pretty, result.text, 0), (self.raw, result.raw_text, 0),
                      (self.raw, self._eol_note(event).encode("utf-8"), 0)]
        self._feed_timer.start()

    def _continue_feed(self) -> None:
        """Append the next chunk of the UTF-8 text at the head of the queue, decoded on its own (cut at a
        line's end, so a line is whole when it is coloured), sized so a turn takes about FEED_SECONDS."""
        if not self._feed:
            self._feed_timer.stop()
            return
        editor, text, done = self._feed[0]
        end = min(len(text), done + self._feed_chars)
        if end < len(text):
            newline = text.rfind(b"\n", done, end)
            if newline > done:
                end = newline + 1
            else:  # no line end in reach: cut between characters
                while end > done + 1 and text[end] & 0xC0 == 0x80:
                    end -= 1
        started = time.perf_counter()
        _append(editor, text[done:end].decode("utf-8", errors="replace"))
        took = time.perf_counter() - started
        self._feed_chars = max(16 * 1024, min(8 * 1024 * 1024, int(self._feed_chars * FEED_SECONDS / max(took, 1e-3))))
        if end < len(text):
            self._feed[0] = (editor, text, end)
            return
        self._feed.pop(0)
        if editor is self.pretty:
            self.colours.open_end = False
            self.colours.colour_visible()
            self.text_shown.emit()
        if not self._feed and self._formatting and self.current is not None:
            self._formatting = False
            self._feed_timer.stop()
            size = len(self._whole[1]) if self._whole is not None else self.current.size
            self.banner.setText(self._headline(self.current) + f" · all {size:,} bytes (long lines folded at ↩)")
            self.show_all.hide()

    @property
    def formatting(self) -> bool:
        """"Show all" is still going."""
        return self._formatting

    def _stop_full(self) -> None:
        self._generation += 1
        self._formatting = False
        self._feed.clear()
        self._feed_timer.stop()
        self._collect = None
        self._waiting.clear()
        self._collect_timer.stop()
        self._whole = None
        self.colours.stop()

    @staticmethod
    def _headline(event: Event) -> str:
        parts = [f"#{event.seq}", event.kind]
        if event.rpc is not None:
            parts.append(event.rpc.kind)
            if event.rpc.method:
                parts.append(event.rpc.method)
            if event.rpc.has_id:
                parts.append(f"id {json.dumps(event.rpc.id)}")
        if "latency" in event.data:
            parts.append(f"{event.data['latency'] * 1000:.1f} ms")
        if event.reason:
            parts.append(event.reason)
        return " · ".join(parts)

    @staticmethod
    def _eol_note(event: Event) -> str:
        if event.kind not in (Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.STDERR):
            return ""
        endings = {b"\n": "", b"\r\n": "\n\n[line ended with CR LF]", b"": "\n\n[no line terminator]"}
        return endings.get(event.eol, f"\n\n[terminator {event.eol!r}]")

    def _http_text(self, event: Event) -> str:
        if event.kind == Kind.HTTP:
            return http_exchange_text(event.data)
        exchange = event.data.get("exchange")
        if exchange is None or self.lookup_exchange is None:
            return "(not an HTTP event)"
        parts = [http_exchange_text(e.data) for e in self.lookup_exchange(exchange)]
        return "\n\n".join(parts) or f"(exchange {exchange} not found)"

    @staticmethod
    def _info_text(event: Event, extra: Any = ()) -> str:
        lines = []
        if event.reason:
            lines += ["Why this is a framing error:", "  " + event.reason, ""]
        for finding in [*event.findings, *extra]:
            severity = finding.severity if finding.severity in ("error", "info") else "warning"
            lines.append(f"{severity} [{finding.code}]: {finding.text}")
        if event.kind == Kind.LIFECYCLE:
            lines.append(describe_lifecycle(dict(event.data)))
        if event.kind == Kind.NOTE:
            lines.append(str(event.data.get("text", "")))
        if event.kind == Kind.APP and not event.raw:
            lines.append(describe_app(event.data))
        oversize = event.data.get("oversize")
        if isinstance(oversize, dict):
            lines.append(f"the line had {oversize.get('total_bytes', 0):,} bytes; the last "
                         f"{len(oversize.get('tail', b'')):,} were:")
            lines.append(bytes(oversize.get("tail", b""))[-2000:].decode("utf-8", errors="replace"))
        if not lines:
            lines.append("No findings.")
        lines += ["", f"seq {event.seq} · t {event.t:.6f} s · {_about(event)}{event.size:,} bytes"]
        return "\n".join(lines)


def http_exchange_text(data: Any) -> str:
    lines = [describe_http(data), ""]
    if "request_headers" in data:
        lines.append(f"{data.get('method')} {data.get('url')}")
        lines += [f"{k}: {v}" for k, v in data["request_headers"].items()]
        lines.append("")
    if "status" in data:
        lines.append(f"{data.get('http_version', 'HTTP')} {data['status']} {data.get('reason', '')}")
        lines += [f"{k}: {v}" for k, v in data.get("response_headers", {}).items()]
        lines.append("")
    if data.get("timing"):
        lines.append("timing: " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in data["timing"].items()))
    if data.get("snippet"):
        lines += ["", "body (excerpt):", data["snippet"]]
    if data.get("error"):
        lines += ["", data["error"]]
    return "\n".join(lines)
