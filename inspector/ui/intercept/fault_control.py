"""The logic object of a serve tab's Faults panel: the running twin's faults over its fault link
(:mod:`inspector.core.serve.fault_link`), turned on and off, and what the twin says is in force as signals. The
panel (:mod:`inspector.ui.intercept.fault_panel`) subscribes to it and calls it; it never sees the link.

The twin decides: a change is sent, and what :attr:`ServeFaultsControl.in_force` holds is only ever what the twin
answered (a refused spec leaves it as it was, and its sentence is said).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from inspector.core.serve.fault_link import FaultsWindowSide

#: Said once the twin has ended (or the link broke): its faults can no longer change.
ENDED = "the twin has ended: its faults can no longer be changed"


class ServeFaultsControl(QObject):
    changed = Signal()  #: what is in force changed (or the link ended)
    said = Signal(str, bool)  #: a sentence for the panel (and whether it says something failed)

    def __init__(self, side: FaultsWindowSide, parent: Any = None) -> None:
        super().__init__(parent)
        self.side = side
        self.in_force: dict[str, str] = {}  #: fault name -> its value (``""`` for junk), as the twin answered
        self.says: dict[str, str] = {}  #: fault name -> what it does, for a person
        self.seed: int | None = None  #: the seed of the twin's random choices (error-rate, latency ranges)
        self.ended = False

    def turn_on(self, name: str, value: str = "") -> None:
        """Put fault ``name`` in force with ``value`` (none for junk), in place of its value in force."""
        value = value.strip()
        self.side.set(f"{name}={value}" if value or name != "junk" else name)

    def turn_off(self, name: str) -> None:
        self.side.clear(name)

    async def run(self) -> None:
        """Show each ``in_force`` answer of the twin's until it goes away."""
        try:
            async for line in self.side.in_force():
                self._took(line)
        finally:
            self.ended = True
            self.changed.emit()
            self.said.emit(ENDED, False)

    def _took(self, line: dict[str, Any]) -> None:
        faults = [f for f in line.get("faults", []) if isinstance(f, dict) and isinstance(f.get("name"), str)]
        self.in_force = {str(f["name"]): str(f.get("value", "")) for f in faults}
        self.says = {str(f["name"]): str(f.get("says", "")) for f in faults}
        seed = line.get("seed")
        self.seed = seed if isinstance(seed, int) else None
        self.changed.emit()
        said = line.get("said")
        if isinstance(said, str) and said:
            self.said.emit(said, True)
        else:
            described = "; ".join(self.says.values())
            self.said.emit(f"in force: {described}" if described else "no fault in force: the twin answers as "
                           "recorded", False)

    def close(self) -> None:
        """The tab closes: the twin goes back to its command line's faults."""
        self.side.close()
