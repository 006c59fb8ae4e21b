"""Copy the selected message: as JSON-RPC, as the ``mcp-inspector`` command that sends it again, or (HTTP) as
``curl`` with the headers the session sent.

:class:`MessageCopier` is the tab's; it reads the selection from the timeline and the server from the tab's
target. :meth:`MessageCopier.refusal` says why a copy cannot apply to the selection (one sentence, or None):
the timeline's menu shows such an entry disabled with that sentence as its tooltip, and a copy asked for anyway
puts the sentence in the status line.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QPoint
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from inspector.core.connect.target import Target
from inspector.core.interop.copy_as import as_command, as_curl
from inspector.core.wire.events import Direction, Event, Kind
from inspector.ui.panels.detail import pretty
from inspector.ui.timeline.view import TimelineView

#: The kinds of copy, as the menu names them.
KINDS = (("Copy as JSON-RPC", "jsonrpc"), ("Copy as mcp-inspector command", "command"), ("Copy as curl", "curl"))
DONE = {"jsonrpc": "copied the message as JSON-RPC", "command": "copied the mcp-inspector command",
        "curl": "copied the curl command"}


class MessageCopier(QObject):
    def __init__(self, timeline: TimelineView, target: Callable[[], Target | None], live: Callable[[], bool],
                 say: Callable[[str], Any], host: QWidget) -> None:
        """``target``: the tab's server; ``live``: whether it is the window's own live session (its secrets may
        then be copied: they are the user's, in place of the capture's ``[redacted]``); ``say``: the status
        line."""
        super().__init__(host)
        self.timeline = timeline
        self.target = target
        self.live = live
        self.say = say
        self.host = host
        #: what else the timeline's menu offers: each is given the menu before it shows (breakpoints add theirs)
        self.more: list[Callable[[QMenu], Any]] = []
        timeline.table.customContextMenuRequested.connect(self.menu)

    def refusal(self, kind: str) -> str | None:
        """Why the selection cannot be copied as ``kind`` now (None: it can)."""
        event = self.timeline.current_event()
        if event is None or event.kind != Kind.MESSAGE or event.dir != Direction.C2S:
            return "select a message the inspector sent to copy it"
        target = self.target()
        if kind == "curl" and (target is None or not target.is_http):
            return "curl is for HTTP sessions; this one runs its server over stdio"
        if kind == "command" and target is None:
            return "this tab names no server to send the message to"
        return None

    def copy(self, kind: str) -> bool:
        """Copy the selected sent message as ``jsonrpc``, ``command`` or ``curl``. False, with a sentence in the
        status line, when the selection is not a message this can be done for."""
        refused = self.refusal(kind)
        event = self.timeline.current_event()
        if refused is not None or event is None:
            self.say(refused or "")
            return False
        try:
            message = event.json()
        except ValueError:
            message = None
        target = self.target()
        if kind == "jsonrpc" and isinstance(message, (dict, list)):
            text = json.dumps(message, ensure_ascii=False, indent=2)
        elif kind == "command" and isinstance(message, dict) and target is not None:
            text = as_command(message, target.command_options(secrets=self.live()))
        elif kind == "curl" and target is not None:
            text = self._curl(event, target)
        else:
            self.say("this message cannot be copied that way")
            return False
        QGuiApplication.clipboard().setText(text)
        self.say(DONE[kind])
        return True

    def _curl(self, event: Event, target: Target) -> str:
        exchange = event.data.get("exchange")
        http = next((e for e in self.timeline.exchange_events(exchange) if e.data.get("phase") != "end"), None) \
            if isinstance(exchange, int) else None
        recorded = http.data.get("request_headers") if http is not None else None
        headers = dict(recorded) if isinstance(recorded, dict) else {}
        if self.live():  # this session's own secrets, in place of the capture's [redacted]
            real = {k.lower(): v for k, v in target.sent_headers().items()}
            headers = {k: real.get(k.lower(), v) if v == "[redacted]" else v for k, v in headers.items()}
        return as_curl(event.raw, str(http.data.get("url")) if http is not None else target.url, headers)

    def copy_message(self) -> None:
        """View > Copy message as JSON: the selected event's text (a message pretty-printed)."""
        event = self.timeline.current_event()
        if event is not None:
            QGuiApplication.clipboard().setText(pretty(event.raw) if event.kind == Kind.MESSAGE else event.text())

    def menu(self, point: QPoint) -> QMenu:
        """The timeline's context menu: each copy, disabled with the reason as its tooltip where it cannot apply."""
        menu = QMenu(self.host)
        menu.setToolTipsVisible(True)
        for text, kind in KINDS:
            action = menu.addAction(text, functools.partial(self.copy, kind))
            refused = self.refusal(kind)
            action.setEnabled(refused is None)
            if refused is not None:
                action.setToolTip(refused)
        for add in self.more:
            add(menu)
        menu.popup(self.timeline.table.viewport().mapToGlobal(point))
        return menu
