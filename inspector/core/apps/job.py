"""What one ``mcp-inspector app`` run does: the server, the tool and its arguments, and what to print and save.

Built from the command line by :func:`inspector.cli.app_cmd.job_of`; run by :mod:`inspector.ui.apps.headless`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.connect.target import Target


@dataclass
class AppJob:
    """What one ``app`` run does."""

    target: Target
    tool: str
    words: list[str] = field(default_factory=list)
    base: dict[str, Any] | None = None  #: ``--args``
    text: bool = False
    json: bool = False
    screenshot: Path | None = None
    out: Path | None = None
    wait: float | None = None
    size: tuple[int, int] = (800, 600)
    theme: str = "light"
    roots: list[dict[str, str]] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)
