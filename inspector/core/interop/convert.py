"""What ``mcp-inspector export`` and ``import`` do, and File > Export in the window: a capture file to a
format's text, and a file of another tool to a capture. Errors are :class:`ExportError` sentences."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspector.core.capture import CaptureError, iter_capture
from inspector.core.capture.format import event_to_line
from inspector.core.capture.pipeline import EventPipeline
from inspector.core.capture.writer import make_header
from inspector.core.interop import FORMATS
from inspector.core.interop.har import ExportError, events_from_har, to_har
from inspector.core.interop.inspector_history import HistoryError, events_from_history, looks_like_history
from inspector.core.interop.jsonrpc_lines import jsonrpc_lines
from inspector.core.interop.report import html_chunks, markdown_chunks
from inspector.core.redaction import redact_headers, redact_url
from inspector.core.wire.events import Event, Kind


def export_capture(path: str | os.PathLike[str], to: str, direction: str = "both") -> Iterator[bytes]:
    """The capture at ``path`` in format ``to`` (:data:`FORMATS`), as chunks of bytes to write, read from the
    file as they are made: the reports and JSON-RPC lines hold a batch of events at a time, whatever the
    capture's size (HAR holds the HTTP exchanges it writes). Raises ExportError (with a sentence) for an
    unreadable capture or one the format cannot hold, before the first chunk."""
    if to not in FORMATS:
        raise ExportError(f"cannot export to {to!r}: use one of {', '.join(FORMATS)}")
    if to == "otlp":  # streams: one event at a time
        from inspector.core.interop.otlp import otlp_lines

        return otlp_lines(path)
    header = _header(path)
    return _chunks(path, header, to, direction)


def first_and_rest(chunks: Iterator[bytes]) -> tuple[bytes, Iterator[bytes]]:
    """The first chunk of an export (where a format's refusal, ExportError, comes), and the rest: an output
    file is opened only once the export is known to go ahead."""
    return next(chunks, b""), chunks


def export_to_file(path: str | os.PathLike[str], to: str, out: str | os.PathLike[str], direction: str = "both") -> None:
    """:func:`export_capture` written to ``out`` as it is made (ExportError, OSError)."""
    first, rest = first_and_rest(export_capture(path, to, direction))
    with open(out, "wb") as handle:
        handle.write(first)
        handle.writelines(rest)


def _header(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        items = iter_capture(path, [])
        header = next(items)
        items.close()  # type: ignore[attr-defined]  # a generator: closing it closes the file
    except CaptureError as exc:
        raise ExportError(str(exc)) from None
    assert isinstance(header, dict)
    return header


def _events(path: str | os.PathLike[str]) -> Iterator[Event]:
    items = iter_capture(path, [])
    next(items)
    for item in items:
        if isinstance(item, Event):
            yield item


def _chunks(path: str | os.PathLike[str], header: dict[str, Any], to: str, direction: str) -> Iterator[bytes]:
    if to == "har":
        yield (json.dumps(to_har(header, _events(path)), ensure_ascii=False, indent=2) + "\n").encode()
    elif to == "markdown":
        for piece in markdown_chunks(header, lambda: _events(path)):
            yield piece.encode("utf-8")
    elif to == "html":
        for piece in html_chunks(header, lambda: _events(path)):
            yield piece.encode("utf-8")
    else:
        yield from jsonrpc_lines(_events(path), direction)


def import_file(path: str | os.PathLike[str], out: str | os.PathLike[str], redact: bool = True) -> int:
    """Write a capture at ``out`` from ``path``: a HAR file of an MCP session, or the official MCP Inspector's
    request history (:mod:`inspector.core.interop.inspector_history`); returns how many events it holds.
    Events are numbered, timed and paired by the same pipeline as a live session. With ``redact`` (the
    default, as for a recorded capture) the secrets of the HTTP exchanges are hidden as a recording hides them:
    ``Authorization``, ``Cookie``, ``Set-Cookie`` and other secret headers, URL credentials and secret query
    parameters."""
    name = os.fspath(path)
    try:
        har = json.loads(Path(name).read_bytes())
    except FileNotFoundError:
        raise ExportError(f"{name}: no such file") from None
    except (OSError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else \
            "its JSON is nested too deep to read" if isinstance(exc, RecursionError) else "it is not JSON"
        raise ExportError(f"{name} cannot be imported: {reason}") from None
    if looks_like_history(har):
        try:
            batches = events_from_history(har)
        except HistoryError as exc:
            raise ExportError(f"{name}: {exc}") from None
        target: dict[str, Any] = {"transport": "unknown", "imported_from": "mcp-inspector-history"}
    elif isinstance(har, dict) and "log" in har:
        target, batches = events_from_har(har)
    else:
        raise ExportError(f"{name} is neither a HAR file nor an MCP Inspector history")
    if redact:
        _redact_exchanges(target, batches)
    kept: list[Event] = []
    pipeline = EventPipeline(keep=kept)
    start = batches[0][1] if batches else 0.0
    for batch, wall in batches:
        pipeline.push(batch, max(0.0, wall - start), wall)
    with open(out, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(json.dumps(make_header(target), ensure_ascii=True, separators=(",", ":")) + "\n")
        handle.writelines(event_to_line(event) for event in kept)
    return len(kept)


def _redact_exchanges(target: dict[str, Any], batches: list[tuple[list[Event], float]]) -> None:
    """Hide the secrets of imported HTTP exchanges (in place, before the events are saved), with the rules a
    recording keeps (:mod:`inspector.core.redaction`), and say so in the target."""
    for batch, _ in batches:
        for event in batch:
            if event.kind != Kind.HTTP:
                continue
            data = event.data
            event.put(url=redact_url(str(data.get("url", ""))),
                      **{key: redact_headers(data[key]) for key in ("request_headers", "response_headers")
                         if isinstance(data.get(key), dict)})
    if isinstance(target.get("url"), str):
        target["url"] = redact_url(target["url"])
    target["redacted"] = True
