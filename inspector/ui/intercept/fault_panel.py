"""The Faults panel of a serve tab: one row per fault of ``serve --fault`` (a box that turns it on or off, and its
value), what the twin says is in force, and its sentences (in red when a change was refused). A thin view of
:class:`~inspector.ui.intercept.fault_control.ServeFaultsControl`: a box shows what the twin answered, not what was
clicked; a value edited while its fault is on is sent when the field is left (or Return). :func:`attach_faults`
puts it in a serve tab's side tabs.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QLineEdit, QTabWidget, QVBoxLayout, QWidget

from inspector.core.serve.fault_link import FaultsWindowSide
from inspector.core.serve.faults import NAMES
from inspector.ui.intercept.fault_control import ServeFaultsControl
from inspector.ui.intercept.panel import FAILURE_COLOURS, scrolled
from inspector.ui.json_highlighter import is_dark

#: Each fault's value as a new row offers it, and what its field takes (junk has none).
VALUES = {"latency": ("300", "milliseconds, or MIN-MAX"), "error-rate": ("0.1", "a share of requests, 0 to 1"),
          "drop": ("tools/call", "methods never answered, a,b"), "close-after": ("3", "requests, then the twin ends"),
          "oversize": ("1M", "bytes the next answer is padded past"),
          "list-changed": ("5", "seconds between tools/list_changed")}
#: What each fault does, as a row's tooltip.
HELP = {"latency": "Each answer waits this long (a range: a random time within it); the other answers go on",
        "error-rate": "This share of requests (outside the handshake) is answered with an internal error -32603",
        "junk": "A line that is no JSON before each answer",
        "drop": "Requests of these methods are never answered",
        "close-after": "The twin ends after answering this many requests (counted from the start)",
        "oversize": "The next answer is padded past this size, once (the fault then clears itself)",
        "list-changed": "notifications/tools/list_changed this often, once the handshake is answered"}


class FaultsPanel(QWidget):
    """A row per fault, the twin's seed and its sentences (see the module)."""

    def __init__(self, control: ServeFaultsControl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.control = control
        self.boxes: dict[str, QCheckBox] = {}
        self.fields: dict[str, QLineEdit] = {}
        intro = QLabel("Faults of the running twin: a change acts from the client's next request on.", self)
        intro.setWordWrap(True)
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        for row, name in enumerate(NAMES):
            box = QCheckBox(name, self)
            box.setObjectName(f"fault-{name}")
            box.setToolTip(HELP[name])
            box.clicked.connect(lambda on, name=name: self._clicked(name, on))
            self.boxes[name] = box
            grid.addWidget(box, row, 0)
            if name in VALUES:
                value, hint = VALUES[name]
                field = QLineEdit(value, self)
                field.setObjectName(f"value-{name}")
                field.setPlaceholderText(hint)
                field.setToolTip(f"{HELP[name]} ({hint})")
                field.editingFinished.connect(lambda name=name: self._edited(name))
                self.fields[name] = field
                grid.addWidget(field, row, 1)
        self.seed = QLabel(self)
        self.seed.setObjectName("seed")
        self.message = QLabel(self)
        self.message.setObjectName("message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(intro)
        layout.addLayout(grid)
        layout.addWidget(self.message)
        layout.addWidget(self.seed)
        layout.addStretch(1)
        scrolled(self, body)

        control.changed.connect(self.refresh)
        control.said.connect(self.say)
        self.refresh()

    def _clicked(self, name: str, on: bool) -> None:
        field = self.fields.get(name)
        if on:
            self.control.turn_on(name, field.text() if field is not None else "")
        else:
            self.control.turn_off(name)
        self.boxes[name].setChecked(name in self.control.in_force)  # until the twin answers, what it said last

    def _edited(self, name: str) -> None:
        value = self.fields[name].text().strip()
        if name in self.control.in_force and value != self.control.in_force[name]:
            self.control.turn_on(name, value)

    def refresh(self) -> None:
        """Show what the twin said is in force (a field being edited keeps the person's text)."""
        control = self.control
        for name, box in self.boxes.items():
            box.setChecked(name in control.in_force)
            box.setEnabled(not control.ended)
            box.setToolTip(control.says.get(name) or HELP[name])
            field = self.fields.get(name)
            if field is not None:
                field.setEnabled(not control.ended)
                if name in control.in_force and not field.hasFocus():
                    field.setText(control.in_force[name])
        self.seed.setText(f"random choices: --seed {control.seed}" if control.seed is not None else "")

    def say(self, text: str, failure: bool = False) -> None:
        self.message.setText(text)
        self.message.setProperty("failure", failure)
        palette = self.palette()
        if failure:
            light, dark = FAILURE_COLOURS
            palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(palette) else light))
        self.message.setPalette(palette)


def attach_faults(side_tabs: QTabWidget, link: FaultsWindowSide) -> FaultsPanel:
    """A Faults tab for a served capture's twin, linked through ``link``, first among ``side_tabs`` and shown; its
    :attr:`FaultsPanel.control` runs the link (:meth:`ServeFaultsControl.run`) and ends it (``close``)."""
    panel = FaultsPanel(ServeFaultsControl(link), side_tabs)
    panel.control.setParent(panel)
    side_tabs.insertTab(0, panel, "Faults")
    side_tabs.setCurrentWidget(panel)
    return panel
