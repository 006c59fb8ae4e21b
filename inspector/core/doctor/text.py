"""The doctor's text form, shared by ``mcp-inspector doctor`` and the window's Copy: a line per step (status,
step, detail; a detail's further lines, such as quoted stderr, indented under it), ``fix: ...`` under a step that
has one, and a last line naming the first failed step. Server text is passed through :func:`safe`."""

from __future__ import annotations

import textwrap

from inspector.core.doctor.model import Report, Step
from inspector.core.text import safe

#: How wide the status and step columns are.
STATUS_WIDTH, STEP_WIDTH = 8, 10


def step_text(step: Step) -> str:
    """One step, its lines ending in a newline."""
    indent = " " * (STATUS_WIDTH + STEP_WIDTH + 2)
    first, *rest = safe(step.detail).splitlines() or [""]
    lines = [f"{step.status:<{STATUS_WIDTH}} {step.step:<{STEP_WIDTH}} {first}"]
    # a quoted stderr tail keeps its own indentation (a traceback's), under the detail's column
    lines += [indent + line.rstrip() for line in textwrap.dedent("\n".join(rest)).splitlines()]
    if step.fix:
        lines.append(f"{indent}fix: {safe(step.fix, lines=False)}")
    return "\n".join(lines) + "\n"


def heading(target: str) -> str:
    return safe(f"mcp-inspector doctor: {target}", lines=False) + "\n"


def report_text(report: Report) -> str:
    """The whole report: the heading, every step, the summary."""
    return heading(report.target) + "".join(step_text(s) for s in report.steps) + safe(report.summary(),
                                                                                        lines=False) + "\n"
