"""The window's settings for the sessions it starts: how long they wait for each answer (Session > Request
timeout…, or ``--timeout`` for this run) and the largest message they read whole (Session > Message size limit…,
or ``--max-message``). Saved in the window's QSettings; the window applies them to every target it starts."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

from PySide6.QtCore import QObject, QSettings

from inspector.core.connect.target import Target
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT
from inspector.core.sizes import DEFAULT_MAX_MESSAGE, format_size, parse_size
from inspector.ui.host import Controller, ViewHost
from inspector.ui.timeout_dialog import TimeoutDialog, setting_of, timeout_of

#: The settings key of the window's request timeout (seconds; 0 for none).
TIMEOUT_KEY = "session/timeout"
#: The setting of the message size limit (bytes; see SessionSettings.max_message).
MAX_MESSAGE_KEY = "session/max_message"


class SessionSettings(Controller):
    def __init__(self, host: ViewHost, settings: QSettings, timeout: float | None, max_message: int | None,
                 parent: QObject | None = None) -> None:
        """Saved in ``settings``. ``timeout``: ``--timeout`` at start, which overrides the saved request timeout
        for this run (``inf``: none). ``max_message``: the command line's --max-message, which outranks the saved
        setting until the user sets another."""
        super().__init__(host, parent)
        self.settings = settings
        self.timeout_override = timeout
        self._max_message_override = max_message

    def max_message(self) -> int:
        """The largest message a session of this window reads whole: --max-message, else the saved setting,
        else the default (64 MiB)."""
        if self._max_message_override is not None:
            return self._max_message_override
        value = self.settings.value(MAX_MESSAGE_KEY)
        try:
            return int(value) if value is not None and int(value) > 0 else DEFAULT_MAX_MESSAGE
        except (TypeError, ValueError):  # a settings file edited by hand
            return DEFAULT_MAX_MESSAGE

    def set_max_message(self, text: str) -> str | None:
        """Save the message size limit ``text`` (``64M``, ``200MB``) for sessions started from now on; returns
        None, or the sentence that says why ``text`` is no size."""
        try:
            size = parse_size(text)
        except ValueError as exc:
            return str(exc)
        self.settings.setValue(MAX_MESSAGE_KEY, size)
        self._max_message_override = None
        self.say(f"messages up to {format_size(size)} are read whole in sessions started from now on")
        return None

    def ask_max_message(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        problem: str | None = None
        text = format_size(self.max_message())
        while True:
            label = ("The largest message a session reads whole, for example 64M or 200MB. A longer line is "
                     "recorded as a framing error keeping its first and last 64 KiB. Applies to sessions "
                     "started from now on.") + (f"\n\n{problem}" if problem else "")
            text, ok = QInputDialog.getText(self.host.window(), "Message size limit", label, text=text)
            if not ok:
                return
            problem = self.set_max_message(text)
            if problem is None:
                return

    def apply(self, target: Target) -> Target:
        """``target`` with what the window's settings say about every session."""
        return replace(target, max_message=self.max_message())

    def request_timeout(self) -> float:
        """How long sessions without a profile wait for the handshake and each response: ``--timeout`` of this
        run, else Session > Request timeout… (saved), else the session's default; ``inf`` for none."""
        if self.timeout_override is not None:
            return self.timeout_override
        return timeout_of(self.settings.value(TIMEOUT_KEY, DEFAULT_REQUEST_TIMEOUT), DEFAULT_REQUEST_TIMEOUT)

    def with_request_timeout(self, target: Target) -> Target:
        """``target`` waiting :meth:`request_timeout`: for the sessions the window starts without a profile (its
        command line, the demo, a capture's server)."""
        return dataclasses.replace(target, timeout=self.request_timeout())

    def set_request_timeout(self, seconds: float) -> None:
        """Save the request timeout (``inf``: none); it replaces ``--timeout`` for the rest of the run and applies
        to the next requests of the open sessions without a profile."""
        self.timeout_override = None
        self.settings.setValue(TIMEOUT_KEY, setting_of(seconds))
        for tab in self.host.session_tabs():
            if tab.live is not None and not tab.live.target.named_by_user:
                tab.live.target.timeout = seconds
        self.say("sessions without a profile now wait "
                 + ("as long as the server takes" if seconds == float("inf") else f"{seconds:g} s for each response"))

    def ask_request_timeout(self) -> None:
        dialog = TimeoutDialog(self.request_timeout(), self.host.window())
        if dialog.exec() == TimeoutDialog.DialogCode.Accepted:
            self.set_request_timeout(dialog.seconds())
