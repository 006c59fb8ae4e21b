"""The detail pane: one event in full. Pretty JSON, the exact raw text, a hex view, the HTTP exchange, findings.

A message over :data:`PREVIEW_BYTES` shows a preview at once: its first :data:`PREVIEW_TEXT_BYTES`,
re-indented without parsing (:class:`~inspector.core.present.pretty.PrettyPrinter`), so selecting a 50 MB result
costs as much as selecting a small one. "Show all" then reads (from a capture, decodes) the whole message,
pretty-prints and highlights it in slices of :data:`SLICE_SECONDS` on the event loop, appending as it goes:
the window never freezes, and the start can be read while the rest arrives. JSON parsing and
highlighting hold the interpreter (a worker thread would freeze the window just the same). Long lines are
folded (marked ↩), since an editor lays out a line of millions of characters very slowly. Everything is
plain text (QPlainTextEdit): server content is never interpreted as markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.capture.index import PartialEvent
from inspector.core.present.describe import describe_http, describe_lifecycle, hexdump
from inspector.core.present.pretty import (
    FOLD_CHARS,
    FOLD_MARK,
    PrettyPrinter,
    fold_text,
)
from inspector.core.wire.events import Event, Kind
from inspector.ui.panels.json_highlighter import JsonHighlighter

#: Messages up to this size are parsed, pretty-printed and highlighted at once.
PREVIEW_BYTES = 256 * 1024
#: A bigger message's preview: this much of its start, re-indented.
PREVIEW_TEXT_BYTES = 64 * 1024
#: Above this many characters, text set at once is shown without syntax colours.
HIGHLIGHT_LIMIT = 512 * 1024
#: The hex view shows at most this much.
HEX_BYTES = 64 * 1024
#: "Show all" works for at most this long at a time, then lets the window repaint.
SLICE_SECONDS = 0.01
#: "Show all" feeds the pretty-printer this much raw text per step.
STEP_BYTES = 32 * 1024
#: "Show all" says how far it got at most this often.
PROGRESS_SECONDS = 0.5


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


class _Utf8:
    """Raw bytes to folded text, a piece at a time, for the raw tab (and the message tab of non-JSON)."""

    def __init__(self) -> None:
        import codecs

        self._decoders = {name: codecs.getincrementaldecoder("utf-8")(errors="replace") for name in ("raw", "pretty")}
        self._columns = {"raw": 0, "pretty": 0}

    def fold(self, data: bytes, which: str, final: bool = False) -> str:
        text = self._decoders[which].decode(data, final)
        out = []
        column = self._columns[which]
        for index, line in enumerate(text.split("\n")):
            if index:
                out.append("\n")
                column = 0
            while column + len(line) > FOLD_CHARS:
                room = FOLD_CHARS - column
                out.append(line[:room] + FOLD_MARK + "\n")
                line = line[room:]
                column = 0
            out.append(line)
            column += len(line)
        self._columns[which] = column
        return "".join(out)


def _editor(parent: QWidget) -> QPlainTextEdit:
    editor = QPlainTextEdit(parent)
    editor.setReadOnly(True)
    editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    return editor


class DetailView(QWidget):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.pretty = _editor(self)
        self.highlighter = JsonHighlighter(self.pretty.document())
        self.raw = _editor(self)
        self.hex = _editor(self)
        self.http = _editor(self)
        self.info = _editor(self)
        self.tabs.addTab(self.pretty, "Message")
        self.tabs.addTab(self.raw, "Raw")
        self.tabs.addTab(self.hex, "Hex")
        self.tabs.addTab(self.http, "HTTP")
        self.tabs.addTab(self.info, "Findings")
        self.banner = QLabel(self)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setWordWrap(True)
        self.show_all = QPushButton("Show all", self)
        self.show_all.clicked.connect(self._show_all_clicked)
        bar = QHBoxLayout()
        bar.addWidget(self.banner, 1)
        bar.addWidget(self.show_all)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.tabs)
        self.current: Event | None = None
        self.lookup_exchange: Any = None  # callable(exchange number) -> list of http events, set by the tab
        #: callable(event) -> the event's raw bytes in pieces, or None (set by a tab showing a capture index)
        self.raw_pieces: Any = None
        #: callable(event) -> findings kept beside it (the protocol judge's), shown after its own; set by the tab
        self.extra_findings: Any = None
        self._later: dict[QPlainTextEdit, tuple[Any, bool]] = {}  # tabs filled when first shown
        self.tabs.currentChanged.connect(self._tab_changed)
        self._full_steps: Iterator[None] | None = None
        self._full_timer = QTimer(self)
        self._full_timer.setInterval(0)
        self._full_timer.timeout.connect(self._continue_full)
        self.clear()

    def clear(self) -> None:
        self._stop_full()
        self._later.clear()
        self.current = None
        for editor in (self.pretty, self.raw, self.hex, self.http, self.info):
            editor.setPlainText("")
        self.banner.setText("Select an event in the timeline.")
        self.show_all.hide()

    def show_event(self, event: Event) -> None:
        self.current = event
        self._stop_full()
        size = event.size
        big = size > PREVIEW_BYTES
        self.show_all.setVisible(big)
        self.show_all.setEnabled(True)
        self._later.clear()
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
        elif event.kind in (Kind.LIFECYCLE, Kind.NOTE):
            self.tabs.setCurrentWidget(self.info)

    def _pretty_text(self, event: Event) -> str:
        if event.kind in (Kind.MESSAGE,) or (event.kind == Kind.FRAMING_ERROR and event.rpc is not None):
            return pretty(event.raw)
        if event.kind in (Kind.LIFECYCLE, Kind.NOTE, Kind.HTTP):
            return json.dumps({k: v for k, v in event.data.items() if not isinstance(v, bytes)}, indent=2,
                              ensure_ascii=False, default=str)
        return event.raw.decode("utf-8", errors="replace")

    def _fill_later(self, editor: QPlainTextEdit, text: Any, folded: bool) -> None:
        """Fill ``editor`` with ``text()`` when its tab is first shown (the raw and hex views of a big
        message cost as much as its preview, and are seldom looked at)."""
        editor.clear()
        self._later[editor] = (text, folded)

    def _tab_changed(self) -> None:
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

    # -- show all ---------------------------------------------------------------------------------------

    def _show_all_clicked(self) -> None:
        event = self.current
        if event is None:
            return
        self.show_all.setEnabled(False)
        self.banner.setText(self._headline(event) + " · formatting all of it…")
        self._later.pop(self.raw, None)
        for editor in (self.pretty, self.raw):
            self._set_text(editor, "", folded=True)
        self.highlighter.setDocument(self.pretty.document())  # it colours each slice as it is appended
        self._full_steps = self._format_all(event)
        self._full_timer.start()
        self._continue_full()

    @property
    def formatting(self) -> bool:
        """"Show all" is still going."""
        return self._full_steps is not None

    def _continue_full(self) -> None:
        if self._full_steps is None:
            return
        deadline = time.perf_counter() + SLICE_SECONDS
        try:
            next(self._full_steps)
            while time.perf_counter() < deadline:
                next(self._full_steps)
        except StopIteration:
            self._stop_full()

    def _stop_full(self) -> None:
        self._full_steps = None
        self._full_timer.stop()

    def _format_all(self, event: Event) -> Iterator[None]:
        """Pretty-print and append the whole message, one STEP_BYTES piece per step."""
        pieces = self.raw_pieces(event) if self.raw_pieces is not None else None
        if pieces is None:
            pieces = (event.raw[start:start + STEP_BYTES] for start in range(0, len(event.raw), STEP_BYTES))
        is_json = event.kind == Kind.MESSAGE or event.rpc is not None
        printer = PrettyPrinter()
        decoder = _Utf8()
        total = 0
        said = 0.0
        for piece in pieces:
            for start in range(0, len(piece), STEP_BYTES):
                part = piece[start:start + STEP_BYTES]
                total += len(part)
                _append(self.pretty, printer.feed(part) if is_json else decoder.fold(part, "pretty"))
                _append(self.raw, decoder.fold(part, "raw"))
                if time.perf_counter() - said > PROGRESS_SECONDS:  # a new banner text re-lays out the pane
                    self.banner.setText(self._headline(event) + f" · formatting… {total:,} of {_about(event)}"
                                        f"{event.size:,} bytes")
                    said = time.perf_counter()
                yield
        _append(self.pretty, printer.close() if is_json else decoder.fold(b"", "pretty", final=True))
        _append(self.raw, decoder.fold(b"", "raw", final=True) + self._eol_note(event))
        self.banner.setText(self._headline(event) + f" · all {total:,} bytes (long lines folded at ↩)")
        self.show_all.hide()

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
