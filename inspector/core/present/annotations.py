"""What the detail pane says about a message beyond its text: its caching hints (2026-07-28 ``ttlMs`` and
``cacheScope``: :mod:`inspector.core.explore.caching`) and the trace context it carries in ``_meta``
(``traceparent``, ``tracestate``, ``baggage``: W3C Trace Context and Baggage, which 2026-07-28 carries in
``_meta`` of requests, results and notifications for OpenTelemetry). One sentence each, for messages small enough
to parse at once; no Qt.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.core.explore.caching import describe, hints_of
from inspector.core.wire.events import Event, Kind

#: Messages bigger than this are not parsed for annotations (the detail pane shows a preview of them).
ANNOTATE_BYTES = 256 * 1024
TRACE_KEYS = ("traceparent", "tracestate", "baggage")
#: version-traceid-parentid-flags (https://www.w3.org/TR/trace-context/#traceparent-header)
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")


def message_notes(event: Event) -> list[str]:
    """Sentences about ``event``'s caching hints and trace context (``[]``: nothing to say)."""
    if event.kind != Kind.MESSAGE or event.rpc is None or event.size > ANNOTATE_BYTES:
        return []
    if not any(key.encode() in event.raw for key in ("ttlMs", "cacheScope", *TRACE_KEYS)):
        return []
    try:
        obj = event.json()
    except ValueError:
        return []
    if not isinstance(obj, dict):
        return []
    lines = []
    hints = hints_of(obj.get("result"))
    if hints is not None:
        lines.append(f"cache: {describe(hints)}")
    for holder in (obj.get("params"), obj.get("result")):
        meta = holder.get("_meta") if isinstance(holder, dict) else None
        if isinstance(meta, dict):
            lines += trace_lines(meta)
    return lines


def trace_lines(meta: dict[str, Any]) -> list[str]:
    """The trace context of a ``_meta`` object, a line per key it has."""
    lines = []
    parent = meta.get("traceparent")
    if isinstance(parent, str):
        match = _TRACEPARENT.fullmatch(parent.strip())
        if match is None:
            lines.append(f"trace: traceparent {parent[:80]!r} is not version-traceid-parentid-flags")
        else:
            version, trace, span, flags = match.groups()
            sampled = "sampled" if int(flags, 16) & 1 else "not sampled"
            lines.append(f"trace: traceparent {parent.strip()} (trace {trace}, parent span {span}, {sampled}, "
                         f"version {version})")
    for key in ("tracestate", "baggage"):
        value = meta.get(key)
        if isinstance(value, str):
            lines.append(f"trace: {key} {value[:200]}")
    return lines
