"""The detail pane: one event in full. Pretty JSON, the exact raw text, a hex view, the HTTP exchange, findings.

Large messages show a preview (the first :data:`PREVIEW_BYTES`) at once; "Show all" pretty-prints the
whole message in a worker thread, and texts over :data:`HIGHLIGHT_LIMIT` are shown without colours, so
selecting a 50 MB result never freezes the window. Everything is plain text (QPlainTextEdit): server
content is never interpreted as markup.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QTabWidget, QVBoxLayout,
                               QWidget)

from ..core.describe import describe_http, describe_lifecycle
from ..core.events import Event, Kind
from .json_highlighter import JsonHighlighter

#: Messages up to this size are pretty-printed and highlighted at once.
PREVIEW_BYTES = 256 * 1024
#: Above this many characters, text is shown without syntax colours.
HIGHLIGHT_LIMIT = 512 * 1024
#: The hex view shows at most this much.
HEX_BYTES = 64 * 1024


def pretty(raw: bytes) -> str:
    """Indented JSON, or the text as it is when it is not JSON."""
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return raw.decode("utf-8", errors="replace")


def hexdump(data: bytes, limit: int = HEX_BYTES) -> str:
    lines = []
    for offset in range(0, min(len(data), limit), 16):
        chunk = data[offset : offset + 16]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{offset:08x}  {hexes:<47}  {text}")
    if len(data) > limit:
        lines.append(f"… {len(data) - limit:,} more bytes")
    return "\n".join(lines)


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
        self._full_task: asyncio.Future[Any] | None = None
        self.clear()

    def clear(self) -> None:
        self.current = None
        for editor in (self.pretty, self.raw, self.hex, self.http, self.info):
            editor.setPlainText("")
        self.banner.setText("Select an event in the timeline.")
        self.show_all.hide()

    def show_event(self, event: Event) -> None:
        self.current = event
        if self._full_task is not None:
            self._full_task.cancel()
            self._full_task = None
        size = len(event.raw)
        big = size > PREVIEW_BYTES
        self.show_all.setVisible(big)
        self.banner.setText(self._headline(event) + (f" · showing the first {PREVIEW_BYTES // 1024} KB of "
                                                     f"{size:,} bytes" if big else ""))
        head = event.raw[:PREVIEW_BYTES]
        self._set_pretty(head.decode("utf-8", errors="replace") if big else self._pretty_text(event))
        self.raw.setPlainText(head.decode("utf-8", errors="replace") + self._eol_note(event))
        self.hex.setPlainText(hexdump(event.raw) if event.raw else "")
        self.http.setPlainText(self._http_text(event))
        self.info.setPlainText(self._info_text(event))
        invalid_utf8 = False
        try:
            event.raw.decode("utf-8")
        except UnicodeDecodeError:
            invalid_utf8 = True
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

    def _set_pretty(self, text: str) -> None:
        self.highlighter.setDocument(self.pretty.document() if len(text) <= HIGHLIGHT_LIMIT else None)
        self.pretty.setPlainText(text)

    def _show_all_clicked(self) -> None:
        event = self.current
        if event is None:
            return
        self.banner.setText(self._headline(event) + " · formatting all of it…")
        self.show_all.setEnabled(False)
        loop = asyncio.get_event_loop()
        self._full_task = asyncio.ensure_future(self._format_all(loop, event))

    async def _format_all(self, loop: asyncio.AbstractEventLoop, event: Event) -> None:
        try:
            text = await loop.run_in_executor(None, pretty, event.raw)
        finally:
            self.show_all.setEnabled(True)
        if self.current is not event:
            return
        self._set_pretty(text)
        self.raw.setPlainText(event.raw.decode("utf-8", errors="replace") + self._eol_note(event))
        colours = "" if len(text) <= HIGHLIGHT_LIMIT else " (without colours: it is over 512 KB)"
        self.banner.setText(self._headline(event) + f" · all {len(event.raw):,} bytes{colours}")
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
    def _info_text(event: Event) -> str:
        lines = []
        if event.reason:
            lines += ["Why this is a framing error:", "  " + event.reason, ""]
        for finding in event.findings:
            lines.append(f"{'error' if finding.severity == 'error' else 'warning'} [{finding.code}]: {finding.text}")
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
        lines += ["", f"seq {event.seq} · t {event.t:.6f} s · {len(event.raw):,} bytes"]
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
