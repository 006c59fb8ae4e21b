"""Session > Request timeout…: the window-wide bound on the handshake and on each response, "no timeout" included.

It applies to sessions without a profile (a command or URL given at start, the demo, a capture's server);
a profile has its own. The window keeps it in its settings; ``--timeout S`` at start overrides it for that run.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QDoubleSpinBox, QLabel, QVBoxLayout

from inspector.core.clients.profiles import MAX_TIMEOUT
from inspector.ui.wheel_guard import guard_wheel

#: The spin box's lowest value, shown as "no timeout" (a session then waits as long as the server takes).
NO_TIMEOUT_TEXT = "no timeout"
#: Where the window's request timeout is set, as the "no response" sentences name it: the Session menu's item
#: (tests/ui/test_actions.py holds the menu to it; a session does not import the window's menus).
TIMEOUT_SETTING = "Session > Request timeout…"


def setting_of(seconds: float) -> float:
    """How a timeout is kept in the settings: seconds, 0 for none."""
    return 0.0 if math.isinf(seconds) else seconds


def timeout_of(value: Any, default: float) -> float:
    """A timeout read back from the settings (a number, or its text in an INI file): ``inf`` for 0, ``default``
    for anything unreadable or out of range."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return default
    if seconds == 0:
        return math.inf
    return seconds if 0 < seconds <= MAX_TIMEOUT else default


class TimeoutDialog(QDialog):
    def __init__(self, seconds: float, parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Request timeout")
        text = QLabel("How long sessions without a profile wait for the handshake and for each response. Progress "
                      "notifications restart the clock, and it stops while the server waits for your answer to "
                      "one of its requests. A profile has its own timeout.", self)
        text.setTextFormat(Qt.TextFormat.PlainText)
        text.setWordWrap(True)
        self.spin = guard_wheel(QDoubleSpinBox(self))
        self.spin.setRange(0, MAX_TIMEOUT)
        self.spin.setDecimals(1)
        self.spin.setSuffix(" s")
        self.spin.setSpecialValueText(NO_TIMEOUT_TEXT)  # shown at the minimum, 0
        self.spin.setValue(setting_of(seconds))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.spin)
        layout.addWidget(buttons)

    def seconds(self) -> float:
        """The chosen timeout: ``inf`` for "no timeout"."""
        return timeout_of(self.spin.value(), math.inf)
