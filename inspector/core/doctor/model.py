"""What the doctor says: one :class:`Step` per thing it tried, in order, and the :class:`Report` of them all.

A step is ``passed``, ``failed``, ``warning`` (it works here, but something will bite: a banner on stdout, a
certificate about to expire) or ``skipped`` (not tried, because an earlier step failed or it does not apply).
Its ``detail`` says what was found, in one sentence; a failed step's ``fix`` says what to do, in one sentence.
The JSON form is ``{"steps": [{"step", "status", "detail", "fix"}]}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASSED, FAILED, WARNING, SKIPPED = "passed", "failed", "warning", "skipped"
STATUSES = (PASSED, FAILED, WARNING, SKIPPED)

#: The steps of a command run over stdio, in order.
COMMAND_STEPS = ("command", "start", "stdout", "handshake")
#: The steps of a URL, in order.
URL_STEPS = ("resolve", "connect", "tls", "http", "transport", "auth", "handshake")


@dataclass(frozen=True)
class Step:
    """One step of a diagnosis."""

    step: str  #: its name, one of :data:`COMMAND_STEPS` or :data:`URL_STEPS`
    status: str  #: one of :data:`STATUSES`
    detail: str  #: what was found, one sentence (a quoted stderr tail may add lines)
    fix: str = ""  #: for a failure (and a warning with something to do): what to do, one sentence

    def as_json(self) -> dict[str, Any]:
        return {"step": self.step, "status": self.status, "detail": self.detail, "fix": self.fix}


def passed(step: str, detail: str) -> Step:
    return Step(step, PASSED, detail)


def failed(step: str, detail: str, fix: str) -> Step:
    return Step(step, FAILED, detail, fix)


def warning(step: str, detail: str, fix: str = "") -> Step:
    return Step(step, WARNING, detail, fix)


def skipped(step: str, detail: str) -> Step:
    return Step(step, SKIPPED, detail)


@dataclass
class Report:
    """The steps of one diagnosis, and what they come to."""

    target: str  #: the URL or the command line diagnosed
    steps: list[Step] = field(default_factory=list)

    @property
    def first_failure(self) -> Step | None:
        """The first step that failed: the cause to fix first (None when none failed)."""
        return next((s for s in self.steps if s.status == FAILED), None)

    @property
    def ok(self) -> bool:
        """No step failed (warnings may remain)."""
        return self.first_failure is None

    def as_json(self) -> dict[str, Any]:
        return {"steps": [s.as_json() for s in self.steps]}

    def summary(self) -> str:
        """One line: the first failing step, else whether warnings remain."""
        failure = self.first_failure
        if failure is not None:
            return f"the first failing step is {failure.step}: fix it first"
        warned = [s.step for s in self.steps if s.status == WARNING]
        if warned:
            return f"no step failed; {len(warned)} warning{'s' if len(warned) > 1 else ''} ({', '.join(warned)})"
        return "no step failed: the connection works"
