"""A capture written from raw lines as a recording session's pipeline writes one (numbered, paired, saved): the
captures the serve tests (tests/core/serve, tests/cli/test_serve_early.py) serve and index."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.wire.events import Event
from inspector.core.wire.framing import decode_line


def write_lines(path: Path, lines: Iterable[tuple[str, bytes]], *, after: Sequence[Event] = (), tail: bytes = b"",
                **header: Any) -> Path:
    """``path``, a stdio capture of ``lines`` ((direction, raw bytes) each, 10 ms apart), then the events
    ``after`` (at 9 s), then ``tail`` appended to the file as a crash mid-write leaves it; ``header``: the
    header's fields beyond the transport and ``argv``."""
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["server"], **header}))
    pipeline = EventPipeline(writer)
    for number, (direction, raw) in enumerate(lines):
        pipeline.push([decode_line(raw, direction)], number * 0.01, 1e9 + number)
    if after:
        pipeline.push(list(after), 9.0, 1e9 + 9)
    writer.close()
    if tail:
        with open(path, "ab") as out:
            out.write(tail)
    return path


def write_messages(path: Path, messages: Iterable[tuple[str, dict[str, Any]]], **header: Any) -> Path:
    """:func:`write_lines` of these JSON messages, each as ``json.dumps`` writes it."""
    return write_lines(path, ((direction, json.dumps(message).encode()) for direction, message in messages),
                       **header)
