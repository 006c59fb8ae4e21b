"""A capture as OpenTelemetry traces in the OTLP/JSON file format: one ``ExportTraceServiceRequest`` in OTLP/JSON a
line (JSON Lines, as the OpenTelemetry Collector's file exporter writes and its OTLP JSON file receiver reads:
https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/), each holding up to :data:`SPANS_PER_LINE`
spans. The spans are :mod:`inspector.core.otel.spans`'s: one per request, a request's ``_meta`` traceparent
honoured, notifications as span events.

Streams: the capture is read one event at a time and a line is written as soon as it has its spans, so a capture
of millions of events is exported in constant memory (what stays in memory is the requests still unanswered).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from inspector.core.capture import CaptureError
from inspector.core.capture.reader import iter_capture
from inspector.core.interop.har import ExportError
from inspector.core.wire.events import Event

if TYPE_CHECKING:  # the exporter brings httpx and protobuf: loaded only when a live export starts
    from inspector.core.otel.exporter import OtlpExporter

#: Spans a line holds (an OTLP exporter's usual batch).
SPANS_PER_LINE = 512


def session_key(header: dict[str, object]) -> str:
    """What a capture's trace and span ids are derived from: its creation time and target."""
    return json.dumps({"created": header.get("created"), "target": header.get("target")}, sort_keys=True,
                      default=str)


def start_export(endpoint: str, header: dict[str, Any], listeners: list[Callable[[list[Event]], None]],
                 on_problem: Callable[[str], None] | None = None) -> OtlpExporter:
    """The live export of ``--otlp-endpoint`` for a session whose capture has ``header``: an exporter that listens
    to the session (``listeners``, its listener list), says its first problem to ``on_problem``, started."""
    from inspector.core.otel.exporter import OtlpExporter

    exporter = OtlpExporter(endpoint, session_key(header))
    if on_problem is not None:
        exporter.on_problem = on_problem
    listeners.append(exporter.listener)
    exporter.start()
    return exporter


def otlp_lines(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The capture at ``path`` as OTLP/JSON lines. Raises ExportError for a file that is no capture (before the
    first line)."""
    from inspector.core.otel.encode import export_request, to_otlp_json
    from inspector.core.otel.spans import SpanBuilder, SpanRecord

    warnings: list[str] = []
    try:
        items = iter_capture(path, warnings)
        header = next(items)
    except CaptureError as exc:
        raise ExportError(str(exc)) from None
    assert isinstance(header, dict)
    builder = SpanBuilder(session_key(header))
    ready: list[SpanRecord] = []

    def line(spans: list[SpanRecord]) -> bytes:
        return json.dumps(to_otlp_json(export_request(spans)), ensure_ascii=False, separators=(",", ":")).encode() \
            + b"\n"

    try:
        for item in items:
            if isinstance(item, Event):
                ready += builder.feed([item])
                if len(ready) >= SPANS_PER_LINE:
                    yield line(ready[:SPANS_PER_LINE])
                    del ready[:SPANS_PER_LINE]
    except CaptureError as exc:  # what could be read is exported; the reason is the last word
        raise ExportError(str(exc)) from None
    ready += builder.finish()
    for start in range(0, len(ready), SPANS_PER_LINE):
        yield line(ready[start:start + SPANS_PER_LINE])
