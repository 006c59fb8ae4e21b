"""What the detail pane says about a message beyond its text: the trace context it carries in ``_meta``
(``traceparent``, ``tracestate``, ``baggage``: W3C Trace Context and Baggage, which 2026-07-28 carries in
``_meta`` of requests, results and notifications for OpenTelemetry), and what the features registered with
:func:`register` say of it (the Explorer's caching hints, 2026-07-28 ``ttlMs`` and ``cacheScope``:
:mod:`inspector.core.explore.caching`). One sentence each, for messages small enough to parse at once; no Qt.

Presentation sits below the features (docs/architecture.md): a feature that has something to say about a
message registers an :data:`Annotator` here, when its module is imported, instead of this module importing it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from inspector.core.wire.events import Event, Kind

#: Sentences about a parsed message (a JSON object), ``[]`` when there is nothing to say; ``keys`` are the
#: member names it looks for, so a message that carries none of them is not parsed at all.
Annotator = Callable[[dict[str, Any]], list[str]]
_ANNOTATORS: list[Annotator] = []
_KEYS: list[bytes] = []

#: Messages bigger than this are not parsed for annotations (the detail pane shows a preview of them).
ANNOTATE_BYTES = 256 * 1024
TRACE_KEYS = ("traceparent", "tracestate", "baggage")
#: version-traceid-parentid-flags (https://www.w3.org/TR/trace-context/#traceparent-header)
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")


def register(annotator: Annotator, keys: tuple[str, ...]) -> None:
    """Have :func:`message_notes` ask ``annotator`` about every message that carries one of ``keys`` (once per
    annotator: a module imported again registers nothing more)."""
    if annotator not in _ANNOTATORS:
        _ANNOTATORS.append(annotator)
        _KEYS.extend(key.encode() for key in keys)


def message_notes(event: Event) -> list[str]:
    """Sentences about ``event``: what the registered annotators say, then its trace context (``[]``: nothing)."""
    if event.kind != Kind.MESSAGE or event.rpc is None or event.size > ANNOTATE_BYTES:
        return []
    if not any(key in event.raw for key in (*_KEYS, *(key.encode() for key in TRACE_KEYS))):
        return []
    try:
        obj = event.json()
    except ValueError:
        return []
    if not isinstance(obj, dict):
        return []
    lines = [line for annotator in _ANNOTATORS for line in annotator(obj)]
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
