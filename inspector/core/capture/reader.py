"""Tolerant capture reader: loads what can be loaded and says, in sentences, what could not.

A capture cut short by a crash ends in a partial line; that is expected and reported as a warning, not an
error. A file that is not a capture, or one from a newer format version, raises :class:`CaptureError` with a
sentence the user can act on. Older versions are upgraded through ``UPGRADES`` (none yet: v1 is the first).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector.core.capture.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    CaptureError,
    event_from_obj,
)
from inspector.core.wire.events import Event

#: version -> function upgrading one parsed event line to the next version
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}
#: Only this many problems are listed one by one; more are counted.
MAX_LISTED_PROBLEMS = 20


@dataclass
class Capture:
    header: dict[str, Any]
    events: list[Event]
    warnings: list[str] = field(default_factory=list)

    @property
    def target(self) -> dict[str, Any]:
        target = self.header.get("target")
        return target if isinstance(target, dict) else {}


def read_capture(path: str | os.PathLike[str]) -> Capture:
    """Load a whole capture. Raises CaptureError (with a sentence) if the file is not a readable capture."""
    warnings: list[str] = []
    header: dict[str, Any] = {}
    events: list[Event] = []
    for item in iter_capture(path, warnings):
        if isinstance(item, dict):
            header = item
        else:
            events.append(item)
    return Capture(header, events, warnings)


def iter_capture(path: str | os.PathLike[str], warnings: list[str]) -> Iterator[dict[str, Any] | Event]:
    """Yield the header dict, then each event; append readable warnings to ``warnings``."""
    name = os.fspath(path)
    try:
        handle = open(name, "rb")  # closed in finally; binary to survive any bytes
    except FileNotFoundError:
        raise CaptureError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise CaptureError(f"{name} is a directory, not a capture file") from None
    except OSError as exc:
        raise CaptureError(f"{name} cannot be opened: {exc.strerror}") from None
    with handle:
        first = handle.readline()
        version = _check_header(name, first)
        header = json.loads(first)
        yield header
        upgrade = [UPGRADES[v] for v in range(version, FORMAT_VERSION)]
        problems = 0
        line_no = 1
        for line in handle:
            line_no += 1
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise CaptureError("the line is not a JSON object")
                for step in upgrade:
                    obj = step(obj)
                event = event_from_obj(obj)
            except (ValueError, CaptureError, RecursionError) as exc:
                if not line.endswith(b"\n"):
                    warnings.append(
                        f"the last line (line {line_no}) was cut off, as happens when a recording is interrupted; "
                        "everything before it was loaded"
                    )
                    break
                problems += 1
                if problems <= MAX_LISTED_PROBLEMS:
                    reason = str(exc) if isinstance(exc, CaptureError) else "not valid JSON"
                    warnings.append(f"line {line_no} was skipped: {reason}")
                continue
            yield event
        if problems > MAX_LISTED_PROBLEMS:
            warnings.append(f"{problems - MAX_LISTED_PROBLEMS} more malformed lines were skipped")


def _check_header(name: str, first: bytes) -> int:
    if not first.strip():
        raise CaptureError(f"{name} is empty, or does not start with a capture header")
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        raise CaptureError(f"{name} is not an mcp-inspector capture: its first line is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise CaptureError(
            f'{name} is not an mcp-inspector capture: its first line has no "format": "{FORMAT_NAME}"'
        )
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CaptureError(f"{name} has an invalid capture format version: {version!r}")
    if version > FORMAT_VERSION:
        raise CaptureError(
            f"{name} uses capture format version {version}, newer than this mcp-inspector understands "
            f"(up to {FORMAT_VERSION}); upgrade mcp-inspector to open it"
        )
    return version
